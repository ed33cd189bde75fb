"""`make demo` end to end (short traffic): real nats-server, real collect, local Spark, lint, fix, apply, report.

One run of ``python -m jsops.reconciler.demo``; the assertions read what it left in its work directory and
what it printed, so a step that silently did nothing fails here.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    if shutil.which("java") is None:
        pytest.skip("Java is needed for local Spark")
    work = tmp_path_factory.mktemp("demo") / "run"
    proc = subprocess.run(
        [sys.executable, "-m", "jsops.reconciler.demo", "--workdir", str(work), "--traffic-seconds", "25"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    return proc, work


def test_demo_runs_every_step_and_exits_0(demo):
    proc, work = demo
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    out = proc.stdout
    for step in (
        "Start a local nats-server",
        "Plan and apply",
        "jsops collect",
        "Profile the telemetry",
        "Lint again, now with the measured profiles",
        "Fix what can be fixed",
        "Write the HTML report",
    ):
        assert step in out, step
    assert "nats-server stopped" in out


def test_demo_collected_real_ack_samples_and_profiled_them(demo):
    proc, work = demo
    profiles = json.loads((work / "profiles.json").read_text())
    fraud = profiles["consumers"]["ORDERS/fraud-check"]["ack_time_ns"]
    # the traffic's risk API is slow (median ~1.3 s): real samples from the server show it
    assert fraud["samples"] > 20
    assert 0.5e9 < fraud["p50"] < 3e9
    assert "publish_retry" in profiles["streams"]["ORDERS"]


def test_demo_fix_raised_fraud_check_ack_wait_and_left_the_repo_alone(demo):
    proc, work = demo
    fixed = (work / "manifests" / "orders.yaml").read_text()
    original = (ROOT / "manifests" / "orders.yaml").read_text()
    assert "ack_wait: 5s" in original
    assert "ack_wait: 5s" not in fixed  # the safe fix raised it above 2 x the measured p99
    assert fixed.replace(" ", "") != original.replace(" ", "")


def test_demo_plan_is_empty_after_apply_and_report_written(demo):
    proc, work = demo
    # the last plan printed by the demo is the empty one
    tail = proc.stdout.rsplit("$ jsops plan", 1)[1]
    assert "nothing left to change" in tail
    html = (work / "report.html").read_text()
    assert "<svg" in html and "fraud-check" in html
