"""Pure parts of the controller: durations, listen addresses, backoff, metrics text, policy
labels, the file watcher, the event log and argument errors."""

from __future__ import annotations

import io
import json
import os
import time
from pathlib import Path

import pytest

from jsops.reconciler.client import Target
from jsops.reconciler.controller.cli import main, parse_duration
from jsops.reconciler.controller.endpoints import parse_listen
from jsops.reconciler.controller.loop import Controller, ControllerOptions, EventLog
from jsops.reconciler.controller.metrics import Metrics
from jsops.reconciler.controller.policy import Policy, blocked_need
from jsops.reconciler.controller.source import load_revision, snapshot
from jsops.reconciler.permissions import Blocker, Permission, Refusal, Vocabulary
from jsops.reconciler.plan import Blocked, Intent, PlanItem

from .test_controller_helpers import STREAM_YAML, parse_prometheus, sample


def test_parse_duration() -> None:
    assert parse_duration("30s") == 30
    assert parse_duration("1m30s") == 90
    assert parse_duration("200ms") == pytest.approx(0.2)
    assert parse_duration("2.5") == 2.5
    with pytest.raises(ValueError):
        parse_duration("soon")


def test_parse_listen() -> None:
    assert parse_listen("127.0.0.1:9464") == ("127.0.0.1", 9464)
    assert parse_listen("[::1]:80") == ("::1", 80)
    assert parse_listen(":9000") == ("127.0.0.1", 9000)
    for bad in ("9464", "host:", "h:99999", "h:x"):
        with pytest.raises(ValueError):
            parse_listen(bad)


def test_backoff_grows_with_jitter_and_is_capped() -> None:
    c = Controller(ControllerOptions(paths=["."], interval=0.2, listen=None, max_backoff=3.0), Target())
    delays = [c._delay(False) for _ in range(12)]
    ceilings = [min(3.0, 0.2 * 2**i) for i in range(12)]
    for d, ceiling in zip(delays, ceilings):
        assert ceiling / 2 <= d <= ceiling
    assert max(delays) <= 3.0
    assert c._delay(True) == 0.2  # success resets
    assert 0.1 <= c._delay(False) <= 0.2


def test_metrics_text_escapes_labels_and_parses() -> None:
    m = Metrics()
    m.inc("errors_total", "west", "api", "10058")
    m.inc("errors_total", "west", "api", "10058")
    m.replace("object_sync_state", {("default", "Stream", "", 'we"ird\\na\nme', "synced"): 1.0})
    m.observe_duration(0.3)
    m.observe_duration(7.0)
    text = m.render()
    assert 'name="we\\"ird\\\\na\\nme"' in text
    parsed = parse_prometheus(text)
    assert sample(parsed, "jsops_controller_errors_total", context="west", type="api", err_code="10058") == 2
    assert 'jsops_controller_object_sync_state{context="default",kind="Stream",stream="",name=' in text
    assert sample(parsed, "jsops_controller_reconcile_duration_seconds_bucket", le="0.25") == 0
    assert sample(parsed, "jsops_controller_reconcile_duration_seconds_bucket", le="0.5") == 1
    assert sample(parsed, "jsops_controller_reconcile_duration_seconds_bucket", le="10.0") == 2
    assert sample(parsed, "jsops_controller_reconcile_duration_seconds_sum") == pytest.approx(7.3)


def test_parse_prometheus_rejects_bad_text() -> None:
    with pytest.raises(AssertionError):
        parse_prometheus("# HELP x_total h\n# TYPE x_total counter\nx_total{a=b} 1\n")
    with pytest.raises(AssertionError):
        parse_prometheus("y 1\n")  # no TYPE line


def test_blocked_need_labels() -> None:
    """The metric label comes from the typed refusal, never from its text."""

    def blocked(blocker: Blocker, *missing: Permission) -> PlanItem:
        return PlanItem(
            Intent("update", "Stream", "S"),
            Blocked(Refusal(blocker, "whatever the text says: --allow-recreate", missing, Vocabulary.ANNOTATIONS)),
        )

    assert blocked_need(blocked(Blocker.PERMISSION, Permission.RECREATE, Permission.DATA_LOSS)) == "allow-recreate"
    assert blocked_need(blocked(Blocker.PERMISSION, Permission.DATA_LOSS)) == "allow-data-loss"
    assert blocked_need(blocked(Blocker.PERMISSION, Permission.PRUNE)) == "allow-prune"
    assert blocked_need(blocked(Blocker.PERMISSION, Permission.ADOPT)) == "adopt"
    assert blocked_need(blocked(Blocker.PERMISSION, Permission.MIGRATE)) == "allow-migrate"
    assert blocked_need(blocked(Blocker.SERVER_REFUSAL)) == "forbidden"
    assert blocked_need(blocked(Blocker.UNKNOWN)) == "unavailable"
    assert blocked_need(blocked(Blocker.PROTECTION)) == "protected"
    assert blocked_need(blocked(Blocker.DEPENDENCY)) == "other"
    assert (
        blocked_need(PlanItem(Intent("update", "Stream", "S"), Blocked("needs --allow-recreate"))) == "other"
    )  # a saved plan's text is not read


def test_policy_adopt_names() -> None:
    p = Policy(
        {
            ("Stream", None, "A"): {"jsops.io/adopt": "true"},
            ("Consumer", "B", "c"): {"jsops.io/adopt": "True"},
            ("Stream", None, "D"): {"jsops.io/adopt": "no"},
        }
    )
    assert p.adopt() == frozenset({"A", "B/c"})


def test_snapshot_sees_edits_additions_and_removals(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text("x")
    s1 = snapshot([str(tmp_path)])
    assert snapshot([str(tmp_path)]) == s1
    (tmp_path / "a.yaml").write_text("xy")
    s2 = snapshot([str(tmp_path)])
    assert s2 != s1
    (tmp_path / "b.yaml").write_text("b")
    s3 = snapshot([str(tmp_path)])
    assert s3 != s2
    os.remove(tmp_path / "b.yaml")
    assert snapshot([str(tmp_path)]) == s2
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "c.yaml").write_text("c")
    assert snapshot([str(tmp_path)]) == s2


def test_revision_ids_follow_content(tmp_path: Path) -> None:
    path = tmp_path / "o.yaml"
    path.write_text(STREAM_YAML)
    r1 = load_revision([str(tmp_path)])
    assert r1.good and [d.name for d in r1.desired(["default"])] == ["ORDERS", "shipper"]
    assert r1.objects(["default"]) == 2 and r1.objects(["prod"]) == 0
    assert load_revision([str(tmp_path)]).id == r1.id
    path.write_text(STREAM_YAML.replace("1h", "2h\n  duplicate_window: 3h"))
    r2 = load_revision([str(tmp_path)])
    assert not r2.good and r2.id != r1.id
    assert r2.errors[0].startswith(f"{path}:") and "JS102" in r2.errors[0]


def test_event_log_lines() -> None:
    buf = io.StringIO()
    log = EventLog(buf)
    log("round", result="success", seconds=0.5)
    log("error", type="api", err_code=10058)
    lines = [json.loads(line) for line in buf.getvalue().splitlines()]
    assert [e["event"] for e in lines] == ["round", "error"]
    assert lines[0]["result"] == "success" and lines[1]["err_code"] == 10058
    t = time.strptime(lines[0]["time"][:19], "%Y-%m-%dT%H:%M:%S")
    assert t.tm_year >= 2024 and lines[0]["time"].endswith("Z")


@pytest.mark.parametrize(
    "args, message",
    [
        (["--interval", "soon"], "not a duration"),
        (["--interval", "0s"], "must be positive"),
        (["--listen", "nowhere"], "HOST:PORT"),
        (["--lease-bucket", "a.b"], "--lease-bucket"),
    ],
)
def test_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str) -> None:
    assert main([str(tmp_path), *args]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
