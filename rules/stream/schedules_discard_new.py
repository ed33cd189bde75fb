"""JS112 stream-schedules-discard-new."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api


class StreamSchedulesDiscardNew(api.StreamRule):
    """A stream with message schedules uses discard new.

    ## What it does
    Flags `allow_msg_schedules: true` together with `discard: new`.

    ## Why is this bad?
    nats-server refuses to create or update the stream (err_code 10052, "message scheduling cannot
    use discard new"): a scheduler must always be able to store the messages it produces.

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: REMINDERS}
    spec: {subjects: ["remind.>"], allow_msg_schedules: true, discard: new}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: REMINDERS}
    spec: {subjects: ["remind.>"], allow_msg_schedules: true, discard: old}
    ```

    ## Fix
    Use `discard: old` (the default) on streams with schedules.
    """

    code = "JS112"
    name = "stream-schedules-discard-new"
    severity = api.Severity.ERROR

    def check_stream(
        self, resource: api.StreamResource, c: api.StreamConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        if c.allow_msg_schedules and c.discard == "new":
            yield ctx.refusal(
                resource,
                ("discard",),
                "message scheduling cannot use discard new; nats-server rejects this stream",
                api.ErrCode.STREAM_INVALID_CONFIG,
                about="allow_msg_schedules:discard-new",
            )


RULE = StreamSchedulesDiscardNew
