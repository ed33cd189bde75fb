"""``jsops failover`` on a real two-cluster supercluster (issue 39; tests/supercluster.py, one server
per cluster): a publisher publishes unique ids and retries each until it is acknowledged, a worker
pulls from the durable consumer of whichever stream is active and acknowledges; three planned
failovers in a row (EAST -> WEST -> EAST -> WEST, each time to a fresh mirror of the active stream,
as a failback would make) lose no acknowledged publish and no consumer position: every id acknowledged
is in the final stream and was processed by the worker (redelivered at most, never skipped). The write
pause (fence to promotion) is printed. On 2.10 and 2.11, which cannot promote a mirror in place
(10055), the failover is refused before any change."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import io
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from typing import Any

import nats
import nats.errors
import nats.js.errors
import pytest
from natsserver import release_binary, release_or_skip
from supercluster import ClusterSpec, ServerSpec, Supercluster

from jsops.reconciler.cli.failover import main as failover_main

pytestmark = pytest.mark.integration

TWO = (ClusterSpec("EAST", (ServerSpec(),)), ClusterSpec("WEST", (ServerSpec(),)))
SIDES = ("EAST", "WEST")
FAILOVERS = 3


async def _api(nc: Any, subject: str, body: dict[str, Any]) -> dict[str, Any]:
    msg = await nc.request(f"$JS.API.{subject}", json.dumps(body).encode(), timeout=20)
    resp: dict[str, Any] = json.loads(msg.data)
    assert "error" not in resp, (subject, resp)
    return resp


def failover(url: str, *args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = failover_main(["--server", url, *args])
    return rc, out.getvalue(), err.getvalue()


class Traffic:
    """A publisher (unique ids, each retried until acknowledged) and a worker (durable pull consumer W
    of the active stream), in a thread with its own event loop. Once stopped, the worker goes on until
    it has processed every id acknowledged (or ``deadline``), counted only after the publisher has
    finished: a publish still in flight when ``stop`` is set is acknowledged after it, and a worker
    that had processed all the others by then would otherwise leave before it is delivered (that id
    counted as skipped though the consumer still has it to deliver)."""

    def __init__(self, url: str, stream: str) -> None:
        self.url, self.stream = url, stream
        self.acked: set[str] = set()
        self.processed: list[str] = []
        self.slowest: list[float] = [0.0]  # per failover: the longest a publish waited for its ack
        self.stop = threading.Event()
        self.published = False  # the publisher has stopped: no publish in flight, ``acked`` is complete
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._main, daemon=True)

    def _main(self) -> None:
        try:
            asyncio.run(self._run())
        except BaseException as exc:  # reported by the test
            import traceback

            traceback.print_exc()
            self.error = exc

    async def _run(self) -> None:
        nc = await nats.connect(self.url, connect_timeout=5)
        try:
            await asyncio.gather(self._publish(nc), self._work(nc))
        finally:
            await nc.close()

    async def _publish(self, nc: Any) -> None:
        try:
            await self._publish_until_stopped(nc)
        finally:
            self.published = True

    async def _publish_until_stopped(self, nc: Any) -> None:
        js = nc.jetstream()
        n = 0
        while not self.stop.is_set():
            n += 1
            uid = f"m{n}"
            t0 = time.monotonic()
            while True:
                try:
                    await js.publish("orders.new", uid.encode(), timeout=1.0, headers={"Nats-Msg-Id": uid})
                    break
                except (
                    nats.errors.NoRespondersError,
                    nats.js.errors.NoStreamResponseError,
                    nats.errors.TimeoutError,
                    nats.js.errors.APIError,
                ):
                    await asyncio.sleep(0.002)
            self.slowest[-1] = max(self.slowest[-1], time.monotonic() - t0)
            self.acked.add(uid)
            await asyncio.sleep(0.003)

    async def _work(self, nc: Any) -> None:
        js = nc.jetstream()
        sub, bound = None, ""
        while not (
            self.stop.is_set()
            and ((self.published and self.acked <= set(self.processed)) or time.monotonic() > self.deadline)
        ):
            try:
                if bound != self.stream:
                    if sub is not None:
                        await sub.unsubscribe()
                    sub, bound = await js.pull_subscribe_bind("W", stream=self.stream), self.stream
                msgs = await sub.fetch(20, timeout=0.3)
            except (TimeoutError, nats.errors.TimeoutError, nats.js.errors.NotFoundError, nats.js.errors.APIError):
                await asyncio.sleep(0.01)
                continue
            for m in msgs:
                self.processed.append(m.data.decode())
                await m.ack()

    deadline = float("inf")


async def make_pair(url: str) -> None:
    nc = await nats.connect(url, connect_timeout=5)
    try:
        await _api(
            nc,
            "STREAM.CREATE.S0",
            {"name": "S0", "subjects": ["orders.>"], "storage": "file", "placement": {"cluster": "EAST"}},
        )
        await _api(
            nc,
            "STREAM.CREATE.S1",
            {"name": "S1", "mirror": {"name": "S0"}, "storage": "file", "placement": {"cluster": "WEST"}},
        )
        await _api(
            nc,
            "CONSUMER.CREATE.S0.W",
            {"stream_name": "S0", "config": {"durable_name": "W", "ack_policy": "explicit", "ack_wait": 5_000_000_000}},
        )
    finally:
        await nc.close()


async def standby(url: str, name: str, of: str, cluster: str) -> None:
    nc = await nats.connect(url, connect_timeout=5)
    try:
        await _api(
            nc,
            f"STREAM.CREATE.{name}",
            {"name": name, "mirror": {"name": of}, "storage": "file", "placement": {"cluster": cluster}},
        )
    finally:
        await nc.close()


async def contents(url: str, stream: str) -> tuple[list[str], dict[str, Any]]:
    nc = await nats.connect(url, connect_timeout=5)
    try:
        info = await _api(nc, f"STREAM.INFO.{stream}", {})
        out = []
        for seq in range(1, int(info["state"]["last_seq"]) + 1):
            m = await _api(nc, f"STREAM.MSG.GET.{stream}", {"seq": seq})
            out.append(base64.b64decode(m["message"]["data"]).decode())
        return out, info
    finally:
        await nc.close()


@pytest.mark.parametrize("release", ["2.12.8", "2.14.6", "2.15.1"])
def test_planned_failovers_lose_nothing(release: str) -> None:
    binary = release_or_skip(release)
    with Supercluster(TWO, binary) as sc:
        url = sc.urls("EAST")[0]
        asyncio.run(make_pair(url))
        # --plan: every step, nothing changed
        rc, out, _ = failover(url, "S0", "--plan")
        assert rc == 0 and "fence S0: subjects [orders.>] -> [_jsops.fenced.S0]" in out and "promote S1" in out, out
        traffic = Traffic(url, "S0")
        traffic.thread.start()
        pauses = []
        try:
            time.sleep(1.0)
            for i in range(FAILOVERS):
                active, new = f"S{i}", f"S{i + 1}"
                if i:  # a fresh mirror of the active stream on the other side (what a failback makes)
                    asyncio.run(standby(url, new, active, SIDES[(i + 1) % 2]))
                time.sleep(0.5)
                traffic.slowest.append(0.0)
                rc, out, err = failover(url, active, "--to", new, "--yes")
                assert rc == 0, (out, err)
                pauses.append(float(out.rsplit("write pause ", 1)[1].split(" ms")[0]))
                traffic.stream = new
                time.sleep(1.0)
        finally:
            traffic.deadline = time.monotonic() + 60
            traffic.stop.set()
            traffic.thread.join(90)
        assert traffic.error is None, traffic.error
        final = f"S{FAILOVERS}"
        held, info = asyncio.run(contents(url, final))
        lost = traffic.acked - set(held)
        skipped = traffic.acked - set(traffic.processed)
        redelivered = len(traffic.processed) - len(set(traffic.processed))
        print(
            f"\n{release}: {len(traffic.acked)} acked, {len(held)} held, lost {len(lost)}, skipped {len(skipped)}, "
            f"redelivered {redelivered}; write pause median {statistics.median(pauses):.1f} ms max {max(pauses):.1f} ms; "
            f"publisher's longest wait per failover {[round(s * 1000) for s in traffic.slowest[1:]]} ms"
        )
        assert len(traffic.acked) > 100
        assert not lost and not skipped
        meta = info["config"]["metadata"]
        assert json.loads(meta["io.jsops.dr.active"])["active"] == final and "mirror" not in info["config"]
        _, old = asyncio.run(contents(url, f"S{FAILOVERS - 1}"))
        assert old["config"]["subjects"] == [f"_jsops.fenced.S{FAILOVERS - 1}"]
        assert json.loads(old["config"]["metadata"]["io.jsops.dr.active"])["active"] == final


@pytest.mark.parametrize("release", ["2.10.26", "2.11.11"])
def test_failover_refused_where_a_mirror_cannot_be_promoted(release: str) -> None:
    binary = release_or_skip(release)
    with Supercluster(TWO, binary) as sc:
        url = sc.urls("EAST")[0]
        asyncio.run(make_pair(url))
        rc, out, _ = failover(url, "S0", "--yes")
        assert rc == 1 and f"refused: nats-server {release} cannot promote a mirror in place" in out, out
        _, info = asyncio.run(contents(url, "S0"))
        assert info["config"]["subjects"] == ["orders.>"]  # nothing changed


async def _seed(url: str, messages: int, acked: int) -> None:
    """``messages`` on S0, the first ``acked`` of them acknowledged by W."""
    nc = await nats.connect(url, connect_timeout=5)
    try:
        js = nc.jetstream()
        for i in range(messages):
            await js.publish("orders.new", f"m{i + 1}".encode())
        sub = await js.pull_subscribe_bind("W", stream="S0")
        for m in await sub.fetch(acked, timeout=10):
            await m.ack_sync()
    finally:
        await nc.close()


@pytest.mark.parametrize("point", ["failover-after-fence", "failover-after-promote"])
def test_a_killed_failover_carries_on_when_run_again(point: str) -> None:
    """jsops killed (exit 137, as kill -9) after the fence, or after the promotion: the active stream
    records where the failover was; the next run finishes it, every message and the consumer's
    position kept."""
    binary = release_binary("2.15.1")
    if binary is None:
        pytest.skip("nats-server 2.15.1 was not fetched")
    with Supercluster(TWO, binary) as sc:
        url = sc.urls("EAST")[0]
        asyncio.run(make_pair(url))
        asyncio.run(_seed(url, 50, 20))
        code = "import sys; from jsops.reconciler.cli.failover import main; sys.exit(main(sys.argv[1:]))"
        env = {**os.environ, "JSOPS_FAULT": point}
        killed = subprocess.run(
            [sys.executable, "-c", code, "--server", url, "S0", "--yes"],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert killed.returncode == 137, (killed.stdout, killed.stderr)
        _, s0 = asyncio.run(contents(url, "S0"))
        assert s0["config"]["subjects"] == ["_jsops.fenced.S0"]  # fenced: no publish is acknowledged anywhere meanwhile
        rc, out, err = failover(url, "S0", "--yes")
        assert rc == 0, (out, err)
        assert ("is promoted already" in out) == (point == "failover-after-promote"), out
        assert "fenced already" in out or "promoted already" in out, out
        held, s1 = asyncio.run(contents(url, "S1"))
        assert held == [f"m{i + 1}" for i in range(50)] and s1["config"]["subjects"] == ["orders.>"]
        w = asyncio.run(_consumer(url, "S1", "W"))
        assert w["ack_floor"]["stream_seq"] == 20 and w["num_pending"] == 30, w
        assert json.loads(s1["config"]["metadata"]["io.jsops.dr.active"])["active"] == "S1"
        rc, out, _ = failover(url, "S0", "--to", "S1", "--yes")  # done: the old side is no active side
        assert rc == 1 and "refused: S0 is fenced" in out, out


async def _consumer(url: str, stream: str, name: str) -> dict[str, Any]:
    nc = await nats.connect(url, connect_timeout=5)
    try:
        return await _api(nc, f"CONSUMER.INFO.{stream}.{name}", {})
    finally:
        await nc.close()
