"""Incremental profiles: compute the windows a profile store lacks, store the closed ones, merge them all.

``jsops profile TELEMETRY --store DIR [--since T] [--until T] -o profiles.json``. Reading: a telemetry
directory laid out ``day=YYYY-MM-DD/hour=HH`` (``jsops profile --compact``) is pruned to the hours the
store lacks, so extending a week by one hour reads that hour only; any other input is read whole and
cut to the missing windows. A window is *closed*, and stored, when ``--until`` is at or after its end or
(without ``--until``) when the input has a later window: the newest window is recomputed on every run
until it is complete.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pyspark import StorageLevel
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from jsops.linter import Profiles
from jsops.profiler.compute import ProfileSummary
from jsops.profiler.events import between, read_events
from jsops.profiler.inputs import hour_partitions, worth_caching
from jsops.profiler.outliers import exclude_outliers
from jsops.profiler.partial import Partial, iso, merge, to_document
from jsops.profiler.session import keep
from jsops.profiler.store import ProfileStore, StoreError
from jsops.profiler.windows import window_partials

__all__ = ["build_store_profiles", "HOUR_US"]

HOUR_US = 3_600_000_000


def _inputs(paths: Sequence[str], window_us: int, wanted: Callable[[int], bool]) -> list[str]:
    """``paths`` with every ``day=/hour=`` layout pruned to the hours of wanted windows."""
    out: list[str] = []
    for p in paths:
        parts = hour_partitions(p)
        if parts is None:
            out.append(p)
        else:
            out.extend(d for start, d in sorted(parts.items()) if wanted(start // window_us))
    return out


def build_store_profiles(
    spark: SparkSession,
    paths: Sequence[str],
    store_dir: Path,
    template: Partial,
    *,
    since: int | None = None,
    until: int | None = None,
    window_us: int = HOUR_US,
    progress: Callable[[str], None] | None = None,
) -> tuple[dict[str, Any], ProfileSummary]:
    """The profiles document of ``[since, until)`` merged from the store, after computing (and storing,
    when closed) the windows it lacks. ``since``/``until`` must fall on window boundaries."""
    for name, v in (("--since", since), ("--until", until)):
        if v is not None and v % window_us:
            raise StoreError(f"{name} {iso(v)} is not on a window boundary (windows of {window_us // 1_000_000} s)")
    clock = time.monotonic()
    store = ProfileStore(store_dir, template, window_us)
    lo_w = None if since is None else since // window_us
    hi_w = None if until is None else until // window_us

    def in_range(w: int) -> bool:
        return (lo_w is None or w >= lo_w) and (hi_w is None or w < hi_w)

    have = {w for w in store.stored() if in_range(w)}
    inputs = _inputs(paths, window_us, lambda w: in_range(w) and w not in have)
    summary = ProfileSummary()
    fresh: dict[int, Partial] = {}
    if inputs:
        ev = between(read_events(spark, inputs), since, until, keep_untimed=True)
        if have:
            index = F.floor(F.col("t") / window_us)
            ev = ev.where(F.col("t").isNull() | ~index.isin(sorted(have)))
        release: Callable[[], None] | None = None
        if worth_caching(inputs):  # JSON: parse once; Parquet: scan per pass (cheaper than a cache)
            ev, release = keep(ev, StorageLevel.DISK_ONLY)  # a checkpoint on Sail, which keeps nothing persisted
        try:
            ev, summary.outliers, summary.kept = exclude_outliers(ev)
            fresh, untimed = window_partials(ev, template, window_us)
        finally:
            if release is not None:
                release()
        for k, n in untimed.items():
            summary.kinds[k] = summary.kinds.get(k, 0) + n
    newest = max(fresh, default=None)
    for w, p in fresh.items():
        for k, n in p.kinds.items():
            summary.kinds[k] = summary.kinds.get(k, 0) + n
        for t, n in p.unknown_types.items():
            summary.unknown_types[t] = summary.unknown_types.get(t, 0) + n
        if (hi_w is not None and w < hi_w) or (hi_w is None and w != newest):
            store.save(p)
    if progress is not None:
        progress(
            f"windows: {len(fresh)} computed from {len(inputs)} inputs, {len(have)} in the store ({time.monotonic() - clock:.1f}s)"
        )
    summary.windows = (len(fresh), len(have))
    merged = merge([*store.load(have), *fresh.values()])
    now = iso(int(datetime.now(UTC).timestamp() * 1e6))
    if merged is None:
        doc: dict[str, Any] = {"version": 1, "generated_at": now, "streams": {}, "consumers": {}}
    else:
        doc, summary.exact_groups, summary.approx_groups = to_document(merged, now)
    Profiles.model_validate(doc)
    return doc, summary
