#!/usr/bin/env python3
"""The drill of issue 39: N planned failovers (``jsops failover``) and N failbacks (``jsops failback``) in
turns on a local two-cluster supercluster (tests/supercluster.py, one server per cluster), under a
publisher (unique ids, each retried until acknowledged) and a worker (durable pull consumer, explicit
acks) bound to whichever stream is active: S0 (EAST) fails over to its mirror S1 (WEST), then fails back
(S0 rebuilt as a mirror of S1, caught up, S1 failed over to it, S1 restored as S0's mirror). Prints the
acknowledged publishes lost, those the worker never processed, the redeliveries, the write pause
(jsops's fence-to-promotion window) of the failovers and of the failbacks, median and max, the
publisher's longest wait per switch, and how long a failback takes.

    .venv/bin/python bench/failover_drill.py [--cycles 20] [--binary PATH]
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.append(str(ROOT / "tests"))  # natsserver and supercluster, as the tests import them

from supercluster import Supercluster  # noqa: E402

from tests.integration.test_failback_supercluster import Drill, finish  # noqa: E402
from tests.integration.test_failover_supercluster import TWO, Traffic, make_pair  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cycles", type=int, default=20, help="failovers, each followed by a failback (default 20)")
    ap.add_argument("--binary", help="nats-server binary (default: the tests' default release)")
    args = ap.parse_args()
    t0 = time.monotonic()
    with Supercluster(TWO, args.binary) as sc:
        url = sc.urls("EAST")[0]
        asyncio.run(make_pair(url))
        traffic = Traffic(url, "S0")
        traffic.thread.start()
        drill = Drill()
        # Ctrl-C (SIGINT) ends the drill after the cycle under way and still counts the losses
        signal.signal(signal.SIGINT, lambda *_: drill.stopped.set())
        try:
            time.sleep(1.0)
            drill.run(url, traffic, args.cycles, progress=lambda line: print(line, flush=True))
        finally:
            lost, skipped, redelivered = finish(url, traffic)
    waits = [s * 1000 for s in traffic.slowest[1:]]
    n = len(drill.failback_pauses)
    print(
        f"{n} failovers and {n} failbacks in {time.monotonic() - t0:.0f} s: "
        f"{len(traffic.acked)} publishes acknowledged, {len(lost)} lost, {len(skipped)} never processed, "
        f"{redelivered} redelivered"
    )
    print(drill.summary())
    print(f"publisher's longest wait per switch: median {statistics.median(waits):.0f} ms, max {max(waits):.0f} ms")
    return 0 if not lost and not skipped and traffic.error is None else 1


if __name__ == "__main__":
    sys.exit(main())
