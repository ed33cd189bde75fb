"""JS206 consumer-backoff-exceeds-max-deliver."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api


class ConsumerBackoffExceedsMaxDeliver(api.ConsumerRule):
    """A consumer has more backoff steps than deliveries.

    ## What it does
    Compares the number of `backoff` durations with `max_deliver` when `max_deliver` is limited
    (not -1 or unset). As many steps as deliveries is fine.

    ## Why is this bad?
    nats-server refuses to create the consumer (err_code 10116, "max deliver is required to be >
    length of backoff values"): the steps past the last delivery could never be used.

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: shipper, stream: ORDERS}
    spec: {max_deliver: 2, backoff: [5s, 30s, 2m]}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: shipper, stream: ORDERS}
    spec: {max_deliver: 3, backoff: [5s, 30s, 2m]}
    ```

    ## Fix
    Safe: raise `max_deliver` to the number of backoff steps (or drop the extra steps).
    """

    code = "JS206"
    name = "consumer-backoff-exceeds-max-deliver"
    severity = api.Severity.ERROR
    fix_availability = api.FixAvailability.ALWAYS

    def check_consumer(
        self, resource: api.ConsumerResource, cfg: api.ConsumerConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        backoff = cfg.backoff
        if not backoff:
            return
        max_deliver = cfg.max_deliver or 0
        if max_deliver > 0 and len(backoff) > max_deliver:  # 0 and < -1 mean -1 (unlimited)
            yield api.Violation(
                resource,
                ("max_deliver",),
                f"backoff has {len(backoff)} steps but max_deliver is {max_deliver}; nats-server rejects this consumer",
                server_error_code=api.ErrCode.CONSUMER_MAX_DELIVER_BACKOFF,
                fix=api.FixSuggestion.safe(f"set max_deliver to {len(backoff)}"),
            )


RULE = ConsumerBackoffExceedsMaxDeliver
