"""Notices from a real controller against a real nats-server, to a real HTTP receiver on loopback:
the lease taken, the revision applied, drift healed, a change blocked until annotated, a data
loss refused, the server gone and back; and ``jsops controller`` refusing an unreadable receiver secret (exit 2)."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from jsops.linter.config import Config, NoticeReceiver, Notices, SecretRef

from .helpers import Js, NatsServer, manifest
from .notice_receiver import NoticeReceiver as Receiver
from .test_controller_helpers import CONTROLLER, REPO, STREAM_YAML, Running, wait_for

pytestmark = pytest.mark.integration

BLOCKED_YAML = """
---
apiVersion: jsops/v1
kind: Stream
metadata:
  name: EVENTS
spec:
  subjects: ["events.>"]
  storage: {storage}
---
apiVersion: jsops/v1
kind: Stream
metadata:
  name: AUDIT
  annotations: {{"jsops.io/allow-recreate": "true"}}
spec:
  subjects: ["audit.>"]
  storage: {storage}
"""


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    r = Receiver()
    try:
        yield r
    finally:
        r.close()


def _types(receiver: Receiver) -> list[str]:
    return [b["type"] for b in receiver.bodies()]


def _one(receiver: Receiver, kind: str, **match: Any) -> dict[str, Any]:
    def find() -> dict[str, Any] | None:
        return next(
            (b for b in receiver.bodies() if b["type"] == kind and all(b.get(k) == v for k, v in match.items())), None
        )

    found: dict[str, Any] = wait_for(find, 30, f"a {kind} notice")
    return found


def test_a_controller_tells_its_receiver(server: NatsServer, js: Js, tmp_path: Path, receiver: Receiver) -> None:
    (tmp_path / "hook.url").write_text(receiver.url + "\n")
    config = Config(
        notices=Notices(receivers=[NoticeReceiver(name="ops", url=SecretRef(file="hook.url"))]), root=str(tmp_path)
    )
    manifest(tmp_path / "m", "orders.yaml", STREAM_YAML)
    with Running([str(tmp_path / "m")], server.url, config=config, lease=True, lease_ttl=5.0, identity="ctl-a") as ctl:
        leader = _one(receiver, "leader.changed")
        assert leader["data"]["change"] == "acquired" and leader["controller"] == "ctl-a"
        applied = _one(receiver, "revision.applied")
        assert applied["subject"] == ctl.controller.current.id and applied["data"]["changes"] == 2
        ctl.settle()

        js.ok("$JS.API.CONSUMER.DELETE.ORDERS.shipper")  # behind its back
        healed = _one(receiver, "drift.healed", context="default")
        assert [a["object"] for a in healed["data"]["actions"]] == ["Consumer ORDERS/shipper"]

        # a storage change: EVENTS waits for allow-recreate; AUDIT has it, but holds messages
        manifest(tmp_path / "m", "more.yaml", BLOCKED_YAML.format(storage="file"))
        wait_for(lambda: js.stream("AUDIT") and js.stream("EVENTS"), 30, "the two streams")
        js.publish("audit.x", 3)
        manifest(tmp_path / "m", "more.yaml", BLOCKED_YAML.format(storage="memory"))
        blocked = _one(receiver, "action.blocked", subject="Stream EVENTS")
        assert blocked["data"]["needs"] == ["allow-recreate"] and blocked["context"] == "default"
        refused = _one(receiver, "data_loss.refused", subject="Stream AUDIT")
        assert "allow-data-loss" in refused["data"]["needs"] and refused["data"]["data_loss"] == 3
        ctl.settle()
        ctl.settle()

        server.kill()  # the target goes away, and comes back
        lost = _one(receiver, "target.unreachable", context="default")
        server.restart()
        back = _one(receiver, "target.reachable", context="default")
        ctl.settle(60)
    assert ctl.code == 0
    assert lost["data"]["type"] == "connection" and f":{server.port}" in back["data"]["target"]
    types = _types(receiver)
    # a lasting block is told once, however many rounds it stays
    assert types.count("action.blocked") == 1 and types.count("data_loss.refused") == 1
    assert types.count("target.unreachable") == 1 and types.count("target.reachable") == 1
    ids = [b["id"] for b in receiver.bodies()]
    assert len(ids) == len(set(ids))
    assert {"leader.changed", "revision.applied", "drift.healed", "action.blocked", "data_loss.refused"} <= set(types)


def test_jsops_controller_once_sends_before_it_exits(server: NatsServer, tmp_path: Path, receiver: Receiver) -> None:
    manifest(tmp_path / "m", "orders.yaml", STREAM_YAML)
    (tmp_path / "slack.url").write_text(receiver.url + "\n")
    (tmp_path / "ops.yaml").write_text(
        "notices:\n  receivers:\n    - {name: ops, format: slack, url: {file: slack.url}}\n"
    )
    cmd = [*CONTROLLER, str(tmp_path / "m"), "--server", server.url, "--config", str(tmp_path / "ops.yaml")]
    done = subprocess.run(
        [*cmd, "--once", "--no-lease", "--listen", "none"], capture_output=True, text=True, timeout=60, cwd=REPO
    )
    assert done.returncode == 0, done.stderr
    [message] = receiver.bodies()
    assert message["text"].startswith("jsops: revision ") and "applied on default (2 changes)" in message["text"]
    assert receiver.url not in done.stderr


def test_an_unreadable_receiver_secret_stops_the_controller_at_start(server: NatsServer, tmp_path: Path) -> None:
    manifest(tmp_path / "m", "orders.yaml", STREAM_YAML)
    (tmp_path / "ops.yaml").write_text("notices:\n  receivers:\n    - {name: ops, url: {file: missing.url}}\n")
    cmd = [*CONTROLLER, str(tmp_path / "m"), "--server", server.url, "--config", str(tmp_path / "ops.yaml")]
    done = subprocess.run([*cmd, "--once", "--listen", "none"], capture_output=True, text=True, timeout=60, cwd=REPO)
    assert done.returncode == 2, done.stderr
    assert "notices.receivers.ops.url: cannot read missing.url" in done.stderr
