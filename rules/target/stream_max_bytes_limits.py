"""JS313 target-stream-max-bytes-limits."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api


class TargetStreamMaxBytesLimits(api.StreamRule):
    """A stream's max_bytes does not meet the target account's per-stream byte limits.

    ## What it does
    When the target gives the account's JetStream limits: with `max_bytes_required: true` a stream
    must set `max_bytes` (err_code 10113, "account requires a stream config to have max bytes
    set"); with `mem_max_stream_bytes` (memory streams) or `disk_max_stream_bytes` (file streams)
    set, `max_bytes` may not exceed it (err_code 10122, "stream max bytes exceeds account limit
    max stream bytes"). The examples assume the target `{account: {max_bytes_required: true}}`.

    ## Why is this bad?
    nats-server refuses to create or update the stream.

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
    spec: {subjects: ["orders.>"], max_bytes: 1GiB}
    ```

    ## Fix
    Unsafe: set `max_bytes` within the account's limit (the stream then discards or refuses
    messages past it).
    """

    code = "JS313"
    name = "target-stream-max-bytes-limits"
    severity = api.Severity.ERROR
    fix_availability = api.FixAvailability.ALWAYS
    example_target = {"account": {"max_bytes_required": True}}

    def check_stream(
        self, resource: api.StreamResource, cfg: api.StreamConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        acc = ctx.target.account
        eff = ctx.effective(resource)
        max_bytes = eff.max_bytes
        memory = eff.storage == "memory"
        cap = (acc.mem_max_stream_bytes if memory else acc.disk_max_stream_bytes) or 0
        if acc.max_bytes_required and max_bytes <= 0:
            hint = f" (at most {api.format_size(cap)})" if cap > 0 else ""
            yield api.Violation(
                resource,
                ("max_bytes",),
                f"the target account requires every stream to set max_bytes{hint}; nats-server rejects this stream",
                server_error_code=api.ErrCode.STREAM_MAX_BYTES_REQUIRED,
                fix=api.FixSuggestion.unsafe("set max_bytes" + hint),
                key=cfg.max_bytes is None,
            )
        elif cap > 0 and max_bytes > cap:
            which = "mem_max_stream_bytes" if memory else "disk_max_stream_bytes"
            yield api.Violation(
                resource,
                ("max_bytes",),
                f"max_bytes {api.format_size(max_bytes)} exceeds the account's {which} of {api.format_size(cap)}; nats-server rejects this stream",
                server_error_code=api.ErrCode.STREAM_MAX_STREAM_BYTES_EXCEEDED,
                fix=api.FixSuggestion.unsafe(f"set max_bytes to {api.format_size(cap)} or less"),
            )


RULE = TargetStreamMaxBytesLimits
