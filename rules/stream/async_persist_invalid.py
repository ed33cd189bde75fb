"""JS113 stream-async-persist-invalid."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api


class StreamAsyncPersistInvalid(api.StreamRule):
    """persist_mode: async on a stream that cannot use it.

    ## What it does
    With `persist_mode: async`, requires file storage, a single replica and no `allow_atomic`.

    ## Why is this bad?
    nats-server refuses to create or update the stream (err_code 10052, "async persist mode is only
    supported on file storage", "... is not supported on replicated streams" or "... is not
    supported with atomic batch publish").

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: METRICS}
    spec: {subjects: ["metrics.>"], persist_mode: async, storage: memory}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: METRICS}
    spec: {subjects: ["metrics.>"], persist_mode: async, storage: file}
    ```

    ## Fix
    Drop `persist_mode: async` (memory storage, replication and atomic batches have their own
    durability story), or use it only on R1 file streams without `allow_atomic`.
    """

    code = "JS113"
    name = "stream-async-persist-invalid"
    severity = api.Severity.ERROR

    def check_stream(
        self, resource: api.StreamResource, c: api.StreamConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        if c.persist_mode != "async":
            return
        if c.storage == "memory":
            yield api.Violation(
                resource,
                ("storage",),
                "async persist mode is only supported on file storage; nats-server rejects this stream",
                server_error_code=api.ErrCode.STREAM_INVALID_CONFIG,
            )
        if (c.num_replicas or 1) > 1:
            yield api.Violation(
                resource,
                ("num_replicas",),
                f"async persist mode is not supported on replicated streams (num_replicas {c.num_replicas}); nats-server rejects this stream",
                server_error_code=api.ErrCode.STREAM_INVALID_CONFIG,
            )
        if c.allow_atomic:
            yield api.Violation(
                resource,
                ("allow_atomic",),
                "async persist mode is not supported with atomic batch publish; nats-server rejects this stream",
                server_error_code=api.ErrCode.STREAM_INVALID_CONFIG,
            )


RULE = StreamAsyncPersistInvalid
