"""JS436 ops-stream-single-replica-in-cluster."""

from __future__ import annotations

from collections.abc import Iterable

from jsops.linter import api

from ._common import multi_node


class OpsStreamSingleReplicaInCluster(api.Rule):
    """A file stream has one replica although the target is a multi-node JetStream cluster.

    ## What it does
    Flags a stream with `num_replicas` 1 (or left out) when the jsops target says the cluster
    has more than one JetStream server (`target.cluster_size` > 1, or `target.clustered: true`
    without a size). When the target says nothing, or says it is a single server, the rule stays
    silent. Memory streams are skipped unless the option `include_memory` is true: they are
    usually scratch data that R1 suits. Synadia Insights reports the same condition as
    OPT_SYS_021 "R1 Streams in Multi-Node Clusters".

    ## Why is this bad?
    An R1 stream lives on one server. While that server is down or restarting (an upgrade, a
    crash, a lost disk) the stream cannot be read or written, and a lost disk loses the data,
    although the cluster has spare servers that could hold copies.

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS}
    spec: {subjects: ["orders.>"]}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS}
    spec: {subjects: ["orders.>"], num_replicas: 3}
    ```

    ## Fix
    Unsafe (`--unsafe-fixes`): set `num_replicas` to 3 (offered when the target has at least three
    servers or does not give its size). Replicas triple the storage and add write latency, so it
    is a decision, not a formality; suppress the finding for data you can afford to lose.
    """

    class Options(api.RuleOptions):
        include_memory: bool = api.option(default=False, description="also flag memory streams")

    code = "JS436"
    name = "ops-stream-single-replica-in-cluster"
    severity = api.Severity.INFO
    fix_availability = api.FixAvailability.SOMETIMES
    bucket_words = True
    kinds = frozenset({"Stream"})
    example_target = {"clustered": True, "cluster_size": 3}

    def check(self, resource: api.Resource, ctx: api.RuleContext) -> Iterable[api.Violation]:
        if not multi_node(ctx.target):
            return ()
        eff = ctx.effective_stream(resource)
        if eff.num_replicas != 1:
            return ()
        if eff.storage == "memory" and not self.options.include_memory:
            return ()
        size = ctx.target.cluster_size
        where = f"a {size}-server cluster" if size is not None else "a clustered target"
        if size is None or size >= 3:
            fix = api.FixSuggestion.unsafe(
                f"set {resource.word('num_replicas')} to 3", (api.Edit.set(("num_replicas",), 3),)
            )
        else:
            fix = api.FixSuggestion.unsafe(f"add a third JetStream server and use {resource.word('num_replicas')} 3")
        return (
            api.Violation(
                resource,
                ("num_replicas",),
                f"{resource.label()} has a single replica in {where}: it is unavailable while its server is down",
                fix=fix,
            ),
        )


RULE = OpsStreamSingleReplicaInCluster
