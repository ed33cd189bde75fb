"""JS304 estate-mirror-max-msg-size."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api


class EstateMirrorMaxMsgSize(api.Rule):
    """A mirror or a sourcing stream accepts smaller messages than the stream it copies from.

    ## What it does
    For a stream with a `mirror` or `sources` (not external) whose origin is declared in the
    estate (same context), compares `max_msg_size`: when both are set (> 0) and the copy's is
    smaller than the origin's, the copy could not store every message of the origin.

    ## Why is this bad?
    nats-server refuses to create the copy when it can see the origin: err_code 10030 for a mirror
    ("stream mirror must have max message size >= source"), 10046 for a source ("stream source
    must have max message size >= target").

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS}
    spec: {subjects: ["orders.>"], max_msg_size: 1MiB}
    ---
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS_BACKUP}
    spec: {mirror: {name: ORDERS}, max_msg_size: 64KiB}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS}
    spec: {subjects: ["orders.>"], max_msg_size: 1MiB}
    ---
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS_BACKUP}
    spec: {mirror: {name: ORDERS}, max_msg_size: 1MiB}
    ```

    ## Fix
    Safe: raise the copy's `max_msg_size` to the origin's (or leave it unset: unlimited).
    """

    code = "JS304"
    name = "estate-mirror-max-msg-size"
    severity = api.Severity.ERROR
    fix_availability = api.FixAvailability.ALWAYS
    kinds = frozenset({"Stream"})
    estate_wide = True

    def check_estate(self, ctx: api.RuleContext) -> Iterator[api.Violation]:
        for streams in ctx.streams_by_context().values():
            for res in streams:
                cfg = api.stream_config(res)
                size = cfg.max_msg_size or 0
                if size <= 0:
                    continue
                origins: list[tuple[api.StreamSource | None, tuple[str | int, ...], int, str]] = []
                if cfg.mirror is not None:
                    origins.append(
                        (cfg.mirror, ("mirror", "name"), api.ErrCode.MIRROR_MAX_MESSAGE_SIZE_TOO_BIG, "mirror")
                    )
                else:
                    for i, src in enumerate(cfg.sources or []):
                        origins.append(
                            (src, ("sources", i, "name"), api.ErrCode.SOURCE_MAX_MESSAGE_SIZE_TOO_BIG, "source")
                        )
                for origin_src, _path, code, what in origins:
                    origin = ctx.origin_of(res, origin_src)
                    if origin is None:
                        continue
                    limit = ctx.effective(origin).max_msg_size
                    if limit > 0 and size < limit:
                        yield api.Violation(
                            res,
                            ("max_msg_size",),
                            f"max_msg_size {api.format_size(size)} is smaller than {api.format_size(limit)} "
                            f"of {what} origin {origin.name} ({api.where(origin, ('max_msg_size',))}); "
                            "nats-server refuses to create this stream",
                            server_error_code=code,
                            fix=api.FixSuggestion.safe(f"set max_msg_size to {api.format_size(limit)}"),
                        )
                        break


RULE = EstateMirrorMaxMsgSize
