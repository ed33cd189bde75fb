"""JS204 consumer-ack-wait-negative."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api


class ConsumerAckWaitNegative(api.ConsumerRule):
    """A consumer's ack_wait or one of its backoff durations is negative.

    ## What it does
    Checks every `backoff` entry and the effective `ack_wait` (which is `backoff[0]` when a backoff
    is set) for a negative duration.

    ## Why is this bad?
    nats-server refuses to create the consumer: err_code 10184 ("consumer backoff needs to be
    positive") or 10183 ("consumer ack wait needs to be positive").

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: shipper, stream: ORDERS}
    spec: {ack_wait: -30s}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: shipper, stream: ORDERS}
    spec: {ack_wait: 30s}
    ```

    ## Fix
    Unsafe: write the duration without its minus sign (a typo, most likely), or remove it to get the
    server's default (30s for `ack_wait`).
    """

    code = "JS204"
    name = "consumer-ack-wait-negative"
    severity = api.Severity.ERROR
    fix_availability = api.FixAvailability.ALWAYS

    def check_consumer(
        self, resource: api.ConsumerResource, cfg: api.ConsumerConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        backoff = cfg.backoff
        if backoff and min(backoff) >= 0:
            return  # the server replaces ack_wait with backoff[0]
        for i, value in enumerate(backoff or ()):
            if value < 0:
                yield ctx.refusal(
                    resource,
                    ("backoff", i),
                    f"backoff[{i}] is negative ({api.format_duration(value)}); nats-server rejects this consumer",
                    api.ErrCode.CONSUMER_BACK_OFF_NEGATIVE,
                    fix=api.FixSuggestion.unsafe(f"set backoff[{i}] to {api.format_duration(-value)}"),
                )
                return
        ack_wait = cfg.ack_wait or 0
        if ack_wait < 0:
            yield ctx.refusal(
                resource,
                ("ack_wait",),
                f"ack_wait is negative ({api.format_duration(ack_wait)}); nats-server rejects this consumer",
                api.ErrCode.CONSUMER_ACK_WAIT_NEGATIVE,
                fix=api.FixSuggestion.unsafe(f"set ack_wait to {api.format_duration(-ack_wait)}"),
            )


RULE = ConsumerAckWaitNegative
