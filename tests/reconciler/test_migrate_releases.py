"""Migrations per nats-server release, and the cut-over window under a steady publish load."""

from __future__ import annotations

import asyncio
import json
import re
import threading
import time

import nats
import pytest
from natsserver import release_binary

from .helpers import Js, NatsServer, run
from .migrate_helpers import positions, renamed, seed, snapshot, stored

pytestmark = pytest.mark.integration


def _release(version: str) -> NatsServer:
    binary = release_binary(version)
    if binary is None:
        pytest.skip(f"nats-server {version} was not fetched")
    return NatsServer(binary=binary).start()


@pytest.mark.parametrize("version", ["2.12.8", "2.14.6", "2.15.1"])
def test_rename_on_releases_that_promote_mirrors(tmp_path, version: str) -> None:
    server = _release(version)
    js = Js(server.url)
    try:
        d = tmp_path / "m"
        stored(d)
        assert run("apply", str(d), "--server", server.url, "--yes")[0] == 0
        seed(js)
        before, pos = snapshot(js, "ORDERS"), positions(js, "ORDERS")
        renamed(d)
        rc, out, err = run("apply", str(d), "--server", server.url, "--yes", "--migrate")
        assert rc == 0, out + err
        assert js.streams() == ["ORDERS_V2"] and snapshot(js, "ORDERS_V2") == before
        after = positions(js, "ORDERS_V2")
        if version == "2.12.8":
            # 2.12 reports the ack floor of a consumer created at a start sequence as 0 until its
            # first ack; it starts right after the old floor, with the same messages pending
            for name, (floor, pending) in pos.items():
                c = js.consumer("ORDERS_V2", name)
                assert c["config"]["opt_start_seq"] == floor + 1 and after[name][1] == pending
            assert js.fetch_ack("ORDERS_V2", "audit", 1) == [pos["audit"][0] + 1]
        else:
            assert after == pos
        assert run("plan", str(d), "--server", server.url, "--migrate")[0] == 0
    finally:
        js.close()
        server.stop()


@pytest.mark.parametrize("version", ["2.10.26", "2.11.11"])
def test_releases_without_mirror_promotion_refuse_before_any_request(tmp_path, version: str) -> None:
    server = _release(version)
    js = Js(server.url)
    try:
        d = tmp_path / "m"
        stored(d)
        assert run("apply", str(d), "--server", server.url, "--yes")[0] == 0
        seed(js)
        before = snapshot(js, "ORDERS")
        renamed(d)
        rc, out, err = run("apply", str(d), "--server", server.url, "--yes", "--migrate")
        assert rc == 1 and f"nats-server {version} cannot promote a mirror" in out, out + err
        assert js.streams() == ["ORDERS"] and snapshot(js, "ORDERS") == before
    finally:
        js.close()
        server.stop()


class _Publisher(threading.Thread):
    """JetStream publishes every millisecond, each retried until acknowledged; records failures."""

    def __init__(self, url: str) -> None:
        super().__init__(daemon=True)
        self.url, self.stop = url, threading.Event()
        self.acked: list[tuple[str, int, float]] = []
        self.failures: list[tuple[float, str]] = []

    def run(self) -> None:
        asyncio.run(self._go())

    async def _go(self) -> None:
        nc = await nats.connect(self.url)
        i = 0
        while not self.stop.is_set():
            body = f"load{i}".encode()
            while True:
                try:
                    msg = await nc.request("orders.new", body, timeout=1)
                    ack = json.loads(msg.data)
                    if "error" not in ack:
                        self.acked.append((ack["stream"], ack["seq"], time.monotonic()))
                        break
                    self.failures.append((time.monotonic(), str(ack["error"].get("err_code"))))
                except Exception as exc:  # no responders during the window, as the plan says
                    self.failures.append((time.monotonic(), type(exc).__name__))
                await asyncio.sleep(0.0005)
            i += 1
            await asyncio.sleep(0.001)
        await nc.close()


def test_cut_over_window_under_steady_publishing(server, js: Js, tmp_path, capsys) -> None:
    d = tmp_path / "m"
    stored(d)
    assert run("apply", str(d), "--server", server.url, "--yes")[0] == 0
    seed(js)
    renamed(d)
    pub = _Publisher(server.url)
    pub.start()
    time.sleep(0.3)
    rc, out, err = run("apply", str(d), "--server", server.url, "--yes", "--migrate")
    time.sleep(0.3)
    pub.stop.set()
    pub.join(10)
    assert rc == 0, out + err
    window = float(re.search(r"cut-over window ([0-9.]+) ms", out).group(1))
    kinds = sorted({k for _, k in pub.failures})
    stamps = [t for _, _, t in pub.acked]
    gap = max(b - a for a, b in zip(stamps, stamps[1:])) * 1000
    with capsys.disabled():
        print(f"\ncut-over window (jsops): {window:.1f} ms; longest publisher gap: {gap:.1f} ms; "
              f"{len(pub.failures)} failed attempts ({', '.join(kinds)}), {len(pub.acked)} acked publishes")
    assert set(kinds) <= {"NoRespondersError"}, kinds
    # every acknowledged publish is stored in the new stream (none went to the old one unseen)
    new = snapshot(js, "ORDERS_V2")
    for stream, seq, _ in pub.acked:
        assert seq in new, (stream, seq)
    assert sum(1 for s in new.values() if s[2] != "bTA=") >= len(pub.acked)
