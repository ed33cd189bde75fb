"""Issue 12: a consumer recreate interrupted between its DELETE and its CREATE keeps the position.

The intended resume position is recorded on the parent stream before the delete; the re-run sees
it, says so in the plan, creates the consumer there and clears the record."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .helpers import Js, NatsServer, manifest, run

pytestmark = pytest.mark.integration

JSOPS = str(Path(sys.executable).parent / "jsops")

DOC = """
apiVersion: jsops/v1
kind: Stream
metadata: {name: ORDERS}
spec: {subjects: ["orders.>"]}
---
apiVersion: jsops/v1
kind: Consumer
metadata: {name: shipper, stream: ORDERS}
spec: {deliver_policy: POLICY, max_waiting: WAITING}
"""


def _setup(server: NatsServer, d: Path, policy: str) -> Js:
    manifest(d, "orders.yaml", DOC.replace("POLICY", policy).replace("WAITING", "64"))
    js = Js(server.url)
    assert run("apply", str(d), "--server", server.url, "--yes")[0] == 0
    js.publish("orders.a", 10)
    assert js.fetch_ack("ORDERS", "shipper", 4) == [1, 2, 3, 4]
    info = js.consumer("ORDERS", "shipper")
    assert (info["num_pending"], info["ack_floor"]["stream_seq"]) == (6, 4)
    manifest(d, "orders.yaml", DOC.replace("POLICY", policy).replace("WAITING", "128"))
    return js


def _apply_killed(server: NatsServer, d: Path, fault: str) -> None:
    """``jsops apply --allow-recreate`` of ``d``, killed by the fault point ``fault`` (exit 137)."""
    env = {**os.environ, "JSOPS_FAULT": fault}
    cmd = [JSOPS, "apply", str(d), "--server", server.url, "--yes", "--allow-recreate"]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 137, proc.stdout + proc.stderr


def _intents(js: Js) -> dict[str, str]:
    meta = js.stream("ORDERS")["config"].get("metadata") or {}
    return {k: v for k, v in meta.items() if k.startswith("io.jsops.recreate.")}


def _resume_and_check(server: NatsServer, js: Js, d: Path) -> None:
    assert js.consumer("ORDERS", "shipper") is None  # the interruption left it deleted
    assert json.loads(_intents(js)["io.jsops.recreate.shipper"])["seq"] == 5
    rc, out, _ = run("plan", str(d), "--server", server.url)
    assert rc == 2, out
    assert "resume interrupted recreate of ORDERS/shipper at stream sequence 5" in out
    assert "Stream ORDERS" not in out  # the record is bookkeeping, not a stream change
    rc, out, err = run("apply", str(d), "--server", server.url, "--yes")
    assert rc == 0, out + err
    assert "resumed an interrupted recreate" in out
    info = js.consumer("ORDERS", "shipper")
    assert info["config"]["max_waiting"] == 128
    assert (info["num_pending"], info["ack_floor"]["stream_seq"]) == (6, 4)
    assert _intents(js) == {}
    rc, out, _ = run("plan", str(d), "--server", server.url)
    assert (rc, out.startswith("No changes.")) == (0, True), out
    assert js.fetch_ack("ORDERS", "shipper", 2) == [5, 6]


@pytest.mark.parametrize("policy", ["new", "all"])
def test_process_killed_between_delete_and_create_resumes_position(server, tmp_path, policy):
    d = tmp_path / "m"
    js = _setup(server, d, policy)
    try:
        _apply_killed(server, d, "after-consumer-delete")
        _resume_and_check(server, js, d)
    finally:
        js.close()


def test_server_killed_between_delete_and_create_resumes_position(tmp_path):
    server = NatsServer().start()
    js: Js | None = None
    try:
        d = tmp_path / "m"
        js = _setup(server, d, "new")
        js.close()
        js = None
        gate = tmp_path / "go"
        env = {**os.environ, "JSOPS_FAULT": f"after-consumer-delete:pause:{gate}"}
        proc = subprocess.Popen(
            [JSOPS, "apply", str(d), "--server", server.url, "--yes", "--allow-recreate"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        reached = Path(str(gate) + ".reached")
        for _ in range(600):
            if reached.exists() or proc.poll() is not None:
                break
            time.sleep(0.1)
        assert reached.exists()
        server.kill()  # kill -9 between the DELETE and the CREATE
        gate.write_text("go")
        out, _ = proc.communicate(timeout=60)
        assert proc.returncode == 1 and "Traceback" not in out, out
        server.restart()
        js = Js(server.url)
        _resume_and_check(server, js, d)
    finally:
        if js is not None:
            js.close()
        server.stop()


def test_killed_after_create_clears_the_leftover_record(server, tmp_path):
    d = tmp_path / "m"
    js = _setup(server, d, "new")
    try:
        _apply_killed(server, d, "after-consumer-create")
        assert js.consumer("ORDERS", "shipper")["config"]["max_waiting"] == 128
        assert "io.jsops.recreate.shipper" in _intents(js)
        rc, out, _ = run("plan", str(d), "--server", server.url)
        assert rc == 2 and "~ Consumer ORDERS/shipper" in out and "clears the record of a finished recreate" in out, out
        assert run("apply", str(d), "--server", server.url, "--yes")[0] == 0
        assert _intents(js) == {}
        info = js.consumer("ORDERS", "shipper")
        assert (info["num_pending"], info["ack_floor"]["stream_seq"]) == (6, 4)
        rc, out, _ = run("plan", str(d), "--server", server.url)
        assert (rc, out.startswith("No changes.")) == (0, True), out
    finally:
        js.close()


def test_concurrent_recreates_of_one_stream_keep_every_position(server, js, tmp_path):
    """Five consumers of one stream recreated in one apply: their records are written and cleared
    one at a time (no lost update of the stream's metadata), and every position is kept."""
    d = tmp_path / "m"
    docs = ['apiVersion: jsops/v1\nkind: Stream\nmetadata: {name: ORDERS}\nspec: {subjects: ["orders.>"]}\n']
    for i in range(5):
        docs.append(
            f"apiVersion: jsops/v1\nkind: Consumer\nmetadata: {{name: c{i}, stream: ORDERS}}\nspec: {{max_waiting: WAITING}}\n"
        )
    text = "---\n".join(docs)
    d.mkdir()
    (d / "o.yaml").write_text(text.replace("WAITING", "64"))
    assert run("apply", str(d), "--server", server.url, "--yes")[0] == 0
    js.publish("orders.a", 10)
    for i in range(5):
        js.fetch_ack("ORDERS", f"c{i}", i + 1)
    (d / "o.yaml").write_text(text.replace("WAITING", "128"))
    rc, out, err = run("apply", str(d), "--server", server.url, "--yes", "--allow-recreate")
    assert rc == 0, out + err
    for i in range(5):
        info = js.consumer("ORDERS", f"c{i}")
        assert (info["config"]["max_waiting"], info["num_pending"], info["ack_floor"]["stream_seq"]) == (
            128,
            10 - (i + 1),
            i + 1,
        )
    assert _intents(js) == {}
