"""JS108 stream-rollup-requires-purge."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api


class StreamRollupRequiresPurge(api.StreamRule):
    """A stream allows roll-ups but denies purges.

    ## What it does
    Flags `allow_rollup_hdrs: true` together with `deny_purge: true`.

    ## Why is this bad?
    A roll-up (`Nats-Rollup` header) purges the older messages of a subject or of the stream, so
    nats-server refuses the combination (err_code 10052, "roll-ups require the purge permission").

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: KV_CONFIG}
    spec: {subjects: ["config.>"], allow_rollup_hdrs: true, deny_purge: true}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: KV_CONFIG}
    spec: {subjects: ["config.>"], allow_rollup_hdrs: true, deny_delete: true}
    ```

    ## Fix
    Decide which matters: drop `deny_purge` to keep roll-ups, or drop `allow_rollup_hdrs` to keep
    the stream protected from purges.
    """

    code = "JS108"
    name = "stream-rollup-requires-purge"
    severity = api.Severity.ERROR

    def check_stream(
        self, resource: api.StreamResource, c: api.StreamConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        if c.deny_purge and c.allow_rollup_hdrs:
            yield api.Violation(
                resource,
                ("deny_purge",),
                "allow_rollup_hdrs needs purges, but deny_purge is true; nats-server rejects this stream",
                server_error_code=api.ErrCode.STREAM_INVALID_CONFIG,
            )


RULE = StreamRollupRequiresPurge
