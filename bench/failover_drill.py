#!/usr/bin/env python3
"""The failover drill of issue 39: N planned failovers (``jsops failover``) in a row on a local two-cluster
supercluster (tests/supercluster.py, one server per cluster), under a publisher (unique ids, each
retried until acknowledged) and a worker (durable pull consumer, explicit acks) bound to whichever
stream is active. Before each failover after the first, a fresh mirror of the active stream is created
on the other side (what a failback would make). Prints the acknowledged publishes lost, those the worker
never processed, the redeliveries, and the write pause (jsops's fence-to-promotion window) and the
publisher's longest wait per failover, median and max.

    .venv/bin/python bench/failover_drill.py [--failovers 20] [--binary PATH]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.append(str(ROOT / "tests"))  # natsserver and supercluster, as the tests import them

from supercluster import Supercluster  # noqa: E402

from tests.integration.test_failover_supercluster import SIDES, TWO, Traffic, contents, failover, make_pair, standby  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--failovers", type=int, default=20)
    ap.add_argument("--binary", help="nats-server binary (default: the tests' default release)")
    args = ap.parse_args()
    with Supercluster(TWO, args.binary) as sc:
        url = sc.urls("EAST")[0]
        asyncio.run(make_pair(url))
        traffic = Traffic(url, "S0")
        traffic.thread.start()
        pauses: list[float] = []
        try:
            time.sleep(1.0)
            for i in range(args.failovers):
                active, new = f"S{i}", f"S{i + 1}"
                if i:
                    asyncio.run(standby(url, new, active, SIDES[(i + 1) % 2]))
                time.sleep(0.5)
                traffic.slowest.append(0.0)
                rc, out, err = failover(url, active, "--to", new, "--yes")
                if rc != 0:
                    print(out, err, file=sys.stderr)
                    return 1
                pauses.append(float(out.rsplit("write pause ", 1)[1].split(" ms")[0]))
                traffic.stream = new
                time.sleep(1.0)
        finally:
            traffic.deadline = time.monotonic() + 60
            traffic.stop.set()
            traffic.thread.join(90)
        held, _ = asyncio.run(contents(url, f"S{args.failovers}"))
    waits = [s * 1000 for s in traffic.slowest[1:]]
    lost = traffic.acked - set(held)
    skipped = traffic.acked - set(traffic.processed)
    print(
        f"{args.failovers} failovers: {len(traffic.acked)} publishes acknowledged, {len(lost)} lost, {len(skipped)} never processed, "
        f"{len(traffic.processed) - len(set(traffic.processed))} redelivered"
    )
    print(f"write pause: median {statistics.median(pauses):.1f} ms, max {max(pauses):.1f} ms")
    print(f"publisher's longest wait per failover: median {statistics.median(waits):.0f} ms, max {max(waits):.0f} ms")
    return 0 if not lost and not skipped and traffic.error is None else 1


if __name__ == "__main__":
    sys.exit(main())
