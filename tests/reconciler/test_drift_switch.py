"""The record of API changes created by the config switch ``drift.record`` (issue 37, docs/drift.md):
the switch and the example manifest want the same stream; on a real nats-server with two users, the
plan shows the record stream, apply creates it, and an application's later change is attributed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from natsserver import release_binary

from jsops.linter import Estate, load_config
from jsops.linter.config import ConfigError
from jsops.linter.config_parts import DriftRecord
from jsops.linter.load.files import load_text
from jsops.reconciler.drift.switch import RECORD_NAME, record_manifest, with_record
from jsops.reconciler.plan import desired_from_estate

from .helpers import NatsServer, manifest, run
from .test_drift_server import HOUR, ORDERS, RECORD, USERS, _app, _set_max_age, _url, _wait_recorded


def _desired(text: str, context: str = "default") -> list[object]:
    estate = Estate()
    load_text(text.encode(), "record.yaml", estate)
    assert not [f for f in estate.findings if f.severity == "error"]
    return [(d.kind, d.name, d.context, d.config) for d in desired_from_estate(estate, contexts=[context], root=".")]


def test_the_switch_wants_what_the_example_manifest_declares() -> None:
    example = RECORD.read_text().replace("  metadata:\n    owner: team-platform\n", "")
    assert _desired(record_manifest(DriftRecord())) == _desired(example)


def test_the_config_reads_the_switch_and_refuses_unknown_options(tmp_path: Path) -> None:
    cfg = tmp_path / ".jsops.yaml"
    cfg.write_text("drift:\n  record: {max-msgs: 50000, max-age: 2d, max-bytes: 64MiB, num-replicas: 3}\n")
    record = load_config(str(cfg)).drift.record
    assert record == DriftRecord(max_msgs=50_000, max_age=2 * 86400.0, max_bytes=64 << 20, num_replicas=3)
    cfg.write_text("drift:\n  record: {max-msg: 5}\n")
    with pytest.raises(ConfigError, match="max-msg"):
        load_config(str(cfg))
    cfg.write_text("{}\n")
    assert load_config(str(cfg)).drift.record is None


def test_a_manifest_declaring_the_record_wins_and_the_context_is_the_targets() -> None:
    declared = with_record([], None, ["default"])
    assert declared == []
    added = with_record([], DriftRecord(), ["east", "west"])
    assert [(d.kind, d.name, d.context) for d in added] == [("Stream", RECORD_NAME, "east")]
    assert with_record(added, DriftRecord(max_msgs=5000), ["east"]) == added


def test_switch_on_plan_shows_the_record_apply_creates_it_and_a_change_is_attributed(tmp_path: Path) -> None:
    binary = release_binary("2.12.8")
    if binary is None:
        pytest.skip("nats-server 2.12.8 was not fetched")
    server = NatsServer(extra_config=USERS, binary=binary).start()
    try:
        d = tmp_path / "m"
        manifest(d, "orders.yaml", ORDERS.replace("MAX_AGE", "1h"))
        cfg = tmp_path / "jsops.yaml"
        cfg.write_text("drift:\n  record: {max-msgs: 10000, max-age: 1d}\n")
        rc, out, err = run("plan", str(d), "-s", _url(server), "--config", str(cfg), "--format", "json")
        assert rc == 2, err
        creates = {(a["object"]["kind"], a["object"]["name"]): a for a in json.loads(out)["actions"]}
        assert ("Stream", RECORD_NAME) in creates
        rc, out, err = run("plan", str(d), "-s", _url(server), "--config", str(cfg))
        assert RECORD_NAME in out, out
        rc, _, err = run("apply", str(d), "-s", _url(server), "--config", str(cfg), "--yes")
        assert rc == 0, err

        app = _app(server)
        try:
            info = app.ok(f"$JS.API.STREAM.INFO.{RECORD_NAME}")["config"]
            assert (info["subjects"], info["max_msgs"], info["max_age"]) == (
                ["$JS.EVENT.ADVISORY.API"],
                10_000,
                86400 * 10**9,
            )
            assert info["metadata"]["io.jsops.managed-by"] == "jsops"
            # the switched-on record is planned like any stream: no change once applied
            assert run("plan", str(d), "-s", _url(server), "--config", str(cfg))[0] == 0
            _set_max_age(app, HOUR // 2)
            _wait_recorded(server, 1)
        finally:
            app.close()
        by = _plan_json_with(d, server, cfg)[("ORDERS", "max_age")]["changed_by"]
        assert isinstance(by, dict) and (by["user"], by["client_name"]) == ("app", "orders-svc")
        # switched off, the stream is left as it is, by --prune too (its source is the config, no PATH)
        rc, out, err = run("plan", str(d), "-s", _url(server), "--format", "json", "--prune")
        assert RECORD_NAME not in {a["object"]["name"] for a in json.loads(out)["actions"]}
    finally:
        server.stop()


def _plan_json_with(d: Path, server: NatsServer, cfg: Path) -> dict[tuple[str, str], dict[str, object]]:
    rc, out, err = run("plan", str(d), "-s", _url(server), "--config", str(cfg), "--format", "json")
    assert rc in (0, 2), err
    return {(a["object"]["name"], c["path"]): c for a in json.loads(out)["actions"] for c in a["changes"]}


def test_audit_takes_the_switched_on_record_as_declared() -> None:
    from jsops.linter import LintTarget
    from jsops.linter.testing import estate_from_text
    from jsops.reconciler.audit.drift import drift_findings
    from jsops.reconciler.live import LiveState

    from .records import live_stream

    estate = estate_from_text(ORDERS.replace("MAX_AGE", "1h"), "m/orders.yaml")
    live = LiveState(read_at=10_000.0)
    live.streams[RECORD_NAME] = live_stream({"name": RECORD_NAME, "subjects": ["$JS.EVENT.ADVISORY.API"]})

    def unmanaged(record: DriftRecord | None) -> list[str]:
        found = drift_findings(estate, live, LintTarget(), record=record)
        return [f.object.name for f in found if f.rule == "JS521" and f.object is not None]

    assert unmanaged(None) == [RECORD_NAME]
    assert unmanaged(DriftRecord()) == []


def test_the_controller_keeps_the_switched_on_record_like_any_stream(tmp_path: Path) -> None:
    from jsops.linter.config import Config
    from jsops.linter.config_parts import Drift

    from .test_controller_helpers import Running, wait_for

    server = NatsServer(extra_config=USERS).start()
    try:
        d = tmp_path / "m"
        manifest(d, "orders.yaml", ORDERS.replace("MAX_AGE", "1h"))
        config = Config(drift=Drift(record=DriftRecord(max_msgs=5000)))
        app = _app(server)
        try:
            with Running([str(d)], _url(server), config=config) as ctl:
                wait_for(lambda: app.stream(RECORD_NAME) and app.stream("ORDERS"), what="the record to be created")
                assert app.ok(f"$JS.API.STREAM.INFO.{RECORD_NAME}")["config"]["max_msgs"] == 5000
                ctl.settle()
                info = app.ok(f"$JS.API.STREAM.INFO.{RECORD_NAME}")["config"]
                app.ok(f"$JS.API.STREAM.UPDATE.{RECORD_NAME}", {**info, "max_msgs": 100_000})  # drift of the record
                wait_for(
                    lambda: app.ok(f"$JS.API.STREAM.INFO.{RECORD_NAME}")["config"]["max_msgs"] == 5000,
                    what="the record's bound to be healed",
                )
                drifts = [e for e in ctl.events("drift") if e["object"] == f"Stream {RECORD_NAME}"]
                assert drifts and drifts[-1]["changed_by"]["max_msgs"]["client_name"] == "orders-svc"
        finally:
            app.close()
    finally:
        server.stop()
