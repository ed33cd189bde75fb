"""A stale saved plan names what changed on the target since it was made (issue 35 item 12): the objects
created, deleted or changed since, and for an object the plan acts on, each field it read: its value when
the plan was made and now (real nats-server)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .helpers import manifest, run

pytestmark = pytest.mark.integration

ORDERS = """
apiVersion: jsops/v1
kind: Stream
metadata: {name: ORDERS}
spec: {subjects: ["orders.>"], max_age: MAX_AGE, max_bytes: 64MiB}
---
apiVersion: jsops/v1
kind: Stream
metadata: {name: AUDIT}
spec: {subjects: ["audit.>"], max_age: 1h}
"""


def test_a_stale_saved_plan_names_the_objects_and_fields_that_changed(server, js, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    manifest(tmp_path / "m", "orders.yaml", ORDERS.replace("MAX_AGE", "1h"))
    assert run("apply", "m", "--server", server.url, "--yes")[0] == 0
    manifest(tmp_path / "m", "orders.yaml", ORDERS.replace("MAX_AGE", "2h"))
    assert run("plan", "m", "--server", server.url, "--out", "plan.json")[0] == 2
    assert "Stream ORDERS" in json.loads(Path("plan.json").read_text())["binding"]["live"]["default"]
    # by hand, meanwhile: ORDERS gets another max_age and max_bytes, AUDIT messages, and a new stream appears
    config = js.stream("ORDERS")["config"]
    js.ok("$JS.API.STREAM.UPDATE.ORDERS", {**config, "max_age": 3 * 3600 * 10**9, "max_bytes": 32 * 2**20})
    js.publish("audit.x", 1)
    js.ok("$JS.API.STREAM.CREATE.HAND", {"name": "HAND", "subjects": ["hand.>"]})
    rc, out, err = run("apply", "m", "--plan", "plan.json", "--server", server.url, "--yes")
    assert rc == 1, out + err
    lines = err.splitlines()
    start = lines.index(f"jsops: error: the live state of {server.url} changed since the plan was made; run plan again")
    assert lines[start + 1 : start + 5] == [
        "  Stream AUDIT: it holds messages now (it held none when the plan was made)",
        "  Stream HAND: created since the plan was made",
        "  Stream ORDERS: its config changed since the plan was made",
        "    max_age: 1h when planned, now 3h",
    ], err
    assert js.stream("ORDERS")["config"]["max_age"] == 3 * 3600 * 10**9  # nothing was applied


def test_a_plan_saved_without_the_live_digests_names_the_fields_of_its_objects(server, js, tmp_path, monkeypatch):
    """A plan saved by an earlier jsops (no ``live`` in its binding) still names the fields it read."""
    from jsops.reconciler.plan import PlanSet, seal

    monkeypatch.chdir(tmp_path)
    manifest(tmp_path / "m", "orders.yaml", ORDERS.replace("MAX_AGE", "1h"))
    assert run("apply", "m", "--server", server.url, "--yes")[0] == 0
    manifest(tmp_path / "m", "orders.yaml", ORDERS.replace("MAX_AGE", "2h"))
    assert run("plan", "m", "--server", server.url, "--out", "plan.json")[0] == 2
    data = json.loads(Path("plan.json").read_text())
    binding = {k: v for k, v in data["binding"].items() if k != "live"}
    Path("plan.json").write_text(json.dumps(seal(PlanSet.from_json(data), binding)))
    config = js.stream("ORDERS")["config"]
    js.ok("$JS.API.STREAM.UPDATE.ORDERS", {**config, "max_age": 3 * 3600 * 10**9})
    rc, out, err = run("apply", "m", "--plan", "plan.json", "--server", server.url, "--yes")
    assert rc == 1, out + err
    assert "  Stream ORDERS: its config changed since the plan was made\n    max_age: 1h when planned, now 3h\n" in err
    assert "AUDIT" not in err
