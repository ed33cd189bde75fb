"""plan / apply on a 3-node JetStream cluster (127.0.0.1): R3 streams, replica changes, placement."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from .helpers import Js, NatsCluster, manifest, run

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def cjs(cluster: NatsCluster) -> Iterator[Js]:
    client = Js(cluster.url)
    try:
        yield client
    finally:
        client.close()


def stream_doc(name: str, replicas: int, extra: str = "") -> str:
    return f"""
        apiVersion: jsops/v1
        kind: Stream
        metadata: {{name: {name}}}
        spec:
          subjects: ["{name.lower()}.>"]
          num_replicas: {replicas}
          {extra}
        ---
        apiVersion: jsops/v1
        kind: Consumer
        metadata: {{name: worker, stream: {name}}}
        spec: {{max_deliver: 4, ack_wait: 10s}}
    """


def test_r3_stream_and_replica_changes_in_place(cluster, cjs, tmp_path):
    d = tmp_path / "m"
    manifest(d, "s.yaml", stream_doc("REPL", 3))
    rc, out, err = run("apply", str(d), "--server", cluster.url, "--yes")
    assert rc == 0, out + err
    assert cjs.stream("REPL")["config"]["num_replicas"] == 3
    assert run("plan", str(d), "--server", cluster.url)[0] == 0
    cjs.publish("repl.x", 20)
    manifest(d, "s.yaml", stream_doc("REPL", 1))
    rc, out, _ = run("plan", str(d), "--server", cluster.url, "--format", "json")
    act = json.loads(out)["actions"]
    assert rc == 2 and [
        (a["action"], [(c["path"], c["from"], c["to"], c["class"]) for c in a["changes"]]) for a in act
    ] == [("update", [("num_replicas", 3, 1, "in-place")])]
    rc, out, err = run("apply", str(d), "--server", cluster.url, "--yes")
    assert rc == 0, out + err
    manifest(d, "s.yaml", stream_doc("REPL", 3))
    rc, out, err = run("apply", str(d), "--server", cluster.url, "--yes")
    assert rc == 0, out + err
    info = cjs.stream("REPL")
    assert info["config"]["num_replicas"] == 3 and info["state"]["messages"] == 20
    assert run("plan", str(d), "--server", cluster.url)[0] == 0


def test_placement_move_and_move_with_scale(cluster, cjs, tmp_path):
    d = tmp_path / "m"
    manifest(d, "p.yaml", stream_doc("PLACED", 1, 'placement: {tags: ["az:1"]}'))
    rc, out, err = run("apply", str(d), "--server", cluster.url, "--yes")
    assert rc == 0, out + err
    assert cjs.stream("PLACED")["config"]["placement"] == {"tags": ["az:1"]}
    manifest(d, "p.yaml", stream_doc("PLACED", 1, 'placement: {tags: ["az:2"]}'))
    rc, out, _ = run("plan", str(d), "--server", cluster.url)
    assert rc == 2 and "~ placement" in out and "moves to other servers" in out
    rc, out, err = run("apply", str(d), "--server", cluster.url, "--yes")
    assert rc == 0, out + err
    assert cjs.stream("PLACED")["config"]["placement"] == {"tags": ["az:2"]}
    rc, out, _ = run("plan", str(d), "--server", cluster.url)
    assert rc == 0, out

    # The server refuses a move and a scale in one update (10123): jsops does it in two steps.
    manifest(d, "q.yaml", stream_doc("GROWN", 1))
    assert run("apply", str(d), "--server", cluster.url, "--yes")[0] == 0
    manifest(d, "q.yaml", stream_doc("GROWN", 3, "placement: {cluster: C1}"))
    rc, out, _ = run("plan", str(d), "--server", cluster.url)
    assert "two steps" in out
    rc, out, err = run("apply", str(d), "--server", cluster.url, "--yes")
    assert rc == 0, out + err
    cfg = cjs.stream("GROWN")["config"]
    assert cfg["num_replicas"] == 3 and cfg["placement"] == {"cluster": "C1"}


def test_cluster_immutable_change_refused_and_r3_data_kept(cluster, cjs, tmp_path):
    d = tmp_path / "m"
    manifest(d, "w.yaml", stream_doc("WQ", 3, "retention: limits"))
    assert run("apply", str(d), "--server", cluster.url, "--yes")[0] == 0
    cjs.publish("wq.a", 7)
    manifest(d, "w.yaml", stream_doc("WQ", 3, "retention: workqueue"))
    rc, out, _ = run("apply", str(d), "--server", cluster.url, "--yes", "--allow-recreate")
    assert rc == 1 and "needs --allow-data-loss" in out
    info = cjs.stream("WQ")
    assert info["config"]["retention"] == "limits" and info["state"]["messages"] == 7


def test_export_round_trip_on_cluster(cluster, tmp_path):
    rc, _, err = run("export", "--server", cluster.url, str(tmp_path / "x"))
    assert rc == 0, err
    rc, out, err = run("plan", str(tmp_path / "x"), "--server", cluster.url)
    assert (rc, out.startswith("No changes.")) == (0, True), out + err
