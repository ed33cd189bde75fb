"""JS216 consumer-filter-subject-invalid."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api

from ._common import empty_entry


class ConsumerFilterSubjectInvalid(api.ConsumerRule):
    """A consumer filter subject is not a valid subject, or filter_subjects holds an empty string.

    ## What it does
    Checks `filter_subject` and each `filter_subjects` entry: an empty entry in `filter_subjects`
    gives err_code 10139 ("consumer filter in FilterSubjects cannot be empty"); an invalid subject
    (empty token, `>` not last, whitespace) gives err_code 10052 ("invalid subject").

    ## Why is this bad?
    nats-server refuses to create the consumer.

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: shipper, stream: ORDERS}
    spec: {filter_subject: "orders..created"}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: shipper, stream: ORDERS}
    spec: {filter_subject: orders.created}
    ```

    ## Fix
    Unsafe: correct the subject (remove empty entries and empty tokens; `>` only as the last token).
    """

    code = "JS216"
    name = "consumer-filter-subject-invalid"
    severity = api.Severity.ERROR
    fix_availability = api.FixAvailability.ALWAYS

    def check_consumer(
        self, resource: api.ConsumerResource, cfg: api.ConsumerConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        single = cfg.filter_subject
        many = cfg.filter_subjects or ()
        if single and not api.is_valid_subject(single):
            yield self._bad(resource, ("filter_subject",), single)
            return
        for i, s in enumerate(many):
            if s == "":
                yield empty_entry(resource, "filter_subjects", i, api.ErrCode.CONSUMER_EMPTY_FILTER)
                return
        for i, s in enumerate(many):
            if not api.is_valid_subject(s):
                yield self._bad(resource, ("filter_subjects", i), s)
                return

    @staticmethod
    def _bad(resource: api.Resource, path: api.FieldPath, subject: str) -> api.Violation:
        where = path[0] if len(path) == 1 else f"{path[0]}[{path[1]}]"
        return api.Violation(
            resource,
            path,
            f"{where} {subject!r} is not a valid subject; nats-server rejects this consumer",
            server_error_code=api.ErrCode.STREAM_INVALID_CONFIG,
            fix=api.FixSuggestion.unsafe("use non-empty dot-separated tokens, no whitespace, '>' only last"),
        )


RULE = ConsumerFilterSubjectInvalid
