"""JS408 ops-workqueue-discard-new-aggressive-consumer."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api

from ._common import acks


class OpsWorkqueueDiscardNewAggressiveConsumer(api.ConsumerRule):
    """A consumer of a bounded workqueue stream with discard new gives up on messages quickly.

    ## What it does
    For a consumer that acks, on a stream with `retention: workqueue`, `discard: new` and a
    size or count limit (`max_msgs`, `max_bytes` or `max_msgs_per_subject`), flags an effective
    ack wait (`backoff[0]` when backoff is set) below `min_ack_wait` (default 30s) or a
    `max_deliver` below `min_max_deliver` (default 10). These are the thresholds of Synadia
    Insights' OPT_SYS_024. The stream and the consumer may be in different files (the engine sees
    the whole estate). Consumers with unlimited `max_deliver` are JS405's business.

    ## Why is this bad?
    A workqueue removes a message only when it is acknowledged. A message whose deliveries run
    out stays stored, unacknowledged and never delivered again; with a short ack wait or few
    deliveries, a slow dependency turns many messages into such dead weight quickly. Once the
    limit is reached, `discard: new` makes the stream refuse every new publish: publishers that do
    not check the error lose data silently, and the others stall.

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: PAYMENTS}
    spec: {subjects: ["payments.>"], retention: workqueue, discard: new, max_msgs: 1000000}
    ---
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: gateway, stream: PAYMENTS}
    spec: {ack_wait: 45s, max_deliver: 4}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: PAYMENTS}
    spec: {subjects: ["payments.>"], retention: workqueue, discard: new, max_msgs: 1000000}
    ---
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: gateway, stream: PAYMENTS}
    spec: {ack_wait: 45s, max_deliver: 10}
    ```

    ## Fix
    Unsafe: raise `ack_wait` to 30s or more and `max_deliver` to 10 or more, or use `discard: old`
    if dropping the oldest work is acceptable; either way, capture the max-deliveries advisory
    (JS406) and remove or replay the dead messages.
    """

    code = "JS408"
    name = "ops-workqueue-discard-new-aggressive-consumer"
    severity = api.Severity.WARNING
    fix_availability = api.FixAvailability.ALWAYS

    class Options(api.RuleOptions):
        min_ack_wait: api.Duration = api.option(
            default="30s", validate_default=True, description="ack waits below this are aggressive"
        )
        min_max_deliver: int = api.option(default=10, ge=1, description="max_deliver below this is aggressive")

    def check_consumer(
        self, resource: api.ConsumerResource, cfg: api.ConsumerConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        parent = ctx.stream_of(resource)
        if parent is None:
            return
        s = api.stream_config(parent)
        if s.retention != "workqueue" or s.discard != "new":
            return
        if not any((v or 0) > 0 for v in (s.max_msgs, s.max_bytes, s.max_msgs_per_subject)):
            return  # nothing ever fills: discard new never refuses
        eff = ctx.effective(resource)
        if not acks(eff):
            return
        problems: list[str] = []
        remedies: list[str] = []
        path: tuple[str | int, ...] = ()
        wait = eff.ack_wait
        if 0 < wait < self.options.min_ack_wait:
            what = "backoff[0]" if cfg.backoff else "ack_wait"
            problems.append(
                f"{what} {api.approx_duration(wait)} is below {api.approx_duration(self.options.min_ack_wait)}"
            )
            remedies.append(f"raise {what} to {api.approx_duration(self.options.min_ack_wait)} or more")
            path = ("backoff", 0) if what == "backoff[0]" else ("ack_wait",)
        max_deliver = eff.max_deliver
        if 0 < max_deliver < self.options.min_max_deliver:
            problems.append(f"max_deliver {max_deliver} is below {self.options.min_max_deliver}")
            remedies.append(f"raise max_deliver to {self.options.min_max_deliver} or more")
            path = path or ("max_deliver",)
        if not problems:
            return
        yield api.Violation(
            resource,
            path,
            f"{' and '.join(problems)} on workqueue stream {parent.name} with discard new: messages that run out of "
            "deliveries stay stored until the stream is full, then every new publish is refused",
            fix=api.FixSuggestion.unsafe(f"{' and '.join(remedies)}, or use discard old"),
        )


RULE = OpsWorkqueueDiscardNewAggressiveConsumer
