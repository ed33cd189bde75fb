"""The engines table of bench/profile_speed.py --engines: records merged across runs, stale sets dropped,
timeouts and failures shown as such, ratios against their targets, figures checked across rows."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import engines_table as et  # noqa: E402

ACKS = {"ORDERS/shipper": {"samples": 3, "max": 9, "p50": 2.0, "p90": 8.0, "p99": 9.0, "p999": 9.0}}
DUCK = [["ORDERS", "shipper", 3, 9, [2.0, 8.0, 9.0, 9.0]]]


def _rec(row: str, wall: float | None = 10.0, key: str = "k1", s: str = "10M parquet", **kw: Any) -> dict[str, Any]:
    r: dict[str, Any] = {
        "set": s,
        "key": key,
        "row": row,
        "wall_s": wall,
        "load": [3.0, 2.0, 1.0],
        "size_mib": 136.0,
        "commit": "abc",
    }
    if row == "duckdb":
        r["duck_rows"] = DUCK
    else:
        r.update(figures_sha="f" * 64, ack_figures=ACKS)
    r.update(kw)
    return r


def test_labels_and_connect_memory() -> None:
    assert et.set_label(10_000_000, "json") == "10M json"
    assert et.set_label(250_000, "parquet") == "250000 parquet"
    assert [et.local_memory_gib(n) for n in (100_000, 1_000_000, 4_000_000, 10_000_000, 50_000_000)] == [1, 1, 1, 3, 4]
    assert [et.connect_memory_gib(n) for n in (1_000_000, 10_000_000, 50_000_000)] == [2, 4, 4]


def test_the_latest_record_of_the_current_set_wins() -> None:
    recs = [
        _rec("floor", 30.0),
        _rec("floor", 40.0, key="stale"),
        _rec("floor", 20.0),
        _rec("jsops", 25.0, key="stale"),
    ]
    got = et.latest(recs, {"10M parquet": "k1"})
    assert list(got) == [("10M parquet", "floor")] and got[("10M parquet", "floor")]["wall_s"] == 20.0


def test_cells_say_what_happened() -> None:
    assert et.cell(None) == "not run"
    assert et.cell(_rec("floor", None, timed_out_s=900.0)) == "timed out after 900 s"
    assert et.cell(_rec("floor", None, error="exit 1")) == "failed"
    assert et.cell(_rec("floor", 12.34, job_s=8.0)) == "12.3 s (job 8.0)"
    assert et.ratio_cell(13.0, 10.0, 1.3) == "1.30x ok"
    assert et.ratio_cell(14.0, 10.0, 1.3) == "1.40x MISSED"
    assert et.ratio_cell(None, 10.0, 1.3) == et.ratio_cell(1.0, None, 1.3) == "-"
    assert et.ratio_cell(14.0, 10.0, None) == "1.40x"


def test_agreement_across_rows_and_with_duckdb() -> None:
    rows = {r: _rec(r) for r in et.ROWS}
    assert et.agreement(rows) == "equal (6 rows)"
    rows["jsops-sail"] = _rec("jsops-sail", figures_sha="e" * 64)
    assert et.agreement(rows).startswith("DIFFER: ") and "jsops-sail" in et.agreement(rows)
    rows["jsops-sail"] = _rec("jsops-sail", ack_figures={"ORDERS/shipper": {**ACKS["ORDERS/shipper"], "p99": 9.5}})
    assert et.agreement(rows) == "DIFFER from DuckDB: jsops-sail"
    assert et.ack_diff(DUCK, {}) == float("inf")


def test_the_table_merges_rows_of_separate_runs_with_ratios_and_load() -> None:
    recs = [
        _rec("duckdb", 1.0),
        _rec("floor", 40.0),
        _rec("jsops", 48.0, events=11_076_149, spark_jobs=5, stages=21),
        _rec("jsops-sail", 6.0),
        _rec("floor-connect", None, timed_out_s=600.0, load=[7.5, 6.0, 5.0]),
        _rec("duckdb", 2.0, s="10M json", key="k2"),
        _rec("jsops-sail", 12.0, s="10M json", key="k2"),
    ]
    table = et.render(
        recs, {"10M parquet": "k1", "10M json": "k2", "1M json": "k3"}, ["10M parquet", "10M json", "1M json"]
    )
    assert len(table) == 4  # header, rule, two sets measured (1M json not at all)
    cells = [c.strip() for c in table[2].strip("|").split("|")]
    head = [c.strip() for c in table[0].strip("|").split("|")]
    row = dict(zip(head, cells))
    assert (
        row["events"] == "11076149"
        and row["floor-connect"] == "timed out after 600 s"
        and row["jsops-connect"] == "not run"
    )
    assert (
        row["jsops/floor cold"] == "1.20x ok"
        and row["jsops/floor warm"] == "-"
        and row["Sail/DuckDB"] == "6.00x MISSED"
    )
    assert row["jobs / stages (jsops cold)"] == "5 / 21 (issue: 21 jobs)"
    assert row["load 1m per row"] == "3.0 3.0 7.5 3.0 - 3.0"
    assert row["figures"] == "equal (4 rows)"
    json_row = dict(zip(head, (c.strip() for c in table[3].strip("|").split("|"))))
    assert json_row["Sail/DuckDB"] == "6.00x"  # the Sail target is for 10M Parquet only
