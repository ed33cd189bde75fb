"""What tightening a stream's limits removes from its stored messages (issue 12).

Lowering ``max_msgs``, ``max_bytes``, ``max_age`` or ``max_msgs_per_subject`` is an in-place update
for the server, but the server enforces the new limits at once and removes stored messages. Facts
checked on nats-server 2.15.1:

- ``max_msgs`` / ``max_bytes`` remove the oldest messages only with ``discard: old``; with
  ``discard: new`` the stored messages stay (new ones are refused instead);
- ``max_age`` and ``max_msgs_per_subject`` remove messages whatever the discard policy.

:func:`limit_losses` is pure: it counts from the stream state (exact for ``max_msgs``; ``max_bytes``
estimated from the average stored size; ``max_age`` and ``max_msgs_per_subject`` known only in the
easy cases) and from measurements taken on the server by :func:`measure_limit_loss` (per-subject
counts from ``STREAM.INFO`` with ``subjects_filter``; the first message younger than the new
``max_age`` found by a binary search of ``STREAM.MSG.GET``). A count it cannot tell is ``None``,
which plans treat as data loss of up to every stored message.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from jsops.linter import EffectiveStream

from .errors import ErrCode
from .live import LiveState, LiveStream, parse_ts

if TYPE_CHECKING:
    from .client import JsClient

__all__ = [
    "LIMITS",
    "LimitLoss",
    "tightened",
    "limit_losses",
    "loss_total",
    "describe",
    "measure_limit_loss",
    "ameasure_limit_loss",
]

LIMITS = ("max_msgs", "max_bytes", "max_age", "max_msgs_per_subject")
SUBJECT_PAGES = 100  # per-subject counts read at most this many pages per stream


@dataclass(frozen=True)
class LimitLoss:
    limit: str
    messages: int | None  # None: at least one, not measured
    approx: bool = False


def _lim(cfg: EffectiveStream, f: str) -> int:
    v = getattr(cfg, f)
    return v if isinstance(v, int) and not isinstance(v, bool) and v > 0 else 0


def tightened(live_cfg: EffectiveStream, desired: EffectiveStream) -> list[str]:
    """The limits ``desired`` sets lower than ``live_cfg`` (a limit of 0 or -1 is unlimited)."""
    out = []
    for f in LIMITS:
        new, old = _lim(desired, f), _lim(live_cfg, f)
        if new > 0 and (old == 0 or new < old):
            out.append(f)
    return out


def limit_losses(
    s: LiveStream, desired: EffectiveStream, now: float, measured: dict[str, int] | None = None
) -> list[LimitLoss]:
    """The stored messages each tightened limit of ``desired`` removes from ``s`` (non-zero ones)."""
    if s.messages <= 0:
        return []
    discard_old = desired.discard != "new"
    out: list[LimitLoss] = []
    for f in tightened(s.config, desired):
        n: int | None
        if measured is not None and f in measured:
            n, approx = measured[f], False
        else:
            n, approx = _estimated_loss(s, f, _lim(desired, f), now, discard_old)
        if n != 0:
            out.append(LimitLoss(f, n, approx))
    return out


def _estimated_loss(s: LiveStream, f: str, new: int, now: float, discard_old: bool) -> tuple[int | None, bool]:
    """The stored messages limit ``f`` tightened to ``new`` removes, from the stream's state (None:
    unknown), and whether the figure is an estimate."""
    if f == "max_msgs":
        return (max(0, s.messages - new) if discard_old else 0), False
    if f == "max_bytes":
        if not discard_old or s.bytes <= new:
            return 0, False
        return min(s.messages, math.ceil((s.bytes - new) / (s.bytes / s.messages))), True
    if f == "max_age":
        return _age_loss_from_state(s, now - new / 1e9), False
    # max_msgs_per_subject
    return (0 if s.messages <= new or s.num_subjects >= s.messages else None), False


def _age_loss_from_state(s: LiveStream, cutoff: float) -> int | None:
    """The stored messages older than ``cutoff`` (seconds since the epoch): none, all, or unknown."""
    if s.first_ts is not None and s.first_ts >= cutoff:
        return 0
    if s.last_ts is not None and s.last_ts < cutoff:
        return s.messages
    return None


def loss_total(s: LiveStream, losses: list[LimitLoss]) -> int:
    """An upper bound of the messages ``losses`` remove together (unmeasured ones: all)."""
    if any(x.messages is None for x in losses):
        return s.messages
    return min(s.messages, sum(x.messages or 0 for x in losses))


def describe(loss: LimitLoss, held: int) -> str:
    if loss.messages is None:
        what = f"an unmeasured number (up to all {held}) of the stored messages"
    else:
        what = f"{'about ' if loss.approx else ''}{loss.messages} of {held} stored message{'s' if held != 1 else ''}"
    return f"data loss: the new {loss.limit} removes {what}"


# -------------------------------------------------------------------------------------------------
# measuring on the server


def measure_limit_loss(client: JsClient, live: LiveState, desired: dict[str, EffectiveStream]) -> None:
    """Fill ``live.limit_loss`` for the streams whose ``desired`` config tightens ``max_age`` or
    ``max_msgs_per_subject`` (the limits the stream state alone cannot count)."""
    client.run(ameasure_limit_loss(client, live, desired))


async def ameasure_limit_loss(client: JsClient, live: LiveState, desired: dict[str, EffectiveStream]) -> None:
    from .client import JsApiError

    for name, cfg in sorted(desired.items()):
        s = live.streams.get(name)
        if s is None or s.messages <= 0:
            continue
        got: dict[str, int] = {}
        try:
            for f in tightened(s.config, cfg):
                if f == "max_age":
                    got[f] = await _age_loss(client, s, _lim(cfg, f), live.read_at)
                elif f == "max_msgs_per_subject":
                    counted = await _per_subject_loss(client, s, _lim(cfg, f))
                    if counted is not None:
                        got[f] = counted
        except JsApiError:
            continue  # not measured: the plan counts it as a possible loss of every message
        if got:
            live.limit_loss[name] = got


async def _age_loss(client: JsClient, s: LiveStream, max_age_ns: int, now: float) -> int:
    """Stored messages older than ``now - max_age``: a binary search on sequence for the first
    message at or after the cutoff (``next_by_subj: ">"`` skips deleted sequences)."""
    from .client import JsApiError

    cutoff = now - max_age_ns / 1e9
    lo, hi = s.first_seq, s.last_seq + 1  # the first young sequence is in [lo, hi]
    while lo < hi:
        mid = (lo + hi) // 2
        try:
            resp = await client.arequest(f"STREAM.MSG.GET.{s.name}", {"seq": mid, "next_by_subj": ">"})
        except JsApiError as exc:
            if exc.err_code == ErrCode.NO_MESSAGE_FOUND:  # nothing at or after mid
                hi = mid
                continue
            raise
        msg = resp.get("message") or {}
        seq, ts = int(msg.get("seq") or mid), parse_ts(msg.get("time"))
        if ts is not None and ts < cutoff:
            lo = seq + 1
        else:
            hi = mid
    if lo > s.last_seq:
        return s.messages
    removed = lo - s.first_seq
    return max(0, min(s.messages, removed))


async def _per_subject_loss(client: JsClient, s: LiveStream, limit: int) -> int | None:
    removed, seen, offset = 0, 0, 0
    for _ in range(SUBJECT_PAGES):
        resp = await client.arequest(f"STREAM.INFO.{s.name}", {"subjects_filter": ">", "offset": offset})
        st = resp.get("state") or {}
        subjects = st.get("subjects") or {}
        if not subjects:
            break
        for count in subjects.values():
            removed += max(0, int(count) - limit)
        seen += len(subjects)
        offset += len(subjects)
        if seen >= int(st.get("num_subjects") or 0):
            return removed
    return removed if seen >= s.num_subjects else None
