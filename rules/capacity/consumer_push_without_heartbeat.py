"""JS439 ops-consumer-push-without-heartbeat."""

from __future__ import annotations

from collections.abc import Iterable

from jsops.linter import api


class OpsConsumerPushWithoutHeartbeat(api.Rule):
    """A push consumer has no idle heartbeat or no flow control.

    ## What it does
    Flags a push consumer (one with a `deliver_subject`) that has no `idle_heartbeat`, or that
    has no `flow_control` (with the option `require_flow_control`, on by default). Consumers with
    a `deliver_group` are skipped: NATS client libraries refuse heartbeats and flow control on
    queue subscriptions. Consumers with `ack_policy: flow_control` are skipped too: the server
    sets both for them.

    ## Why is this bad?
    A push consumer sends messages whether or not anyone listens. Without heartbeats, a client
    whose subscription was lost (a reconnect to another server, a network partition, an
    interest change) just sees silence and cannot tell it from an idle stream, so it never
    recreates the subscription. Without flow control, a fast stream can overrun a slow client:
    the client's pending buffer overflows, it becomes a slow consumer and messages are dropped
    (redelivered after `ack_wait` when the consumer acks, lost when it does not). The NATS docs recommend pull consumers for new work.

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS}
    spec: {subjects: ["orders.>"], max_age: 30d}
    ---
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: exporter, stream: ORDERS}
    spec: {deliver_subject: deliver.exporter, ack_policy: explicit}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS}
    spec: {subjects: ["orders.>"], max_age: 30d}
    ---
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: exporter, stream: ORDERS}
    spec: {deliver_subject: deliver.exporter, ack_policy: explicit, idle_heartbeat: 15s, flow_control: true}
    ```

    ## Fix
    Unsafe (`--unsafe-fixes`): set the missing `idle_heartbeat` (15s) and `flow_control: true`.
    nats-server does not change either on an existing consumer ("heart beats can not be
    updated"), so applying the edit means recreating the consumer, which loses its position and
    pending acks; and clients must handle heartbeats and flow-control requests (the NATS client
    libraries do). Hence unsafe. Or turn it into a pull consumer.
    """

    class Options(api.RuleOptions):
        require_flow_control: bool = api.option(
            default=True, description="also flag push consumers with heartbeats but no flow control"
        )

    code = "JS439"
    name = "ops-consumer-push-without-heartbeat"
    severity = api.Severity.WARNING
    fix_availability = api.FixAvailability.ALWAYS
    kinds = frozenset({"Consumer"})

    def check(self, resource: api.Resource, ctx: api.RuleContext) -> Iterable[api.Violation]:
        if not getattr(resource.config, "deliver_subject", None):
            return ()  # pull consumer
        eff = ctx.effective_consumer(resource)
        if not eff.deliver_subject or eff.deliver_group or eff.ack_policy == "flow_control":
            return ()
        edits = []
        missing = []
        if not eff.idle_heartbeat:
            missing.append("idle_heartbeat")
            edits.append(api.Edit.set(("idle_heartbeat",), 15 * api.SECOND, duration=True))
        if self.options.require_flow_control and not eff.flow_control:
            missing.append("flow_control")
            edits.append(api.Edit.set(("flow_control",), True))
        if not missing:
            return ()
        if missing == ["flow_control"]:
            text = "has no flow_control: a fast stream can overrun a slow subscriber"
        elif missing == ["idle_heartbeat"]:
            text = "has no idle_heartbeat: a client cannot tell a lost subscription from an idle stream"
        else:
            text = "has neither idle_heartbeat nor flow_control: a client cannot detect a lost subscription and a fast stream can overrun it"
        return (
            api.Violation(
                resource,
                ("deliver_subject",),
                f"push consumer {text}",
                fix=api.FixSuggestion.unsafe(
                    "set "
                    + " and ".join(
                        "idle_heartbeat to 15s" if m == "idle_heartbeat" else "flow_control to true" for m in missing
                    ),
                    tuple(edits),
                ),
            ),
        )


RULE = OpsConsumerPushWithoutHeartbeat
