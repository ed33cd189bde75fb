"""JS104 stream-metadata-too-large."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api

_SERVER_KEYS = frozenset({"_nats.req.level", "_nats.ver", "_nats.level"})


class StreamMetadataTooLarge(api.StreamRule):
    """Stream metadata larger than the server's 128 KiB budget.

    ## What it does
    Adds up the bytes of every `metadata` key and value, plus (from 2.11) the 16 bytes of the
    `_nats.req.level` entry nats-server adds before it measures, and compares the sum with 131072.

    ## Why is this bad?
    nats-server refuses to create or update the stream (err_code 10052, "stream metadata exceeds
    maximum size of 131072 bytes"). Because of the server's own entry, the budget left for the
    manifest is 131056 bytes, not 131072.

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS}
    spec:
      subjects: ["orders.>"]
      metadata: {blob: "%s"}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS}
    spec:
      subjects: ["orders.>"]
      metadata: {owner: team-orders, runbook: "https://wiki.example.com/orders"}
    ```

    ## Fix
    Keep metadata to short labels and links; move large documents out of the stream config.
    """

    code = "JS104"
    name = "stream-metadata-too-large"
    severity = api.Severity.ERROR

    def check_stream(
        self, resource: api.StreamResource, cfg: api.StreamConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        meta = cfg.metadata
        if not meta:
            return
        size = sum(api.go_len(k) + api.go_len(v) for k, v in meta.items() if k not in _SERVER_KEYS)
        budget = api.metadata_budget(ctx.release)
        if size > budget:
            entry = (
                ""
                if budget == api.MAX_METADATA_LEN
                else f"with the server's {api.REQ_LEVEL_METADATA_LEN}-byte _nats.req.level entry "
            )
            yield ctx.refusal(
                resource,
                ("metadata",),
                f"metadata takes {size} bytes (keys plus values); {entry}that exceeds {api.MAX_METADATA_LEN}; nats-server rejects this stream",
                api.ErrCode.STREAM_INVALID_CONFIG,
            )


StreamMetadataTooLarge.__doc__ = (StreamMetadataTooLarge.__doc__ or "") % (
    "x" * (api.MAX_METADATA_LEN - api.REQ_LEVEL_METADATA_LEN - 3)
)
RULE = StreamMetadataTooLarge
