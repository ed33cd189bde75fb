"""JS101 stream-invalid-name."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api

from ._common import UNROUTABLE


class StreamInvalidName(api.StreamRule):
    """A stream name the server refuses or cannot even receive.

    ## What it does
    Checks the stream name as nats-server does on create: no `.`, `*`, `>`, `/`, `\\` and no
    whitespace, and at most 255 bytes.

    ## Why is this bad?
    The name travels as a token of the API subject `$JS.API.STREAM.CREATE.<name>`. A `.` or
    whitespace changes that subject, so no handler answers and the request times out (jsops
    predicts err_code 10052, what the server's own name check answers). A `/` or `\\` is refused
    with err_code 10128 ("Stream name can not contain path separators"); `*`, `>` and names longer
    than 255 bytes with err_code 10052.

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: orders.v1}
    spec: {subjects: ["orders.>"]}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: orders-v1}
    spec: {subjects: ["orders.>"]}
    ```

    ## Fix
    Unsafe: rename the stream (for example replace `.` with `-` or `_`). A rename is a different
    stream: clients and consumers that use the old name must change too.
    """

    code = "JS101"
    name = "stream-invalid-name"
    severity = api.Severity.ERROR

    def check_stream(
        self, resource: api.StreamResource, cfg: api.StreamConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        name = resource.name
        if not api.is_valid_asset_name(name):
            if UNROUTABLE.intersection(name):
                msg = f"stream name {name!r} contains '.' or whitespace: the create request $JS.API.STREAM.CREATE.<name> reaches no handler and times out"
                code = api.ErrCode.STREAM_INVALID_CONFIG
            elif "/" in name or "\\" in name:
                msg = f"stream name {name!r} contains a path separator; nats-server rejects this stream"
                code = api.ErrCode.STREAM_NAME_CONTAINS_PATH_SEPARATORS
            else:
                msg = f"stream name {name!r} contains '*' or '>'; nats-server rejects this stream"
                code = api.ErrCode.STREAM_INVALID_CONFIG
            yield api.Violation(resource, ("name",), msg, server_error_code=code)
        n = api.go_len(name)
        if n > api.MAX_NAME_LEN:
            yield api.Violation(
                resource,
                ("name",),
                f"stream name is {n} bytes long, the maximum is {api.MAX_NAME_LEN}; nats-server rejects this stream",
                server_error_code=api.ErrCode.STREAM_INVALID_CONFIG,
            )


RULE = StreamInvalidName
