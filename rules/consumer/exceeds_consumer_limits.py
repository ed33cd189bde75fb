"""JS225 consumer-exceeds-consumer-limits."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api

from ._common import parent_consumer_limits


class ConsumerExceedsConsumerLimits(api.ConsumerRule):
    """A consumer's max_ack_pending or inactive_threshold is above its stream's consumer_limits.

    ## What it does
    Compares the consumer's effective `max_ack_pending` with the server's and the account's
    `max_ack_pending` limits (when the target declares them) and with the stream's
    `consumer_limits.max_ack_pending` (err_code 10121, "consumer max ack pending exceeds system
    limit of ..."), and its `inactive_threshold` with the stream's
    `consumer_limits.inactive_threshold` (err_code 10153, "consumer inactive threshold exceeds
    system limit of ...").

    ## Why is this bad?
    nats-server refuses to create the consumer. Leaving the value out is accepted: the consumer then
    inherits the limit.

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS}
    spec: {subjects: ["orders.>"], consumer_limits: {max_ack_pending: 500}}
    ---
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: shipper, stream: ORDERS}
    spec: {max_ack_pending: 1000}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS}
    spec: {subjects: ["orders.>"], consumer_limits: {max_ack_pending: 500}}
    ---
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: shipper, stream: ORDERS}
    spec: {max_ack_pending: 500}
    ```

    ## Fix
    Safe: lower the value to the limit (or remove it to inherit the limit).
    """

    code = "JS225"
    name = "consumer-exceeds-consumer-limits"
    severity = api.Severity.ERROR
    fix_availability = api.FixAvailability.ALWAYS

    def check_consumer(
        self, resource: api.ConsumerResource, cfg: api.ConsumerConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        if cfg.max_ack_pending is None and cfg.inactive_threshold is None:
            return  # inherited or defaulted values are within every limit
        server_limit = ctx.target.limits.max_ack_pending or 0
        account_limit = ctx.target.account.max_ack_pending or 0
        if cfg.max_ack_pending is not None and (server_limit or account_limit):
            # The server's and the account's limits first: they need no stream.
            pending = ctx.effective(resource).max_ack_pending
            for limit, what in ((server_limit, "the server's"), (account_limit, "the account's")):
                if limit > 0 and pending > limit:
                    yield self._pending(resource, pending, limit, what)
                    return
        limits = parent_consumer_limits(resource, ctx)
        if not limits.max_ack_pending and not limits.inactive_threshold:
            return
        eff = ctx.effective(resource)
        if (
            cfg.max_ack_pending is not None
            and limits.max_ack_pending > 0
            and eff.max_ack_pending > limits.max_ack_pending
        ):
            yield self._pending(resource, eff.max_ack_pending, limits.max_ack_pending, "the stream's consumer_limits")
            return
        limit = limits.inactive_threshold
        inactive = eff.inactive_threshold
        if cfg.inactive_threshold is not None and limit > 0 and inactive > limit:
            yield api.Violation(
                resource,
                ("inactive_threshold",),
                f"inactive_threshold {api.format_duration(inactive)} exceeds the stream's consumer_limits inactive_threshold of {api.format_duration(limit)}",
                server_error_code=api.ErrCode.CONSUMER_INACTIVE_THRESHOLD_EXCESS,
                fix=api.FixSuggestion.safe(f"set inactive_threshold to {api.format_duration(limit)}"),
            )

    @staticmethod
    def _pending(resource: api.ConsumerResource, pending: int, limit: int, what: str) -> api.Violation:
        return api.Violation(
            resource,
            ("max_ack_pending",),
            f"max_ack_pending {pending} exceeds {what} max_ack_pending of {limit}; nats-server rejects this consumer",
            server_error_code=api.ErrCode.CONSUMER_MAX_PENDING_ACK_EXCESS,
            fix=api.FixSuggestion.safe(f"set max_ack_pending to {limit}"),
        )


RULE = ConsumerExceedsConsumerLimits
