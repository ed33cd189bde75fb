"""``jsops failover`` and ``jsops failback`` in turns on a real two-cluster supercluster (issue 39;
tests/supercluster.py, one server per cluster), under the publisher (unique ids, each retried until
acknowledged) and the worker (durable pull consumer W of whichever stream is active) of
test_failover_supercluster: S0 (EAST) fails over to its mirror S1 (WEST), then fails back (S0 is made
a mirror of S1 again, catches up, S1 fails over to it), two cycles here (bench/failover_drill.py runs
twenty). No acknowledged publish is lost and the worker skips none; the write pauses are printed.
Also: ``--plan`` shows the failback's steps and changes nothing, and a failback killed after it
deleted the old side carries on when run again."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import pytest
from natsserver import release_binary, release_or_skip
from supercluster import Supercluster

from jsops.reconciler.cli.failback import main as failback_main

from .test_failover_supercluster import TWO, Traffic, _consumer, _seed, contents, failover, make_pair

pytestmark = pytest.mark.integration

CYCLES = 2


def failback(url: str, *args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = failback_main(["--server", url, *args])
    return rc, out.getvalue(), err.getvalue()


def _pause(out: str) -> float:
    return float(out.rsplit("write pause ", 1)[1].split(" ms")[0])


@dataclass
class Drill:
    """Failovers and failbacks in turns; the write pauses (ms) and each step's wall time (s)."""

    failover_pauses: list[float] = field(default_factory=list)
    failback_pauses: list[float] = field(default_factory=list)
    failback_seconds: list[float] = field(default_factory=list)

    stopped: threading.Event = field(default_factory=threading.Event)  # ends the drill after the current cycle

    def run(self, url: str, traffic: Traffic, cycles: int, progress: Callable[[str], None] | None = None) -> None:
        start = time.monotonic()
        for i in range(cycles):
            if self.stopped.is_set():
                break
            time.sleep(0.5)
            traffic.slowest.append(0.0)
            rc, out, err = failover(url, "S0", "--to", "S1", "--yes")
            assert rc == 0, (out, err)
            self.failover_pauses.append(_pause(out))
            traffic.stream = "S1"
            time.sleep(0.5)
            traffic.slowest.append(0.0)
            t0 = time.monotonic()
            rc, out, err = failback(url, "S0", "--yes")
            assert rc == 0, (out, err)
            self.failback_seconds.append(time.monotonic() - t0)
            self.failback_pauses.append(_pause(out))
            traffic.stream = "S0"
            if progress is not None:
                progress(
                    f"cycle {i + 1}: failover pause {self.failover_pauses[-1]:.1f} ms, failback pause "
                    f"{self.failback_pauses[-1]:.1f} ms, failback {self.failback_seconds[-1]:.1f} s; "
                    f"{len(traffic.acked)} acknowledged, {time.monotonic() - start:.0f} s"
                )

    def summary(self) -> str:
        fo, fb = self.failover_pauses, self.failback_pauses
        return (
            f"write pause: failovers median {statistics.median(fo):.1f} ms max {max(fo):.1f} ms; "
            f"failbacks median {statistics.median(fb):.1f} ms max {max(fb):.1f} ms; "
            f"a failback took median {statistics.median(self.failback_seconds):.1f} s max {max(self.failback_seconds):.1f} s"
        )


def finish(url: str, traffic: Traffic) -> tuple[set[str], set[str], int]:
    """Stop the traffic; the acknowledged ids missing from S0, those the worker never processed, redeliveries."""
    traffic.deadline = time.monotonic() + 60
    traffic.stop.set()
    traffic.thread.join(90)
    held, _ = asyncio.run(contents(url, "S0"))
    return (
        traffic.acked - set(held),
        traffic.acked - set(traffic.processed),
        len(traffic.processed) - len(set(traffic.processed)),
    )


@pytest.mark.parametrize("release", ["2.12.8", "2.15.1"])
def test_failovers_and_failbacks_lose_nothing(release: str) -> None:
    binary = release_or_skip(release)
    with Supercluster(TWO, binary) as sc:
        url = sc.urls("EAST")[0]
        asyncio.run(make_pair(url))
        rc, out, err = failback(url, "S0", "--plan")  # no failover yet: nothing to fail back
        assert rc == 1 and "S0 has no failover record" in out + err, (out, err)
        traffic = Traffic(url, "S0")
        traffic.thread.start()
        drill = Drill()
        try:
            time.sleep(1.0)
            drill.run(url, traffic, CYCLES)
        finally:
            lost, skipped, redelivered = finish(url, traffic)
        assert traffic.error is None, traffic.error
        print(
            f"\n{release}: {CYCLES} failovers and {CYCLES} failbacks, {len(traffic.acked)} acked, lost {len(lost)}, "
            f"skipped {len(skipped)}, redelivered {redelivered}; {drill.summary()}"
        )
        assert len(traffic.acked) > 100
        assert not lost and not skipped
        _, s0 = asyncio.run(contents(url, "S0"))
        _, s1 = asyncio.run(contents(url, "S1"))
        assert s0["config"]["subjects"] == ["orders.>"] and s0["cluster"]["name"] == "EAST"
        assert "subjects" not in s1["config"] and s1["config"]["mirror"] == {"name": "S0"}  # the standby restored
        assert json.loads(s0["config"]["metadata"]["io.jsops.dr.active"])["active"] == "S0"
        assert json.loads(s1["config"]["metadata"]["io.jsops.dr.active"])["active"] == "S0"


def test_failback_plan_and_a_killed_failback() -> None:
    """``--plan`` after a failover lists the rebuild and the failover back's steps and changes
    nothing; a failback killed (exit 137, as kill -9) right after deleting the old side is carried on
    by the next run, from the config the active side records: every message and the consumer's
    position kept."""
    binary = release_binary("2.15.1")
    if binary is None:
        pytest.skip("nats-server 2.15.1 was not fetched")
    with Supercluster(TWO, binary) as sc:
        url = sc.urls("EAST")[0]
        asyncio.run(make_pair(url))
        asyncio.run(_seed(url, 50, 20))
        assert failover(url, "S0", "--yes")[0] == 0
        rc, out, _ = failback(url, "S0", "--plan")
        assert rc == 0, out
        assert "delete S0 and create it again as a mirror of S1" in out and "fence S1: subjects [orders.>]" in out, out
        assert "create consumer W on S0 at stream sequence 21" in out, out
        _, s0 = asyncio.run(contents(url, "S0"))
        assert s0["config"]["subjects"] == ["_jsops.fenced.S0"]  # --plan changed nothing
        code = "import sys; from jsops.reconciler.cli.failback import main; sys.exit(main(sys.argv[1:]))"
        killed = subprocess.run(
            [sys.executable, "-c", code, "--server", url, "S0", "--yes"],
            env={**os.environ, "JSOPS_FAULT": "failback-after-delete"},
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert killed.returncode == 137, (killed.stdout, killed.stderr)
        rc, out, err = failback(url, "S0", "--yes")
        assert rc == 0 and "deleted by an interrupted failback" in out, (out, err)
        held, s0 = asyncio.run(contents(url, "S0"))
        assert held == [f"m{i + 1}" for i in range(50)] and s0["config"]["subjects"] == ["orders.>"]
        assert s0["cluster"]["name"] == "EAST"
        w = asyncio.run(_consumer(url, "S0", "W"))
        assert w["ack_floor"]["stream_seq"] == 20 and w["num_pending"] == 30, w
        rc, out, err = failback(url, "S0", "--yes")  # done: S0 is active
        assert rc == 1 and "S0 is the active side already" in out + err, (out, err)
        _, s1 = asyncio.run(contents(url, "S1"))
        assert s1["config"]["mirror"] == {"name": "S0"} and s1["cluster"]["name"] == "WEST"


MANIFESTS = """
apiVersion: jsops/v1
kind: Stream
metadata: {name: S0}
spec: {subjects: ["orders.>"], storage: file, placement: {cluster: EAST}}
---
apiVersion: jsops/v1
kind: Stream
metadata: {name: S1}
spec: {mirror: {name: S0}, storage: file, placement: {cluster: WEST}}
---
apiVersion: jsops/v1
kind: Consumer
metadata: {name: W, stream: S0}
spec: {ack_policy: explicit, ack_wait: 5s}
"""


def test_plan_apply_and_audit_follow_a_failover(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    """After a failover the manifests still declare S0 active and S1 its mirror: plan holds S0's and
    S1's subjects and mirror at their live values (the reason shown), apply changes neither (so the
    controller, which plans the same way, never undoes a failover), audit reports no drift on them;
    after the failback the plan is empty again."""
    from jsops.reconciler.cli.discover import main as discover_main

    from ..reconciler.helpers import manifest, run

    binary = release_binary("2.15.1")
    if binary is None:
        pytest.skip("nats-server 2.15.1 was not fetched")
    d = tmp_path / "m"
    manifest(d, "orders.yaml", MANIFESTS)
    with Supercluster(TWO, binary) as sc:
        url = sc.urls("EAST")[0]
        monkeypatch.chdir(tmp_path)  # discover writes .jsops.yaml (every cluster: JS317 judges WEST) here
        assert discover_main(["-s", url, "--monitor", sc.monitor_url("EAST"), "--write"]) == 0
        rc, out, err = run("apply", str(d), "--server", url, "--yes")
        assert rc == 0, (out, err)
        asyncio.run(_seed(url, 30, 10))
        assert failover(url, "S0", "--yes")[0] == 0
        rc, out, err = run("plan", str(d), "--server", url)
        held = "failed over: S1 is the active side (io.jsops.dr.active); jsops failback returns it"
        assert held in out, (out, err)
        assert "subjects" in out and "mirror" in out
        rc, out, err = run("apply", str(d), "--server", url, "--yes")
        assert rc == 0, (out, err)
        _, s0 = asyncio.run(contents(url, "S0"))
        held_msgs, s1 = asyncio.run(contents(url, "S1"))
        assert s0["config"]["subjects"] == ["_jsops.fenced.S0"]  # the failover stands
        assert s1["config"]["subjects"] == ["orders.>"] and "mirror" not in s1["config"] and len(held_msgs) == 30
        rc, out, err = run("audit", str(d), "--server", url)
        assert "JS520" not in out, (out, err)
        assert failback(url, "S0", "--yes")[0] == 0
        rc, out, err = run("plan", str(d), "--server", url)
        assert rc == 0 and held not in out, (out, err)
