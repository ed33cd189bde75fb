"""JS115 stream-mirror-direct-without-mirror."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api


class StreamMirrorDirectWithoutMirror(api.StreamRule):
    """mirror_direct: true on a stream that is not a mirror.

    ## What it does
    Flags `mirror_direct: true` when the stream has no `mirror`.

    ## Why is this bad?
    nats-server refuses to create the stream (err_code 10052, "stream has no mirror but does have
    mirror direct"). `mirror_direct` only says a mirror answers direct gets for its origin; the
    server copies it from the origin's `allow_direct` anyway.

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS}
    spec: {subjects: ["orders.>"], mirror_direct: true}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS}
    spec: {subjects: ["orders.>"], allow_direct: true}
    ```

    ## Fix
    Safe: remove `mirror_direct`. To serve direct gets from this stream, use `allow_direct: true`.
    """

    code = "JS115"
    name = "stream-mirror-direct-without-mirror"
    severity = api.Severity.ERROR
    fix_availability = api.FixAvailability.ALWAYS

    def check_stream(
        self, resource: api.StreamResource, c: api.StreamConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        if c.mirror_direct and c.mirror is None:
            yield api.Violation(
                resource,
                ("mirror_direct",),
                "mirror_direct is set but the stream has no mirror; nats-server rejects this stream",
                server_error_code=api.ErrCode.STREAM_INVALID_CONFIG,
                fix=api.FixSuggestion.safe("remove mirror_direct"),
            )


RULE = StreamMirrorDirectWithoutMirror
