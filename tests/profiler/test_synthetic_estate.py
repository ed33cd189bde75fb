"""Synthetic telemetry for the example estate (manifests/): its names, and figures that make the
profile-driven rules fire on the estate's deliberate smells and nowhere else."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from jsops.linter import load_paths
from jsops.linter.cli.app import main as jsops
from jsops.profiler.job import build_profiles
from jsops.profiler.synthetic import estate_spec, generate, lognormal
from jsops.profiler.synthetic import main as synthetic_main

from .helpers import expected, read_events

ROOT = Path(__file__).resolve().parents[2]
MANIFESTS = ROOT / "manifests"
SMELLS = {("JS401", "fraud-check"), ("JS402", "ORDERS"), ("JS407", "label-printer")}


@pytest.fixture(scope="module")
def telemetry(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("estate")
    assert synthetic_main([str(d), "--estate", str(MANIFESTS), "--acks", "3000", "--publish-ids", "3000"]) == 0
    return d


@pytest.fixture(scope="module")
def profile(spark: Any, telemetry: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    doc, summary = build_profiles(spark, [str(telemetry)])
    assert summary.bad_lines == 0 and summary.unknown == 0
    out = tmp_path_factory.mktemp("profile") / "profiles.json"
    out.write_text(json.dumps(doc))
    return out


def test_lognormal_parameters() -> None:
    mu, sigma = lognormal(1.2, 4.0)
    import math

    assert math.exp(mu) == pytest.approx(1.2) and math.exp(mu + 2.3263478740408408 * sigma) == pytest.approx(4.0)


def test_names_and_configs_are_the_estate_s(telemetry: Path) -> None:
    estate = load_paths([str(MANIFESTS)])
    streams = {r.name for r in estate.streams()}
    consumers = {f"{r.stream}/{r.name}" for r in estate.consumers()}
    assert {"ORDERS", "PAYMENTS", "SHIPPING", "INVENTORY", "NOTIFICATIONS", "DLQ"} <= streams
    events = read_events(telemetry)
    assert {e["config"]["name"] for e in events if "state" in e} == streams
    assert {f"{e['stream_name']}/{e['name']}" for e in events if "delivered" in e} == consumers
    fraud = next(e for e in events if e.get("name") == "fraud-check" and "delivered" in e)
    assert fraud["config"]["ack_wait"] == 5_000_000_000 and fraud["config"]["max_deliver"] == 3
    # the server samples acks only for explicit-ack consumers with a sample_freq
    sampled = {f"{e['stream']}/{e['consumer']}" for e in events if e.get("type", "").endswith("consumer_ack")}
    assert sampled == {
        "ORDERS/order-projection",
        "ORDERS/fraud-check",
        "PAYMENTS/payment-gateway",
        "SHIPPING/label-printer",
    }
    # nobody publishes to the DLQ: the server puts advisories there
    assert {e["stream"] for e in events if e.get("type") == "io.jsops.publish.v1"} == streams - {"DLQ"}


def test_profiled_figures_show_the_smells(profile: Path, telemetry: Path) -> None:
    doc = json.loads(profile.read_text())
    truth = expected(read_events(telemetry))
    fraud = doc["consumers"]["ORDERS/fraud-check"]
    assert 3.4e9 <= fraud["ack_time_ns"]["p99"] <= 4.6e9  # ~4 s against ack_wait 5s
    assert abs(fraud["ack_time_ns"]["p99"] - truth["consumers"]["ORDERS/fraud-check"]["ack_time_ns"]["p99"]) <= 1
    printer = doc["consumers"]["SHIPPING/label-printer"]
    assert 0.12 <= printer["deliveries"]["redelivered_ratio"] <= 0.18
    assert printer["advisories"]["max_deliver"] == 0  # max_deliver unset: the server never sends them
    orders = doc["streams"]["ORDERS"]["publish_retry"]
    assert orders["horizon_p99_ns"] > 120e9  # longer than the 2m duplicate_window
    assert doc["streams"]["PAYMENTS"]["publish_retry"]["horizon_p99_ns"] < 600e9  # inside its 10m window
    healthy = doc["consumers"]["ORDERS/order-projection"]["ack_time_ns"]
    assert healthy["p99"] * 2 < 30e9  # backoff[0] 30s
    assert "ack_time_ns" not in doc["consumers"]["PAYMENTS/refunds"]  # no sample_freq: no samples


def _findings(args: list[str], capsys: pytest.CaptureFixture[str]) -> set[tuple[str, str]]:
    capsys.readouterr()
    jsops(["lint", str(MANIFESTS), "--format", "json", *args])
    return {(f["rule"], f["object"]["name"]) for f in json.loads(capsys.readouterr().out)["findings"]}


def test_profile_driven_rules_fire_on_the_smells_only(profile: Path, capsys: pytest.CaptureFixture[str]) -> None:
    static = _findings([], capsys)
    with_profiles = _findings(["--profiles", str(profile)], capsys)
    new = with_profiles - static
    assert SMELLS <= new, new
    assert {name for _, name in new} <= {name for _, name in SMELLS}, new


def test_another_estate_gets_healthy_figures(tmp_path: Path) -> None:
    (tmp_path / "m.yaml").write_text(
        "apiVersion: jsops/v1\nkind: Stream\nmetadata: {name: EVENTS}\nspec: {subjects: ['events.*']}\n---\n"
        "apiVersion: jsops/v1\nkind: Consumer\nmetadata: {name: worker, stream: EVENTS}\n"
        "spec: {ack_wait: 10s, max_deliver: 4, sample_freq: '50%'}\n"
    )
    spec = estate_spec([str(tmp_path)], acks=4000, publish_ids=100, duration_s=600)
    (worker,) = spec.consumers
    assert (worker.stream, worker.name, worker.acks, worker.max_deliver) == ("EVENTS", "worker", 4000, 4)
    generate(tmp_path / "t", spec)
    truth = expected(read_events(tmp_path / "t"))
    p99 = truth["consumers"]["EVENTS/worker"]["ack_time_ns"]["p99"]
    assert 2.0e9 <= p99 <= 3.0e9  # a quarter of the 10s ack wait
    assert truth["streams"]["EVENTS"]["publish_retry"]["attempts"] >= 100
    assert synthetic_main([str(tmp_path / "none"), "--estate", str(tmp_path / "missing")]) == 2
