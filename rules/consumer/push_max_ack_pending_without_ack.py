"""JS210 consumer-push-max-ack-pending-without-ack."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api


class ConsumerPushMaxAckPendingWithoutAck(api.ConsumerRule):
    """A push consumer with `ack_policy: none` has a max_ack_pending, possibly inherited.

    ## What it does
    Reports a push consumer (`deliver_subject` set) with `ack_policy: none` whose effective
    `max_ack_pending` is positive. The value need not be written on the consumer: an unset
    `max_ack_pending` is inherited from the stream's `consumer_limits.max_ack_pending`, even for
    ack-none consumers. (In the NATS API JSON dialect an omitted `ack_policy` means `none`.)

    ## Why is this bad?
    nats-server refuses to create the consumer (err_code 10082, "consumer requires ack policy for
    max ack pending"). On a stream with `consumer_limits.max_ack_pending`, no ack-none push consumer
    can be created at all.

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS}
    spec: {subjects: ["orders.>"], consumer_limits: {max_ack_pending: 500}}
    ---
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: audit, stream: ORDERS}
    spec: {deliver_subject: deliver.audit, ack_policy: none}
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
    metadata: {name: audit, stream: ORDERS}
    spec: {deliver_subject: deliver.audit, ack_policy: explicit}
    ```

    ## Fix
    Unsafe: use `ack_policy: explicit` (the application must then ack), or, when the value is
    written on the consumer and the stream sets no limit, remove `max_ack_pending`.
    """

    code = "JS210"
    name = "consumer-push-max-ack-pending-without-ack"
    severity = api.Severity.ERROR
    fix_availability = api.FixAvailability.ALWAYS

    def check_consumer(
        self, resource: api.ConsumerResource, cfg: api.ConsumerConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        if not cfg.deliver_subject:
            return
        eff = ctx.effective(resource)
        pending = eff.max_ack_pending
        if eff.ack_policy != "none" or pending <= 0:
            return
        written = cfg.max_ack_pending is not None
        origin = "" if written else " (inherited from the stream's consumer_limits)"
        yield api.Violation(
            resource,
            ("max_ack_pending",) if written else ("ack_policy",),
            f"max_ack_pending {pending}{origin} needs an ack policy, but ack_policy is none; nats-server rejects this consumer",
            server_error_code=api.ErrCode.CONSUMER_MAX_PENDING_ACK_POLICY_REQUIRED,
            fix=api.FixSuggestion.unsafe(
                "set ack_policy to explicit" if not written else "remove max_ack_pending or set ack_policy to explicit"
            ),
        )


RULE = ConsumerPushMaxAckPendingWithoutAck
