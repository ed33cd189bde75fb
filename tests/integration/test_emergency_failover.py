"""``jsops failover --emergency`` after ``kill -9`` of the active cluster (issue 39): three single-server
clusters (EAST, WEST, and ARB, whose server keeps the JetStream meta group's quorum when EAST is
gone), S0 in EAST, its mirror S1 in WEST, a publisher connected to WEST (unique ids, each retried
until acknowledged). EAST's server is killed mid-traffic; jsops states the most that can be lost (the
standby's last known lag), fences S0 through the meta group and promotes S1. The count stated is at
least the number of acknowledged publishes missing on S1, and those missing are the last ones S0
acknowledged: nothing else is lost. Without --allow-data-loss nothing is changed."""

from __future__ import annotations

import asyncio
import json
import re
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import nats
import nats.errors
import nats.js.errors
import pytest
from natsserver import release_binary
from supercluster import ClusterSpec, Supercluster

from jsops.reconciler.client import JsApiError, JsClient, Target
from jsops.reconciler.emergency import arecord_check

from .test_failover_supercluster import _api, contents, failover

pytestmark = pytest.mark.integration

THREE = (ClusterSpec("EAST"), ClusterSpec("WEST"), ClusterSpec("ARB"))


@dataclass
class Publisher:
    """``tasks`` publishers at once, unique ids, each retried until acknowledged: the acknowledgements
    in the order they came, (id, stream, sequence)."""

    url: str
    tasks: int = 1
    size: int = 0  # bytes of padding after the id
    acked: list[tuple[str, str, int, float]] = field(default_factory=list)  # id, stream, seq, wall time
    stop: threading.Event = field(default_factory=threading.Event)
    error: BaseException | None = None

    def start(self) -> threading.Thread:
        t = threading.Thread(target=self._main, daemon=True)
        t.start()
        return t

    def _main(self) -> None:
        try:
            asyncio.run(self._run())
        except BaseException as exc:  # reported by the test
            self.error = exc

    async def _run(self) -> None:
        nc = await nats.connect(self.url, connect_timeout=5)
        try:
            await asyncio.gather(*(self._one(nc.jetstream(), t) for t in range(self.tasks)))
        finally:
            await nc.close()

    async def _one(self, js: Any, task: int) -> None:
        n = 0
        while not self.stop.is_set():
            n += 1
            uid = f"t{task}-{n}"
            while not self.stop.is_set():
                try:
                    body = uid.encode() + b" " * self.size
                    ack = await js.publish("orders.new", body, timeout=1.0, headers={"Nats-Msg-Id": uid})
                    self.acked.append((uid, ack.stream, ack.seq, time.time()))
                    break
                except (
                    nats.errors.NoRespondersError,
                    nats.js.errors.NoStreamResponseError,
                    nats.errors.TimeoutError,
                    nats.js.errors.APIError,
                ):
                    await asyncio.sleep(0.01)
            await asyncio.sleep(0.002)


async def make_pair(url: str, backlog: int, size: int) -> None:
    """S0 in EAST holding ``backlog`` messages (ids b1...), then its mirror S1 in WEST, which starts
    copying them."""
    nc = await nats.connect(url, connect_timeout=5)
    try:
        await _api(
            nc,
            "STREAM.CREATE.S0",
            {"name": "S0", "subjects": ["orders.>"], "storage": "file", "placement": {"cluster": "EAST"}},
        )
        for i in range(backlog):
            await nc.publish("orders.old", f"b{i + 1}".encode() + b" " * size)
            if i % 1000 == 999:
                await nc.flush()
        await nc.flush()
        while backlog and (await _api(nc, "STREAM.INFO.S0", {}))["state"]["messages"] < backlog:
            await asyncio.sleep(0.1)
        await _api(
            nc,
            "STREAM.CREATE.S1",
            {"name": "S1", "mirror": {"name": "S0"}, "storage": "file", "placement": {"cluster": "WEST"}},
        )
    finally:
        await nc.close()


async def names(url: str, subject: str) -> list[str]:
    nc = await nats.connect(url, connect_timeout=5)
    try:
        resp = await _api(nc, "STREAM.NAMES", {"subject": subject})
        return list(resp.get("streams") or [])
    finally:
        await nc.close()


class Checker:
    """``jsops failover S0 --check`` every ``every`` seconds (the library call, in a thread) until S0 stops answering."""

    def __init__(self, url: str, every: float = 0.5) -> None:
        self.url, self.every, self.done = url, every, 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._main, daemon=True)
        self.thread.start()

    def _main(self) -> None:
        with JsClient(Target(servers=(self.url,))) as client:
            while not self.stop.is_set():
                try:
                    client.run(arecord_check(client, "S0", "S1"))
                    self.done += 1
                except JsApiError:
                    return  # S0 is gone
                self.stop.wait(self.every)


def emergency_run(
    binary: str | None, tasks: int, size: int = 0, backlog: int = 0, traffic_seconds: float = 1.5
) -> dict[str, Any]:
    """One kill -9 of the active cluster under ``tasks`` publishers and an emergency failover: what jsops
    stated, which acknowledged publishes are missing on the promoted stream. ``backlog``: S0 holds that
    many messages before S1 is created (S1 is still copying them when EAST is killed)."""
    with Supercluster(THREE, binary) as sc:
        url = sc.urls("WEST")[0]
        asyncio.run(make_pair(url, backlog, size))
        pub = Publisher(url, tasks, size)
        thread = pub.start()
        checker = Checker(url)
        try:
            time.sleep(traffic_seconds)
            east = next(n for n in sc.nodes if n.cluster == "EAST")
            east.server.kill()  # kill -9, by PID
            checker.stop.set()
            checker.thread.join(30)
            args = ("S0", "--emergency")  # the subjects from the last check
            rc, out, err = failover(url, *args, "--yes")  # no --allow-data-loss: refused, nothing changed
            assert rc == 1 and "needs --allow-data-loss" in out, (out, err)
            rc, out, err = failover(url, *args, "--allow-data-loss", "--yes")
            assert rc == 0, (out, err)
            stated = int(re.search(r"at most (\d+) acknowledged publishes can be lost", out).group(1))  # type: ignore[union-attr]
            n = len(pub.acked)
            deadline = time.monotonic() + 60
            while len(pub.acked) < n + 50 and time.monotonic() < deadline:  # S1 takes the publishes now
                time.sleep(0.1)
        finally:
            pub.stop.set()
            checker.stop.set()
            thread.join(30)
        assert pub.error is None, pub.error
        held, s1 = asyncio.run(contents(url, "S1"))
        fenced = asyncio.run(names(url, "orders.new"))
    kept = {h.strip() for h in held}
    em = json.loads(s1["config"]["metadata"]["io.jsops.dr.active"])["emergency"]
    # every message S0 acknowledged: the backlog (stored before the traffic) and the publisher's
    stored = [(f"b{i + 1}", "S0", i + 1, 0.0) for i in range(backlog)] + pub.acked
    missing = [(u, t) for u, _, _, t in stored if u not in kept]
    checked = em["checked"] or 0.0
    return {
        "stated": stated,
        "missing": [u for u, _ in missing],
        # the stated count covers what was acknowledged before the last check began
        "missing_covered": [u for u, t in missing if t < checked],
        # nothing else lost: S0's acknowledgements up to the sequence S1 was promoted at are all on S1
        "tail_only": all(u in kept for u, stream, seq, _ in stored if stream == "S0" and seq <= em["last_seq"]),
        "checks": checker.done,
        "acked": len(pub.acked),
        "after": len(pub.acked) - n,
        "s1": s1,
        "names": fenced,
        "out": out,
    }


@pytest.mark.parametrize(
    ("case", "tasks", "backlog"),
    [("steady", 1, 0), ("catching-up", 4, 50_000)],
)
def test_emergency_failover_states_at_least_what_is_lost(case: str, tasks: int, backlog: int) -> None:
    """steady: one publisher, the mirror current; catching-up: S1 was created 1.5 s before the kill,
    after S0 took 50,000 messages, and is still copying them under four publishers."""
    binary = release_binary("2.15.1")
    if binary is None:
        pytest.skip("nats-server 2.15.1 was not fetched")
    r = emergency_run(binary, tasks, backlog=backlog)
    print(
        f"\n{case}: {r['acked']} acked ({r['after']} by S1 after the promotion), {r['checks']} checks; stated "
        f"{r['stated']}, missing {len(r['missing'])} ({len(r['missing_covered'])} acknowledged before the last check)"
    )
    assert r["checks"] > 0
    assert r["stated"] >= len(r["missing_covered"]), r["out"]
    assert r["tail_only"]
    assert r["after"] >= 50  # S1 took the publishes after the promotion
    assert r["s1"]["config"]["subjects"] == ["orders.>"] and "mirror" not in r["s1"]["config"]
    rec = json.loads(r["s1"]["config"]["metadata"]["io.jsops.dr.active"])
    assert rec["active"] == "S1" and rec["emergency"]["stated_loss"] == r["stated"]
    assert r["names"] == ["S1"]  # S0 is fenced in the meta group: its subjects are S1's alone
