"""Timestamps that do not belong to the telemetry: one line dated 2100 must not stretch the window.

**The rule.** Telemetry is recorded continuously (a collector writes snapshots every few seconds;
an outage leaves a gap of hours or days, not of years). The events are counted per UTC day; the
days holding events are split into runs wherever two consecutive ones are more than
:data:`GAP_DAYS` days apart, and the run holding the most events (the later one on a tie) is the
telemetry. Events dated outside that run are outliers: they are left out of every figure and
counted in a warning (``jsops profile: warning: N events dated ... left out``). Events without a
timestamp are not outliers (they are counted as before). The rule needs no knowledge of when the
collection ran, keeps a week of telemetry with a two-day outage whole, and costs one aggregation
whose size is the number of distinct days.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pyspark is imported where a query runs
    from pyspark.sql import DataFrame

__all__ = ["GAP_DAYS", "DAY_US", "main_run", "within_gap", "day_counts", "exclude_outliers", "outliers_from"]

DAY_US = 86_400 * 1_000_000
GAP_DAYS = 7  # days without an event that separate the telemetry from an outlier
_MAX_DAYS = 200_000  # distinct days looked at (the busiest); more is not telemetry (550 years)


def main_run(days: dict[int, int], gap_days: int = GAP_DAYS) -> tuple[int, int] | None:
    """The first and last day of the run of ``days`` (day index -> events) holding the most events;
    None when there are none."""
    if not days:
        return None
    runs: list[tuple[int, int, int]] = []  # (events, first, last)
    order = sorted(days)
    first = prev = order[0]
    total = 0
    for d in order:
        if d - prev > gap_days:
            runs.append((total, first, prev))
            first, total = d, 0
        total += days[d]
        prev = d
    runs.append((total, first, prev))
    best = max(runs, key=lambda r: (r[0], r[1]))
    return best[1], best[2]


def within_gap(lo_us: int | None, hi_us: int | None, gap_days: int = GAP_DAYS) -> tuple[int, int] | None:
    """The kept range ``[start, end)`` when the first and last timestamps (``lo_us``, ``hi_us``) are at
    most ``gap_days`` days apart: then no two days holding events can be further apart, the days form
    one run and there is no outlier (what :func:`exclude_outliers` would find, without its query).
    ``None`` when they are further apart (or there is no timestamp): the days must be counted."""
    if lo_us is None or hi_us is None or hi_us // DAY_US - lo_us // DAY_US > gap_days:
        return None
    return lo_us // DAY_US * DAY_US, (hi_us // DAY_US + 1) * DAY_US


def day_counts(ev: DataFrame) -> DataFrame:
    """The query of the events per UTC day (``d``, ``count``), the :data:`_MAX_DAYS` busiest days: run
    alone by :func:`exclude_outliers`, or within another query and read by :func:`outliers_from`."""
    from pyspark.sql import functions as F

    day = F.floor(F.col("t") / DAY_US)
    return (
        ev.where(F.col("t").isNotNull()).groupBy(day.alias("d")).count().orderBy(F.col("count").desc()).limit(_MAX_DAYS)
    )


def exclude_outliers(ev: DataFrame) -> tuple[DataFrame, int, tuple[int, int] | None]:
    """``ev`` without its outliers (events without a timestamp are kept), how many were left out,
    and the kept range ``[start, end)`` in microseconds (None: no timestamped events)."""
    return outliers_from(ev, day_counts(ev).collect())


def outliers_from(ev: DataFrame, rows: list[Any]) -> tuple[DataFrame, int, tuple[int, int] | None]:
    """:func:`exclude_outliers` from the rows of :func:`day_counts` collected already."""
    from pyspark.sql import functions as F

    counts = {int(r["d"]): int(r["count"]) for r in rows}
    run = main_run(counts)
    if run is None:
        return ev, 0, None
    start, end = run[0] * DAY_US, (run[1] + 1) * DAY_US
    kept = sum(n for d, n in counts.items() if run[0] <= d <= run[1])
    outside = sum(counts.values()) - kept
    if len(rows) == _MAX_DAYS:  # days past the busiest ones were not counted: count them now
        outside = ev.where(F.col("t").isNotNull() & ((F.col("t") < start) | (F.col("t") >= end))).count()
    if not outside:
        return ev, 0, (start, end)
    return ev.where(F.col("t").isNull() | ((F.col("t") >= start) & (F.col("t") < end))), outside, (start, end)
