"""plan / apply / export against a real standalone nats-server: convergence and safety."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from .helpers import manifest, run

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]

ORDERS = """
apiVersion: jsops/v1
kind: Stream
metadata: {name: ORDERS}
spec:
  subjects: ["orders.>"]
  storage: {storage}
  max_age: 1h
---
apiVersion: jsops/v1
kind: Consumer
metadata: {name: shipper, stream: ORDERS}
spec:
  ack_wait: 30s
  max_deliver: 5
  max_waiting: {max_waiting}
"""


def orders(d: Path, storage: str = "file", max_waiting: int = 64) -> Path:
    return manifest(d, "orders.yaml", ORDERS.replace("{storage}", storage).replace("{max_waiting}", str(max_waiting)))


def test_example_estate_apply_twice_then_export_round_trip(server, js, tmp_path):
    src = tmp_path / "estate"
    shutil.copytree(ROOT / "manifests", src)
    rc, out, err = run("plan", str(src), "--server", server.url)
    assert rc == 2, err
    assert "to create" in out
    rc, out, err = run("apply", str(src), "--server", server.url, "--yes")
    assert rc == 0, out + err
    assert "0 failed" in out
    rc, out, _ = run("apply", str(src), "--server", server.url, "--yes")
    assert (rc, out.startswith("No changes.")) == (0, True)
    rc, out, _ = run("plan", str(src), "--server", server.url, "--format", "json")
    assert rc == 0 and json.loads(out)["actions"] == []
    # ownership is stamped
    info = js.stream("ORDERS")
    assert info["config"]["metadata"]["io.jsops.managed-by"] == "jsops"
    assert info["config"]["metadata"]["io.jsops.source"].endswith("orders.yaml")
    # export, then plan on the export is empty
    rc, out, err = run("export", "--server", server.url, str(tmp_path / "export"))
    assert rc == 0, err
    files = sorted(p.name for p in (tmp_path / "export").iterdir())
    assert "ORDERS.yaml" in files
    rc, out, err = run("plan", str(tmp_path / "export"), "--server", server.url)
    assert (rc, out.startswith("No changes.")) == (0, True), out + err


def test_export_of_hand_made_objects_plans_empty(server, js, tmp_path):
    js.ok(
        "$JS.API.STREAM.CREATE.HAND",
        {"name": "HAND", "subjects": ["hand.>"], "max_age": 3_600_000_000_000, "metadata": {"team": "x"}},
    )
    js.ok("$JS.API.STREAM.CREATE.MIR", {"name": "MIR", "mirror": {"name": "HAND"}})
    js.ok(
        "$JS.API.CONSUMER.CREATE.HAND.c1",
        {
            "stream_name": "HAND",
            "config": {
                "durable_name": "c1",
                "ack_policy": "explicit",
                "filter_subjects": ["hand.b", "hand.a"],
                "backoff": [1_000_000_000, 2_500_000_000],
                "max_deliver": 4,
            },
        },
    )
    rc, _, err = run("export", "--server", server.url, str(tmp_path / "out"))
    assert rc == 0, err
    rc, out, err = run("plan", str(tmp_path / "out"), "--server", server.url)
    assert (rc, out.startswith("No changes.")) == (0, True), out + err


def test_immutable_change_is_refused_and_data_kept(server, js, tmp_path):
    d = tmp_path / "m"
    orders(d, "file")
    assert run("apply", str(d), "--server", server.url, "--yes")[0] == 0
    js.publish("orders.a", 5)
    orders(d, "memory")
    rc, out, _ = run("plan", str(d), "--server", server.url)
    assert rc == 2
    assert "! Stream ORDERS" in out and "needs --allow-recreate" in out
    assert "5 stored messages are lost" in out
    rc, out, _ = run("apply", str(d), "--server", server.url, "--yes")
    assert rc == 1 and "blocked" in out
    rc, out, _ = run("apply", str(d), "--server", server.url, "--yes", "--allow-recreate")
    assert rc == 1 and "needs --allow-data-loss" in out
    info = js.stream("ORDERS")
    assert info["config"]["storage"] == "file" and info["state"]["messages"] == 5
    rc, out, err = run("apply", str(d), "--server", server.url, "--yes", "--allow-recreate", "--allow-data-loss")
    assert rc == 0, out + err
    info = js.stream("ORDERS")
    assert info["config"]["storage"] == "memory" and info["state"]["messages"] == 0
    assert js.consumer("ORDERS", "shipper") is not None  # consumers come back with their stream
    assert run("plan", str(d), "--server", server.url)[0] == 0


def test_unowned_objects_untouched_until_adopted(server, js, tmp_path):
    js.ok("$JS.API.STREAM.CREATE.ORDERS", {"name": "ORDERS", "subjects": ["orders.>"], "max_age": 60_000_000_000})
    js.publish("orders.x", 3)
    d = tmp_path / "m"
    orders(d)
    rc, out, _ = run("plan", str(d), "--server", server.url, "--format", "json")
    plan = json.loads(out)
    stream_action = [a for a in plan["actions"] if a["object"]["kind"] == "Stream"][0]
    assert stream_action["action"] == "blocked" and "--adopt ORDERS" in stream_action["reason"]
    rc, out, _ = run("apply", str(d), "--server", server.url, "--yes")
    assert rc == 1
    assert js.stream("ORDERS")["config"]["max_age"] == 60_000_000_000  # untouched
    rc, out, err = run("apply", str(d), "--server", server.url, "--yes", "--adopt", "ORDERS")
    assert rc == 0, out + err
    info = js.stream("ORDERS")
    assert info["config"]["max_age"] == 3_600_000_000_000 and info["state"]["messages"] == 3
    assert info["config"]["metadata"]["io.jsops.managed-by"] == "jsops"
    assert run("plan", str(d), "--server", server.url)[0] == 0


def test_prune_deletes_only_owned_objects(server, js, tmp_path):
    d = tmp_path / "m"
    orders(d)
    manifest(
        d,
        "old.yaml",
        """
        apiVersion: jsops/v1
        kind: Stream
        metadata: {name: OLD}
        spec: {subjects: ["old.>"]}
        ---
        apiVersion: jsops/v1
        kind: Stream
        metadata: {name: FULL}
        spec: {subjects: ["full.>"]}
    """,
    )
    assert run("apply", str(d), "--server", server.url, "--yes")[0] == 0
    js.publish("full.x", 2)
    js.ok("$JS.API.STREAM.CREATE.FOREIGN", {"name": "FOREIGN", "subjects": ["foreign.>"]})
    js.ok(
        "$JS.API.CONSUMER.CREATE.ORDERS.handmade",
        {"stream_name": "ORDERS", "config": {"durable_name": "handmade", "ack_policy": "explicit"}},
    )
    (d / "old.yaml").unlink()
    rc, out, _ = run("plan", str(d), "--server", server.url)
    # without --prune nothing is deleted, but what left the manifests is shown, blocked (issue 21)
    assert rc == 2 and "! Stream OLD  (blocked delete: left the manifests; needs --prune)" in out, out
    assert (
        "! Stream FULL  (blocked delete: left the manifests; the stream holds 2 messages; needs --prune and --allow-data-loss)"
        in out
    )
    assert "FOREIGN" not in out and "handmade" not in out
    rc, out, _ = run("plan", str(d), "--server", server.url, "--prune")
    assert (
        rc == 2 and "- Stream OLD" in out and "! Stream FULL" in out and "FOREIGN" not in out and "handmade" not in out
    )
    rc, out, _ = run("apply", str(d), "--server", server.url, "--yes", "--prune")
    assert rc == 1  # FULL holds messages: blocked
    assert js.streams() == ["FOREIGN", "FULL", "ORDERS"]
    rc, out, err = run("apply", str(d), "--server", server.url, "--yes", "--prune", "--allow-data-loss")
    assert rc == 0, out + err
    assert js.streams() == ["FOREIGN", "ORDERS"]
    assert js.consumer("ORDERS", "handmade") is not None


def test_recreated_consumer_keeps_its_position(server, js, tmp_path):
    d = tmp_path / "m"
    orders(d, max_waiting=64)
    assert run("apply", str(d), "--server", server.url, "--yes")[0] == 0
    js.publish("orders.a", 10)
    assert js.fetch_ack("ORDERS", "shipper", 4) == [1, 2, 3, 4]
    orders(d, max_waiting=128)
    rc, out, _ = run("plan", str(d), "--server", server.url)
    assert rc == 2 and "! Consumer ORDERS/shipper  (blocked recreate: needs --allow-recreate)" in out
    rc, out, _ = run("plan", str(d), "--server", server.url, "--allow-recreate")
    assert rc == 2 and "-/+ Consumer ORDERS/shipper" in out and "from stream sequence 5" in out
    assert run("apply", str(d), "--server", server.url, "--yes")[0] == 1  # needs --allow-recreate
    rc, out, err = run("apply", str(d), "--server", server.url, "--yes", "--allow-recreate")
    assert rc == 0, out + err
    info = js.consumer("ORDERS", "shipper")
    assert info["config"]["max_waiting"] == 128
    assert info["num_pending"] == 6
    assert js.fetch_ack("ORDERS", "shipper", 2) == [5, 6]
    rc, out, _ = run("plan", str(d), "--server", server.url)
    assert (rc, out.startswith("No changes.")) == (0, True), out
    # the export shows the manifest's deliver policy, not the resume point
    assert run("export", "--server", server.url, str(tmp_path / "x"))[0] == 0
    assert "by_start_sequence" not in (tmp_path / "x" / "ORDERS.yaml").read_text()


def test_one_way_change_is_said_plainly(server, js, tmp_path):
    d = tmp_path / "m"
    orders(d)
    assert run("apply", str(d), "--server", server.url, "--yes")[0] == 0
    text = (d / "orders.yaml").read_text().replace("max_age: 1h", "max_age: 2h\n  deny_delete: true")
    (d / "orders.yaml").write_text(text)
    rc, out, _ = run("plan", str(d), "--server", server.url, "--format", "json")
    act = json.loads(out)["actions"][0]
    assert act["action"] == "update"
    classes = {c["path"]: c["class"] for c in act["changes"]}
    assert classes == {"deny_delete": "one-way", "max_age": "in-place"}
    assert "cannot be undone" in act["consequence"]
    assert run("apply", str(d), "--server", server.url, "--yes")[0] == 0
    assert js.stream("ORDERS")["config"]["deny_delete"] is True


def test_saved_plan_applies_only_on_matching_fingerprint(server, js, tmp_path):
    d = tmp_path / "m"
    orders(d)
    plan_file = tmp_path / "plan.json"
    rc, _, _ = run("plan", str(d), "--server", server.url, "--out", str(plan_file))
    assert rc == 2 and json.loads(plan_file.read_text())["summary"]["create"] == 2
    js.ok("$JS.API.STREAM.CREATE.OTHER", {"name": "OTHER", "subjects": ["other.>"]})
    rc, _, err = run("apply", "--server", server.url, "--plan", str(plan_file), "--yes")
    assert (
        rc == 1
        and "changed since the plan was made" in err
        and "  Stream OTHER: created since the plan was made" in err
    )
    assert js.streams() == ["OTHER"]
    rc, _, _ = run("plan", str(d), "--server", server.url, "--out", str(plan_file))
    rc, out, err = run("apply", "--server", server.url, "--plan", str(plan_file), "--yes")
    assert rc == 0, out + err
    assert run("plan", str(d), "--server", server.url)[0] == 0


def test_mirrors_after_origins_and_deleted_before_them(server, js, tmp_path):
    d = tmp_path / "m"
    manifest(
        d,
        "a.yaml",
        """
        apiVersion: jsops/v1
        kind: Stream
        metadata: {name: A_MIRROR}
        spec: {mirror: {name: Z_ORIGIN}}
        ---
        apiVersion: jsops/v1
        kind: Stream
        metadata: {name: B_AGG}
        spec: {sources: [{name: A_MIRROR}]}
        ---
        apiVersion: jsops/v1
        kind: Stream
        metadata: {name: Z_ORIGIN}
        spec: {subjects: ["z.>"]}
    """,
    )
    rc, out, _ = run("plan", str(d), "--server", server.url, "--format", "json")
    names = [a["object"]["name"] for a in json.loads(out)["actions"]]
    assert names == ["Z_ORIGIN", "A_MIRROR", "B_AGG"]
    rc, out, err = run("apply", str(d), "--server", server.url, "--yes")
    assert rc == 0, out + err
    assert run("plan", str(d), "--server", server.url)[0] == 0
    manifest(
        d,
        "a.yaml",
        """
        apiVersion: jsops/v1
        kind: Stream
        metadata: {name: KEEP}
        spec: {subjects: ["keep.>"]}
    """,
    )
    rc, out, _ = run("plan", str(d), "--server", server.url, "--prune", "--format", "json")
    deletes = [a["object"]["name"] for a in json.loads(out)["actions"] if a["action"] == "delete"]
    assert deletes == ["B_AGG", "A_MIRROR", "Z_ORIGIN"]
    rc, out, err = run("apply", str(d), "--server", server.url, "--yes", "--prune")
    assert rc == 0, out + err
    assert js.streams() == ["KEEP"]
