"""With several cluster URLs, losing the connected node does not fail the rest of the run (issue 12):
the client reconnects to another node and carries on. A real 3-node cluster on 127.0.0.1; the
connected node is killed (kill -9) in the middle of an apply."""

from __future__ import annotations

import time

import pytest

from jsops.reconciler.client import JsClient, Target

from .conftest import three_nodes
from .helpers import Js, NatsCluster, manifest, run

pytestmark = pytest.mark.integration


# a fresh cluster per test: each kills a node
cluster = pytest.fixture(name="cluster")(three_nodes)


def _connected_node(cluster: NatsCluster, client: JsClient):  # type: ignore[no-untyped-def]
    port = client.nc.connected_url.port
    return next(n for n in cluster.nodes if n.port == port)


def _wait_quorum(cluster: NatsCluster, subject: str) -> None:
    """Until the surviving nodes answer ``subject`` and the meta leader answers STREAM.NAMES (the
    stream's and the meta group's leaders were elected again): the cluster keeps quorum, but an
    election after a leader's death takes a moment, and a create sent before the meta group has a
    leader gets no answer at all."""
    alive = ",".join(n.url for n in cluster.nodes if n.process is not None)
    deadline = time.monotonic() + 60
    while True:
        try:
            js = Js(alive)
            try:
                if all("error" not in js.request(s) for s in (subject, "$JS.API.STREAM.NAMES")):
                    return
            finally:
                js.close()
        except Exception:
            pass
        if time.monotonic() > deadline:
            raise AssertionError(f"no answer to {subject} from the surviving nodes")
        time.sleep(0.25)


def stream_docs(names: list[str]) -> str:
    # placed (by tag) on n2 and n3 only: right after a node dies the meta leader may still place
    # new replicas on it, and such a create waits for a peer that never answers
    return "---\n".join(
        f"apiVersion: jsops/v1\nkind: Stream\nmetadata: {{name: {n}}}\n"
        f"spec: {{subjects: ['{n.lower()}.>'], num_replicas: 1, placement: {{tags: ['az:{2 + i % 2}']}}}}\n"
        for i, n in enumerate(names)
    )


def test_client_reconnects_to_another_node(cluster: NatsCluster) -> None:
    client = JsClient(Target(servers=tuple(cluster.urls)), timeout=10)
    try:
        client.request("STREAM.CREATE.ONE", {"name": "ONE", "subjects": ["one.>"], "num_replicas": 3})
        killed = _connected_node(cluster, client)
        killed.kill()
        _wait_quorum(cluster, "$JS.API.STREAM.INFO.ONE")
        # the next request waits for the reconnect and is answered by the cluster (quorum 2 of 3)
        info = client.request("STREAM.INFO.ONE")
        assert info["config"]["name"] == "ONE" and not client.connection_lost
        assert _connected_node(cluster, client) is not killed
        tag = next(f"az:{i}" for i, n in enumerate(cluster.nodes, 1) if n is not killed)
        client.request("STREAM.CREATE.TWO", {"name": "TWO", "subjects": ["two.>"], "placement": {"tags": [tag]}})
    finally:
        client.close()


def test_apply_carries_on_after_losing_the_connected_node(cluster: NatsCluster, tmp_path, monkeypatch) -> None:
    import asyncio

    import jsops.reconciler.live as live

    names = [f"S{i:02d}" for i in range(6)]
    manifest(tmp_path / "m", "streams.yaml", stream_docs(names))
    real = live.read_live
    killed = []

    def read_then_kill(client: JsClient):  # type: ignore[no-untyped-def]
        state = real(client)  # the live state is read; then the node this run talks to dies
        node = _connected_node(cluster, client)
        node.kill()
        killed.append(node)
        client.run(asyncio.sleep(0.5))  # the client notices (as it would while planning)
        _wait_quorum(cluster, "$JS.API.STREAM.NAMES")
        return state

    monkeypatch.setattr(live, "read_live", read_then_kill)
    import nats.aio.client

    # the client connects to the first URL (n1, which the streams avoid); it still reconnects to any
    monkeypatch.setattr(nats.aio.client, "shuffle", lambda pool: None)
    rc, out, err = run("apply", str(tmp_path / "m"), "--server", cluster.url, "--yes")
    monkeypatch.undo()
    assert rc == 0 and killed == [cluster.nodes[0]], out + err
    assert "lost" not in out + err
    alive = ",".join(n.url for n in cluster.nodes if n is not killed[0])
    js = Js(alive)
    try:
        assert js.streams() == names
        assert all(js.stream(n)["cluster"].get("leader") in ("n2", "n3") for n in names)
    finally:
        js.close()
    assert run("plan", str(tmp_path / "m"), "--server", alive)[0] == 0
