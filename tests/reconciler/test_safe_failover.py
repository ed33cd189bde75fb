"""Issue 21 item 13: failover mid-apply. The node this run talks to dies while a write is in
flight (its answer is lost); apply reads that object back through the reconnect, sends the write
again when it was not carried out, and carries on with the rest of the run, as
docs/reconciler-targets.md says (a real 3-node cluster; kill -9 of the connected node)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from jsops.reconciler.client import JsClient

from .conftest import three_nodes
from .helpers import Js, NatsCluster, manifest, run
from .test_cluster_failover import _connected_node, _wait_quorum, stream_docs

pytestmark = pytest.mark.integration

cluster = pytest.fixture(name="cluster")(three_nodes)  # a fresh cluster: the test kills a node

ORDERS = """
apiVersion: jsops/v1
kind: Stream
metadata: {{name: ORDERS}}
spec: {{subjects: ["orders.>"], num_replicas: 3}}
---
apiVersion: jsops/v1
kind: Consumer
metadata: {{name: shipper, stream: ORDERS}}
spec: {{ack_wait: {ack_wait}, num_replicas: 3}}
"""


def test_apply_carries_on_after_a_write_lost_in_a_failover(cluster: NatsCluster, tmp_path, monkeypatch) -> None:
    d = tmp_path / "m"
    manifest(d, "orders.yaml", ORDERS.format(ack_wait="30s"))
    assert run("apply", str(d), "--server", cluster.url, "--yes")[0] == 0
    js = Js(cluster.url)
    try:
        js.publish("orders.x", 10)
        assert js.fetch_ack("ORDERS", "shipper", 4) == [1, 2, 3, 4]
    finally:
        js.close()
    names = [f"S{i:02d}" for i in range(10)]
    manifest(d, "orders.yaml", ORDERS.format(ack_wait="45s"))
    manifest(d, "streams.yaml", stream_docs(names))

    import nats.aio.client

    monkeypatch.setattr(nats.aio.client, "shuffle", lambda pool: None)  # connect to n1 first
    original = JsClient.arequest
    creates: list[str] = []
    killed: list[Any] = []

    async def kill_in_flight(self: JsClient, subject: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        if subject.startswith("STREAM.CREATE."):
            creates.append(subject)
            if len(creates) == 4 and not killed:  # the node dies with this write in flight
                node = _connected_node(cluster, self)
                request = asyncio.ensure_future(original(self, subject, body))
                await asyncio.sleep(0)
                node.kill()
                killed.append(node)
                return await request
        return await original(self, subject, body)

    monkeypatch.setattr(JsClient, "arequest", kill_in_flight)
    rc, out, err = run("apply", str(d), "--server", cluster.url, "--yes")
    monkeypatch.undo()
    assert killed == [cluster.nodes[0]], out + err
    assert rc == 0, out + err
    assert "after the reconnect" in out, out
    assert f"Apply: {len(names) + 1} done, 0 failed, 0 not attempted, 0 blocked." in out, out

    alive = ",".join(n.url for n in cluster.nodes if n is not killed[0])
    _wait_quorum(cluster, "$JS.API.CONSUMER.INFO.ORDERS.shipper")
    js = Js(alive)
    try:
        assert js.streams() == ["ORDERS", *names]
        assert js.stream("ORDERS")["state"]["messages"] == 10
        c = js.consumer("ORDERS", "shipper")
        assert c["ack_floor"]["stream_seq"] == 4 and c["num_pending"] == 6
        assert c["config"]["ack_wait"] == 45 * 10**9
    finally:
        js.close()
    assert run("plan", str(d), "--server", alive)[0] == 0
