"""The controller's notices, without a server: the event log's records in the order the controller
writes them, through the notifier, to a real HTTP receiver on loopback (one per format): every
notice type with its id (golden payloads, volatile fields normalised), retries with the same id,
the bounded queue, the secrets, and the keys a repository's config may not set."""

from __future__ import annotations

import io
import json
import os
import re
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from jsops.linter.config import Config, NoticeReceiver, Notices, SecretRef, load_config
from jsops.reconciler.controller.events import EventLog
from jsops.reconciler.controller.metrics import Metrics
from jsops.reconciler.controller.notice_events import NOTICE_TYPES
from jsops.reconciler.controller.notices import NoticeError, Notifier

from .notice_receiver import NoticeReceiver as Receiver
from .test_controller_helpers import parse_prometheus, sample, wait_for

GOLDEN = Path(__file__).parent / "golden" / "controller_notices.json"
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
TARGET = {
    "context": "default",
    "target": "nats://127.0.0.1:4222",
    "leader": True,
    "drift": 1,
    "applied": 1,
    "pending": 0,
    "blocked": 0,
}


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    r = Receiver()
    try:
        yield r
    finally:
        r.close()


def _spec(tmp_path: Path, receivers: list[tuple[str, str, str]], **options: Any) -> Notices:
    """Receivers (name, format, url), their URLs written to files."""
    specs = []
    for name, fmt, url in receivers:
        (tmp_path / f"{name}.url").write_text(url + "\n")
        specs.append(NoticeReceiver(name=name, format=fmt, url=SecretRef(file=f"{name}.url")))  # type: ignore[arg-type]
    return Notices(receivers=specs, **options)


def _notifier(tmp_path: Path, spec: Notices, leads: bool = True) -> tuple[Notifier, EventLog, Metrics, io.StringIO]:
    stream = io.StringIO()
    log, metrics = EventLog(stream), Metrics()
    n = Notifier(
        spec, log=log, metrics=metrics, leads=lambda _c: leads, identity="ctl-1", estate="payments", root=str(tmp_path)
    )
    log.add_secrets(n.secrets())
    log.subscribe(n.observe)
    return n, log, metrics, stream


def _script(log: EventLog) -> None:
    """What a controller logs: a revision applied, drift healed, a blocked change told once, a
    refused data loss, a rejected revision, a lease, a target lost and found again, a pull request planned."""
    rev = "sha256:0123456789abcdef"
    counts = {k: TARGET[k] for k in ("drift", "applied", "pending", "blocked")}  # a round of one target: its counts
    round_done = {"result": "success", "seconds": 0.1, "leader": True, "revision": rev, **counts, "targets": [TARGET]}
    log("started", paths=["m"], target="nats://127.0.0.1:4222")
    log("revision_accepted", revision=rev, objects=2)
    log("connected", context="default", target="nats://127.0.0.1:4222")
    log("action", context="default", object="Stream ORDERS", action="create", status="done", detail="")
    log("round", **round_done)
    log("action", context="default", object="Consumer ORDERS/shipper", action="create", status="done", detail="")
    log("round", **round_done)
    blocked = {
        "context": "default",
        "object": "Stream ORDERS",
        "action": "blocked",
        "wanted": "recreate",
        "changes": ["storage"],
    }
    for _ in range(2):  # logged again when other drift changes: told once
        log(
            "drift",
            **blocked,
            reason="the server cannot change storage in place",
            consequence="the stream is deleted and created again",
            needs=["allow-recreate"],
            data_loss=None,
        )
    loss = {
        **blocked,
        "object": "Stream EVENTS",
        "consequence": "the stream is deleted and created again: 3 stored messages are lost",
    }
    log("drift", **loss, reason="holds messages", needs=["allow-data-loss"], data_loss=3)
    log(
        "revision_rejected",
        revision="sha256:fedcba9876543210",
        reason="lint",
        lint_errors=1,
        findings=["m/o.yaml:3:1: JS102 ..."],
        in_force=rev,
    )
    log("leader_acquired", context="default", identity="ctl-1")
    for _ in range(2):
        log("error", type="connection", err_code=None, message="cannot connect to nats://10.0.0.9:4222", context="west")
    log("connected", context="west", target="nats://10.0.0.9:4222")
    planned = {
        "ref": "refs/pull/7/head",
        "commit": "0123456789abcdef0123456789abcdef01234567",
        "number": 7,
        "seconds": 0.4,
    }
    log(
        "pull_planned",
        **planned,
        result="success",
        summary="Plan: 1 to create, 0 to update, 0 to recreate, 0 to delete, 0 blocked.",
        posted=["status"],
    )
    log("stopped", rounds=2)


def _normalised(bodies: list[Any]) -> list[Any]:
    ids: dict[str, str] = {}

    def walk(v: Any) -> Any:
        if isinstance(v, dict):
            return {k: ("<time>" if k == "time" else walk(x)) for k, x in v.items()}
        if isinstance(v, list):
            return [walk(x) for x in v]
        if isinstance(v, str):
            for m in re.findall(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", v):
                v = v.replace(m, ids.setdefault(m, f"<id{len(ids) + 1}>"))
        return v

    return [walk(b) for b in bodies]


def test_every_notice_type_in_each_format(tmp_path: Path) -> None:
    receivers = {fmt: Receiver() for fmt in ("webhook", "slack", "cloudevents")}
    try:
        spec = _spec(tmp_path, [(f"r-{fmt}", fmt, r.url) for fmt, r in receivers.items()])
        n, log, metrics, _ = _notifier(tmp_path, spec)
        _script(log)
        got = {fmt: r.wait(len(NOTICE_TYPES)) for fmt, r in receivers.items()}
        n.close()
        time.sleep(0.2)
        assert all(len(b) == len(NOTICE_TYPES) for b in got.values()), "each notice told once, no more"
        hooks, ces = got["webhook"], got["cloudevents"]
        assert [b["type"] for b in hooks] == [
            "revision.applied",
            "drift.healed",
            "action.blocked",
            "data_loss.refused",
            "revision.rejected",
            "leader.changed",
            "target.unreachable",
            "target.reachable",
            "pull.planned",
        ]
        assert set(b["type"] for b in hooks) == set(NOTICE_TYPES)
        ids = [b["id"] for b in hooks]
        assert all(UUID.match(i) for i in ids) and len(set(ids)) == len(ids)
        # the same notice has the same id in every format
        assert [c["id"] for c in ces] == ids and all(
            i in s["blocks"][1]["elements"][0]["text"] for i, s in zip(ids, got["slack"])
        )
        for fmt, r in receivers.items():
            assert [req.headers["idempotency-key"] for req in r.requests] == ids
            want = "application/cloudevents+json" if fmt == "cloudevents" else "application/json"
            assert all(req.headers["content-type"].startswith(want) for req in r.requests)
        assert all(
            c["specversion"] == "1.0"
            and c["type"] == "io.jsops.controller." + h["type"]
            and c["source"] == "/jsops/controller/payments"
            for c, h in zip(ces, hooks)
        )
        assert all(re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$", c["time"]) for c in ces)
        assert hooks[0]["data"]["changes"] == 1 and [a["object"] for a in hooks[1]["data"]["actions"]] == [
            "Consumer ORDERS/shipper"
        ]
        m = parse_prometheus(metrics.render())
        assert all(
            sample(m, "jsops_controller_notices_total", receiver=f"r-{f}", result="sent") == len(NOTICE_TYPES)
            for f in receivers
        )
        out = json.dumps({fmt: _normalised(b) for fmt, b in got.items()}, indent=1, sort_keys=True) + "\n"
        if os.environ.get("JSOPS_UPDATE_GOLDEN") == "1":
            GOLDEN.write_text(out)
        assert out == GOLDEN.read_text(), f"{GOLDEN.name} differs; if intended, rerun with JSOPS_UPDATE_GOLDEN=1"
    finally:
        for r in receivers.values():
            r.close()


def test_a_revision_coming_back_is_told_again(tmp_path: Path, receiver: Receiver) -> None:
    n, log, _, _ = _notifier(tmp_path, _spec(tmp_path, [("a", "webhook", receiver.url)]))
    for rev in ("sha256:a", "sha256:b", "sha256:a"):
        log("revision_accepted", revision=rev, objects=1)
        log("round", result="success", revision=rev, targets=[TARGET])
        log("revision_rejected", revision="sha256:bad", reason="lint", lint_errors=1, findings=[], in_force=rev)
    bodies = receiver.wait(6)
    n.close()
    assert [(b["type"], b["subject"]) for b in bodies[::2]] == [
        ("revision.applied", r) for r in ("sha256:a", "sha256:b", "sha256:a")
    ]
    assert [b["type"] for b in bodies[1::2]] == ["revision.rejected"] * 3 and len({b["id"] for b in bodies}) == 6


def test_a_controller_that_does_not_lead_tells_no_revision_nor_blocked_change(
    tmp_path: Path, receiver: Receiver
) -> None:
    n, log, _, _ = _notifier(tmp_path, _spec(tmp_path, [("a", "webhook", receiver.url)]), leads=False)
    log("revision_accepted", revision="sha256:1", objects=1)
    log(
        "drift",
        context="default",
        object="Stream A",
        action="blocked",
        wanted="recreate",
        changes=["storage"],
        reason="r",
        consequence="c",
        needs=["allow-recreate"],
    )
    log("round", result="success", revision="sha256:1", targets=[{**TARGET, "leader": False}])
    log("revision_rejected", revision="sha256:2", reason="lint", lint_errors=2, findings=[], in_force="sha256:1")
    log("leader_lost", context="default", identity="ctl-1")
    assert [b["type"] for b in receiver.wait(1)] == ["leader.changed"]
    n.close()


def test_retries_after_a_500_keep_the_id(tmp_path: Path) -> None:
    receiver = Receiver(statuses=[500, 503])
    try:
        n, log, metrics, _ = _notifier(tmp_path, _spec(tmp_path, [("a", "cloudevents", receiver.url)], backoff=0.05))
        log("leader_acquired", context="default", identity="ctl-1")
        bodies = receiver.wait(3)
        n.close()
        assert len({b["id"] for b in bodies}) == 1 and bodies[0] == bodies[2]
        assert len({r.headers["idempotency-key"] for r in receiver.requests}) == 1
        assert metrics.get("notices_total", "a", "sent") == 1 and metrics.get("notices_total", "a", "failed") == 0
    finally:
        receiver.close()


def test_a_refusing_receiver_is_not_retried_and_the_failure_is_logged(tmp_path: Path) -> None:
    receiver = Receiver(statuses=[400])
    try:
        n, log, metrics, stream = _notifier(tmp_path, _spec(tmp_path, [("a", "webhook", receiver.url)], backoff=0.05))
        log("leader_acquired", context="default", identity="ctl-1")
        wait_for(lambda: metrics.get("notices_total", "a", "failed") == 1, 10, "the notice to be given up")
        n.close()
        assert len(receiver.requests) == 1
        failed = [json.loads(x) for x in stream.getvalue().splitlines() if '"notice_failed"' in x]
        assert (
            failed
            and failed[0]["reason"] == "HTTP 400"
            and failed[0]["attempts"] == 1
            and failed[0]["type"] == "leader.changed"
        )
    finally:
        receiver.close()


def test_a_dead_receiver_is_given_up_after_its_attempts(tmp_path: Path) -> None:
    with socket.socket() as dead:  # accepts connections (the kernel's backlog) and never answers
        dead.bind(("127.0.0.1", 0))
        dead.listen(16)
        spec = Notices(
            receivers=[NoticeReceiver(name="dead", url=SecretRef(file="u"), timeout=0.2)], attempts=2, backoff=0.05
        )
        (tmp_path / "u").write_text(f"http://127.0.0.1:{dead.getsockname()[1]}/\n")
        n, log, metrics, stream = _notifier(tmp_path, spec)
        started = time.monotonic()
        for i in range(200):
            log("error", type="connection", err_code=None, message="down", context=f"c{i}")
        assert time.monotonic() - started < 1.0, "logging waits for no receiver"
        assert metrics.get("notices_queued", "dead") == 200 and metrics.get("notices_total", "dead", "dropped") == 0
        wait_for(lambda: metrics.get("notices_total", "dead", "failed") >= 1, 10, "the first notice to be given up")
        n.close(grace=0)
        failed = [json.loads(x) for x in stream.getvalue().splitlines() if '"notice_failed"' in x]
        assert failed[0]["attempts"] == 2 and "timed out" in failed[0]["reason"]


def test_a_full_queue_drops_the_oldest_and_counts_it(tmp_path: Path, receiver: Receiver) -> None:
    receiver.gate.clear()  # the receiver holds the first request unanswered
    n, log, metrics, _ = _notifier(tmp_path, _spec(tmp_path, [("a", "webhook", receiver.url)], queue=2))
    log("error", type="connection", err_code=None, message="down", context="c0")
    wait_for(lambda: len(receiver.requests) == 1, 10, "the first notice in flight")
    for i in range(1, 6):
        log("error", type="connection", err_code=None, message="down", context=f"c{i}")
    assert metrics.get("notices_total", "a", "dropped") == 3
    assert metrics.get("notices_queued", "a") == 3  # two waiting, one being sent
    receiver.gate.set()
    bodies = receiver.wait(3)
    n.close()
    assert [b["context"] for b in bodies] == ["c0", "c4", "c5"]


def test_receiver_secrets_are_read_from_files_and_kept_out_of_the_log(tmp_path: Path, receiver: Receiver) -> None:
    url = receiver.url + "?token=T0PS3CRET"
    (tmp_path / "tok").write_text("bearer-S3CRET\n")
    (tmp_path / "u").write_text(url)
    spec = Notices(receivers=[NoticeReceiver(name="a", url=SecretRef(file="u"), token=SecretRef(file="tok"))])
    n, log, _, stream = _notifier(tmp_path, spec)
    log("error", type="connection", err_code=None, message=f"posting to {url} with bearer-S3CRET", context="x")
    receiver.wait(1)
    n.close()
    assert receiver.requests[0].headers["authorization"] == "Bearer bearer-S3CRET"
    assert receiver.requests[0].path == "/hook?token=T0PS3CRET"
    assert "S3CRET" not in stream.getvalue() and "T0PS3CRET" not in json.dumps(receiver.bodies())


def test_unusable_receivers_are_refused_at_start(tmp_path: Path) -> None:
    def refused(spec: Notices) -> str:
        with pytest.raises(NoticeError) as err:
            _notifier(tmp_path, spec)
        return str(err.value)

    assert "cannot read missing" in refused(
        Notices(receivers=[NoticeReceiver(name="a", url=SecretRef(file="missing"))])
    )
    (tmp_path / "u").write_text("ftp://x\n")
    assert "no http:// or https:// URL" in refused(
        Notices(receivers=[NoticeReceiver(name="a", url=SecretRef(file="u"))])
    )
    (tmp_path / "u").write_text("http://x\n")
    msg = refused(Notices(receivers=[NoticeReceiver(name="a", url=SecretRef(file="u"), events=["drift.heal"])]))
    assert "unknown notice type 'drift.heal'" in msg
    assert "given twice" in refused(Notices(receivers=[NoticeReceiver(name="a", url=SecretRef(file="u"))] * 2))


def test_receivers_take_only_the_types_they_name(tmp_path: Path, receiver: Receiver) -> None:
    (tmp_path / "u").write_text(receiver.url)
    n, log, _, _ = _notifier(
        tmp_path, Notices(receivers=[NoticeReceiver(name="a", url=SecretRef(file="u"), events=["target.reachable"])])
    )
    log("error", type="connection", err_code=None, message="down", context="x")
    log("connected", context="x", target="nats://x")
    assert [b["type"] for b in receiver.wait(1)] == ["target.reachable"]
    n.close()


def test_notices_config_is_the_operators_only(tmp_path: Path) -> None:
    from jsops.linter.repo_config import KEY_SCOPES, load_repository_config

    assert not KEY_SCOPES["notices"].repository
    (tmp_path / ".jsops.yaml").write_text(
        "ignore: [JS110]\nnotices:\n  receivers:\n    - {name: x, url: {file: /etc/passwd}}\n"
    )
    found = load_repository_config(str(tmp_path / ".jsops.yaml"))
    assert [(r.key, r.line) for r in found.refused] == [("notices", 2)]
    # the operator's config: secrets by reference, durations, unknown keys
    ops = tmp_path / "ops.yaml"
    ops.write_text(
        "notices:\n  backoff: 500ms\n  receivers:\n    - {name: s, format: slack, url: {file: s.url}, timeout: 2s}\n"
    )
    cfg = load_config(str(ops))
    assert (
        isinstance(cfg, Config)
        and cfg.notices is not None
        and cfg.notices.backoff == 0.5
        and cfg.notices.receivers[0].timeout == 2.0
    )
    for bad, says in (
        ("url: 'https://hooks/x'", "secrets are not written in the config"),
        ("url: {file: u}, format: teams", "notices.receivers.0.format"),
        ("url: {file: u}, retries: 3", "unknown key"),
    ):
        ops.write_text(f"notices:\n  receivers:\n    - {{name: s, {bad}}}\n")
        with pytest.raises(Exception, match=re.escape(says)):
            load_config(str(ops))
