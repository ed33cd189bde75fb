"""JS433 ops-stream-memory-large."""

from __future__ import annotations

from collections.abc import Iterable

from jsops.linter import api

from ._common import hard_byte_bound, profiled_bytes


class OpsStreamMemoryLarge(api.Rule):
    """A memory stream may hold more than the memory budget (100MiB by default), or has no max_bytes at all.

    ## What it does
    Flags a stream with `storage: memory` whose `max_bytes` is larger than the option
    `max_bytes` (default 100MiB, the threshold of Synadia Insights OPT_COST_002 "Memory Storage
    Large Stream"). Without `max_bytes`, the stream is left alone when `max_msgs` times the
    largest message (`max_msg_size`, else the target's `max_payload`) fits the budget; otherwise,
    when a profile gives the figures, it is flagged if it is expected to hold more than the
    budget (the smaller of `bytes.mean_per_s` x `max_age` and `max_msgs` x
    `bytes.stored_msg_size_mean`); without them it is flagged for having no byte bound. Every
    replica holds the whole stream in RAM, so the message gives the total over replicas too.

    ## Why is this bad?
    Memory streams live in the servers' RAM, next to every connection's buffers, and are lost
    when a server restarts. The NATS docs position them for small data that is easy to rebuild.
    A large or unbounded one competes with the server for memory, hits the account's `max_mem`
    and refuses writes, or pushes the host into swapping or the OOM killer.

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: SESSIONS}
    spec: {subjects: ["sessions.>"], storage: memory, max_age: 1h}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: SESSIONS}
    spec: {subjects: ["sessions.>"], storage: memory, max_age: 1h, max_bytes: 64MiB}
    ```

    ## Fix
    No automatic fix. Give the stream a `max_bytes` within the budget, or use `storage: file`
    (with `compression: s2` for large streams) when the data must survive restarts or is large.
    """

    class Options(api.RuleOptions):
        max_bytes: api.Size = api.option(
            default=100 * api.MIB, description="largest max_bytes accepted for a memory stream (per replica)"
        )

    code = "JS433"
    name = "ops-stream-memory-large"
    severity = api.Severity.WARNING
    fix_availability = api.FixAvailability.SOMETIMES
    groups = frozenset({"cost"})
    kinds = frozenset({"Stream"})

    def check(self, resource: api.Resource, ctx: api.RuleContext) -> Iterable[api.Violation]:
        if getattr(resource.config, "storage", None) != "memory":
            return ()
        eff = ctx.effective_stream(resource)
        if eff.storage != "memory":
            return ()
        budget = self.options.max_bytes
        replicas = eff.num_replicas
        on_each = f" (on each of its {replicas} replicas)" if replicas > 1 else ""
        max_bytes = eff.max_bytes
        if max_bytes > 0:
            if max_bytes > budget:
                total = (
                    f" ({api.format_size(max_bytes * replicas)} of RAM over {replicas} replicas)"
                    if replicas > 1
                    else ""
                )
                return (
                    api.Violation(
                        resource,
                        ("max_bytes",),
                        f"memory stream may hold max_bytes {api.format_size(max_bytes)}{total}, more than the {api.format_size(budget)} budget for memory streams",
                        fix=api.FixSuggestion.unsafe(
                            f"lower max_bytes to at most {api.format_size(budget)}, or use file storage"
                        ),
                    ),
                )
            return ()
        hard = hard_byte_bound(eff, ctx.target)
        if hard is not None and hard <= budget:
            return ()  # max_msgs x the largest message already keeps it within the budget
        fix = api.FixSuggestion.unsafe(f"set max_bytes to at most {api.format_size(budget)}, or use file storage")
        expected = profiled_bytes(eff, ctx.stream_profile(resource))
        if expected is not None:
            amount, how = expected
            if amount > budget:
                return (
                    api.Violation(
                        resource,
                        ("storage",),
                        f"memory stream without max_bytes expected to hold about {api.human_size(amount)}{on_each} "
                        f"({how}), more than the {api.format_size(budget)} budget for memory streams",
                        fix=fix,
                    ),
                )
            return ()
        return (
            api.Violation(
                resource,
                ("storage",),
                f"memory stream without max_bytes: it may grow until the account's max_mem or the server's memory is exhausted{on_each}",
                fix=fix,
            ),
        )


RULE = OpsStreamMemoryLarge
