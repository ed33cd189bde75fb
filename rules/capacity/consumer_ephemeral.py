"""JS440 ops-consumer-ephemeral."""

from __future__ import annotations

from collections.abc import Iterable

from jsops.linter import api


class OpsConsumerEphemeral(api.Rule):
    """A committed consumer manifest declares an ephemeral consumer (no durable_name).

    ## What it does
    Flags a consumer whose effective config has no `durable_name`: in native manifests one that
    sets `spec.name` without `durable_name`, in API JSON one without `durable_name`. A `name`
    alone does not make a consumer durable.

    ## Why is this bad?
    The server deletes an ephemeral consumer once it has had no subscriber (push) or no pull
    request (pull) for its `inactive_threshold` (5 seconds unless set), and with it its position
    and pending acks.
    Declaring one in git means reconciling something that disappears whenever its client
    disconnects: the reconciler recreates it, the next deploy or outage deletes it again, and
    each time it restarts from its deliver policy. Ephemeral consumers belong in application
    code, created on connect; a manifest is for consumers that outlive their clients.

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
    spec: {name: indexer, ack_policy: explicit}
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
    spec: {durable_name: indexer, ack_policy: explicit}
    ```

    ## Fix
    No automatic fix. Make it durable (`durable_name`, or leave both names out in a native
    manifest: the name then comes from `metadata.name`), possibly with an `inactive_threshold`
    to clean up after long inactivity, or move the consumer into the application.
    """

    code = "JS440"
    name = "ops-consumer-ephemeral"
    severity = api.Severity.WARNING
    fix_availability = api.FixAvailability.ALWAYS
    kinds = frozenset({"Consumer"})

    def check(self, resource: api.Resource, ctx: api.RuleContext) -> Iterable[api.Violation]:
        if getattr(resource.config, "durable_name", None):
            return ()
        eff = ctx.effective_consumer(resource)
        if eff.durable_name:
            return ()
        idle = eff.inactive_threshold or api.EPHEMERAL_INACTIVE_THRESHOLD
        return (
            api.Violation(
                resource,
                ("name",),
                f"consumer {resource.name} is ephemeral (no durable_name): the server deletes it after {api.format_duration(idle)} without a client",
                fix=api.FixSuggestion.unsafe("make it durable (set durable_name) or create it from the application"),
            ),
        )


RULE = OpsConsumerEphemeral
