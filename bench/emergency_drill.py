#!/usr/bin/env python3
"""Emergency failovers of issue 39: N runs of tests/integration/test_emergency_failover.py's scenario (three
single-server clusters EAST, WEST, ARB; S0 in EAST, its mirror S1 in WEST; ``jsops failover S0 --check``
every 0.5 s; kill -9 of EAST's server under traffic; ``jsops failover S0 --emergency --allow-data-loss``).
Half the runs with the mirror current (one publisher), half with it still copying a 50,000-message
backlog (four publishers). Prints, per run, the count jsops stated, the acknowledged publishes missing on
S1, and how many of those were acknowledged before the last check (what the count covers).

    .venv/bin/python bench/emergency_drill.py [--runs 10] [--binary PATH]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.append(str(ROOT / "tests"))  # natsserver and supercluster, as the tests import them

from natsserver import release_binary  # noqa: E402

from tests.integration.test_emergency_failover import emergency_run  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--binary", help="nats-server binary (default: 2.15.1)")
    args = ap.parse_args()
    binary = args.binary or release_binary("2.15.1")
    covered_ok = all_ok = 0
    for i in range(args.runs):
        case, tasks, backlog = ("steady", 1, 0) if i % 2 == 0 else ("catching-up", 4, 50_000)
        r = emergency_run(binary, tasks, backlog=backlog)
        covered_ok += r["stated"] >= len(r["missing_covered"]) and r["tail_only"]
        all_ok += r["stated"] >= len(r["missing"])
        print(
            f"run {i + 1} ({case}): stated {r['stated']}, missing {len(r['missing'])} "
            f"({len(r['missing_covered'])} acknowledged before the last check), nothing else lost: {r['tail_only']}",
            flush=True,
        )
    print(
        f"{args.runs} runs: stated >= missing acknowledged before the last check in {covered_ok}; "
        f"stated >= every missing acknowledged publish in {all_ok}"
    )
    return 0 if covered_ok == args.runs else 1


if __name__ == "__main__":
    sys.exit(main())
