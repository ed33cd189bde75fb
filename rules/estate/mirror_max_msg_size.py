"""JS304 estate-mirror-max-msg-size."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter.api import (
    ErrCode,
    FixAvailability,
    FixSuggestion,
    Rule,
    RuleContext,
    Severity,
    StreamSource,
    Violation,
    format_size,
    stream_config,
    where,
)


class EstateMirrorMaxMsgSize(Rule):
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
    severity = Severity.ERROR
    fix_availability = FixAvailability.ALWAYS
    kinds = frozenset({"Stream"})
    estate_wide = True

    def check_estate(self, ctx: RuleContext) -> Iterator[Violation]:
        for streams in ctx.streams_by_context().values():
            for res in streams:
                cfg = stream_config(res)
                size = cfg.max_msg_size or 0
                if size <= 0:
                    continue
                origins: list[tuple[StreamSource | None, tuple[str | int, ...], int, str]] = []
                if cfg.mirror is not None:
                    origins.append((cfg.mirror, ("mirror", "name"), ErrCode.MIRROR_MAX_MESSAGE_SIZE_TOO_BIG, "mirror"))
                else:
                    for i, src in enumerate(cfg.sources or []):
                        origins.append((src, ("sources", i, "name"), ErrCode.SOURCE_MAX_MESSAGE_SIZE_TOO_BIG, "source"))
                for origin_src, _path, code, what in origins:
                    origin = ctx.origin_of(res, origin_src)
                    if origin is None:
                        continue
                    limit = ctx.effective(origin).max_msg_size
                    if limit > 0 and size < limit:
                        yield Violation(
                            res,
                            ("max_msg_size",),
                            f"max_msg_size {format_size(size)} is smaller than {format_size(limit)} of {what} origin "
                            f"{origin.name} ({where(origin, ('max_msg_size',))}); nats-server refuses to create this stream",
                            server_error_code=code,
                            fix=FixSuggestion.safe(f"set max_msg_size to {format_size(limit)}"),
                        )
                        break


RULE = EstateMirrorMaxMsgSize
