"""JS109 stream-counter-incompatible."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api


class StreamCounterIncompatible(api.StreamRule):
    """A counter stream (allow_msg_counter) uses a setting counters cannot work with.

    ## What it does
    With `allow_msg_counter: true`, flags `discard: new`, `allow_msg_ttl: true`,
    `allow_msg_schedules: true` and any `retention` other than `limits`.

    ## Why is this bad?
    nats-server refuses to create or update the stream (err_code 10052, "counter stream cannot use
    discard new", "... cannot use message TTLs", "... cannot use message schedules" or "counter
    stream can only use limits retention"). A counter's value is the last message of its subject,
    so nothing may drop, expire or consume it behind the counter's back.

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: COUNTERS}
    spec: {subjects: ["count.>"], allow_msg_counter: true, retention: workqueue}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: COUNTERS}
    spec: {subjects: ["count.>"], allow_msg_counter: true, retention: limits}
    ```

    ## Fix
    Keep counters in a stream of their own with `retention: limits`, `discard: old`, and no TTLs
    or schedules.
    """

    code = "JS109"
    name = "stream-counter-incompatible"
    severity = api.Severity.ERROR

    def check_stream(
        self, resource: api.StreamResource, c: api.StreamConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        if not c.allow_msg_counter:
            return

        def refused(field: str, what: str) -> api.Violation:
            message = f"a counter stream {what}; nats-server rejects this stream"
            return api.Violation(resource, (field,), message, server_error_code=api.ErrCode.STREAM_INVALID_CONFIG)

        if c.discard == "new":
            yield refused("discard", "cannot use discard new")
        if c.allow_msg_ttl:
            yield refused("allow_msg_ttl", "cannot use message TTLs")
        if c.allow_msg_schedules:
            yield ctx.refusal(
                resource,
                ("allow_msg_schedules",),
                "a counter stream cannot use message schedules; nats-server rejects this stream",
                api.ErrCode.STREAM_INVALID_CONFIG,
                about="allow_msg_schedules:counter",
            )
        if c.retention not in (None, "limits"):
            yield refused("retention", f"can only use limits retention, not {c.retention}")


RULE = StreamCounterIncompatible
