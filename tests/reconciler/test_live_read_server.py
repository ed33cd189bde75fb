"""The live state read through paged STREAM.LIST / CONSUMER.LIST (a handful of requests) is the
state a naive sweep of one INFO request per object reads (issue 14, Speed)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from jsops.reconciler.client import JsClient, Target
from jsops.reconciler.live import LiveConsumer, LiveState, read_live, stream_from_info

from .helpers import Js, NatsServer, manifest, run

pytestmark = pytest.mark.integration

ESTATE = """
apiVersion: jsops/v1
kind: Stream
metadata: {name: ORDERS}
spec: {subjects: ["orders.>"], max_age: 24h, metadata: {team: a}}
---
apiVersion: jsops/v1
kind: Stream
metadata: {name: ORDERS_COPY}
spec: {mirror: {name: ORDERS}}
---
apiVersion: jsops/v1
kind: Stream
metadata: {name: ALL}
spec: {sources: [{name: ORDERS, filter_subject: "orders.a"}], storage: memory}
---
apiVersion: jsops/v1
kind: Consumer
metadata: {name: shipper, stream: ORDERS}
spec: {ack_policy: explicit, filter_subject: "orders.a"}
---
apiVersion: jsops/v1
kind: Consumer
metadata: {name: billing, stream: ORDERS}
spec: {ack_policy: explicit, deliver_policy: new}
"""


def _sweep(client: JsClient) -> LiveState:
    """The old way: the names, then one INFO request per stream and per consumer."""
    state = LiveState()
    names: list[str] = []
    while True:
        resp = client.request("STREAM.NAMES", {"offset": len(names)})
        names += resp.get("streams") or []
        if len(names) >= int(resp.get("total") or 0):
            break
    for name in names:
        s = stream_from_info(client.request(f"STREAM.INFO.{name}"))
        state.streams[s.name] = s
        consumers: list[str] = []
        while True:
            resp = client.request(f"CONSUMER.NAMES.{name}", {"offset": len(consumers)})
            consumers += resp.get("consumers") or []
            if len(consumers) >= int(resp.get("total") or 0):
                break
        for c in consumers:
            info = client.request(f"CONSUMER.INFO.{name}.{c}")
            from jsops.linter import strip_server_metadata

            cfg = strip_server_metadata(info.get("config") or {})
            state.consumers[(name, c)] = LiveConsumer.from_json(
                name,
                cfg,
                ack_floor=int((info.get("ack_floor") or {}).get("stream_seq") or 0),
                delivered=int((info.get("delivered") or {}).get("stream_seq") or 0),
                pending=int(info.get("num_pending") or 0) + int(info.get("num_ack_pending") or 0),
            )
    return state


def _comparable(state: LiveState) -> dict[str, Any]:
    return {
        "streams": state.streams,
        "consumers": state.consumers,
        "unknown": state.unknown,
        "fingerprint": state.fingerprint(),
    }


def test_paged_lists_read_what_one_info_per_object_reads(server: NatsServer, js: Js, tmp_path: Path) -> None:
    d = tmp_path / "m"
    manifest(d, "estate.yaml", ESTATE)
    assert run("apply", str(d), "--server", server.url, "--yes")[0] == 0
    js.publish("orders.a", 7)
    js.publish("orders.b", 3)
    assert js.fetch_ack("ORDERS", "shipper", 3) == [1, 2, 3]
    for i in range(300):  # more than one page of streams (256 a page)
        js.ok(f"$JS.API.STREAM.CREATE.P{i:03d}", {"name": f"P{i:03d}", "subjects": [f"p{i}"], "storage": "memory"})
    for i in range(260):  # and more than one page of consumers
        js.ok(
            f"$JS.API.CONSUMER.CREATE.P000.c{i:03d}", {"stream_name": "P000", "config": {"durable_name": f"c{i:03d}"}}
        )
    client = JsClient(Target(servers=(server.url,)))
    try:
        fast = read_live(client)
        slow = _sweep(client)
    finally:
        client.close()
    assert len(fast.streams) == 303 and len(fast.consumers) == 262
    assert _comparable(fast) == _comparable(slow)
    assert fast.requests <= 2 + 3 + 2  # stream pages, a page per stream with consumers, P000's second page
    assert fast.server_version is not None
