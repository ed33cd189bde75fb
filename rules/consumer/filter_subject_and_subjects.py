"""JS215 consumer-filter-subject-and-subjects."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api


class ConsumerFilterSubjectAndSubjects(api.ConsumerRule):
    """A consumer sets both filter_subject and filter_subjects.

    ## What it does
    Reports a consumer with a non-empty `filter_subject` and a non-empty `filter_subjects` list.

    ## Why is this bad?
    nats-server refuses to create the consumer (err_code 10136, "consumer cannot have both
    FilterSubject and FilterSubjects specified"): one of the two was probably meant to replace the
    other.

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: shipper, stream: ORDERS}
    spec: {filter_subject: orders.created, filter_subjects: [orders.paid]}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: shipper, stream: ORDERS}
    spec: {filter_subjects: [orders.created, orders.paid]}
    ```

    ## Fix
    Safe: move `filter_subject` into `filter_subjects`.
    """

    code = "JS215"
    name = "consumer-filter-subject-and-subjects"
    severity = api.Severity.ERROR
    fix_availability = api.FixAvailability.ALWAYS

    def check_consumer(
        self, resource: api.ConsumerResource, cfg: api.ConsumerConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        if cfg.filter_subject and cfg.filter_subjects:
            yield api.Violation(
                resource,
                ("filter_subject",),
                "filter_subject and filter_subjects are both set; nats-server rejects this consumer",
                server_error_code=api.ErrCode.CONSUMER_DUPLICATE_FILTER_SUBJECTS,
                fix=api.FixSuggestion.safe("move filter_subject into filter_subjects"),
            )


RULE = ConsumerFilterSubjectAndSubjects
