"""Telemetry outliers and broken inputs (issue 22 item 15): one line dated 2100 does not stretch the
window (it is left out by the rule of jsops.profiler.outliers, with a warning counting it), and a
truncated ``.gz`` or Parquet input fails with one line naming the file. Local Spark."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from jsops.profiler.job import main


def _publishes(n: int = 300, stream: str = "ORDERS") -> list[dict[str, Any]]:
    return [
        {
            "type": "io.jsops.publish.v1",
            "ts": f"2026-08-21T12:{i // 60:02d}:{i % 60:02d}.000Z",
            "stream": stream,
            "msg_id": f"m{i}",
            "attempt": 1,
            "bytes": 100,
            "result": "ok",
        }
        for i in range(n)
    ]


def _write(path: Path, events: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(e) + "\n" for e in events))


def test_the_rule() -> None:
    from jsops.profiler.outliers import main_run

    assert main_run({}) is None
    assert main_run({100: 5}) == (100, 100)
    assert main_run({100: 50, 101: 60, 103: 10, 27000: 1}) == (100, 103)  # a two-day gap is still the telemetry
    assert main_run({100: 1, 120: 50}) == (120, 120)  # the bulk wins, early or late
    assert main_run({100: 5, 200: 5}) == (200, 200)  # a tie: the later run


def test_within_the_gap_the_rule_keeps_every_day_without_counting_them() -> None:
    """The profile job counts the days only when its census's first and last timestamps are more than
    GAP_DAYS days apart: closer, every set of days between them is one run, as the rule finds."""
    import random

    from jsops.profiler.outliers import DAY_US, GAP_DAYS, main_run, within_gap

    rng = random.Random(7)
    for _ in range(500):
        first = rng.randrange(-400, 30_000)
        last = first + rng.randrange(0, 2 * GAP_DAYS)
        days = {first: rng.randrange(1, 9), last: rng.randrange(1, 9)} | {
            rng.randrange(first, last + 1): rng.randrange(1, 9) for _ in range(3)
        }
        lo, hi = first * DAY_US + rng.randrange(DAY_US), last * DAY_US + rng.randrange(DAY_US)
        kept = within_gap(lo, hi)
        run = main_run(days)
        if last - first <= GAP_DAYS:
            assert run == (first, last) and kept == (first * DAY_US, (last + 1) * DAY_US)
        else:
            assert kept is None
    assert within_gap(None, None) is None


def test_one_line_dated_2100_does_not_stretch_the_window(
    spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    events = _publishes()
    _write(tmp_path / "clean.jsonl", events)
    assert main([str(tmp_path / "clean.jsonl"), "-o", str(tmp_path / "clean.json")]) == 0
    clean = json.loads((tmp_path / "clean.json").read_text())
    assert "outside" not in capsys.readouterr().err

    late = {**events[0], "ts": "2100-01-01T00:00:00.000Z", "msg_id": "late"}
    (tmp_path / "in").mkdir()
    _write(tmp_path / "in" / "t.jsonl", [*events, late])
    assert main([str(tmp_path / "in"), "-o", str(tmp_path / "p.json")]) == 0
    err = capsys.readouterr().err
    assert "jsops profile: warning: 1 events dated outside 2026-08-21 .. 2026-08-21 were left out" in err, err
    doc = json.loads((tmp_path / "p.json").read_text())
    assert doc["window"] == clean["window"] and doc["window"]["end"].startswith("2026-08-21T12:04:59")
    assert doc["streams"]["ORDERS"] == clean["streams"]["ORDERS"]  # the ingest rate is that of the real window
    ingest = doc["streams"]["ORDERS"]["ingest"]
    assert 0.9 < ingest["mean_per_s"] <= 1.0, ingest

    # the profile store (hourly windows) leaves it out too: no window in 2100
    assert main([str(tmp_path / "in"), "-o", str(tmp_path / "s.json"), "--store", str(tmp_path / "store")]) == 0
    assert "1 events dated outside" in capsys.readouterr().err
    stored = json.loads((tmp_path / "s.json").read_text())
    assert stored["window"]["end"].startswith("2026-08-21")


def test_a_truncated_gzip_names_the_file(spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = gzip.compress("".join(json.dumps(e) + "\n" for e in _publishes(3000)).encode())
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "ok.jsonl").write_text(json.dumps(_publishes(1)[0]) + "\n")
    bad = tmp_path / "in" / "jsops-1-0001.jsonl.gz"
    bad.write_bytes(data[: len(data) // 2])
    rc = main([str(tmp_path / "in"), "-o", str(tmp_path / "p.json")])
    err = capsys.readouterr().err
    errors = [ln for ln in err.splitlines() if "error" in ln]
    assert rc == 2 and errors == [
        f"jsops profile: error: {bad}: the gzip stream is truncated (the file ends before the compressed data does)"
    ], err
    assert "Py4J" not in err and "Traceback" not in err
    assert not (tmp_path / "p.json").exists()


def test_a_truncated_parquet_file_names_the_file(
    spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from pyspark.sql import SparkSession

    session = SparkSession.getActiveSession()
    assert session is not None
    session.createDataFrame(
        [(e["type"], e["ts"], e["stream"]) for e in _publishes(50)], "type string, ts string, stream string"
    ).coalesce(1).write.parquet(str(tmp_path / "pq"))
    (part,) = [p for p in (tmp_path / "pq").iterdir() if p.name.endswith(".parquet")]
    part.write_bytes(part.read_bytes()[:-20])
    rc = main([str(tmp_path / "pq"), "-o", str(tmp_path / "p.json")])
    err = capsys.readouterr().err
    errors = [ln for ln in err.splitlines() if "error" in ln]
    assert rc == 2 and errors == [
        f"jsops profile: error: {part}: the Parquet file is truncated (no footer at its end)"
    ], err
    assert "Py4J" not in err
