"""JS438 ops-consumer-max-ack-pending-unlimited."""

from __future__ import annotations

from collections.abc import Iterable

from jsops.linter import api


class OpsConsumerMaxAckPendingUnlimited(api.Rule):
    """A consumer that acks sets max_ack_pending to -1 (unlimited outstanding messages).

    ## What it does
    Flags a consumer with `ack_policy` explicit or all whose `max_ack_pending` is -1 (or another
    negative number, which the server turns into -1).

    ## Why is this bad?
    `max_ack_pending` is the consumer's flow control: the server stops delivering once that many
    messages wait for an ack. Unlimited, a slow or stuck client is handed the whole backlog at
    once; for a push consumer without flow control it is the only brake there is. Messages then time out by the
    thousand and are redelivered together (redelivery storms), client memory grows without
    bound, and the server tracks every pending message. Synadia Insights watches the runtime
    side of this (OPT_SYS_003 "Ack Pending Buildup").

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS}
    spec: {subjects: ["orders.>"], max_age: 30d}
    ---
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: indexer, stream: ORDERS}
    spec: {ack_policy: explicit, max_ack_pending: -1}
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
    metadata: {name: indexer, stream: ORDERS}
    spec: {ack_policy: explicit, max_ack_pending: 1000}
    ```

    ## Fix
    Unsafe (`--unsafe-fixes`): remove `max_ack_pending`; the server then applies its default
    (1000, or a lower stream, server or account limit). Pick a value matching how many messages
    the clients really process at once; it changes throughput, hence unsafe.
    """

    code = "JS438"
    name = "ops-consumer-max-ack-pending-unlimited"
    severity = api.Severity.WARNING
    fix_availability = api.FixAvailability.ALWAYS
    kinds = frozenset({"Consumer"})

    def check(self, resource: api.Resource, ctx: api.RuleContext) -> Iterable[api.Violation]:
        raw = getattr(resource.config, "max_ack_pending", None)
        if raw is None or raw >= 0:
            return ()
        eff = ctx.effective_consumer(resource)
        if eff.ack_policy not in ("explicit", "all"):
            return ()
        push = (
            " (for a push consumer without flow_control it is the only flow control)"
            if eff.deliver_subject and not eff.flow_control
            else ""
        )
        return (
            api.Violation(
                resource,
                ("max_ack_pending",),
                f"max_ack_pending {raw} lets the consumer hand out any number of unacknowledged messages{push}",
                fix=api.FixSuggestion.unsafe(
                    "remove max_ack_pending (the server default is 1000) or set the number of messages clients process at once",
                    (api.Edit.remove(("max_ack_pending",)),),
                ),
            ),
        )


RULE = OpsConsumerMaxAckPendingUnlimited
