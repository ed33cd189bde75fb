"""JS312 target-stream-duplicate-window-exceeds-limit."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api


class TargetStreamDuplicateWindowExceedsLimit(api.StreamRule):
    """A stream's duplicate_window is longer than the server's `jetstream.limits.duplicate_window`.

    ## What it does
    When the target gives the server's `limits.duplicate_window`, compares the stream's effective
    `duplicate_window` with it. The server's own 2m default is capped to the limit, so only a
    window written in the manifest can exceed it. The examples assume the target
    `{limits: {duplicate_window: 1m}}`.

    ## Why is this bad?
    nats-server refuses to create or update the stream (err_code 10052, "duplicates window can not
    be larger then server limit").

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS}
    spec: {subjects: ["orders.>"], duplicate_window: 5m}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS}
    spec: {subjects: ["orders.>"], duplicate_window: 1m}
    ```

    ## Fix
    Safe: set `duplicate_window` to the server limit, or leave it out.
    """

    code = "JS312"
    name = "target-stream-duplicate-window-exceeds-limit"
    severity = api.Severity.ERROR
    fix_availability = api.FixAvailability.ALWAYS
    example_target = {"limits": {"duplicate_window": "1m"}}

    def check_stream(
        self, resource: api.StreamResource, cfg: api.StreamConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        limit = ctx.target.limits.duplicate_window or 0
        if limit <= 0:
            return
        dup = ctx.effective(resource).duplicate_window
        if dup > limit:
            yield api.Violation(
                resource,
                ("duplicate_window",),
                f"duplicate_window {api.format_duration(dup)} is larger than the server limit of {api.format_duration(limit)}; nats-server rejects this stream",
                server_error_code=api.ErrCode.STREAM_INVALID_CONFIG,
                fix=api.FixSuggestion.safe(f"set duplicate_window to {api.format_duration(limit)}"),
            )


RULE = TargetStreamDuplicateWindowExceedsLimit
