"""JS406 ops-max-deliver-without-dead-letter."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api

from ._common import acks, advisory_subject


def _advisory_index(ctx: api.RuleContext) -> dict[str, api.SubjectIndex[api.Resource]]:
    """Per context, the stream subjects that could capture ``$JS.EVENT.ADVISORY...`` subjects."""

    def build() -> dict[str, api.SubjectIndex[api.Resource]]:
        out: dict[str, api.SubjectIndex[api.Resource]] = {}
        for r in ctx.estate.resources:
            if r.kind != "Stream":
                continue
            for subject in api.stream_config(r).subjects or ():
                if subject.split(".", 1)[0] in ("$JS", "*", ">"):
                    out.setdefault(r.context, api.SubjectIndex()).add(subject, r)
        return out

    return ctx.cached("ops_advisory_index", build)


class OpsMaxDeliverWithoutDeadLetter(api.ConsumerRule):
    """A consumer with max_deliver has no dead-letter path for the messages it gives up on.

    ## What it does
    For a consumer that acks (`explicit` or `all`) and sets `max_deliver`, looks for a stream in
    the estate (same context) whose subjects capture its advisory subject
    `$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.<stream>.<consumer>` (for example
    `$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.>`, or a subset naming this stream or consumer).
    Subjects are matched in a subject trie, so the check is linear in the estate. The annotation
    `jsops.io/dead-letter: <handler>` on the consumer, or on its stream for all of its consumers,
    says that something outside the estate handles them (a service subscribed to the advisory, a
    stream in another account) and silences the rule.

    ## Why is this bad?
    When a message reaches `max_deliver`, the consumer stops delivering it and moves on (on a
    workqueue stream the message even stays stored, unacknowledged). The only trace is the
    advisory, and nats-server publishes advisories only when something listens at that moment:
    without a stream capturing them, a message that failed for good disappears silently.

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: fraud-check, stream: ORDERS}
    spec: {ack_wait: 30s, max_deliver: 3}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: fraud-check, stream: ORDERS}
    spec: {ack_wait: 30s, max_deliver: 3}
    ---
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: DLQ}
    spec: {subjects: ["$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.>"], max_age: 30d}
    ```

    Severity info: JS405 (a warning) asks for `max_deliver`; following it must leave the consumer
    without a new warning, so a minimal consumer with `max_deliver` lints clean at the default
    `--fail-on error` and shows no warning. Raise it to a warning in the config (`severity: {JS406: warning}`)
    where every estate must have a dead-letter path.

    ## Fix
    Unsafe: add a stream that captures `$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.>` (a dead-letter
    queue: the advisory names the stream sequence, so a triage tool can fetch the original message
    while the source stream keeps it), or annotate the consumer with `jsops.io/dead-letter` naming
    the handler that subscribes to the advisory.
    """

    code = "JS406"
    name = "ops-max-deliver-without-dead-letter"
    # info, not warning: setting max_deliver as JS405 asks must not raise a new warning whose only
    # way out is a dead-letter stream; where the advisories go is a design choice to be told about
    severity = api.Severity.INFO
    fix_availability = api.FixAvailability.ALWAYS

    class Options(api.RuleOptions):
        pass

    def check_consumer(
        self, resource: api.ConsumerResource, cfg: api.ConsumerConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        if cfg.direct or cfg.sourcing:
            return
        eff = ctx.effective(resource)
        max_deliver = eff.max_deliver
        if not acks(eff) or max_deliver <= 0:
            return
        if resource.annotations.get(api.DEAD_LETTER, "").strip():
            return
        parent = ctx.stream_of(resource)
        if parent is not None and parent.annotations.get(api.DEAD_LETTER, "").strip():
            return
        subject = advisory_subject(resource)
        index = _advisory_index(ctx).get(resource.context)
        if index is not None and next(iter(index.colliding(subject)), None) is not None:
            return
        yield api.Violation(
            resource,
            ("max_deliver",),
            f"max_deliver {max_deliver} has no dead-letter path: no stream in the estate captures {subject} "
            f"and the consumer has no {api.DEAD_LETTER} annotation, so messages it gives up on vanish without a trace",
            fix=api.FixSuggestion.unsafe(
                "add a stream capturing $JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.> or annotate the handler"
            ),
        )


RULE = OpsMaxDeliverWithoutDeadLetter
