"""Issue 21 item 12: the plan accounts for every owned object that left the manifests, names
every missing flag at once, names the lossless --migrate on a blocked storage change, and says
what a lower max_bytes does to a discard:new bucket (real nats-server; counts and positions)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .helpers import Js, manifest, run

pytestmark = pytest.mark.integration

ORDERS = """
apiVersion: jsops/v1
kind: Stream
metadata: {{name: ORDERS}}
spec: {{subjects: ["orders.>"], retention: {retention}, storage: {storage}}}
---
apiVersion: jsops/v1
kind: Consumer
metadata: {{name: c1, stream: ORDERS}}
spec: {{ack_wait: {ack_wait}, deliver_policy: {deliver}}}
"""


def _orders(
    d: Path, retention: str = "limits", storage: str = "file", ack_wait: str = "30s", deliver: str = "all"
) -> None:
    manifest(d, "orders.yaml", ORDERS.format(retention=retention, storage=storage, ack_wait=ack_wait, deliver=deliver))


def test_an_owned_stream_that_left_the_manifests_is_never_no_changes(server, js, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _orders(tmp_path / "m")
    manifest(
        tmp_path / "m",
        "audit.yaml",
        """
        apiVersion: jsops/v1
        kind: Stream
        metadata: {name: AUDIT}
        spec: {subjects: ["audit.>"]}
    """,
    )
    assert run("apply", "m", "--server", server.url, "--yes")[0] == 0
    js.publish("audit.x", 4)
    (tmp_path / "m" / "audit.yaml").unlink()
    rc, out, err = run("plan", "m", "--server", server.url)
    assert rc == 2 and "No changes" not in out, out + err
    assert (
        "! Stream AUDIT  (blocked delete: left the manifests; the stream holds 4 messages; needs --prune and --allow-data-loss)"
        in out
    ), out
    rc, out, err = run("apply", "m", "--server", server.url, "--yes")
    assert rc == 1 and "blocked" in out, out + err
    assert js.stream("AUDIT")["state"]["messages"] == 4  # kept


def test_consumer_recreate_names_every_missing_flag(tmp_path):
    from tests.natsserver import NatsServer, release_binary

    server = NatsServer(binary=release_binary("2.12.8")).start()  # no reset API: a start change is a recreate
    d = tmp_path / "m"
    try:
        js = Js(server.url)
        try:
            _orders(d, retention="interest")
            assert run("apply", str(d), "--server", server.url, "--yes")[0] == 0
            js.publish("orders.x", 6)
            assert js.fetch_ack("ORDERS", "c1", 2) == [1, 2]
            _orders(d, retention="interest", deliver="new")
            rc, out, err = run("plan", str(d), "--server", server.url, "--format", "json")
            [act] = [a for a in json.loads(out)["actions"] if a["object"]["name"] == "c1"]
            assert (act["action"], act["wanted"]) == ("blocked", "recreate"), act
            assert act["reason"] == (
                "the consumer has 4 unacknowledged messages on an interest stream; needs --allow-recreate and --allow-data-loss"
            ), act
            assert run("apply", str(d), "--server", server.url, "--yes")[0] == 1
            assert js.stream("ORDERS")["state"]["messages"] == 4
            c = js.consumer("ORDERS", "c1")
            assert c["ack_floor"]["stream_seq"] == 2 and c["num_pending"] == 4
        finally:
            js.close()
    finally:
        server.stop()


def test_blocked_storage_change_names_migrate(server, js, tmp_path):
    d = tmp_path / "m"
    _orders(d)
    assert run("apply", str(d), "--server", server.url, "--yes")[0] == 0
    js.publish("orders.x", 5)
    _orders(d, storage="memory")
    rc, out, err = run("plan", str(d), "--server", server.url)
    assert rc == 2, out + err
    assert (
        "needs --allow-recreate and --allow-data-loss; or --migrate, which moves them to the new config without loss"
        in out
    ), out
    assert run("apply", str(d), "--server", server.url, "--yes")[0] == 1
    assert js.stream("ORDERS")["state"]["messages"] == 5 and js.stream("ORDERS")["config"]["storage"] == "file"


def test_discard_new_bucket_lower_max_bytes_refuses_puts_and_keeps_values(server, js, tmp_path):
    d = tmp_path / "m"
    bucket = """
        apiVersion: jsops/v1
        kind: KeyValue
        metadata: {{name: carts}}
        spec: {{history: 1, max_bytes: {size}}}
    """
    manifest(d, "carts.yaml", bucket.format(size="1MiB"))
    assert run("apply", str(d), "--server", server.url, "--yes")[0] == 0
    for i in range(20):
        js.request(f"$KV.carts.k{i}", {"v": "x" * 200})
    held = js.stream("KV_carts")["state"]
    assert held["messages"] == 20
    manifest(d, "carts.yaml", bucket.format(size="2KiB"))
    rc, out, err = run("plan", str(d), "--server", server.url)
    assert rc == 2, out + err
    assert "oldest" not in out and "with discard: new nothing stored is removed" in out and "every put" in out, out
    assert "data loss" not in out
    rc, out, err = run("apply", str(d), "--server", server.url, "--yes")
    assert rc == 0, out + err
    assert js.stream("KV_carts")["state"]["messages"] == 20  # nothing removed
    refused = js.request("$KV.carts.k99", {"v": "y"})
    assert "error" in refused and js.stream("KV_carts")["state"]["messages"] == 20
