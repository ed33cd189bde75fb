"""The profile job's figures equal exact numpy computations on synthetic telemetry."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from jsops.linter.model.profiles import Profiles, load_profiles
from jsops.profiler.job import build_profiles, main
from jsops.profiler.synthetic import default_spec, generate

from .helpers import expected, read_events

REL = 0.005  # p99 within 0.5%


@pytest.fixture(scope="module")
def telemetry(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("telemetry")
    generate(d, default_spec(acks=30_000, publish_ids=6_000, seed=11, files=3))
    return d


@pytest.fixture(scope="module")
def truth(telemetry: Path) -> dict[str, Any]:
    return expected(read_events(telemetry))


@pytest.fixture(scope="module")
def profile(spark: Any, telemetry: Path) -> dict[str, Any]:
    doc, summary = build_profiles(spark, [str(telemetry)])
    assert summary.bad_lines == 0 and summary.unknown == 0
    assert summary.exact_groups == 3 and summary.approx_groups == 0
    return doc


def close(a: float, b: float, rel: float = 1e-9) -> bool:
    return abs(a - b) <= rel * max(abs(b), 1.0)


def test_profile_validates_against_the_linter_model(profile: dict[str, Any]) -> None:
    p = Profiles.model_validate(profile)
    assert p.version == 1 and set(p.streams) == {"ORDERS", "PAYMENTS"}
    assert set(p.consumers) == {"ORDERS/shipper", "ORDERS/billing", "PAYMENTS/settler"}
    assert p.window is not None and p.window.start.isoformat().startswith("2026-11-20T12:00:00")


def test_ack_time_percentiles_equal_numpy(profile: dict[str, Any], truth: dict[str, Any]) -> None:
    for key, want in truth["consumers"].items():
        got = profile["consumers"][key]["ack_time_ns"]
        w = want["ack_time_ns"]
        assert got["samples"] == w["samples"] and got["max"] == w["max"]
        for q in ("p50", "p90", "p99", "p999"):
            assert abs(got[q] - w[q]) <= 1, (key, q)  # exact path: numpy's linear interpolation, rounded to ns


def test_deliveries_and_advisories_counts_exact(profile: dict[str, Any], truth: dict[str, Any]) -> None:
    for key, want in truth["consumers"].items():
        got = profile["consumers"][key]
        assert got["deliveries"]["max"] == want["deliveries"]["max"]
        assert close(got["deliveries"]["first_try_ratio"], want["deliveries"]["first_try_ratio"])
        assert close(got["deliveries"]["redelivered_ratio"], want["deliveries"]["redelivered_ratio"])
        assert got["advisories"] == want["advisories"]
        assert close(got["delivery"]["mean_per_s"], want["delivery"]["mean_per_s"])
        assert close(got["delivery"]["peak_per_s"], want["delivery"]["peak_per_s"])
    assert profile["consumers"]["ORDERS/shipper"]["advisories"] == {"max_deliver": 12, "nak": 30, "terminated": 4}


def test_stream_figures_equal_numpy(profile: dict[str, Any], truth: dict[str, Any]) -> None:
    for name, want in truth["streams"].items():
        got = profile["streams"][name]
        gi, wi = got["ingest"], want["ingest"]
        assert gi["messages"] == wi["messages"] and gi["peak_per_s"] == wi["peak_per_s"]
        assert gi["peak_per_min"] == wi["peak_per_min"]
        assert close(gi["mean_per_s"], wi["mean_per_s"]) and close(gi["p99_per_s"], wi["p99_per_s"])
        assert close(got["bytes"]["mean_per_s"], want["bytes"]["mean_per_s"])
        assert got["bytes"]["peak_per_s"] == want["bytes"]["peak_per_s"]
        assert close(got["bytes"]["stored_msg_size_mean"], want["bytes"]["stored_msg_size_mean"])
        gr, wr = got["publish_retry"], want["publish_retry"]
        assert (gr["attempts"], gr["retried_ids"], gr["horizon_max_ns"]) == (
            wr["attempts"],
            wr["retried_ids"],
            wr["horizon_max_ns"],
        )
        assert abs(gr["horizon_p99_ns"] - wr["horizon_p99_ns"]) <= REL * wr["horizon_p99_ns"]
        assert got["retention_span_ns"] == want["retention_span_ns"]


def test_approximate_path_within_half_a_percent(spark: Any, telemetry: Path, truth: dict[str, Any]) -> None:
    doc, summary = build_profiles(spark, [str(telemetry)], exact_limit=0, accuracy=10_000)
    assert summary.approx_groups == 3 and summary.exact_groups == 0
    for key, want in truth["consumers"].items():
        got, w = doc["consumers"][key]["ack_time_ns"], want["ack_time_ns"]
        assert got["samples"] == w["samples"] and got["max"] == w["max"]
        for q in ("p50", "p90", "p99"):
            assert abs(got[q] - w[q]) <= REL * w[q], (key, q, got[q], w[q])


def test_cli_writes_a_file_load_profiles_reads(
    spark: Any, telemetry: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "profiles.json"
    assert main([str(telemetry), "-o", str(out)]) == 0
    loaded = load_profiles(out)
    assert loaded.consumer("ORDERS", "shipper") is not None
    assert loaded.consumer("ORDERS", "shipper").ack_time_ns.samples == 15_000  # type: ignore[union-attr]
    assert "read " in capsys.readouterr().err
    json.loads(out.read_text())


@pytest.mark.parametrize(
    "small, limit, pair_limit, want",
    [
        (1_000, 50_000_000, 100_000, (3, 0)),  # every consumer from the histogram and its target buckets' values
        (
            1_000,
            50_000_000,
            -1,
            (3, 0),
        ),  # no histogram bucket taken: every consumer refined from percentile_approx brackets
        (7_000, 10_000, -1, (2, 1)),  # settler (6k) exact, billing (9k) refined, shipper (15k) approximate
        (7_000, 10_000, 100_000, (2, 1)),  # settler and billing from the histogram, shipper (15k) approximate
    ],
)
def test_refined_exact_path_equals_numpy(
    spark: Any,
    telemetry: Path,
    truth: dict[str, Any],
    monkeypatch: pytest.MonkeyPatch,
    small: int,
    limit: int,
    pair_limit: int,
    want: tuple[int, int],
) -> None:
    from jsops.profiler import quantiles as job

    monkeypatch.setattr(job, "_EXACT_SMALL", small)
    monkeypatch.setattr(job, "_PAIR_LIMIT", pair_limit)
    doc, summary = build_profiles(spark, [str(telemetry)], exact_limit=limit)
    assert (summary.exact_groups, summary.approx_groups) == want
    for key, want_c in truth["consumers"].items():
        got, w = doc["consumers"][key]["ack_time_ns"], want_c["ack_time_ns"]
        assert got["samples"] == w["samples"] and got["max"] == w["max"]
        approx = w["samples"] > limit
        for q in ("p50", "p90", "p99", "p999"):
            if approx:
                assert abs(got[q] - w[q]) <= REL * w[q] or q == "p999", (key, q)
            else:
                assert abs(got[q] - w[q]) <= 1, (key, q, got[q], w[q])


def test_refine_picks_ranks_and_refuses_a_bracket_that_misses() -> None:
    from jsops.profiler.quantiles import _refine

    values = sorted([5, 1, 9, 3, 7, 7, 2, 8, 6, 4])  # 1 2 3 4 5 6 7 7 8 9
    import numpy as np

    for q in (0.0, 0.5, 0.9, 0.99, 1.0):
        # a bracket holding ranks 3..8 (values 4..8), three values below it
        pairs = [(4, 1), (5, 1), (6, 1), (7, 2), (8, 1)]
        h = (len(values) - 1) * q
        got = _refine(len(values), q, 3, pairs)
        if 3 <= int(np.floor(h)) and int(np.ceil(h)) <= 8:
            assert got == pytest.approx(float(np.percentile(values, q * 100)))
        else:
            assert got is None


def test_a_bracket_that_misses_falls_back_to_the_exact_percentile(
    spark: Any, telemetry: Path, truth: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Degenerate brackets ([v, v] at the approximate value) miss the interpolation ranks: groups of at
    most _EXACT_SMALL samples are recomputed with Spark's exact percentile, larger ones stay approximate."""
    from jsops.profiler import quantiles as job

    monkeypatch.setattr(job, "_around", lambda qs, accuracy: [q for q in qs for _ in range(3)])
    monkeypatch.setattr(job, "_EXACT_SMALL", 10_000)  # settler (6k) and billing (9k) small, shipper (15k) not
    monkeypatch.setattr(job, "_PAIR_LIMIT", -1)  # no group ranked from the histogram: every one bracketed
    doc, summary = build_profiles(spark, [str(telemetry)])
    assert (summary.exact_groups, summary.approx_groups) == (2, 1)
    for key in ("ORDERS/billing", "PAYMENTS/settler"):
        got, w = doc["consumers"][key]["ack_time_ns"], truth["consumers"][key]["ack_time_ns"]
        assert all(abs(got[q] - w[q]) <= 1 for q in ("p50", "p90", "p99", "p999")), key
    got, w = doc["consumers"]["ORDERS/shipper"]["ack_time_ns"], truth["consumers"]["ORDERS/shipper"]["ack_time_ns"]
    assert abs(got["p99"] - w["p99"]) <= REL * w["p99"]
