"""JS227 consumer-pedantic-rejected."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api

from ._common import parent_consumer_limits

# (field, lowest value the server keeps): below it the server normalises, pedantic refuses
_FLOORS = (
    ("max_deliver", -1),
    ("max_waiting", 0),
    ("max_ack_pending", -1),
    ("max_batch", 0),
    ("max_expires", 0),
    ("max_bytes", 0),
    ("idle_heartbeat", 0),
    ("inactive_threshold", 0),
    ("priority_timeout", 0),
)


class ConsumerPedanticRejected(api.ConsumerRule):
    """A consumer that nats-server would quietly adjust, created with pedantic requests.

    ## What it does
    Only when the target says the estate is applied with pedantic create requests
    (`pedantic: true`), flags what the server then refuses instead of adjusting: `max_deliver` or
    `max_ack_pending` below -1; a negative `max_waiting`, `max_batch`, `max_expires`, `max_bytes`,
    `idle_heartbeat`, `inactive_threshold` or `priority_timeout`; a `backoff` whose first value
    differs from `ack_wait` (30s when omitted with explicit or all acks); an omitted
    `max_ack_pending` or `inactive_threshold` while the stream's `consumer_limits` sets it; a pull
    consumer without `max_batch` while the target's `limits.max_request_batch` is set; and, for
    `ack_policy: flow_control` on a push consumer, `flow_control` not true or `idle_heartbeat` not
    1s. Silent when the target does not say pedantic. The examples assume the target
    `{pedantic: true}`.

    ## Why is this bad?
    With pedantic requests nats-server refuses to create or update the consumer: err_code 10157
    ("pedantic mode: ..."), except the flow-control ack policy conditions: err_code 10219 ("flow
    control ack policy requires flow control") and 10052 ("flow control ack policy heartbeat
    needs to be 1s").

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: shipper, stream: ORDERS}
    spec: {max_deliver: 3, backoff: [1s, 10s]}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: shipper, stream: ORDERS}
    spec: {max_deliver: 3, ack_wait: 1s, backoff: [1s, 10s]}
    ```

    ## Fix
    Write the values the server would otherwise choose: -1 or 0 instead of lower values,
    `ack_wait` equal to `backoff[0]`, the stream's consumer limits and the server's request batch
    limit explicitly, and `flow_control: true` with `idle_heartbeat: 1s` for flow-control acks.
    """

    code = "JS227"
    name = "consumer-pedantic-rejected"
    severity = api.Severity.ERROR
    example_target = {"pedantic": True}

    def check_consumer(
        self, resource: api.ConsumerResource, cfg: api.ConsumerConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        t = ctx.target
        if t.pedantic is not True or ctx.release < api.PEDANTIC_SINCE:
            return  # 2.10 does not read pedantic
        c = cfg
        for fld, floor in _FLOORS:
            v = getattr(c, fld)
            if v is not None and v < floor:
                yield ctx.pedantic_refusal(
                    resource, (fld,), f"{fld} {v} is below {floor}", api.ErrCode.PEDANTIC, about=f"{fld}:negative"
                )
        ack = c.ack_policy or "none"
        if c.backoff:
            ack_wait = c.ack_wait or (api.CONSUMER_DEFAULT_ACK_WAIT if ack in ("explicit", "all") else 0)
            if ack_wait != c.backoff[0]:
                yield ctx.pedantic_refusal(
                    resource,
                    ("ack_wait",) if c.ack_wait is not None else ("backoff",),
                    f"ack_wait {api.format_duration(ack_wait)} differs from "
                    f"backoff[0] {api.format_duration(c.backoff[0])}",
                    api.ErrCode.PEDANTIC,
                )
        push = bool(c.deliver_subject)
        if not push and not c.max_batch and (t.limits.max_request_batch or 0) > 0:
            yield ctx.pedantic_refusal(
                resource,
                ("max_batch",),
                "max_batch is omitted while the server sets limits.max_request_batch",
                api.ErrCode.PEDANTIC,
            )
        if ack == "flow_control" and push:
            if not c.flow_control:
                yield ctx.pedantic_refusal(
                    resource,
                    ("flow_control",),
                    "ack_policy flow_control without flow_control: true",
                    api.ErrCode.CONSUMER_ACK_FC_REQUIRES_FC,
                )
            if c.idle_heartbeat != api.FLOW_CONTROL_HEARTBEAT:
                yield ctx.pedantic_refusal(
                    resource,
                    ("idle_heartbeat",),
                    "ack_policy flow_control without idle_heartbeat: 1s",
                    api.ErrCode.STREAM_INVALID_CONFIG,
                )
        if c.max_ack_pending and c.inactive_threshold:
            return  # the stream's consumer limits cannot matter: not read (its stream may be unknown)
        limits = parent_consumer_limits(resource, ctx)
        if not c.max_ack_pending and limits.max_ack_pending:
            yield ctx.pedantic_refusal(
                resource,
                ("max_ack_pending",),
                "max_ack_pending is omitted while the stream's consumer_limits sets it",
                api.ErrCode.PEDANTIC,
            )
        if not c.inactive_threshold and limits.inactive_threshold:
            yield ctx.pedantic_refusal(
                resource,
                ("inactive_threshold",),
                "inactive_threshold is omitted while the stream's consumer_limits sets it",
                api.ErrCode.PEDANTIC,
            )


RULE = ConsumerPedanticRejected
