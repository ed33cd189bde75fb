"""JS217 consumer-filter-subjects-overlap."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api


class ConsumerFilterSubjectsOverlap(api.ConsumerRule):
    """Two of a consumer's filter_subjects overlap: one is contained in the other.

    ## What it does
    Compares the entries of `filter_subjects` pairwise, as the server does, and reports an entry
    whose subjects are all matched by another entry (`orders.created` under `orders.>`, or the same
    subject twice). For a target of 2.10 or 2.11, which refuse any two filters a subject can match
    (`orders.*.eu` and `orders.new.*`), those too.

    ## Why is this bad?
    nats-server refuses to create the consumer (err_code 10138, "consumer subject filters cannot
    overlap").

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: shipper, stream: ORDERS}
    spec: {filter_subjects: ["orders.>", orders.created]}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: shipper, stream: ORDERS}
    spec: {filter_subjects: ["orders.>"]}
    ```

    ## Fix
    Safe: remove the contained entry; the wider filter already selects its messages.
    """

    code = "JS217"
    name = "consumer-filter-subjects-overlap"
    severity = api.Severity.ERROR
    fix_availability = api.FixAvailability.ALWAYS

    def check_consumer(
        self, resource: api.ConsumerResource, cfg: api.ConsumerConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        many = cfg.filter_subjects
        if not many or len(many) < 2 or cfg.filter_subject:
            return
        if not all(s and api.is_valid_subject(s) for s in many):
            return  # JS216 reports these first
        for i, s in enumerate(many):
            for j, t in enumerate(many):
                if i != j and api.is_subset_match(s, t):
                    yield api.Violation(
                        resource,
                        ("filter_subjects", i),
                        f"filter_subjects[{i}] {s!r} is contained in filter_subjects[{j}] {t!r}; nats-server rejects overlapping filters",
                        server_error_code=api.ErrCode.CONSUMER_OVERLAPPING_SUBJECT_FILTERS,
                        fix=api.FixSuggestion.safe(f"remove filter_subjects[{i}]"),
                    )
                    return
        if ctx.release >= api.FILTER_OVERLAP_SUBSET_SINCE:
            return
        # 2.10 and 2.11 also refuse two filters that collide without one containing the other
        for i, s in enumerate(many):
            for j, t in enumerate(many):
                if i != j and api.subjects_collide(s, t):
                    yield api.Violation(
                        resource,
                        ("filter_subjects", i),
                        f"filter_subjects[{i}] {s!r} overlaps filter_subjects[{j}] {t!r} (a subject matches both); nats-server rejects overlapping filters",
                        server_error_code=api.ErrCode.CONSUMER_OVERLAPPING_SUBJECT_FILTERS,
                        fix=api.FixSuggestion.unsafe(
                            f"narrow filter_subjects[{i}] or filter_subjects[{j}] so that no subject matches both"
                        ),
                    )
                    return


RULE = ConsumerFilterSubjectsOverlap
