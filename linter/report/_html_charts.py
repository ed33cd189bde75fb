"""Chart geometry and value formatting for the HTML report (presentation only).

Charts are drawn as inline SVG by the template from the plain geometry computed here: a log time
axis with readable ticks, and one row per known figure. Coordinates are rounded to 0.1 px so the
output is stable.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from ..semantics.units import (
    DAY,
    HOUR,
    MICROSECOND,
    MILLISECOND,
    MINUTE,
    SECOND,
    measured_duration,
    measured_size,
    significant,
)
from ._html_model import ConsumerReport, StreamReport

__all__ = [
    "Axis",
    "BarRow",
    "Chart",
    "Tick",
    "consumer_chart",
    "fmt_bytes",
    "fmt_bytes_rate",
    "fmt_count",
    "fmt_duration",
    "fmt_percent",
    "fmt_rate",
    "stream_chart",
]

US, MS, S, MIN, H, D = MICROSECOND, MILLISECOND, SECOND, MINUTE, HOUR, DAY
Y = 365 * D

# Tick marks of a log time axis: decades below a second, then the units people read.
_TICKS: tuple[tuple[int, str], ...] = (
    (1 * US, "1µs"),
    (10 * US, "10µs"),
    (100 * US, "100µs"),
    (1 * MS, "1ms"),
    (10 * MS, "10ms"),
    (100 * MS, "100ms"),
    (1 * S, "1s"),
    (10 * S, "10s"),
    (1 * MIN, "1m"),
    (10 * MIN, "10m"),
    (1 * H, "1h"),
    (6 * H, "6h"),
    (1 * D, "1d"),
    (7 * D, "7d"),
    (30 * D, "30d"),
    (Y, "1y"),
    (10 * Y, "10y"),
    (100 * Y, "100y"),
)
_AXIS_MAX_NS = 100 * Y

# Layout (px) shared by both charts.
WIDTH = 640
LEFT = 136  # row labels
RIGHT = 92  # value labels
TOP = 30  # room for the marker label
ROW = 26
BOTTOM = 30  # tick labels


# --- formatting ---------------------------------------------------------------------------------


def fmt_duration(ns: float | None) -> str:
    """A measured duration, three significant digits: ``120ms``, ``4.1s``, ``95s``, ``2.5m``, ``30d``."""
    return "no data" if ns is None else measured_duration(ns)


def fmt_bytes(n: float | None) -> str:
    return "no data" if n is None else measured_size(n)


def fmt_bytes_rate(n: float | None) -> str:
    return "no data" if n is None else f"{fmt_bytes(n)}/s"


def fmt_rate(n: float | None, unit: str = "msg/s") -> str:
    return "no data" if n is None else f"{significant(n)} {unit}"


def fmt_count(n: int | None) -> str:
    return "no data" if n is None else f"{n:,}"


def fmt_percent(x: float | None) -> str:
    """A share as a percentage, three significant digits: ``10%``, ``0.1%``, ``26.7%`` (``99.96%``
    stays short of 100%)."""
    if x is None:
        return "no data"
    text = significant(x * 100, 3)
    if text == "100" and x < 1:  # 99.96% is not 100%
        text = significant(x * 100, 5)
    return f"{text}%"


# --- geometry -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Tick:
    x: float
    label: str


@dataclass(frozen=True)
class Axis:
    lo_ns: int
    hi_ns: int
    ticks: tuple[Tick, ...]

    def x(self, ns: float) -> float:
        """The x of a duration (clamped to the axis)."""
        v = min(max(ns, self.lo_ns), self.hi_ns)
        span = math.log10(self.hi_ns) - math.log10(self.lo_ns)
        return round(LEFT + (math.log10(v) - math.log10(self.lo_ns)) / span * (WIDTH - LEFT - RIGHT), 1)


@dataclass(frozen=True)
class BarRow:
    """One row: a label, a bar from the axis start to ``x`` (None: nothing to draw) and a value label."""

    y: float
    label: str
    x: float | None
    value: str
    tone: str  # css class: "ok" | "over" | "nodata" | "muted"
    clipped: bool = False  # the value lies beyond the axis end


@dataclass(frozen=True)
class Chart:
    width: int
    height: int
    left: int
    right: float  # x of the axis end
    top: int
    bottom: float  # y of the axis line
    axis: Axis
    rows: tuple[BarRow, ...]
    marker_x: float | None
    marker_label: str
    line: tuple[tuple[float, float], ...]  # points joined by a thin line (the ladder), may be empty
    title: str  # for the <title> of the svg (accessibility)


def _axis(values: Sequence[float]) -> Axis:
    """A log axis covering ``values`` with a little room, snapped to tick marks."""
    pos = [v for v in values if v and v > 0]
    if not pos:
        pos = [1 * MS, 1 * S]
    lo, hi = min(pos) / 1.5, min(max(pos) * 1.5, _AXIS_MAX_NS)
    lo = max(lo, _TICKS[0][0])
    start = max((t for t, _ in _TICKS if t <= lo), default=_TICKS[0][0])
    end = min((t for t, _ in _TICKS if t >= hi), default=_TICKS[-1][0])
    if end <= start:
        end = next(t for t, _ in _TICKS if t > start)
    axis = Axis(start, end, ())
    ticks = tuple(Tick(axis.x(t), label) for t, label in _TICKS if start <= t <= end)
    return Axis(start, end, ticks)


def _chart(
    axis: Axis,
    rows: Sequence[BarRow],
    limit: str,
    limit_ns: float | None,
    title: str,
    line: Sequence[tuple[float, float]] = (),
) -> Chart:
    """``rows`` one under the other on ``axis``, with the limit (``limit``, ``limit_ns`` when it is set) as a
    vertical marker."""
    bottom = TOP + len(rows) * ROW + 4
    marker = axis.x(limit_ns) if limit_ns else None
    label = f"{limit} {fmt_duration(limit_ns)}" if limit_ns else ""
    return Chart(
        WIDTH,
        int(bottom + BOTTOM),
        LEFT,
        WIDTH - RIGHT,
        TOP,
        float(bottom),
        axis,
        tuple(rows),
        marker,
        label,
        tuple(line),
        title,
    )


def consumer_chart(c: ConsumerReport) -> Chart | None:
    """The percentile ladder: p50, p90, p99, p99.9 and max of ack_time on a log axis, ack_wait as a
    vertical marker. Only the known points are drawn; nothing below p50 is claimed."""
    if not c.points:
        return None
    values: list[float] = [p.ns for p in c.points]
    if c.ack_wait_ns:
        values.append(c.ack_wait_ns)
    axis = _axis(values)
    rows = []
    line = []
    for i, p in enumerate(c.points):
        y = TOP + i * ROW + ROW / 2
        over = c.ack_wait_ns is not None and p.ns > c.ack_wait_ns
        x = axis.x(p.ns) if p.ns > 0 else float(LEFT)
        rows.append(BarRow(y, p.label, x, fmt_duration(p.ns), "over" if over else "ok", p.ns > axis.hi_ns))
        line.append((x, y))
    title = f"ack time of {c.stream}/{c.name}: p50 to max against ack_wait"
    return _chart(axis, rows, "ack_wait", c.ack_wait_ns, title, line)


def stream_chart(s: StreamReport) -> Chart | None:
    """Time to fill each size limit at mean, p99 and peak ingest on a log axis, max_age as a marker."""
    if all(f.state == "nodata" for f in s.fills):  # no limits, or no ingest figures: nothing to draw
        return None
    values: list[float] = [f.seconds * S for f in s.fills if f.seconds is not None]
    if s.max_age_ns:
        values.append(s.max_age_ns)
    axis = _axis(values)
    rows = []
    for i, f in enumerate(s.fills):
        y = TOP + i * ROW + ROW / 2
        label = f"{f.limit} @ {f.rate}"
        if f.state == "nodata":
            rows.append(BarRow(y, label, None, "no data", "nodata"))
        elif f.state == "never":
            rows.append(BarRow(y, label, None, "never (rate 0)", "muted"))
        else:
            ns = (f.seconds or 0) * S
            value = ("≈" if f.estimated else "") + fmt_duration(ns)
            rows.append(BarRow(y, label, axis.x(ns), value, "over" if f.before_max_age else "ok", ns > axis.hi_ns))
    title = f"time for {s.name} to fill its limits at mean, p99 and peak ingest against max_age"
    return _chart(axis, rows, "max_age", s.max_age_ns, title)
