"""Issue 12: a saved plan is bound to its manifests, PATHs and live state, and every action it asks
for is re-checked against ownership and the flags given to apply (real nats-server)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .helpers import Js, manifest, run

pytestmark = pytest.mark.integration

ORDERS = """
apiVersion: jsops/v1
kind: Stream
metadata: {name: ORDERS}
spec: {subjects: ["orders.>"], max_age: 1h}
"""


def hand_made(js: Js) -> None:
    js.ok("$JS.API.STREAM.CREATE.HAND", {"name": "HAND", "subjects": ["hand.>"]})
    js.publish("hand.x", 3)


def delete_hand(plan: dict[str, Any]) -> None:
    """What an attacker or a careless edit adds: a delete of a stream jsops does not own."""
    plan["actions"].append(
        {
            "action": "delete",
            "object": {"kind": "Stream", "name": "HAND", "stream": None},
            "changes": [],
            "consequence": None,
            "context": "default",
        }
    )
    plan["summary"]["delete"] += 1
    plan["targets"][0]["summary"]["delete"] += 1


def test_edited_plan_is_refused_and_nothing_is_sent(server, js, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    manifest(tmp_path / "m", "orders.yaml", ORDERS)
    hand_made(js)
    assert run("plan", "m", "--server", server.url, "--prune", "--out", "plan.json")[0] == 2
    data = json.loads(Path("plan.json").read_text())
    assert data["binding"]["paths"] == ["m"] and data["binding"]["digest"].startswith("sha256:")
    delete_hand(data)
    Path("plan.json").write_text(json.dumps(data))
    rc, out, err = run("apply", "--plan", "plan.json", "--server", server.url, "--prune", "--allow-data-loss", "--yes")
    assert rc == 1 and "was changed after" in err and "nothing was applied" in err, out + err
    assert js.streams() == ["HAND"]  # neither the delete nor the create was sent


def test_forged_digest_still_cannot_delete_an_unowned_stream(server, js, tmp_path, monkeypatch):
    from jsops.reconciler.plan import PlanSet, seal

    monkeypatch.chdir(tmp_path)
    manifest(tmp_path / "m", "orders.yaml", ORDERS)
    hand_made(js)
    assert run("plan", "m", "--server", server.url, "--prune", "--out", "plan.json")[0] == 2
    data = json.loads(Path("plan.json").read_text())
    delete_hand(data)
    forged = seal(PlanSet.from_json(data), data["binding"])  # a digest made to match the edit
    Path("plan.json").write_text(json.dumps(forged))
    rc, out, err = run("apply", "--plan", "plan.json", "--server", server.url, "--prune", "--allow-data-loss", "--yes")
    assert rc == 1, out + err
    assert "may not take" in err and "Stream HAND (delete): it is not managed by jsops" in err, err
    assert js.streams() == ["HAND"] and js.stream("HAND")["state"]["messages"] == 3


def test_plan_made_in_another_directory_is_refused(server, js, tmp_path, monkeypatch):
    a, b = tmp_path / "a", tmp_path / "b"
    manifest(a / "m", "orders.yaml", ORDERS)
    manifest(b / "m", "orders.yaml", ORDERS.replace("ORDERS", "OTHER").replace("orders.>", "other.>"))
    monkeypatch.chdir(a)
    assert run("plan", "m", "--server", server.url, "--out", "plan.json")[0] == 2
    monkeypatch.chdir(b)
    for args in ([], ["m"]):  # the recorded PATHs, or the same PATHs named here: other manifests
        rc, out, err = run("apply", *args, "--plan", str(a / "plan.json"), "--server", server.url, "--yes")
        assert rc == 1 and "another directory" in err and "nothing was applied" in err, out + err
    rc, out, err = run("apply", "other", "--plan", str(a / "plan.json"), "--server", server.url, "--yes")
    assert rc == 1 and "was made from m, not other" in err, err
    assert js.streams() == []
    # recorded paths are relative to the root the plan was made in (here a, having no .git): from b,
    # a's manifests are outside that root, so they are not the recorded PATHs
    rc, out, err = run("apply", str(a / "m"), "--plan", str(a / "plan.json"), "--server", server.url, "--yes")
    assert rc == 1 and "was made from m" in err
    assert js.streams() == []
    # from its own directory the plan applies
    monkeypatch.chdir(a)
    rc, out, err = run("apply", "--plan", "plan.json", "--server", server.url, "--yes")
    assert rc == 0, out + err
    assert js.streams() == ["ORDERS"]


def test_manifests_edited_after_the_plan_are_refused(server, js, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    manifest(tmp_path / "m", "orders.yaml", ORDERS)
    assert run("plan", "m", "--server", server.url, "--out", "plan.json")[0] == 2
    manifest(tmp_path / "m", "orders.yaml", ORDERS.replace("1h", "2h"))
    rc, out, err = run("apply", "m", "--plan", "plan.json", "--server", server.url, "--yes")
    assert rc == 1 and "are not those plan.json was made from" in err, err
    assert js.streams() == []


def test_plan_without_binding_is_refused(server, js, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    manifest(tmp_path / "m", "orders.yaml", ORDERS)
    rc, out, _ = run("plan", "m", "--server", server.url, "--format", "json")
    assert rc == 2 and "binding" not in json.loads(out)  # stdout JSON stays as in contracts §5
    Path("plan.json").write_text(out)
    rc, out, err = run("apply", "--plan", "plan.json", "--server", server.url, "--yes")
    assert rc == 1 and "not bound to manifests" in err and "jsops plan --out" in err, err
    assert js.streams() == []


def test_saved_plan_keeps_prune_inside_the_paths_given_to_apply(server, js, tmp_path, monkeypatch):
    """A plan made with a wider prune scope than apply is given cannot prune outside apply's PATHs
    (the re-check uses the scope of this apply, not the plan's)."""
    monkeypatch.chdir(tmp_path)
    manifest(tmp_path / "m" / "a", "a.yaml", ORDERS.replace("ORDERS", "A1").replace("orders.>", "a1.>"))
    manifest(tmp_path / "m" / "b", "b.yaml", ORDERS.replace("ORDERS", "B1").replace("orders.>", "b1.>"))
    assert run("apply", "m", "--server", server.url, "--yes")[0] == 0
    (tmp_path / "m" / "b" / "b.yaml").unlink()
    assert run("plan", "m", "--server", server.url, "--prune", "--out", "plan.json")[0] == 2
    data = json.loads(Path("plan.json").read_text())
    assert [(x["action"], x["object"]["name"]) for x in data["actions"]] == [("delete", "B1")]
    from jsops.reconciler.plan import PlanSet, seal
    from jsops.reconciler.saved import manifest_digest

    # forged: the same plan, claimed for m/a only, with m/a's manifest digest
    data["binding"].update(paths=["m/a"], manifests=manifest_digest(["m/a/a.yaml"]), files=1)
    Path("plan.json").write_text(json.dumps(seal(PlanSet.from_json(data), data["binding"])))
    rc, out, err = run("apply", "--plan", "plan.json", "--server", server.url, "--prune", "--yes")
    assert rc == 1, out + err
    assert "Stream B1 (delete): it was not recorded from the PATHs and contexts given to apply" in err, err
    assert js.streams() == ["A1", "B1"]
