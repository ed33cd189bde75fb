"""JS230 consumer-filter-matches-no-subject."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api

from ._common import parent_effective


class ConsumerFilterMatchesNoSubject(api.ConsumerRule):
    """A consumer's filter_subject (or an entry of filter_subjects) matches no subject its stream stores.

    ## What it does
    Compares each filter with the stream's subjects (the stream's name when it lists none) and
    reports a filter that no subject of the stream can match (`invoices.>` on a stream of
    `orders.>`). A stream that mirrors or sources, or transforms its subjects, stores subjects that
    come from elsewhere: its consumers are not checked. A consumer config whose stream is unknown
    (a bare natscli file) cannot be checked: JS024 names this check as skipped.

    ## Why is this bad?
    nats-server accepts the consumer (every supported release does), and it never receives a
    message: its pending count stays at zero and nothing says why. Most often a typo, or a filter
    written for another stream.

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: shipper, stream: ORDERS}
    spec: {filter_subject: "order.shipped"}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: shipper, stream: ORDERS}
    spec: {filter_subject: "orders.shipped"}
    ```

    ## Fix
    None: correct the filter, or add the subject to the stream.
    """

    code = "JS230"
    name = "consumer-filter-matches-no-subject"
    severity = api.Severity.WARNING
    fix_availability = api.FixAvailability.NONE

    def check_consumer(
        self, resource: api.ConsumerResource, cfg: api.ConsumerConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        filters: list[api.FieldPath] = (
            [("filter_subject",)]
            if cfg.filter_subject
            else [("filter_subjects", i) for i in range(len(cfg.filter_subjects or ()))]
        )
        values = [cfg.filter_subject] if cfg.filter_subject else list(cfg.filter_subjects or ())
        if not values or not all(v and api.is_valid_subject(v) for v in values):
            return  # no filter, or one JS215/JS216 reports
        stream = parent_effective(resource, ctx)
        if stream is None or stream.mirror is not None or stream.sources or stream.subject_transform is not None:
            return  # not declared (JS006), or its subjects come from elsewhere
        subjects = [s for s in stream.subjects if api.is_valid_subject(s)]
        if not subjects:
            return
        dead = [
            (path, v)
            for path, v in zip(filters, values, strict=True)
            if not any(api.subjects_collide(v, s) for s in subjects)
        ]
        shown = ", ".join(subjects[:5]) + (f" and {len(subjects) - 5} more" if len(subjects) > 5 else "")
        for path, v in dead:
            where = path[0] if len(path) == 1 else f"{path[0]}[{path[1]}]"
            what = (
                "the server accepts the consumer and it never receives a message"
                if len(dead) == len(values)
                else "this filter selects nothing (the others still do)"
            )
            yield api.Violation(
                resource, path, f"{where} {v!r} matches no subject of stream {resource.stream!r} ({shown}): {what}"
            )


RULE = ConsumerFilterMatchesNoSubject
