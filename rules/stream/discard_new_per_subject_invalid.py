"""JS110 stream-discard-new-per-subject-invalid."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api


class StreamDiscardNewPerSubjectInvalid(api.StreamRule):
    """discard_new_per_subject without discard new or without a per-subject limit.

    ## What it does
    With `discard_new_per_subject: true`, requires `discard: new` and `max_msgs_per_subject > 0`.

    ## Why is this bad?
    nats-server refuses to create or update the stream (err_code 10052, "discard new per subject
    requires discard new policy to be set" or "... requires max msgs per subject > 0"): the
    setting only means something when new messages are refused once a subject is full.

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: JOBS}
    spec: {subjects: ["jobs.>"], discard: new, discard_new_per_subject: true}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: JOBS}
    spec: {subjects: ["jobs.>"], discard: new, discard_new_per_subject: true, max_msgs_per_subject: 10}
    ```

    ## Fix
    Set `discard: new` and a positive `max_msgs_per_subject`, or drop `discard_new_per_subject`.
    """

    code = "JS110"
    name = "stream-discard-new-per-subject-invalid"
    severity = api.Severity.ERROR

    def check_stream(
        self, resource: api.StreamResource, c: api.StreamConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        if not c.discard_new_per_subject:
            return
        if c.discard != "new":
            yield api.Violation(
                resource,
                ("discard_new_per_subject",),
                f"discard_new_per_subject requires discard: new (it is {c.discard or 'old'}); nats-server rejects this stream",
                server_error_code=api.ErrCode.STREAM_INVALID_CONFIG,
            )
        if (c.max_msgs_per_subject or 0) <= 0:
            yield api.Violation(
                resource,
                ("discard_new_per_subject",),
                "discard_new_per_subject requires max_msgs_per_subject > 0; nats-server rejects this stream",
                server_error_code=api.ErrCode.STREAM_INVALID_CONFIG,
            )


RULE = StreamDiscardNewPerSubjectInvalid
