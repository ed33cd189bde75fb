"""JS114 stream-sealed-on-create."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api


class StreamSealedOnCreate(api.StreamRule):
    """A stream manifest says sealed: true.

    ## What it does
    Flags `sealed: true`.

    ## Why is this bad?
    A stream cannot be created sealed: nats-server answers err_code 10052 ("stream configuration
    for create can not be sealed"). Sealing is a one-way update of an existing stream, and the
    server then rewrites `max_age`, `discard`, `deny_delete`, `deny_purge` and `allow_rollup_hdrs`,
    so a sealed manifest never matches what it would create.

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: AUDIT_2025}
    spec: {subjects: ["audit.2025.>"], sealed: true}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: AUDIT_2025}
    spec: {subjects: ["audit.2025.>"], deny_delete: true, deny_purge: true}
    ```

    ## Fix
    Create the stream unsealed; seal it later on purpose (`nats stream seal`), once it holds its
    final data.
    """

    code = "JS114"
    applies_to = (
        api.CREATE_ONLY
    )  # the server refuses ``sealed`` only in STREAM.CREATE; sealing an existing stream is an update it accepts
    name = "stream-sealed-on-create"
    severity = api.Severity.ERROR

    def check_stream(
        self, resource: api.StreamResource, cfg: api.StreamConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        if cfg.sealed:
            yield api.Violation(
                resource,
                ("sealed",),
                "a stream cannot be created sealed; nats-server rejects this stream",
                server_error_code=api.ErrCode.STREAM_INVALID_CONFIG,
            )


RULE = StreamSealedOnCreate
