"""JS441 ops-stream-interest-without-consumer."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api

from ._common import sourced_origins


class OpsStreamInterestWithoutConsumer(api.Rule):
    """An interest stream has no consumer anywhere in the estate.

    ## What it does
    Flags a stream with `retention: interest` when no consumer manifest of the estate (same
    context) names it and no other stream of the estate mirrors or sources it (a mirror or
    source reads through a consumer the server creates on the origin). Consumers that
    applications create at run time are invisible to the linter; suppress the finding for such
    a stream, with the reason.

    ## Why is this bad?
    An interest stream keeps a message only while some consumer still has to acknowledge it.
    With no consumer, the server accepts each publish and drops the message at once: publishers
    get a positive ack for data nobody will ever read. Consumers must exist before publishing
    starts; messages published earlier are gone.

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: SHIPPING}
    spec: {subjects: ["shipping.>"], retention: interest, max_age: 14d}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: SHIPPING}
    spec: {subjects: ["shipping.>"], retention: interest, max_age: 14d}
    ---
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: label-printer, stream: SHIPPING}
    spec: {ack_policy: explicit, filter_subject: shipping.label.requested}
    ```

    ## Fix
    No automatic fix. Commit the consumers that read the stream next to it, use `limits`
    retention if the data must wait for readers that come later, or suppress the finding when
    the consumers are created by the applications.
    """

    code = "JS441"
    name = "ops-stream-interest-without-consumer"
    severity = api.Severity.WARNING
    fix_availability = api.FixAvailability.ALWAYS
    kinds = frozenset({"Stream"})
    estate_wide = True

    def check_estate(self, ctx: api.RuleContext) -> Iterator[api.Violation]:
        consumers = None
        origins = None
        for r in ctx.estate.resources:
            if r.kind != "Stream" or getattr(r.config, "retention", None) != "interest":
                continue
            if ctx.effective_stream(r).retention != "interest":
                continue
            if consumers is None:
                consumers = ctx.consumers_by_stream()
                origins = sourced_origins(ctx)
            if consumers.get((r.context, r.name)) or (r.context, r.name) in (origins or ()):
                continue
            yield api.Violation(
                r,
                ("retention",),
                f"interest stream {r.name} has no consumer in the estate: every message published to it is dropped at once",
                fix=api.FixSuggestion.unsafe("commit its consumers, or use limits retention"),
            )


RULE = OpsStreamInterestWithoutConsumer
