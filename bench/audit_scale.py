"""``jsops audit`` at scale against a real nats-server, beside a no-op plan and a naive INFO sweep.

For N streams x M consumers (default 1000 x 5, made by ``jsops apply``), interleaved ``--runs`` times
so that a machine busy with other work slows all sides alike: the whole ``jsops audit --format json``
in this process (read, static rules, live rules, render); the no-op ``jsops plan`` of the same
manifests (warm parse cache); a naive sequential sweep of one INFO request per object. Prints the
best times, the requests each sent, and the ratios to the sweep (target: at most 0.5 each).

Then, on a fresh server with ``--memory-objects`` objects (default 10,000: streams of 4 consumers),
the peak Python memory of one audit (tracemalloc: everything audit allocates, the read answers
included) and the process's peak RSS.

    .venv/bin/python bench/audit_scale.py [--streams 1000] [--consumers 5] [--runs 3] [--memory-objects 10000]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import statistics
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from reconcile_scale import counted, quiet, sweep, timed_plan, write_estate  # noqa: E402

from jsops.reconciler.audit.cli import main as audit_main  # noqa: E402
from jsops.reconciler.cli.commands import apply_main  # noqa: E402
from jsops.reconciler.client import JsClient, Target  # noqa: E402
from jsops.reconciler.live import read_live  # noqa: E402
from tests.natsserver import NatsServer  # noqa: E402


class Cpu:
    """CPU seconds spent meanwhile by this process (and its reaped children: plan parses part of
    the manifests in a fork) and by the nats-server process: unlike wall time, hardly changed by
    other work on a busy machine."""

    def __init__(self, server_pid: int) -> None:
        self.stat = f"/proc/{server_pid}/stat"

    def _server(self) -> float:
        try:
            with open(self.stat) as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            return 0.0
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    @staticmethod
    def _client() -> float:
        own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime

    def measure(self, fn: Callable[[], object]) -> tuple[float, float, float]:
        """(wall, client CPU, server CPU) seconds of ``fn()``."""
        c0, s0, t0 = self._client(), self._server(), time.perf_counter()
        fn()
        return time.perf_counter() - t0, self._client() - c0, self._server() - s0


def timed_audit(url: str) -> tuple[float, int]:
    """One whole audit in this process; returns (seconds, findings)."""
    t = time.perf_counter()
    rc, out, err = quiet(audit_main, ["--no-config", "--server", url, "--format", "json"])
    took = time.perf_counter() - t
    assert rc in (0, 1), err
    return took, len(json.loads(out)["findings"])


def audit_phases(url: str) -> tuple[float, float, float]:
    """One audit through the internal API, timed per phase."""
    from jsops.linter.config import Config
    from jsops.linter.engine import discover_rules
    from jsops.reconciler.audit.read import read_audit
    from jsops.reconciler.audit.registry import select_live
    from jsops.reconciler.audit.render import render_audit_text
    from jsops.reconciler.audit.run import audit_result
    from jsops.reconciler.audit.static import EstateBuilder

    rules, live_rules = discover_rules(), select_live({})
    t0 = time.perf_counter()
    builder = EstateBuilder()
    with JsClient(Target(servers=(url,))) as client:
        state = read_audit(client, builder.on_stream)
    estate = builder.finish()
    t1 = time.perf_counter()
    result = audit_result(state, Config(), rules, live_rules, estate=estate)
    t2 = time.perf_counter()
    render_audit_text(result, [(url, state)])
    return t1 - t0, t2 - t1, time.perf_counter() - t2


def populate(d: Path, url: str, streams: int, consumers: int) -> None:
    write_estate(d, streams, consumers)
    t = time.perf_counter()
    rc, out, err = quiet(apply_main, [str(d), "--server", url, "--yes"])
    assert rc == 0, (out[-2000:], err)
    print(f"  made by jsops apply in {time.perf_counter() - t:.1f} s")


def speed(streams: int, consumers: int, runs: int) -> None:
    n_obj = streams * (1 + consumers)
    with tempfile.TemporaryDirectory() as tmp, NatsServer(jetstream_config="max_file: 8GB") as server:
        os.environ["JSOPS_CACHE_DIR"] = str(Path(tmp) / "cache")
        d = Path(tmp) / "estate"
        d.mkdir()
        print(f"{streams} streams x {consumers} consumers = {n_obj} objects; nats-server {server.url}")
        populate(d, server.url, streams, consumers)
        timed_plan(d, server.url)  # warms the parse cache
        audits: list[float] = []
        plans: list[float] = []
        sweeps: list[float] = []
        cpu: dict[str, list[tuple[float, float]]] = {"audit": [], "plan": [], "sweep": []}
        meter = Cpu(server.process.pid) if server.process is not None else None
        client = JsClient(Target(servers=(server.url,)))
        found: list[int] = []
        try:
            live = read_live(client)
            names, keys = sorted(live.streams), sorted(live.consumers)
            runs_of: dict[str, Callable[[], object]] = {
                "audit": lambda: found.append(timed_audit(server.url)[1]),
                "plan": lambda: timed_plan(d, server.url),
                "sweep": lambda: sweep(client, names, keys),
            }
            walls = {"audit": audits, "plan": plans, "sweep": sweeps}
            for _ in range(runs):  # interleaved: a load that comes and goes weighs on all sides alike
                for what, fn in runs_of.items():
                    with (
                        counted() if what == "audit" else contextlib.nullcontext({}) as seen_now
                    ):  # the probe on audit only
                        wall, ccpu, scpu = meter.measure(fn) if meter else (0.0, 0.0, 0.0)
                    walls[what].append(wall)
                    cpu[what].append((ccpu, scpu))
                    if what == "audit":
                        seen = seen_now
        finally:
            client.close()
        findings = found[-1]
        naive = min(sweeps)
        phases = audit_phases(server.url)
        print(
            f"  load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (other work on the machine slows every side)"
        )
        print(
            f"  jsops audit (whole command): {min(audits):8.2f} s   (best of {runs}; median {statistics.median(audits):.2f} s; "
            f"{seen['requests']} API requests, up to {seen['max_in_flight']} issued at once, at most 64 of them sent: the client's bound; {findings} findings)"
        )
        print(
            f"    read + live estate:        {phases[0]:8.2f} s   (the estate is loaded while the consumer pages arrive)"
        )
        print(f"    rules:                     {phases[1]:8.2f} s   (static rules on every object, live rules)")
        print(f"    text output:               {phases[2]:8.2f} s")
        print(
            f"  no-op jsops plan (warm):     {min(plans):8.2f} s   (best of {runs}; median {statistics.median(plans):.2f} s)"
        )
        print(
            f"  naive sequential INFO sweep: {naive:8.2f} s   ({n_obj} API requests; best of {runs}; median {statistics.median(sweeps):.2f} s)"
        )
        print(
            f"  ratio audit / sweep:         {min(audits) / naive:8.2f}     (target <= 0.5; per run: {_ratios(audits, sweeps)})"
        )
        print(
            f"  ratio plan / sweep:          {min(plans) / naive:8.2f}     (target <= 0.5; per run: {_ratios(plans, sweeps)})"
        )
        if meter:
            total = {k: min(c + s for c, s in v) for k, v in cpu.items()}
            for k in ("audit", "plan", "sweep"):
                c, s = min(cpu[k], key=sum)
                print(f"  CPU {k:6s} (least of {runs}):   {c + s:8.2f} s   (jsops {c:.2f} s, nats-server {s:.2f} s)")
            print(
                f"  CPU ratio audit / sweep:     {total['audit'] / total['sweep']:8.2f}     (jsops + nats-server CPU seconds)"
            )
            print(f"  CPU ratio plan / sweep:      {total['plan'] / total['sweep']:8.2f}")


def _ratios(times: list[float], sweeps: list[float]) -> str:
    return ", ".join(f"{t / s:.2f}" for t, s in zip(times, sweeps, strict=True))


def memory(objects: int) -> None:
    consumers = 4
    streams = max(objects // (1 + consumers), 1)
    with tempfile.TemporaryDirectory() as tmp, NatsServer(jetstream_config="max_file: 8GB") as server:
        os.environ["JSOPS_CACHE_DIR"] = str(Path(tmp) / "cache")
        d = Path(tmp) / "estate"
        d.mkdir()
        print(
            f"\n{streams} streams x {consumers} consumers = {streams * (1 + consumers)} objects; nats-server {server.url}"
        )
        populate(d, server.url, streams, consumers)
        tracemalloc.start()
        took, findings = timed_audit(server.url)
        _now, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"  jsops audit: {took:.2f} s under tracemalloc, {findings} findings")
        print(
            f"  peak Python memory of the audit: {peak / 2**20:8.1f} MiB   ({peak / (streams * (1 + consumers)) / 1024:.1f} KiB per object)"
        )
        print(f"  peak RSS of this process:        {rss:8.1f} MiB   (the apply that made the objects included)")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--streams", type=int, default=1000, help="0: skip the speed measurement")
    ap.add_argument("--consumers", type=int, default=5)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--memory-objects", type=int, default=10_000, help="0: skip the memory measurement")
    args = ap.parse_args()
    if args.streams:
        speed(args.streams, args.consumers, args.runs)
    if args.memory_objects:
        memory(args.memory_objects)
    return 0


if __name__ == "__main__":
    sys.exit(main())
