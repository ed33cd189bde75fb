"""JS205 consumer-flow-control-ack-policy-invalid."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api

from ._common import field_path


class ConsumerFlowControlAckPolicyInvalid(api.ConsumerRule):
    """A consumer with `ack_policy: flow_control` sets something that policy does not allow.

    ## What it does
    For `ack_policy: flow_control` (nats-server 2.14+) checks, in the server's order, that the
    consumer is a push consumer (err_code 10218), that `max_ack_pending` is positive (10220), that
    neither `ack_wait` nor `backoff` is set (10221) and that `max_deliver` is not set (10222).

    ## Why is this bad?
    nats-server refuses to create the consumer. Flow-control acks are driven by the flow-control
    messages of a push consumer: there are no redeliveries to time or count.

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: mirror-feed, stream: ORDERS}
    spec: {ack_policy: flow_control, deliver_subject: feed.orders, ack_wait: 30s}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: mirror-feed, stream: ORDERS}
    spec: {ack_policy: flow_control, deliver_subject: feed.orders}
    ```

    ## Fix
    Safe for `ack_wait`, `backoff` and `max_deliver`: remove them. A pull consumer or a
    non-positive `max_ack_pending` needs a decision: use `ack_policy: explicit`, or add a
    `deliver_subject` and a positive `max_ack_pending`.
    """

    code = "JS205"
    name = "consumer-flow-control-ack-policy-invalid"
    severity = api.Severity.ERROR
    fix_availability = api.FixAvailability.ALWAYS

    def check_consumer(
        self, resource: api.ConsumerResource, cfg: api.ConsumerConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        if cfg.ack_policy != "flow_control":
            return
        eff = ctx.effective(resource)
        if not eff.deliver_subject:
            yield api.Violation(
                resource,
                ("ack_policy",),
                "ack_policy flow_control needs a push consumer (deliver_subject); nats-server rejects this pull consumer",
                server_error_code=api.ErrCode.CONSUMER_ACK_FC_REQUIRES_PUSH,
                fix=api.FixSuggestion.unsafe("use ack_policy explicit, or set a deliver_subject"),
            )
            return
        pending = eff.max_ack_pending
        if pending <= 0:
            yield api.Violation(
                resource,
                field_path(resource, "max_ack_pending", "ack_policy"),
                f"ack_policy flow_control needs a positive max_ack_pending, got {pending}",
                server_error_code=api.ErrCode.CONSUMER_ACK_FC_REQUIRES_MAX_ACK_PENDING,
                fix=api.FixSuggestion.safe("remove max_ack_pending (the server default is 1000)"),
            )
            return
        if eff.backoff or eff.ack_wait != 0:
            yield api.Violation(
                resource,
                field_path(resource, "backoff", "ack_wait"),
                "ack_policy flow_control does not allow ack_wait or backoff; nats-server rejects this consumer",
                server_error_code=api.ErrCode.CONSUMER_ACK_FC_REQUIRES_NO_ACK_WAIT,
                fix=api.FixSuggestion.safe("remove ack_wait and backoff"),
            )
            return
        max_deliver = eff.max_deliver
        if max_deliver > 0:
            yield api.Violation(
                resource,
                ("max_deliver",),
                f"ack_policy flow_control does not allow max_deliver (got {max_deliver}); nats-server rejects this consumer",
                server_error_code=api.ErrCode.CONSUMER_ACK_FC_REQUIRES_NO_MAX_DELIVER,
                fix=api.FixSuggestion.safe("remove max_deliver"),
            )


RULE = ConsumerFlowControlAckPolicyInvalid
