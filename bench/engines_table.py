"""The engines table of ``bench/profile_speed.py --engines`` (issue 27): measured rows as records, merged
across runs, and the table with its ratio columns. Pure: no Spark, no processes, no clock.

A record is one measurement of one row (an engine) on one set (events and format), appended as a JSON
line to the results file, so rows can be measured in separate runs (``--rows``, ``--sizes``,
``--formats``) and merged: the latest record of each (set, row) whose data-set key is the set's
current key wins. A row that timed out or failed is a record too, and prints as such.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

#: The rows, in the table's order: DuckDB; the Spark floor cold and on the warm Connect server; jsops cold
#: local, on the warm Connect server, on Sail.
ROWS = ("duckdb", "floor", "floor-connect", "jsops", "jsops-connect", "jsops-sail")
#: Rows that run on the shared warm Spark Connect server.
CONNECT_ROWS = ("floor-connect", "jsops-connect")
#: Rows whose profile document must be equal, figure for figure.
DOC_ROWS = ("floor", "floor-connect", "jsops", "jsops-connect", "jsops-sail")
#: (label, numerator row, denominator row, target, the one set the target is for or None: every set)
#: of the ratio columns.
RATIOS = (
    ("jsops/floor cold", "jsops", "floor", 1.3, None),
    ("jsops/floor warm", "jsops-connect", "floor-connect", 1.3, None),
    ("Sail/DuckDB", "jsops-sail", "duckdb", 5.0, "10M parquet"),
)
#: Spark jobs of one profile at 1M events when issue 27 was filed (the target is at most half).
ISSUE_JOBS = 21


def set_label(acks: int, fmt: str) -> str:
    """``1M parquet``, ``10M json``: the set's name in records and in ``--sets``."""
    return f"{acks // 1_000_000}M {fmt}" if acks % 1_000_000 == 0 else f"{acks} {fmt}"


def local_memory_gib(acks: int) -> int:
    """Local Spark's driver memory (also the executor) for a set of ``acks`` samples, the same for the
    floor and jsops: 1 GiB per 4M samples, at least 1, at most 4 (the machine is shared). Exact
    percentiles hold every distinct value of a group: with a 1 GiB driver the floor failed at 10M
    distinct samples (its SparkContext stopped mid-query), with 3 GiB it passed."""
    return min(4, max(1, math.ceil(acks / 4_000_000)))


def connect_memory_gib(max_acks: int) -> int:
    """The warm Connect server's driver memory: the largest selected set's local memory plus 1 GiB (it
    keeps the warm state of every query it ran), at most 4 GiB."""
    return min(4, local_memory_gib(max_acks) + 1)


def load_records(path: Path) -> list[dict[str, Any]]:
    """The records in the results file (none if it does not exist)."""
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def latest(records: Iterable[dict[str, Any]], keys: dict[str, str]) -> dict[tuple[str, str], dict[str, Any]]:
    """The last record of each (set, row) among those made on the set's current data (``keys``: set
    label -> data-set key); records of another key (a stale set) are dropped."""
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for r in records:
        if keys.get(r["set"]) == r["key"]:
            out[(r["set"], r["row"])] = r
    return out


def wall(r: dict[str, Any] | None) -> float | None:
    return None if r is None or r.get("wall_s") is None else float(r["wall_s"])


def cell(r: dict[str, Any] | None) -> str:
    """A row's cell: whole wall time (and the job's own time when known), or why there is none."""
    if r is None:
        return "not run"
    if r.get("timed_out_s") is not None:
        return f"timed out after {r['timed_out_s']:.0f} s"
    if r.get("error"):
        return "failed"
    job = f" (job {r['job_s']:.1f})" if r.get("job_s") is not None else ""
    return f"{r['wall_s']:.1f} s{job}"


def ratio_cell(num: float | None, den: float | None, target: float | None) -> str:
    """``num / den``, marked ok or MISSED against ``target`` (None: a set the target is not for)."""
    if num is None or den is None or den <= 0:
        return "-"
    x = num / den
    return f"{x:.2f}x" if target is None else f"{x:.2f}x {'ok' if x <= target else 'MISSED'}"


def ack_diff(duck_rows: Sequence[Sequence[Any]], ack_figures: dict[str, dict[str, Any]]) -> float:
    """Worst relative difference of a document's per-consumer ack figures to DuckDB's rows
    ``[stream, consumer, count, max, [p50, p90, p99, p999]]``; inf if a count, a max or a consumer differs."""
    worst = 0.0
    if len(duck_rows) != len(ack_figures):
        return math.inf
    for s, c, n, mx, q in duck_rows:
        got = ack_figures.get(f"{s}/{c}")
        if got is None or got["samples"] != n or got["max"] != mx:
            return math.inf
        worst = max(worst, *(abs(got[k] - v) / v for k, v in zip(("p50", "p90", "p99", "p999"), q)))
    return worst


def agreement(rows: dict[str, dict[str, Any]]) -> str:
    """Whether the measured rows of one set agree: every document row's figures equal (by digest), and
    each one's ack figures equal to DuckDB's (relative 1e-6)."""
    docs = {
        name: r for name, r in rows.items() if name in DOC_ROWS and r.get("figures_sha") and r.get("wall_s") is not None
    }
    if len({r["figures_sha"] for r in docs.values()}) > 1:
        groups: dict[str, list[str]] = {}
        for name, r in docs.items():
            groups.setdefault(r["figures_sha"][:8], []).append(name)
        return "DIFFER: " + " | ".join(",".join(v) for v in groups.values())
    duck = rows.get("duckdb")
    if duck is not None and duck.get("duck_rows") is not None:
        bad = [n for n, r in docs.items() if ack_diff(duck["duck_rows"], r["ack_figures"]) > 1e-6]
        if bad:
            return "DIFFER from DuckDB: " + ",".join(bad)
    checked = len(docs) + (duck is not None and duck.get("duck_rows") is not None)
    return f"equal ({checked} rows)" if checked > 1 else "-"


def render(records: Iterable[dict[str, Any]], keys: dict[str, str], sets: Sequence[str]) -> list[str]:
    """The engines table of ``sets`` (labels, in order) from the latest current records."""
    best = latest(records, keys)
    head = [
        "set",
        "events",
        "input",
        *ROWS,
        *(label for label, *_ in RATIOS),
        "jobs / stages (jsops cold)",
        "figures",
        "load 1m per row",
        "commit",
    ]
    table = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for s in sets:
        rows = {row: best[(s, row)] for row in ROWS if (s, row) in best}
        if not rows:
            continue
        any_r = next(iter(rows.values()))
        cold = rows.get("jsops")
        jobs = (
            f"{cold['spark_jobs']} / {cold['stages']} (issue: {ISSUE_JOBS} jobs)"
            if cold and cold.get("spark_jobs") is not None
            else "-"
        )
        events = next((r["events"] for r in rows.values() if r.get("events")), None)
        loads = " ".join(f"{rows[row]['load'][0]:.1f}" if row in rows else "-" for row in ROWS)
        commits = ",".join(sorted({r.get("commit", "?") for r in rows.values()}))
        table.append(
            "| "
            + " | ".join(
                [
                    s,
                    str(events) if events else "-",
                    f"{any_r.get('size_mib', 0):.0f} MiB",
                    *(cell(rows.get(row)) for row in ROWS),
                    *(
                        ratio_cell(wall(rows.get(n)), wall(rows.get(d)), t if only in (None, s) else None)
                        for _, n, d, t, only in RATIOS
                    ),
                    jobs,
                    agreement(rows),
                    loads,
                    commits,
                ]
            )
            + " |"
        )
    return table
