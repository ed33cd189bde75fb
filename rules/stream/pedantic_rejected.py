"""JS127 stream-pedantic-rejected."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from jsops.linter.api import (
    MILLISECOND,
    PEDANTIC_SINCE,
    PEDANTIC_WINDOW_SOURCES_EXEMPT,
    SECOND,
    STREAM_DEFAULT_DUPLICATE_WINDOW,
    ErrCode,
    RuleContext,
    Severity,
    StreamConfig,
    StreamResource,
    StreamRule,
    Violation,
    format_duration,
    stream_config,
)

_LIMITS = ("max_msgs", "max_msgs_per_subject", "max_bytes", "max_msg_size", "max_consumers")


class StreamPedanticRejected(StreamRule):
    """A stream that nats-server would quietly adjust, created with pedantic requests.

    ## What it does
    Only when the target says the estate is applied with pedantic create requests
    (`pedantic: true`, as tools that send `"pedantic": true` do), flags what the server then
    refuses instead of adjusting: `max_msgs`, `max_msgs_per_subject`, `max_bytes`,
    `max_msg_size` or `max_consumers` below -1; an omitted `duplicate_window` (on a stream without
    mirror or sources) when the server limit is below 2m or `max_age` is below 2m; a
    `subject_delete_marker_ttl` without `allow_msg_ttl` or without `allow_rollup_hdrs`;
    `allow_msg_schedules` without `allow_rollup_hdrs`; a `mirror_direct` that differs from the
    origin's `allow_direct` (origin declared in the estate); a `republish` without `src`; and the
    implicit republish (`src` and `dest` both `>`, one subject equal to `subject_transform.src`).
    Silent when the target does not say pedantic. The examples assume the target
    `{pedantic: true}`.

    ## Why is this bad?
    With pedantic requests nats-server refuses to create or update the stream: err_code 10157
    ("pedantic mode: ..."), except the delete-marker and schedule conditions, which are err_code
    10052 ("subject delete marker cannot be set if message TTLs are disabled", "... if roll-ups are
    disabled", "message scheduling cannot be set if roll-ups are disabled").

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS}
    spec:
      subjects: ["orders.>"]
      max_age: 1m
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS}
    spec:
      subjects: ["orders.>"]
      max_age: 1m
      duplicate_window: 1m
    ```

    ## Fix
    Write the values the server would otherwise choose: -1 for unlimited, an explicit
    `duplicate_window`, `allow_msg_ttl: true` and `allow_rollup_hdrs: true` where delete markers or
    schedules need them, `mirror_direct` equal to the origin's `allow_direct`, and an explicit
    republish `src` and `dest`.
    """

    code = "JS127"
    name = "stream-pedantic-rejected"
    severity = Severity.ERROR
    example_target = {"pedantic": True}

    def check_stream(self, resource: StreamResource, cfg: StreamConfig, ctx: RuleContext) -> Iterator[Violation]:
        if ctx.target.pedantic is not True or ctx.release < PEDANTIC_SINCE:
            return  # 2.10 does not read pedantic
        for check in _CHECKS:
            yield from check(resource, cfg, ctx)


def _limits(resource: StreamResource, c: StreamConfig, ctx: RuleContext) -> Iterator[Violation]:
    """A limit below -1 (unlimited is -1)."""
    for fld in _LIMITS:
        v = getattr(c, fld)
        if v is not None and v < -1:
            yield ctx.pedantic_refusal(
                resource,
                (fld,),
                f"{fld} {v} is below -1 (unlimited is -1)",
                ErrCode.PEDANTIC,
                about=f"{fld}:negative",
            )


def _duplicate_window(resource: StreamResource, c: StreamConfig, ctx: RuleContext) -> Iterator[Violation]:
    """An omitted duplicate_window the server would lower below its 2m default (to its limit, or to max_age)."""
    sources_exempt = ctx.release >= PEDANTIC_WINDOW_SOURCES_EXEMPT  # 2.11, 2.12 check sourcing streams too
    if c.duplicate_window or c.mirror is not None or (c.sources and sources_exempt):
        return
    lim = ctx.target.limits.duplicate_window or 0
    max_age = c.max_age or 0
    if 0 < lim < STREAM_DEFAULT_DUPLICATE_WINDOW:
        yield ctx.pedantic_refusal(
            resource,
            ("subjects",),
            f"duplicate_window is omitted and the server limit {format_duration(lim)} is below the 2m default",
            ErrCode.PEDANTIC,
        )
    elif 100 * MILLISECOND <= max_age < STREAM_DEFAULT_DUPLICATE_WINDOW:
        yield ctx.pedantic_refusal(
            resource,
            ("max_age",),
            f"duplicate_window is omitted and max_age {format_duration(max_age)} is below the 2m default",
            ErrCode.PEDANTIC,
        )


def _delete_markers(resource: StreamResource, c: StreamConfig, ctx: RuleContext) -> Iterator[Violation]:
    """Subject delete markers without message TTLs or without roll-ups."""
    if (c.subject_delete_marker_ttl or 0) < SECOND:
        return
    for allowed, what in ((c.allow_msg_ttl, "allow_msg_ttl"), (c.allow_rollup_hdrs, "allow_rollup_hdrs")):
        if not allowed:
            yield ctx.pedantic_refusal(
                resource,
                ("subject_delete_marker_ttl",),
                f"subject_delete_marker_ttl is set without {what}",
                ErrCode.STREAM_INVALID_CONFIG,
            )


def _schedules(resource: StreamResource, c: StreamConfig, ctx: RuleContext) -> Iterator[Violation]:
    """Message schedules without roll-ups."""
    if c.allow_msg_schedules and c.discard != "new" and not c.allow_rollup_hdrs:
        yield ctx.pedantic_refusal(
            resource,
            ("allow_msg_schedules",),
            "allow_msg_schedules is set without allow_rollup_hdrs",
            ErrCode.STREAM_INVALID_CONFIG,
        )


def _mirror_direct(resource: StreamResource, c: StreamConfig, ctx: RuleContext) -> Iterator[Violation]:
    """A mirror_direct that differs from the origin's allow_direct (the origin declared in the estate)."""
    m = c.mirror
    if m is None or m.name == resource.name:
        return
    origin = ctx.origin_of(resource, m)
    direct = bool(stream_config(origin).allow_direct) if origin is not None else None
    if direct is not None and bool(c.mirror_direct) != direct:
        yield ctx.pedantic_refusal(
            resource,
            ("mirror_direct",) if c.mirror_direct is not None else ("mirror",),
            f"mirror_direct differs from origin {m.name}'s allow_direct ({str(direct).lower()})",
            ErrCode.PEDANTIC,
        )


def _republish(resource: StreamResource, c: StreamConfig, ctx: RuleContext) -> Iterator[Violation]:
    """A republish without src, and the implicit one (``>`` to ``>`` over the subject transform's only subject)."""
    r = c.republish
    if r is None:
        return
    if not r.src:
        yield ctx.pedantic_refusal(
            resource, ("republish",), "republish has no src (the server would read it as '>')", ErrCode.PEDANTIC
        )
    elif r.src == ">" and r.dest == ">" and c.subject_transform is not None:
        subjects = c.subjects or ([] if c.mirror is not None or c.sources else [resource.name])
        if len(subjects) == 1 and c.subject_transform.src == subjects[0]:
            yield ctx.pedantic_refusal(
                resource,
                ("republish",),
                "republish '>' -> '>' would be rewritten from subject_transform",
                ErrCode.PEDANTIC,
            )


_CHECKS: tuple[Callable[[StreamResource, StreamConfig, RuleContext], Iterator[Violation]], ...] = (
    _limits,
    _duplicate_window,
    _delete_markers,
    _schedules,
    _mirror_direct,
    _republish,
)
"""What pedantic requests refuse, in the order the findings are said."""


RULE = StreamPedanticRejected
