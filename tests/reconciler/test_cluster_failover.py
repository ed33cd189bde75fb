"""With several cluster URLs, losing the connected node does not fail the rest of the run (issue 12):
the client reconnects to another node and carries on. A real 3-node cluster on 127.0.0.1; the
connected node is killed (kill -9) in the middle of an apply."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from reconciler.client import JsClient
from reconciler.target import Target

from .helpers import Js, NatsCluster, manifest, run

pytestmark = pytest.mark.integration


@pytest.fixture
def cluster() -> Iterator[NatsCluster]:
    c = NatsCluster(3).start()
    try:
        yield c
    finally:
        c.stop()


def _connected_node(cluster: NatsCluster, client: JsClient):  # type: ignore[no-untyped-def]
    port = client.nc.connected_url.port
    return next(n for n in cluster.nodes if n.port == port)


def stream_docs(names: list[str]) -> str:
    return "---\n".join(
        f"apiVersion: jsops/v1\nkind: Stream\nmetadata: {{name: {n}}}\nspec: {{subjects: ['{n.lower()}.>'], num_replicas: 3}}\n"
        for n in names)


def test_client_reconnects_to_another_node(cluster: NatsCluster) -> None:
    client = JsClient(Target(servers=tuple(cluster.urls)), timeout=10)
    try:
        client.request("STREAM.CREATE.ONE", {"name": "ONE", "subjects": ["one.>"], "num_replicas": 3})
        killed = _connected_node(cluster, client)
        killed.kill()
        # the next request waits for the reconnect and is answered by the cluster (quorum 2 of 3)
        info = client.request("STREAM.INFO.ONE")
        assert info["config"]["name"] == "ONE" and not client.connection_lost
        assert _connected_node(cluster, client) is not killed
        client.request("STREAM.CREATE.TWO", {"name": "TWO", "subjects": ["two.>"], "num_replicas": 3})
    finally:
        client.close()


def test_apply_carries_on_after_losing_the_connected_node(cluster: NatsCluster, tmp_path, monkeypatch) -> None:
    import asyncio

    import reconciler.live as live

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
        return state

    monkeypatch.setattr(live, "read_live", read_then_kill)
    rc, out, err = run("apply", str(tmp_path / "m"), "--server", cluster.url, "--yes")
    monkeypatch.undo()
    assert rc == 0 and len(killed) == 1, out + err
    assert "lost" not in out + err
    alive = ",".join(n.url for n in cluster.nodes if n is not killed[0])
    js = Js(alive)
    try:
        assert js.streams() == names
        assert all(js.stream(n)["config"]["num_replicas"] == 3 for n in names)
    finally:
        js.close()
    assert run("plan", str(tmp_path / "m"), "--server", alive)[0] == 0
