"""Reconciler at scale against a real nats-server: N streams x M consumers, for one or more sizes.

For each size (a fresh server each): the cold apply (time, JetStream API requests, requests in
flight at most); the no-op plan end to end (load, live-state read, diff, lint gate), best of
``--runs``, without the parse cache (``--no-cache``), with a cold one (emptied before the plan) and
a warm one (the plan right after),
each beside a naive sequential sweep of one INFO request per object measured in the same run (each
pair of plans followed by a sweep, so that a machine busy with other work slows all alike), and their
ratios (target: at most 0.5); the live-state read alone. With several sizes it ends with how the
no-op plan grows against the objects (linear: the ratio of times equals the ratio of sizes).
The parse cache lives in a temporary ``JSOPS_CACHE_DIR`` for the run. Since plan and apply stopped
using the parse cache (issue 22: a cache someone else can write must not decide what is applied),
the three plan figures measure the same work: they stay as a check that nothing reads it.

    .venv/bin/python bench/reconcile_scale.py [--sizes 1000 3000] [--consumers 5] [--runs 3]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # tests/natsserver.py imports its neighbours as top-level modules

from jsops.reconciler.cli.commands import apply_main, plan_main  # noqa: E402
from jsops.reconciler.client import JsClient, Target  # noqa: E402
from jsops.reconciler.live import read_live  # noqa: E402
from tests.natsserver import NatsServer  # noqa: E402


def write_estate(d: Path, streams: int, consumers: int) -> None:
    for i in range(streams):
        docs = [
            f"apiVersion: jsops/v1\nkind: Stream\nmetadata: {{name: S{i:04d}}}\n"
            f'spec: {{subjects: ["s{i}.>"], max_age: 24h, duplicate_window: 2m, max_msgs: 100000}}\n'
        ]
        for j in range(consumers):
            docs.append(
                f"apiVersion: jsops/v1\nkind: Consumer\nmetadata: {{name: c{j}, stream: S{i:04d}}}\n"
                f'spec: {{ack_wait: 30s, max_deliver: 5, filter_subject: "s{i}.{j}"}}\n'
            )
        (d / f"s{i:04d}.yaml").write_text("---\n".join(docs))


def quiet(fn: Callable[[list[str]], int], argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = fn(argv)
    return rc, out.getvalue(), err.getvalue()


@contextlib.contextmanager
def counted() -> Iterator[dict[str, int]]:
    """Every JetStream API request jsops sends meanwhile, and the most in flight at once."""
    seen = {"requests": 0, "in_flight": 0, "max_in_flight": 0}
    real = JsClient.arequest

    async def arequest(self: JsClient, subject: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        seen["requests"] += 1
        seen["in_flight"] += 1
        seen["max_in_flight"] = max(seen["max_in_flight"], seen["in_flight"])
        try:
            return await real(self, subject, body)
        finally:
            seen["in_flight"] -= 1

    JsClient.arequest = arequest  # type: ignore[method-assign]  # a benchmark's probe, undone below
    try:
        yield seen
    finally:
        JsClient.arequest = real  # type: ignore[method-assign]  # restored


def sweep(client: JsClient, names: list[str], keys: list[tuple[str, str]]) -> float:
    """One INFO request per object, one at a time (what a naive reconciler does)."""
    t = time.perf_counter()
    for n in names:
        client.request(f"STREAM.INFO.{n}")
    for s, c in keys:
        client.request(f"CONSUMER.INFO.{s}.{c}")
    return time.perf_counter() - t


def timed_plan(d: Path, url: str, *extra: str) -> float:
    t = time.perf_counter()
    rc, out, err = quiet(plan_main, [str(d), "--server", url, *extra])
    took = time.perf_counter() - t
    assert rc == 0 and out.startswith("No changes."), (out[-2000:], err)
    return took


def one_size(streams: int, consumers: int, runs: int) -> tuple[float, float]:
    """Measure one size; returns the best no-op plan times (cold parse cache, warm)."""
    n_obj = streams * (1 + consumers)
    with tempfile.TemporaryDirectory() as tmp, NatsServer(jetstream_config="max_file: 8GB") as server:
        d = Path(tmp) / "estate"
        d.mkdir()
        os.environ["JSOPS_CACHE_DIR"] = str(Path(tmp) / "cache")
        os.environ.pop("JSOPS_NO_CACHE", None)
        write_estate(d, streams, consumers)
        print(f"\n{streams} streams x {consumers} consumers = {n_obj} objects; nats-server {server.url}")
        with counted() as seen:
            t = time.perf_counter()
            rc, out, err = quiet(apply_main, [str(d), "--server", server.url, "--yes"])
            cold = time.perf_counter() - t
        assert rc == 0, (out[-2000:], err)
        print(
            f"  cold apply:                  {cold:8.2f} s   ({n_obj / cold:,.0f} objects/s; {seen['requests']} API requests, "
            f"up to {seen['max_in_flight']} in flight)"
        )
        client = JsClient(Target(servers=(server.url,)))
        uncached: list[float] = []
        colds: list[float] = []
        plans: list[float] = []
        sweeps: list[float] = []
        reads: list[float] = []
        try:
            for _ in range(runs):  # interleaved: a load that comes and goes weighs on all sides alike
                uncached.append(timed_plan(d, server.url, "--no-cache"))
                shutil.rmtree(Path(tmp) / "cache" / "parse", ignore_errors=True)
                colds.append(timed_plan(d, server.url))
                plans.append(timed_plan(d, server.url))
                t = time.perf_counter()
                live = read_live(client)
                reads.append(time.perf_counter() - t)
                assert len(live.streams) == streams and len(live.consumers) == n_obj - streams
                sweeps.append(sweep(client, sorted(live.streams), sorted(live.consumers)))
        finally:
            client.close()
        best, cold, naive = min(plans), min(colds), min(sweeps)
        print(
            f"  no-op plan, --no-cache:      {min(uncached):8.2f} s   (best of {runs}; median {statistics.median(uncached):.2f} s)"
        )
        print(
            f"  no-op plan, cold cache:      {cold:8.2f} s   (best of {runs}; median {statistics.median(colds):.2f} s)"
        )
        print(
            f"  no-op plan, warm cache:      {best:8.2f} s   (best of {runs}; median {statistics.median(plans):.2f} s)"
        )
        print(
            f"    live-state read alone:     {min(reads):8.2f} s   ({live.requests} API requests: STREAM.LIST and CONSUMER.LIST pages)"
        )
        print(
            f"  naive sequential INFO sweep: {naive:8.2f} s   ({n_obj} API requests, one per object; best of {runs}, median {statistics.median(sweeps):.2f} s)"
        )
        print(f"  ratio --no-cache / sweep:    {min(uncached) / naive:8.2f}")
        print(f"  ratio cold plan / sweep:     {cold / naive:8.2f}     (target <= 0.5)")
        print(f"  ratio warm plan / sweep:     {best / naive:8.2f}     (target <= 0.5)")
        each = [p / w for p, w in zip(plans, sweeps)]
        print(
            f"  ratio per run (plan / the sweep after it): {' '.join(f'{r:.2f}' for r in each)}   "
            f"median {statistics.median(each):.2f}, worst {max(each):.2f}   (target: each <= 0.5)"
        )
        return cold, best


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000], help="stream counts (default 1000)")
    ap.add_argument("--consumers", type=int, default=5)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    times = {n: one_size(n, args.consumers, args.runs) for n in args.sizes}
    if len(times) > 1:
        first = args.sizes[0]
        for n in args.sizes[1:]:
            for i, which in enumerate(("cold", "warm")):
                print(
                    f"\nno-op plan ({which} cache) growth {first} -> {n} streams: {times[n][i] / times[first][i]:.2f} x the time "
                    f"for {n / first:.2f} x the objects"
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
