"""JS325 rewrite-consumer-ack-wait-backoff."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api


class RewriteConsumerAckWaitBackoff(api.ConsumerRule):
    """A consumer sets both ack_wait and backoff, and ack_wait is not backoff[0].

    ## What it does
    Flags a consumer whose `ack_wait` differs from the first `backoff` value, and shows the
    effective value: nats-server replaces `ack_wait` with `backoff[0]`.

    ## Why is this bad?
    The first redelivery happens after `backoff[0]`, not after the `ack_wait` the manifest shows,
    and the stored config differs from the manifest, which reads as drift. In pedantic mode the
    server refuses the consumer instead (err_code 10157).

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: worker, stream: ORDERS}
    spec: {ack_wait: 30s, backoff: [5s, 1m], max_deliver: 5}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: worker, stream: ORDERS}
    spec: {ack_wait: 5s, backoff: [5s, 1m], max_deliver: 5}
    ```

    ## Fix
    Safe: set `ack_wait` to `backoff[0]`, or leave it out.
    """

    code = "JS325"
    name = "rewrite-consumer-ack-wait-backoff"
    severity = api.Severity.WARNING
    fix_availability = api.FixAvailability.ALWAYS

    def check_consumer(
        self, resource: api.ConsumerResource, c: api.ConsumerConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        if not c.backoff or c.ack_wait is None or c.ack_wait == c.backoff[0]:
            return
        if c.ack_policy == "flow_control":
            return  # refused: flow-control acks take no ack_wait or backoff (JS205)
        first = api.format_duration(c.backoff[0])
        yield api.Violation(
            resource,
            ("ack_wait",),
            f"ack_wait {api.format_duration(c.ack_wait)} is replaced by backoff[0]: "
            f"nats-server stores ack_wait: {first}",
            fix=api.FixSuggestion.safe(f"set ack_wait to {first}"),
        )


RULE = RewriteConsumerAckWaitBackoff
