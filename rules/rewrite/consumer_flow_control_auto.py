"""JS326 rewrite-consumer-flow-control-auto."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api


class RewriteConsumerFlowControlAuto(api.ConsumerRule):
    """`ack_policy: flow_control` quietly sets flow_control and a 1s idle_heartbeat.

    ## What it does
    Flags a consumer with `ack_policy: flow_control` whose manifest does not say
    `flow_control: true` and `idle_heartbeat: 1s`, and shows the effective values: nats-server
    sets both, overriding what the manifest says.

    ## Why is this bad?
    The consumer heartbeats every second whatever `idle_heartbeat` says, and the stored config
    differs from the manifest, which reads as drift. In pedantic mode the server refuses the
    consumer instead (err_code 10219 or 10052).

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: feed, stream: ORDERS}
    spec: {deliver_subject: feed.orders, ack_policy: flow_control, max_ack_pending: 100, idle_heartbeat: 5s}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: feed, stream: ORDERS}
    spec: {deliver_subject: feed.orders, ack_policy: flow_control, max_ack_pending: 100, flow_control: true, idle_heartbeat: 1s}
    ```

    ## Fix
    Safe: write `flow_control: true` and `idle_heartbeat: 1s`.
    """

    code = "JS326"
    name = "rewrite-consumer-flow-control-auto"
    severity = api.Severity.WARNING
    fix_availability = api.FixAvailability.ALWAYS

    def check_consumer(
        self, resource: api.ConsumerResource, c: api.ConsumerConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        if c.ack_policy != "flow_control":
            return
        changed = []
        if not c.flow_control:
            changed.append("flow_control: true")
        if c.idle_heartbeat != api.FLOW_CONTROL_HEARTBEAT:
            changed.append(f"idle_heartbeat: {api.format_duration(api.FLOW_CONTROL_HEARTBEAT)}")
        if not changed:
            return
        path = (
            ("idle_heartbeat",)
            if c.idle_heartbeat is not None
            else ("flow_control",)
            if c.flow_control is not None
            else ("ack_policy",)
        )
        yield api.Violation(
            resource,
            path,
            "ack_policy flow_control makes nats-server store " + ", ".join(changed),
            fix=api.FixSuggestion.safe("write " + ", ".join(changed)),
        )


RULE = RewriteConsumerFlowControlAuto
