"""JS435 ops-replicas-even."""

from __future__ import annotations

from collections.abc import Iterable

from jsops.linter import api

from ._common import multi_node


class OpsReplicasEven(api.Rule):
    """A stream or consumer asks for 2 or 4 replicas, which cost more than R1 or R3 and tolerate no more failures.

    ## What it does
    Flags a stream whose `num_replicas` is 2 or 4, and a consumer whose explicit `num_replicas`
    is 2 or 4 unless its stream (in the estate) has the same count (the stream is then the one
    flagged). When the target is a single server, or has fewer servers than replicas, the rule
    stays silent: the server refuses the stream there (JS315).

    ## Why is this bad?
    Replicated assets run a Raft group that needs a majority to accept writes. R2 needs both
    replicas (one failure stops writes, like R1, at twice the storage); R4 needs three of four
    (one failure tolerated, like R3, at a third more storage and traffic). The NATS docs say R2
    and R4 bring "no significant benefit" and recommend R3.

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS}
    spec: {subjects: ["orders.>"], num_replicas: 2}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS}
    spec: {subjects: ["orders.>"], num_replicas: 3}
    ```

    ## Fix
    Unsafe (`--unsafe-fixes`): set `num_replicas` to 3 (it changes storage cost and needs at
    least three JetStream servers; no edit is offered when the target has fewer).
    """

    code = "JS435"
    name = "ops-replicas-even"
    severity = api.Severity.WARNING
    fix_availability = api.FixAvailability.SOMETIMES
    bucket_words = True

    def check(self, resource: api.Resource, ctx: api.RuleContext) -> Iterable[api.Violation]:
        if multi_node(ctx.target) is False:
            return ()
        if resource.kind == "Stream":
            if getattr(resource.config, "num_replicas", None) not in (2, 4):
                return ()
            replicas = ctx.effective(resource).num_replicas
        else:
            replicas = getattr(resource.config, "num_replicas", None) or 0
            if replicas not in (2, 4):
                return ()
            parent = ctx.stream_of(resource)
            if parent is not None and ctx.effective(parent).num_replicas == replicas:
                return ()
        if replicas not in (2, 4):
            return ()
        size = ctx.target.cluster_size
        if size is not None and 0 < size < replicas:
            return ()  # refused by the server (JS315)
        tolerated = "no server failure" if replicas == 2 else "one server failure, like R3"
        if size is None or size >= 3:
            fix = api.FixSuggestion.unsafe(
                f"set {resource.word('num_replicas')} to 3", (api.Edit.set(("num_replicas",), 3),)
            )
        else:
            fix = api.FixSuggestion.unsafe(
                f"use {resource.word('num_replicas')} 1, or 3 once the cluster has three JetStream servers"
            )
        return (
            api.Violation(
                resource,
                ("num_replicas",),
                f"{resource.word('num_replicas')} {replicas} tolerates {tolerated}, at {replicas}x the storage; use R3 (or R1)",
                fix=fix,
            ),
        )


RULE = OpsReplicasEven
