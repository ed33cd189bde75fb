"""JS437 ops-stream-direct-get-disabled."""

from __future__ import annotations

from collections.abc import Iterable

from jsops.linter import api


class OpsStreamDirectGetDisabled(api.Rule):
    """A replicated stream leaves allow_direct off, so every message read goes through its leader.

    ## What it does
    Flags a stream with `num_replicas` greater than 1 whose `allow_direct` is false or left out.
    Synadia Insights reports the same condition as OPT_SYS_016 "Direct Gets Disabled".

    ## Why is this bad?
    Without direct get, message reads by sequence or subject (`nats stream get`, KV gets,
    last-value lookups) are API requests answered by the stream leader alone. With
    `allow_direct: true` every replica (and mirrors with `mirror_direct`) can answer, which
    spreads read load and keeps reads working during a leader election.

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: PROFILES}
    spec: {subjects: ["profiles.*"], num_replicas: 3, max_msgs_per_subject: 1}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: PROFILES}
    spec: {subjects: ["profiles.*"], num_replicas: 3, max_msgs_per_subject: 1, allow_direct: true}
    ```

    ## Fix
    Unsafe (`--unsafe-fixes`): set `allow_direct: true`. A follower may answer a direct get
    slightly behind the leader, so a reader that needs its own write back at once should keep
    reading through the leader; hence unsafe.
    """

    code = "JS437"
    name = "ops-stream-direct-get-disabled"
    severity = api.Severity.INFO
    fix_availability = api.FixAvailability.ALWAYS
    kinds = frozenset({"Stream"})

    def check(self, resource: api.Resource, ctx: api.RuleContext) -> Iterable[api.Violation]:
        if (getattr(resource.config, "num_replicas", None) or 1) <= 1:
            return ()
        eff = ctx.effective_stream(resource)
        replicas = eff.num_replicas
        if replicas <= 1 or eff.allow_direct:
            return ()
        return (
            api.Violation(
                resource,
                ("allow_direct",),
                f"allow_direct is off on an R{replicas} stream: every direct read goes through the leader",
                fix=api.FixSuggestion.unsafe("set allow_direct to true", (api.Edit.set(("allow_direct",), True),)),
            ),
        )


RULE = OpsStreamDirectGetDisabled
