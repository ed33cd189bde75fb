"""JS434 ops-stream-uncompressed-large."""

from __future__ import annotations

from collections.abc import Iterable

from jsops.linter import api

from ._common import hard_byte_bound, profiled_bytes


class OpsStreamUncompressedLarge(api.Rule):
    """A large file stream stores its messages uncompressed.

    ## What it does
    Flags a stream with `storage: file` and `compression: none` (the default) whose size bound
    is larger than the option `max_bytes` (default 1GiB, the threshold of Synadia Insights
    OPT_COST_004 "Uncompressed Large Stream"). The size bound is `max_bytes` when it is set.
    When it is not, and a profile gives the figures, it is what the stream is expected to hold:
    the smaller of `bytes.mean_per_s` x `max_age` and `max_msgs` x `bytes.stored_msg_size_mean`
    (capped by `max_msgs` times the largest message). Otherwise the rule stays silent.

    ## Why is this bad?
    File streams with `compression: s2` usually take a fraction of the disk for text-like
    payloads (JSON, logs, events), on every replica, for a modest CPU cost. Large uncompressed
    streams cost disk and I/O for nothing, and fill account quotas sooner.

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: EVENTS}
    spec: {subjects: ["events.>"], max_age: 30d, max_bytes: 50GiB}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: EVENTS}
    spec: {subjects: ["events.>"], max_age: 30d, max_bytes: 50GiB, compression: s2}
    ```

    ## Fix
    Unsafe (`--unsafe-fixes`): set `compression: s2`. nats-server accepts the change on a live
    stream and compresses blocks as they are written; it costs CPU, and payloads that are already
    compressed or encrypted gain little, hence unsafe.
    """

    class Options(api.RuleOptions):
        max_bytes: api.Size = api.option(
            default=api.GIB, description="largest uncompressed file stream accepted (per replica)"
        )

    code = "JS434"
    name = "ops-stream-uncompressed-large"
    severity = api.Severity.INFO
    fix_availability = api.FixAvailability.SOMETIMES
    groups = frozenset({"cost"})
    kinds = frozenset({"Stream"})

    def check(self, resource: api.Resource, ctx: api.RuleContext) -> Iterable[api.Violation]:
        cfg = resource.config
        if getattr(cfg, "storage", None) not in (None, "file") or getattr(cfg, "compression", None) not in (
            None,
            "none",
        ):
            return ()
        eff = ctx.effective_stream(resource)
        if eff.storage != "file" or eff.compression != "none":
            return ()
        threshold = self.options.max_bytes
        max_bytes = eff.max_bytes
        fix = api.FixSuggestion.unsafe("set compression to s2", (api.Edit.set(("compression",), "s2"),))
        if max_bytes > 0:
            if max_bytes > threshold:
                return (
                    api.Violation(
                        resource,
                        ("max_bytes",),
                        f"file stream of up to {api.format_size(max_bytes)} without compression (more than "
                        f"{api.format_size(threshold)}); s2 compression usually saves much of that disk",
                        fix=fix,
                    ),
                )
            return ()
        expected = profiled_bytes(eff, ctx.stream_profile(resource))
        if expected is None:
            return ()
        amount, how = expected
        hard = hard_byte_bound(eff, ctx.target)
        if hard is not None and hard < amount:
            amount, how = float(hard), "max_msgs x the largest message, the declared bound"
        if amount > threshold:
            return (
                api.Violation(
                    resource,
                    ("storage",),
                    f"file stream without compression expected to hold about {api.human_size(amount)} ({how}), more than {api.format_size(threshold)}",
                    fix=fix,
                ),
            )
        return ()


RULE = OpsStreamUncompressedLarge
