"""JS220 consumer-flow-control-without-heartbeat."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api


class ConsumerFlowControlWithoutHeartbeat(api.ConsumerRule):
    """A push consumer enables flow_control without an idle_heartbeat.

    ## What it does
    Reports a push consumer with `flow_control: true` and no positive `idle_heartbeat`.
    (`ack_policy: flow_control` sets a 1s heartbeat itself and is not reported.)

    ## Why is this bad?
    nats-server refuses to create the consumer (err_code 10108, "consumer with flow control also
    needs heartbeats"): a stalled flow-control exchange is only noticed through heartbeats.

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: audit, stream: ORDERS}
    spec: {deliver_subject: deliver.audit, flow_control: true}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: audit, stream: ORDERS}
    spec: {deliver_subject: deliver.audit, flow_control: true, idle_heartbeat: 5s}
    ```

    ## Fix
    Safe: add `idle_heartbeat: 5s`.
    """

    code = "JS220"
    name = "consumer-flow-control-without-heartbeat"
    severity = api.Severity.ERROR
    fix_availability = api.FixAvailability.ALWAYS

    def check_consumer(
        self, resource: api.ConsumerResource, cfg: api.ConsumerConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        if not cfg.flow_control or not cfg.deliver_subject:
            return
        eff = ctx.effective(resource)
        if eff.idle_heartbeat > 0:
            return
        yield api.Violation(
            resource,
            ("flow_control",),
            "flow_control needs an idle_heartbeat; nats-server rejects this consumer",
            server_error_code=api.ErrCode.CONSUMER_WITH_FLOW_CONTROL_NEEDS_HEARTBEATS,
            fix=api.FixSuggestion.safe("set idle_heartbeat to 5s"),
        )


RULE = ConsumerFlowControlWithoutHeartbeat
