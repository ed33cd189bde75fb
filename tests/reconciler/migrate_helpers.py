"""Shared setup of the migration tests: a stream with stored messages and consumers mid-stream,
and snapshots of everything a migration must keep."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .helpers import Js, manifest

__all__ = ["ORDERS", "renamed", "stored", "seed", "snapshot", "positions"]

ORDERS = """
    apiVersion: jsops/v1
    kind: Stream
    metadata:
      name: {name}
      annotations: {annotations}
    spec: {{subjects: ["orders.>"], storage: {storage}}}
    ---
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {{name: shipper, stream: {name}}}
    spec: {{ack_policy: explicit, filter_subject: "orders.new"}}
    ---
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {{name: audit, stream: {name}}}
    spec: {{ack_policy: explicit}}
"""


def stored(directory: Path, name: str = "ORDERS", storage: str = "file", annotations: str = "{}") -> Path:
    return manifest(directory, "orders.yaml", ORDERS.format(name=name, storage=storage, annotations=annotations))


def renamed(directory: Path, new: str = "ORDERS_V2", old: str = "ORDERS", storage: str = "file") -> Path:
    return stored(directory, new, storage, '{"jsops.io/renamed-from": "' + old + '"}')


def seed(js: Js, count: int = 100) -> None:
    """``count`` messages (half on orders.new), a few deleted, both consumers mid-stream."""
    for i in range(count):
        js.publish("orders.new" if i % 2 == 0 else "orders.old")
    js.ok("$JS.API.STREAM.MSG.DELETE.ORDERS", {"seq": 7})
    js.fetch_ack("ORDERS", "shipper", 12)
    js.fetch_ack("ORDERS", "audit", 31)


def snapshot(js: Js, stream: str) -> dict[int, tuple[str, str, str]]:
    """Every stored message by sequence: (subject, headers, data)."""
    info = js.stream(stream)
    assert info is not None, stream
    st = info["state"]
    out = {}
    for seq in range(st["first_seq"], st["last_seq"] + 1):
        m = js.request(f"$JS.API.STREAM.MSG.GET.{stream}", {"seq": seq}).get("message")
        if m:
            out[seq] = (m["subject"], m.get("hdrs", ""), m.get("data", ""))
    return out


def positions(js: Js, stream: str) -> dict[str, tuple[int, int]]:
    """Each consumer's (ack floor stream sequence, num_pending)."""
    out = {}
    for name in ("shipper", "audit"):
        c = js.consumer(stream, name)
        assert c is not None, (stream, name)
        out[name] = (c["ack_floor"]["stream_seq"], c["num_pending"] + c["num_ack_pending"])
    return out


def state(js: Js, stream: str) -> dict[str, Any]:
    info = js.stream(stream)
    assert info is not None
    return info["state"]
