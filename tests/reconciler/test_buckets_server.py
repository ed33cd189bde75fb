"""Buckets as first-class objects against a real nats-server: a NACK repository with streams,
consumers, a KeyValue and an ObjectStore lints, plans, applies, exports (as KeyValue/ObjectStore
manifests) and round-trips with an empty plan; bucket changes are classified as the server decides."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import nats
import pytest
import yaml

from .helpers import manifest, run

pytestmark = pytest.mark.integration

NACK_REPO = """
apiVersion: jetstream.nats.io/v1beta2
kind: Stream
metadata: {name: orders}
spec:
  name: ORDERS
  subjects: ["orders.>"]
  storage: file
  maxAge: 1h
---
apiVersion: jetstream.nats.io/v1beta2
kind: Consumer
metadata: {name: shipper}
spec:
  streamName: ORDERS
  durableName: shipper
  ackPolicy: explicit
  ackWait: 30s
  maxDeliver: 5
---
apiVersion: jetstream.nats.io/v1beta2
kind: KeyValue
metadata: {name: sessions}
spec:
  bucket: sessions
  history: {history}
  ttl: 24h
  maxBytes: 10485760
  maxValueSize: 65536
  storage: file
  compression: true
---
apiVersion: jetstream.nats.io/v1beta2
kind: ObjectStore
metadata: {name: labels}
spec:
  bucket: LABELS
  maxBytes: 104857600
  ttl: 72h
  metadata: {team: shipping}
"""


def repo(d: Path, history: int = 5) -> Path:
    return manifest(d, "nack.yaml", NACK_REPO.replace("{history}", str(history)))


def _kv_roundtrip(url: str) -> tuple[bytes, str]:
    """Keys and objects written by nats-py into the buckets jsops applied."""

    async def go() -> tuple[bytes, str]:
        nc = await nats.connect(url)
        try:
            js = nc.jetstream()
            kv = await js.key_value("sessions")
            await kv.put("user.1", b"alive")
            obs = await js.object_store("LABELS")
            await obs.put("label-1", b"x" * 1000)
            return (await kv.get("user.1")).value, (await obs.get_info("label-1")).name
        finally:
            await nc.close()

    return asyncio.run(go())


def test_nack_repo_with_buckets_applies_exports_and_round_trips(server, js, tmp_path):
    d = tmp_path / "repo"
    repo(d)
    from jsops.linter.engine import lint_paths

    result = lint_paths([str(d)])
    assert [f.message for f in result.findings if f.severity.value == "error"] == []  # lints: no errors
    assert result.objects == 4
    rc, out, err = run("plan", str(d), "--server", server.url)
    assert rc == 2, out + err
    assert "KV_sessions" in out and "OBJ_LABELS" in out
    rc, out, err = run("apply", str(d), "--server", server.url, "--yes")
    assert rc == 0 and "0 failed" in out, out + err
    kv, obj = js.stream("KV_sessions")["config"], js.stream("OBJ_LABELS")["config"]
    # the streams are what the Go client builds for these buckets
    assert kv["subjects"] == ["$KV.sessions.>"] and kv["max_msgs_per_subject"] == 5 and kv["deny_delete"] is True
    assert (
        kv["allow_direct"] is True
        and kv["compression"] == "s2"
        and kv["max_msg_size"] == 65536
        and kv["discard"] == "new"
    )
    assert sorted(obj["subjects"]) == ["$O.LABELS.C.>", "$O.LABELS.M.>"] and obj["metadata"]["team"] == "shipping"
    assert obj["metadata"]["io.jsops.managed-by"] == "jsops"  # ownership marks as for streams
    # the clients use them as buckets
    assert _kv_roundtrip(server.url) == (b"alive", "label-1")
    rc, out, err = run("plan", str(d), "--server", server.url)
    assert (rc, out.startswith("No changes.")) == (0, True), out + err
    # export writes bucket manifests, and the plan on the export is empty
    rc, out, err = run("export", "--server", server.url, str(tmp_path / "export"))
    assert rc == 0, err
    docs = {p.name: list(yaml.safe_load_all(p.read_text())) for p in (tmp_path / "export").iterdir()}
    kinds = {doc["kind"]: doc for ds in docs.values() for doc in ds}
    assert kinds["KeyValue"]["metadata"]["name"] == "sessions"
    assert kinds["KeyValue"]["spec"] == {
        "history": 5,
        "ttl": "1d",
        "max_bytes": "10MiB",
        "max_value_size": "64KiB",
        "compression": True,
    }
    assert kinds["ObjectStore"]["metadata"]["name"] == "LABELS"
    assert kinds["ObjectStore"]["spec"] == {"ttl": "3d", "max_bytes": "100MiB", "metadata": {"team": "shipping"}}
    rc, out, err = run("plan", str(tmp_path / "export"), "--server", server.url)
    assert (rc, out.startswith("No changes.")) == (0, True), out + err


def test_bucket_history_change_is_in_place_and_keeps_keys(server, js, tmp_path):
    d = tmp_path / "repo"
    repo(d, 5)
    assert run("apply", str(d), "--server", server.url, "--yes")[0] == 0
    _kv_roundtrip(server.url)
    repo(d, 10)
    rc, out, err = run("plan", str(d), "--server", server.url, "--format", "json")
    actions = [a for a in json.loads(out)["actions"] if a["object"]["name"] == "KV_sessions"]
    assert len(actions) == 1 and actions[0]["action"] == "update", actions
    assert [c["path"] for c in actions[0]["changes"]] == ["max_msgs_per_subject"]
    assert run("apply", str(d), "--server", server.url, "--yes")[0] == 0
    info = js.stream("KV_sessions")
    assert info["config"]["max_msgs_per_subject"] == 10 and info["state"]["messages"] == 1


def test_bucket_storage_change_is_not_in_place(server, js, tmp_path):
    """The server refuses to change a stream's storage: the plan says so, and without the data-loss
    flag apply keeps the bucket and its keys."""
    d = tmp_path / "repo"
    repo(d)
    assert run("apply", str(d), "--server", server.url, "--yes")[0] == 0
    _kv_roundtrip(server.url)
    (d / "nack.yaml").write_text(
        (d / "nack.yaml").read_text().replace("  storage: file\n  compression", "  storage: memory\n  compression")
    )
    rc, out, err = run("plan", str(d), "--server", server.url, "--format", "json")
    actions = [a for a in json.loads(out)["actions"] if a["object"]["name"] == "KV_sessions"]
    assert len(actions) == 1 and actions[0]["action"] != "update", actions
    # the server refuses this change in place (what the classification predicts)
    cfg = dict(js.stream("KV_sessions")["config"], storage="memory")
    assert js.request("$JS.API.STREAM.UPDATE.KV_sessions", cfg)["error"]["err_code"] == 10052
    run("apply", str(d), "--server", server.url, "--yes")
    info = js.stream("KV_sessions")
    assert info["config"]["storage"] == "file" and info["state"]["messages"] == 1


def test_controller_heals_bucket_drift(server, js, tmp_path):
    from jsops.reconciler.controller.cli import main

    d = tmp_path / "repo"
    repo(d, 5)
    common = [str(d), "--server", server.url, "--listen", "none", "--once", "--log-file", str(tmp_path / "log")]
    assert main(common) == 0
    _kv_roundtrip(server.url)
    cfg = js.stream("KV_sessions")["config"]
    js.ok("$JS.API.STREAM.UPDATE.KV_sessions", {**cfg, "max_msgs_per_subject": 2})  # changed by hand
    assert main([*common, "--dry-run"]) == 2  # drift found
    assert main(common) == 0
    info = js.stream("KV_sessions")
    assert info["config"]["max_msgs_per_subject"] == 5 and info["state"]["messages"] == 1
    assert main([*common, "--dry-run"]) == 0


def test_full_bucket_without_ttl_refuses_puts_as_js460_says(server, js, tmp_path):
    """JS460's fact on the real server: a bucket at max_bytes refuses the next put with 10077."""
    d = tmp_path / "full"
    manifest(d, "kv.yaml", "apiVersion: jsops/v1\nkind: KeyValue\nmetadata: {name: full}\nspec: {max_bytes: 2048}\n")
    from jsops.linter.engine import lint_paths

    assert [f.rule for f in lint_paths([str(d)]).findings if f.rule == "JS460"] == ["JS460"]
    assert run("apply", str(d), "--server", server.url, "--yes")[0] == 0
    codes = []
    for i in range(40):
        ack = js.loop.run_until_complete(js.nc.request(f"$KV.full.k{i}", b"x" * 100, timeout=5))
        body = json.loads(ack.data)
        if "error" in body:
            codes.append(body["error"]["err_code"])
            break
    assert codes == [10077]


def test_bucket_mirror_and_source_work_as_buckets(server, js, tmp_path):
    """A KeyValue sourcing another, and one mirroring it, applied by jsops: a key put in the origin
    is read back through the sourcing bucket with nats-py (the subject transform is right), and from
    the mirror under the origin's subject, as the Go client reads a mirror bucket (nats-py's KV
    does not read mirrors)."""
    d = tmp_path / "m"
    manifest(
        d,
        "kv.yaml",
        """
        apiVersion: jsops/v1
        kind: KeyValue
        metadata: {name: origin}
        spec: {history: 2, ttl: 1h}
        ---
        apiVersion: jsops/v1
        kind: KeyValue
        metadata: {name: merged}
        spec: {ttl: 1h, sources: [{name: origin}]}
        ---
        apiVersion: jsops/v1
        kind: KeyValue
        metadata: {name: replica}
        spec: {history: 2, ttl: 1h, mirror: {name: origin}}
        """,
    )
    rc, out, err = run("apply", str(d), "--server", server.url, "--yes")
    assert rc == 0, out + err

    async def go() -> tuple[bytes | None, bytes | None]:
        nc = await nats.connect(server.url)
        try:
            jsc = nc.jetstream()
            await (await jsc.key_value("origin")).put("k", b"v1")
            merged, replica = None, None
            kv = await jsc.key_value("merged")
            for _ in range(200):
                if merged is None:
                    try:
                        merged = (await kv.get("k")).value
                    except Exception:  # not sourced yet
                        pass
                if replica is None:
                    try:
                        replica = (await jsc.get_last_msg("KV_replica", "$KV.origin.k")).data
                    except Exception:  # not mirrored yet
                        pass
                if merged is not None and replica is not None:
                    break
                await asyncio.sleep(0.05)
            return merged, replica
        finally:
            await nc.close()

    assert asyncio.run(go()) == (b"v1", b"v1")
    assert run("plan", str(d), "--server", server.url)[1].startswith("No changes.")


def test_pruning_a_bucket_with_keys_needs_the_data_loss_flag(server, js, tmp_path):
    d = tmp_path / "repo"
    repo(d)
    assert run("apply", str(d), "--server", server.url, "--yes")[0] == 0
    _kv_roundtrip(server.url)
    text = (d / "nack.yaml").read_text()
    (d / "nack.yaml").write_text(text[: text.index("kind: KeyValue")].rsplit("---", 1)[0])  # the buckets leave the repo
    rc, out, err = run("plan", str(d), "--server", server.url, "--prune", "--format", "json")
    acts = {a["object"]["name"]: a for a in json.loads(out)["actions"]}
    assert acts["KV_sessions"]["action"] == "blocked" and "--allow-data-loss" in acts["KV_sessions"]["reason"]
    run("apply", str(d), "--server", server.url, "--prune", "--yes")
    assert js.stream("KV_sessions")["state"]["messages"] == 1  # the keys are still there
    assert run("apply", str(d), "--server", server.url, "--prune", "--allow-data-loss", "--yes")[0] == 0
    assert js.stream("KV_sessions") is None and js.stream("OBJ_LABELS") is None


def test_bucket_made_by_nats_py_exports_as_a_keyvalue_and_plans_empty(server, js, tmp_path):
    async def make() -> None:
        nc = await nats.connect(server.url)
        try:
            from nats.js import api

            await nc.jetstream().create_key_value(api.KeyValueConfig(bucket="made", history=4, ttl=600))
        finally:
            await nc.close()

    asyncio.run(make())
    assert run("export", "--server", server.url, str(tmp_path / "out"))[0] == 0
    (doc,) = [d for p in (tmp_path / "out").iterdir() for d in yaml.safe_load_all(p.read_text())]
    assert (doc["kind"], doc["metadata"]["name"]) == ("KeyValue", "made")
    assert doc["spec"] == {"history": 4, "ttl": "10m", "direct": False, "allow_msg_ttl": True}
    rc, out, err = run("plan", str(tmp_path / "out"), "--server", server.url)
    assert (rc, out.startswith("No changes.")) == (0, True), out + err
