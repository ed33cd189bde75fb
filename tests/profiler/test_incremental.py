"""Incremental profiles: per-hour partial profiles merge into the profile of all their events.

The reference is the exact job (:func:`build_profiles`) over the same events: a store of exact windows
gives the same figures; a store forced onto log-bucketed histograms stays within its stated relative
error; extending a compacted (``day=/hour=``) store by one hour reads that hour only."""

from __future__ import annotations

import math
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from jsops.profiler.job import build_profiles, main
from jsops.profiler.partial import Counter, Histogram, Partial, partial_from_json, partial_to_json
from jsops.profiler.synthetic import default_spec, generate

H = 3_600_000_000
T12 = 1_795_176_000_000_000  # 2026-11-20T12:00:00Z in microseconds


def _close(a: float, b: float, rel: float) -> bool:
    return abs(a - b) <= rel * max(abs(b), 1.0)


def assert_same(got: Any, want: Any, rel: float = 1e-9, path: str = "") -> None:
    """Equal documents; floats within ``rel``; ack_time percentiles within 1 ns (rounding of the
    interpolation), or within ``rel`` when the profile states a relative error."""
    if isinstance(want, dict):
        assert isinstance(got, dict), path
        extra = {"relative_error"} if rel >= 1e-6 else set()
        assert set(got) - extra == set(want), (path, sorted(got), sorted(want))
        for k in want:
            assert_same(got[k], want[k], rel, f"{path}.{k}")
    elif isinstance(want, float) or isinstance(got, float):
        assert _close(float(got), float(want), rel), (path, got, want)
    elif path.rsplit(".", 1)[-1] in ("p50", "p90", "p99", "p999", "horizon_p99_ns"):
        assert abs(got - want) <= max(1, rel * want), (path, got, want)
    else:
        assert got == want, (path, got, want)


# ----------------------------------------------------------------------------------- pure merge logic


@pytest.mark.parametrize("exact_limit", [10**9, 0])
def test_histogram_merge_equals_the_whole_within_alpha(exact_limit: int) -> None:
    rng = random.Random(5)
    values = [int(rng.lognormvariate(16, 1.2)) for _ in range(20_000)] + [0, 0, 1]
    alpha = 0.005
    a, b = Histogram(alpha), Histogram(alpha)
    for i, v in enumerate(values):
        (a if i % 3 else b).add(v)
    merged = a.merge(b, exact_limit)
    qs = (0.5, 0.9, 0.99, 0.999, 0.0, 1.0)
    got, exact = merged.quantiles(qs)
    assert exact == (exact_limit > 0) and merged.n == len(values) and merged.max == max(values)
    want = np.percentile(np.array(values, dtype=np.float64), [q * 100 for q in qs])
    for g, w in zip(got, want):
        assert (abs(g - w) <= 1e-6 * w) if exact else (abs(g - w) <= alpha * w * (1 + 1e-9)), (g, w)


def test_counter_merge_bridges_the_window_edge() -> None:
    rng = random.Random(2)
    snaps, t, v = [], 0, 0
    for _ in range(200):
        t += rng.randint(1, 20) * 1_000_000
        v += rng.randint(0, 50) if rng.random() > 0.05 else -v  # a reset now and then
        snaps.append((t, v))

    def counter(rows: list[tuple[int, int]]) -> Counter:
        c = Counter(first=rows[0], last=rows[-1])
        for (t0, v0), (t1, v1) in zip(rows, rows[1:]):
            if v1 - v0 >= 0:
                c.total, c.dt = c.total + v1 - v0, c.dt + t1 - t0
                c.peak = max(c.peak or 0.0, (v1 - v0) * 1e6 / (t1 - t0))
        return c

    whole = counter(snaps)
    for cut in (1, 77, 199):
        merged = counter(snaps[:cut]).merge(counter(snaps[cut:]))
        assert (merged.total, merged.dt, merged.peak, merged.first, merged.last) == (
            whole.total,
            whole.dt,
            whole.peak,
            whole.first,
            whole.last,
        )


def test_windows_out_of_order_or_with_other_settings_refuse_to_merge() -> None:
    a, b = Partial(0, H), Partial(H, 2 * H)
    with pytest.raises(ValueError, match="out of order"):
        b.merge(a)
    with pytest.raises(ValueError, match="settings"):
        a.merge(Partial(H, 2 * H, alpha=0.01))


# ------------------------------------------------------------------------------------- on Spark


@pytest.fixture(scope="module")
def telemetry(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("hours")
    generate(d, default_spec(acks=6_000, publish_ids=1_500, duration_s=3 * 3600, seed=31, files=2))
    return d


@pytest.fixture(scope="module")
def reference(spark: Any, telemetry: Path) -> dict[str, Any]:
    doc, summary = build_profiles(spark, [str(telemetry)])
    assert summary.exact_groups == 3
    return doc


def _store_run(
    spark: Any, paths: list[str], store: Path, until: int | None, **settings: Any
) -> tuple[dict[str, Any], Any]:
    from jsops.profiler.incremental import build_store_profiles

    return build_store_profiles(spark, paths, store, Partial(0, 0, **settings), until=until)


def test_store_of_exact_windows_equals_the_exact_job(
    spark: Any, telemetry: Path, reference: dict[str, Any], tmp_path: Path
) -> None:
    doc, summary = _store_run(spark, [str(telemetry)], tmp_path / "store", T12 + 4 * H)
    # three hours of telemetry, and the acks and retries of the last seconds just after 15:00
    assert summary.windows == (4, 0) and summary.exact_groups == 3 and summary.approx_groups == 0
    assert sorted(f.name for f in (tmp_path / "store" / "windows").iterdir()) == [
        f"2026-11-20T{h}:00:00Z.json.gz" for h in (12, 13, 14, 15)
    ]
    assert_same(
        {k: v for k, v in doc.items() if k != "generated_at"},
        {k: v for k, v in reference.items() if k != "generated_at"},
    )
    # a re-run reads the store only
    again, summary = _store_run(spark, [str(telemetry)], tmp_path / "store", T12 + 4 * H)
    assert summary.windows == (0, 4) and summary.kinds == {}
    assert_same(again["consumers"], reference["consumers"])


def test_histogram_windows_are_within_the_stated_error(
    spark: Any, telemetry: Path, reference: dict[str, Any], tmp_path: Path
) -> None:
    doc, summary = _store_run(spark, [str(telemetry)], tmp_path / "store", T12 + 4 * H, alpha=0.01, exact_limit=0)
    assert summary.approx_groups == 3
    for c in doc["consumers"].values():
        assert c["ack_time_ns"]["relative_error"] == 0.01
    assert_same(doc["consumers"], reference["consumers"], rel=0.01)
    for name, s in doc["streams"].items():
        want = reference["streams"][name]
        assert s["ingest"] == want["ingest"] or _close(s["ingest"]["p99_per_s"], want["ingest"]["p99_per_s"], 1e-9)
        r, w = s["publish_retry"], want["publish_retry"]
        assert (r["attempts"], r["retried_ids"], r["horizon_max_ns"]) == (
            w["attempts"],
            w["retried_ids"],
            w["horizon_max_ns"],
        )
        assert abs(r["horizon_p99_ns"] - w["horizon_p99_ns"]) <= 0.01 * w["horizon_p99_ns"]


def test_extending_a_compacted_store_by_one_hour_reads_that_hour(
    spark: Any, telemetry: Path, reference: dict[str, Any], tmp_path: Path
) -> None:
    compacted = tmp_path / "compacted"
    assert main([str(telemetry), "--compact", str(compacted), "-q"]) == 0
    hours = sorted(p.name for p in compacted.glob("day=*/hour=*"))
    assert hours == ["hour=12", "hour=13", "hour=14", "hour=15"]
    _, first = _store_run(spark, [str(compacted)], tmp_path / "store", T12 + 3 * H)
    assert first.windows == (3, 0)
    # the last hour's files are the only ones read: the events read are that hour's
    last = spark.read.parquet(str(compacted / "day=2026-11-20" / "hour=15")).count()
    doc, summary = _store_run(spark, [str(compacted)], tmp_path / "store", T12 + 4 * H)
    assert summary.windows == (1, 3) and sum(summary.kinds.values()) == last
    assert_same(doc["consumers"], reference["consumers"])
    assert_same(doc["streams"], reference["streams"])


def test_partial_json_round_trip(spark: Any, telemetry: Path, tmp_path: Path) -> None:
    import gzip
    import json

    _store_run(spark, [str(telemetry)], tmp_path / "store", T12 + H)
    (f,) = (tmp_path / "store" / "windows").iterdir()
    data = json.loads(gzip.decompress(f.read_bytes()))
    assert json.loads(json.dumps(partial_to_json(partial_from_json(data)))) == data
    assert data["start"] == T12 and data["end"] == T12 + H and math.isclose(data["alpha"], 0.005)


def test_cli_store_since_until_checks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(tmp_path), "-o", str(tmp_path / "p.json"), "--since", "yesterday"]) == 2
    assert "expected a date or an RFC 3339 time" in capsys.readouterr().err
    assert main([str(tmp_path), "-o", str(tmp_path / "p.json"), "--relative-error", "0.01"]) == 2
    assert "go with --store" in capsys.readouterr().err
    assert main([str(tmp_path)]) == 2
    assert "-o/--output" in capsys.readouterr().err
