"""Live rules that compare two snapshots of a target (``jsops audit --baseline FILE``, the file an
earlier ``jsops audit --save-state FILE`` wrote): a count says how big a backlog is, growth says
whether the consumer keeps up."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from jsops.linter import Severity
from jsops.linter.api import SECOND, Duration, RuleOptions, approx_duration, option

from .read import AuditState
from .registry import Hit, register

__all__: list[str] = []


class Growing(RuleOptions):
    min_growth: int = option(
        default=1000, ge=1, description="num_pending grew by at least this many messages since the baseline"
    )
    min_rate: float = option(default=1.0, gt=0, description="and by at least this many messages per second on average")
    min_interval: Duration = option(
        default=10 * SECOND, description="baselines read less than this long before are too close to tell: not compared"
    )


def _int(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) and v >= 0 else None


def _time_to_full(state: AuditState, stream: str, pending: int, rate: float) -> str:
    """When the backlog reaches the stream's max_msgs (or, at the stream's mean message size, its
    max_bytes), and what the server does then; a text to append."""
    live = state.live.streams.get(stream)
    if live is None:
        return ""
    cfg = live.config
    limits: list[tuple[float, str]] = []
    max_msgs = cfg.max_msgs or 0
    if max_msgs > 0:
        limits.append(((max_msgs - pending) / rate, f"max_msgs {max_msgs}"))
    max_bytes = cfg.max_bytes or 0
    if max_bytes > 0 and live.messages > 0 and live.bytes > 0:
        size = live.bytes / live.messages
        limits.append(
            ((max_bytes - pending * size) / (rate * size), f"max_bytes {max_bytes} (at {size:.0f} bytes a message)")
        )
    if not limits:
        return "; the stream has no max_msgs or max_bytes: it grows until max_age or the storage ends"
    seconds, which = min(limits)
    then = (
        "the server then refuses new messages (discard: new)"
        if cfg.discard == "new"
        else "the oldest messages are then removed before this consumer reads them (discard: old)"
    )
    if seconds <= 0:
        return f"; the backlog already reaches the stream's {which}: {then}"
    return (
        f"; at this rate the backlog reaches the stream's {which} in ~{approx_duration(int(seconds * SECOND))}: {then}"
    )


@register(
    "JS515",
    "live-consumer-backlog-growing",
    Severity.WARNING,
    "a consumer's backlog (num_pending) grew by at least min_growth messages at min_rate or more since the --baseline snapshot",
    Growing,
)
def backlog_growing(state: AuditState, opts: Growing) -> Iterator[Hit]:
    base = state.baseline
    if base is None:
        return
    elapsed = state.read_at - base.read_at
    if elapsed * SECOND < int(opts.min_interval):
        return
    for (stream, name), info in state.consumers.items():
        before = (base.consumers.get((stream, name)) or {}).get("num_pending")
        now = _int(info.get("num_pending"))
        if before is None or now is None:
            continue
        grew = now - before
        rate = grew / elapsed
        if grew < opts.min_growth or rate < opts.min_rate:
            continue
        yield Hit(
            stream,
            name,
            f"num_pending grew from {before} to {now} in {approx_duration(int(elapsed * SECOND))} "
            f"({rate:.3g} messages/s more than it consumes){_time_to_full(state, stream, now, rate)}",
        )
