"""Shared setup of the migration tests: a stream with stored messages and consumers mid-stream,
and snapshots of everything a migration must keep."""

from __future__ import annotations

import asyncio
import json
import re
import threading
import time
from pathlib import Path
from typing import Any, NamedTuple

import nats

from .helpers import Js, manifest, run

__all__ = [
    "ORDERS",
    "renamed",
    "stored",
    "seed",
    "snapshot",
    "positions",
    "state",
    "settled",
    "truth",
    "wanted",
    "Cutover",
    "cut_over_under_load",
]

ORDERS = """
    apiVersion: jsops/v1
    kind: Stream
    metadata:
      name: {name}
      annotations: {annotations}
    spec: {{subjects: ["orders.>"], storage: {storage}{extra}}}
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


def stored(
    directory: Path, name: str = "ORDERS", storage: str = "file", annotations: str = "{}", extra: str = ""
) -> Path:
    """The ORDERS manifests; ``extra`` is added to the stream's spec (``", num_replicas: 3"``)."""
    return manifest(
        directory, "orders.yaml", ORDERS.format(name=name, storage=storage, annotations=annotations, extra=extra)
    )


def renamed(
    directory: Path, new: str = "ORDERS_V2", old: str = "ORDERS", storage: str = "file", extra: str = ""
) -> Path:
    return stored(directory, new, storage, '{"jsops.io/renamed-from": "' + old + '"}', extra)


def seed(js: Js, count: int = 100) -> None:
    """``count`` messages (half on orders.new), a few deleted, both consumers mid-stream."""
    for i in range(count):
        js.publish("orders.new" if i % 2 == 0 else "orders.old")
    js.ok("$JS.API.STREAM.MSG.DELETE.ORDERS", {"seq": 7})
    js.fetch_ack("ORDERS", "shipper", 12)
    js.fetch_ack("ORDERS", "audit", 31)
    settled(js, "ORDERS")


def settled(js: Js, stream: str, timeout: float = 60.0) -> None:
    """Wait until the consumers have taken every ack sent (on a cluster an R3 consumer reports an
    ack as pending until its replicas have it)."""
    deadline = time.monotonic() + timeout
    while True:
        infos = [js.consumer(stream, name) for name in ("shipper", "audit")]
        if all(c is not None and c["num_ack_pending"] == 0 for c in infos):
            return
        assert time.monotonic() < deadline, f"the consumers of {stream} still have acks pending: {infos}"
        time.sleep(0.02)


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
    for name in FILTERS:
        c = js.consumer(stream, name)
        assert c is not None, (stream, name)
        out[name] = (c["ack_floor"]["stream_seq"], c["num_pending"] + c["num_ack_pending"])
    return out


FILTERS = {"shipper": "orders.new", "audit": None}  # the consumers' filter subjects (ORDERS above)


def truth(js: Js, stream: str, messages: dict[int, tuple[str, str, str]]) -> dict[str, tuple[int, int]]:
    """Each consumer's (ack floor, messages pending) as :func:`positions` should report them,
    counted from the stored ``messages`` above the ack floor the consumer reports. An R3 consumer on
    a cluster sometimes reports one more pending than there are (nats-server 2.15.1: a message
    deleted while it was pending is still counted until the consumer's leader changes), so the
    cluster tests compare with this count rather than with the old consumer's report."""
    out = {}
    for name, only in FILTERS.items():
        c = js.consumer(stream, name)
        assert c is not None, (stream, name)
        floor = c["ack_floor"]["stream_seq"]
        pending = sum(1 for seq, m in messages.items() if seq > floor and (only is None or m[0] == only))
        out[name] = (floor, pending)
    return out


def wanted(
    messages: dict[int, tuple[str, str, str]], pos: dict[str, tuple[int, int]]
) -> dict[int, tuple[str, str, str]]:
    """The ``messages`` of an interest stream that a consumer still wants: above its ack floor (``pos``,
    as :func:`truth` gives it) and on its filter. An R3 interest stream can hold messages no consumer
    wants: one below every consumer's start, or one every consumer has acknowledged that a replica
    kept (on a loaded host the stream leader kept message 1 after both consumers had acknowledged
    it); nats-server removes them at its next interest check of the stream, and so does the copy
    of a migration once its consumers' ack floors are set. The migration tests compare what a
    consumer still wants."""
    return {
        seq: m
        for seq, m in messages.items()
        if any(seq > floor and (FILTERS[n] is None or m[0] == FILTERS[n]) for n, (floor, _) in pos.items())
    }


def state(js: Js, stream: str) -> dict[str, Any]:
    info = js.stream(stream)
    assert info is not None
    st: dict[str, Any] = info["state"]
    return st


class _Publisher(threading.Thread):
    """JetStream publishes every millisecond, each retried until acknowledged; records failures
    (when the failed attempt was sent, and what it got)."""

    def __init__(self, url: str) -> None:
        super().__init__(daemon=True)
        self.url, self.stop = url, threading.Event()
        self.acked: list[tuple[str, int, float]] = []
        self.failures: list[tuple[float, str]] = []

    def run(self) -> None:
        asyncio.run(self._go())

    async def _go(self) -> None:
        nc = await nats.connect(self.url.split(","))
        i = 0
        while not self.stop.is_set():
            body = f"load{i}".encode()
            while True:
                sent = time.monotonic()
                try:
                    msg = await nc.request("orders.new", body, timeout=1)
                    ack = json.loads(msg.data)
                    if "error" not in ack:
                        self.acked.append((ack["stream"], ack["seq"], time.monotonic()))
                        break
                    self.failures.append((sent, str(ack["error"].get("err_code"))))
                except Exception as exc:  # no responders during the window, as the plan says
                    self.failures.append((sent, type(exc).__name__))
                await asyncio.sleep(0.0005)
            i += 1
            await asyncio.sleep(0.001)
        await nc.close()


class Cutover(NamedTuple):
    """One migration under load: the window jsops measured, the longest gap between acknowledged
    publishes, the failed publish attempts by kind, the acknowledged publishes."""

    window_ms: float
    gap_ms: float
    failures: dict[str, int]
    acked: int


def cut_over_under_load(
    url: str,
    js: Js,
    d: Path,
    label: str,
    failures: frozenset[str] = frozenset({"NoRespondersError"}),
    *,
    quiet: bool = False,
) -> Cutover:
    """``jsops apply --migrate`` of the rename in ``d`` (ORDERS -> ORDERS_V2) while a publisher
    sends to orders.new every millisecond; prints (unless ``quiet``) the cut-over window jsops
    measured and the longest gap between acknowledged publishes. Asserted: publishers get nothing
    but ``failures`` meanwhile (publishes failed only while jsops ran), and every acknowledged
    publish is in the new stream."""
    pub = _Publisher(url)
    pub.start()
    deadline = time.monotonic() + 10
    while len(pub.acked) < 100 and time.monotonic() < deadline:  # publishing steadily before the migration
        time.sleep(0.01)
    began = time.monotonic()
    rc, out, err = run("apply", str(d), "--server", url, "--yes", "--migrate")
    ended = time.monotonic()
    settled, deadline = len(pub.acked) + 100, time.monotonic() + 20
    while len(pub.acked) < settled and time.monotonic() < deadline:  # and after it
        time.sleep(0.01)
    pub.stop.set()
    pub.join(10)
    assert rc == 0, out + err
    found = re.search(r"cut-over window ([0-9.]+) ms", out)
    assert found is not None, out
    kinds: dict[str, int] = {}
    for _, kind in pub.failures:
        kinds[kind] = kinds.get(kind, 0) + 1
    stamps = [t for _, _, t in pub.acked]
    result = Cutover(
        float(found.group(1)), max(b - a for a, b in zip(stamps, stamps[1:])) * 1000, kinds, len(pub.acked)
    )
    if not quiet:
        print(
            f"\ncut-over window ({label}, jsops): {result.window_ms:.1f} ms; longest publisher gap: {result.gap_ms:.1f} ms; "
            f"{len(pub.failures)} failed attempts ({', '.join(sorted(kinds))}), {result.acked} acked publishes"
        )
    assert set(kinds) <= failures, kinds
    assert all(began <= t <= ended for t, _ in pub.failures), (began, ended, pub.failures)
    # every acknowledged publish is stored in the new stream (none went to the old one unseen)
    new = snapshot(js, "ORDERS_V2")
    for stream, seq, _ in pub.acked:
        assert seq in new, (stream, seq)
    assert sum(1 for s in new.values() if s[2] != "bTA=") >= len(pub.acked)
    return result
