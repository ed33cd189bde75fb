"""Issue 21 item 10: a saved plan is never trusted. Every action it asks for is derived again from
the bound manifests and the live state, with the estate and ownership rules, whatever the file
says; a forged plan (resealed, so that its digest matches) sends nothing (real nats-server)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .helpers import manifest, run

pytestmark = pytest.mark.integration

ORDERS = """
apiVersion: jsops/v1
kind: Stream
metadata: {{name: ORDERS}}
spec: {{subjects: ["orders.>"], max_age: {age}}}
"""


def _forge(path: Path, edit: Any) -> None:
    """Edit the saved plan and seal it again (a digest made to match, as a forger would)."""
    from jsops.reconciler.plan import PlanSet, seal

    data = json.loads(path.read_text())
    edit(data)
    path.write_text(json.dumps(seal(PlanSet.from_json(data), data["binding"])))


def _action(act: str, kind: str, name: str, config: dict[str, Any] | None, **more: Any) -> dict[str, Any]:
    return {
        "action": act,
        "object": {"kind": kind, "name": name, "stream": None},
        "changes": [],
        "consequence": None,
        "config": config,
        "context": "default",
        **more,
    }


def test_forged_update_without_its_changes_is_refused(server, js, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    manifest(tmp_path / "m", "orders.yaml", ORDERS.format(age="1h"))
    assert run("apply", "m", "--server", server.url, "--yes")[0] == 0
    js.publish("orders.x", 50)
    manifest(tmp_path / "m", "orders.yaml", ORDERS.format(age="1s"))
    import time

    time.sleep(1.2)  # every stored message is older than the new max_age
    assert run("plan", "m", "--server", server.url, "--out", "plan.json")[0] == 2
    plan = json.loads(Path("plan.json").read_text())
    [act] = plan["actions"]
    assert act["action"] == "blocked" and act["data_loss"] == 50

    def unblock(data: dict[str, Any]) -> None:  # an update that claims no change and no loss
        a = data["actions"][0]
        a.update(action="update", changes=[])
        for k in ("wanted", "reason", "data_loss"):
            a.pop(k, None)

    _forge(Path("plan.json"), unblock)
    rc, out, err = run("apply", "--plan", "plan.json", "--server", server.url, "--yes")
    assert rc == 1, out + err
    assert "Stream ORDERS (update): its changes are not those between the manifests and the live state" in err, err
    info = js.stream("ORDERS")
    assert info["state"]["messages"] == 50 and info["config"]["max_age"] == 3600 * 10**9


def test_forged_create_and_migration_are_refused(server, js, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    manifest(tmp_path / "m", "orders.yaml", ORDERS.format(age="1h"))
    js.ok("$JS.API.STREAM.CREATE.HAND", {"name": "HAND", "subjects": ["hand.>"]})
    js.publish("hand.x", 3)
    assert run("plan", "m", "--server", server.url, "--out", "plan.json")[0] == 2
    owned = {"io.jsops.managed-by": "jsops", "io.jsops.source": "m/orders.yaml"}

    def add(data: dict[str, Any]) -> None:
        data["actions"].append(
            _action("create", "Stream", "EVIL", {"name": "EVIL", "subjects": ["evil.>"], "metadata": owned})
        )
        data["actions"].append(
            _action(
                "migrate",
                "Stream",
                "HAND_V2",
                {"name": "HAND_V2", "subjects": ["hand.>"], "metadata": owned},
                migration={
                    "from": "HAND",
                    "to": "HAND_V2",
                    "consumers": {},
                    "messages": 3,
                    "bytes": 0,
                    "strategy": "mirror",
                },
            )
        )

    _forge(Path("plan.json"), add)
    rc, out, err = run("apply", "--plan", "plan.json", "--server", server.url, "--migrate", "--yes")
    assert rc == 1, out + err
    assert "Stream EVIL (create): the manifests and the live state ask for no such action" in err, err
    assert "Stream HAND_V2 (migrate): the manifests and the live state ask for no such action" in err, err
    assert js.streams() == ["HAND"] and js.stream("HAND")["state"]["messages"] == 3


def test_forged_update_of_another_estates_stream_is_refused(server, js, tmp_path, monkeypatch):
    a, b = tmp_path / "a", tmp_path / "b"
    for root, estate in ((a, "team-a"), (b, "team-b")):
        root.mkdir()
        (root / ".jsops.yaml").write_text(f"estate: {estate}\n")
    manifest(a / "m", "orders.yaml", ORDERS.format(age="1h"))
    monkeypatch.chdir(a)
    assert run("apply", "m", "--server", server.url, "--yes")[0] == 0
    js.publish("orders.x", 7)
    # repository b declares ORDERS too: its plan blocks the update (owned by estate team-a)
    manifest(b / "m", "orders.yaml", ORDERS.format(age="1s"))
    monkeypatch.chdir(b)
    assert run("plan", "m", "--server", server.url, "--out", "plan.json")[0] == 2
    data = json.loads(Path("plan.json").read_text())
    assert data["actions"][0]["action"] == "blocked" and "owned by estate 'team-a'" in data["actions"][0]["reason"]

    def take_over(d: dict[str, Any]) -> None:  # the file claims a plain update, with the estate mark kept
        act = d["actions"][0]
        act["action"] = "update"
        act["changes"] = [c for c in act["changes"] if c["path"] != "metadata.io.jsops.estate"]
        act["config"]["metadata"]["io.jsops.estate"] = "team-a"
        for k in ("wanted", "reason", "data_loss"):
            act.pop(k, None)

    _forge(Path("plan.json"), take_over)
    rc, out, err = run("apply", "--plan", "plan.json", "--server", server.url, "--yes", "--allow-data-loss")
    assert rc == 1, out + err
    assert "Stream ORDERS (update):" in err and "nothing was applied" in err, err
    info = js.stream("ORDERS")
    assert info["state"]["messages"] == 7 and info["config"]["max_age"] == 3600 * 10**9
    assert info["config"]["metadata"]["io.jsops.estate"] == "team-a"
