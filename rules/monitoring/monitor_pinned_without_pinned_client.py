"""JS445 ops-monitor-pinned-without-pinned-client."""

from __future__ import annotations

from collections.abc import Iterable

from jsops.linter import api

_KEY = api.MONITOR_PREFIX + "pinned"


class OpsMonitorPinnedWithoutPinnedClient(api.Rule):
    """A consumer's monitoring metadata requires pinned clients but the consumer is not a pinned_client consumer.

    ## What it does
    Flags a consumer whose metadata `io.nats.monitor.pinned` is true (as natscli parses it) while
    its `priority_policy` is not `pinned_client` or it has no `priority_groups`. Synadia Insights
    reports the live side of this as CONSUMER_012 "Pinned Consumer Policy Mismatch".

    ## Why is this bad?
    With `pinned` true, the consumer check (`nats audit` once `io.nats.monitor.enabled` is true,
    and Synadia Insights) reports CRITICAL ("Not pinned client priority mode") for a consumer
    that is not in pinned-client mode with groups: the check can never pass, so the alert is
    either always firing or gets silenced, and then hides real problems.

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS}
    spec: {subjects: ["orders.>"], max_age: 30d}
    ---
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: leader, stream: ORDERS}
    spec:
      ack_policy: explicit
      metadata: {io.nats.monitor.pinned: "true"}
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
    metadata: {name: leader, stream: ORDERS}
    spec:
      ack_policy: explicit
      priority_policy: pinned_client
      priority_groups: [main]
      metadata: {io.nats.monitor.pinned: "true"}
    ```

    ## Fix
    No automatic fix: either make the consumer a pinned-client consumer (`priority_policy:
    pinned_client` with `priority_groups`), or remove the metadata key.
    """

    code = "JS445"
    name = "ops-monitor-pinned-without-pinned-client"
    severity = api.Severity.WARNING
    fix_availability = api.FixAvailability.ALWAYS
    kinds = frozenset({"Consumer"})

    def check(self, resource: api.Resource, ctx: api.RuleContext) -> Iterable[api.Violation]:
        meta = getattr(resource.config, "metadata", None)
        if not meta or api.parse_go_bool(meta.get(_KEY, "")) is not True:
            return ()
        eff = ctx.effective_consumer(resource)
        if eff.priority_policy == "pinned_client" and eff.priority_groups:
            return ()
        return (
            api.Violation(
                resource,
                ("metadata", _KEY),
                f"{_KEY} is true but the consumer is not in pinned_client mode with priority_groups: "
                "its monitoring check (nats audit, Synadia Insights) always reports CRITICAL",
                fix=api.FixSuggestion.unsafe(
                    "set priority_policy pinned_client with priority_groups, or remove the key"
                ),
            ),
        )


RULE = OpsMonitorPinnedWithoutPinnedClient
