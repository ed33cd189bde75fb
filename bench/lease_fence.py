"""The lease fence under pauses (issue 33, item 2): two ``jsops controller`` processes on one real
nats-server and S streams; per run the leader applies revision A, is stopped (SIGSTOP) at a random
point of its round, the other takes the lease once it expired and applies revision B everywhere,
then the old leader is resumed (SIGCONT). The server's API audit advisories are the evidence.

Per run it prints: the pause point (A updates the server had seen when the leader was stopped);
``in_flight``: A updates the server handled after the stop (requests already sent; bound: the
request window, 64); ``after_deadline``: A updates handled after the new leader's first write
(writes issued after the deadline; target 0); ``old_revision``: streams whose B update an A update
undid (target 0); the old leader's ``lease_lost`` event (writes it stopped before).

    .venv/bin/python bench/lease_fence.py [--streams 1500] [--runs 20] [--ttl 3s] [--seed N]
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from tests.natsserver import NatsServer  # noqa: E402
from tests.reconciler.helpers import ApiAudit  # noqa: E402
from tests.reconciler.test_controller_helpers import Proc, wait_for  # noqa: E402


def write_tree(d: Path, streams: int, max_msgs: int) -> None:
    d.mkdir(parents=True, exist_ok=True)
    for f in range(0, streams, 50):
        docs = [
            f'apiVersion: jsops/v1\nkind: Stream\nmetadata: {{name: L{i:05d}}}\nspec: {{subjects: ["l{i}.>"], max_age: 1h, max_msgs: {max_msgs}}}\n'
            for i in range(f, min(f + 50, streams))
        ]
        (d / f"l{f:05d}.yaml").write_text("---\n".join(docs))


def with_value(audit: ApiAudit, value: int) -> list[tuple[int, str]]:
    return [
        (t, s.rsplit(".", 1)[1]) for t, s, r in audit.updates("$JS.API.STREAM.UPDATE.L") if r.get("max_msgs") == value
    ]


def one_run(
    server: NatsServer, tree: Path, logs: Path, n: int, rev: int, streams: int, ttl: str, rng: random.Random
) -> dict[str, object]:
    audit = ApiAudit(server.url)
    old = new = None
    a, b = rev + 1, rev + 2
    try:
        write_tree(tree, streams, a)
        point = rng.randint(1, streams - 50)
        old = Proc([str(tree)], server.url, "--lease-ttl", ttl, "--identity", f"old{n}", log=logs / f"old{n}.log")
        wait_for(lambda: len(with_value(audit, a)) >= point, 300, "the old leader's round to reach the pause point")
        os.kill(old.process.pid, signal.SIGSTOP)
        stopped_at = time.time_ns()
        seen = len(with_value(audit, a))
        write_tree(tree, streams, b)
        new = Proc([str(tree)], server.url, "--lease-ttl", ttl, "--identity", f"new{n}", log=logs / f"new{n}.log")
        wait_for(
            lambda: len({s for _, s in with_value(audit, b)}) >= streams, 600, "the new leader to apply revision B"
        )
        rounds = len(old.events("round"))
        os.kill(old.process.pid, signal.SIGCONT)
        wait_for(lambda: len(old.events("round")) > rounds, 300, "the old leader's round to end")
        time.sleep(1.0)  # the last advisories
        ups_a, ups_b = with_value(audit, a), with_value(audit, b)
        first_b = min(t for t, _ in ups_b)
        last_b: dict[str, int] = {}
        for t, s in ups_b:
            last_b[s] = max(t, last_b.get(s, 0))
        lost = old.events("lease_lost")
        return {
            "run": n,
            "paused_at": seen,
            "in_flight": sum(1 for t, _ in ups_a if t > stopped_at),
            "after_deadline": sum(1 for t, _ in ups_a if t > first_b),
            "old_revision": len({s for t, s in ups_a if t > last_b.get(s, 0)}),
            "a_updates": len(ups_a),
            "stopped_before": lost[0]["stopped_before"] if lost else None,
        }
    finally:
        audit.close()
        for p in (old, new):
            if p is not None:
                if p.process.poll() is None:
                    os.kill(p.process.pid, signal.SIGCONT)
                p.stop()


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--streams", type=int, default=1500)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--ttl", default="3s")
    ap.add_argument("--seed", type=int, default=None)
    args = ap.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    rng = random.Random(seed)
    from jsops.reconciler.controller.cli import main as controller

    print(f"streams {args.streams}, runs {args.runs}, lease TTL {args.ttl}, seed {seed}", flush=True)
    results = []
    with tempfile.TemporaryDirectory() as tmp, NatsServer() as server:
        tree, logs = Path(tmp) / "m", Path(tmp)
        write_tree(tree, args.streams, 1000)
        code = controller(
            [
                str(tree),
                "--server",
                server.url,
                "--listen",
                "none",
                "--once",
                "--no-lease",
                "--log-file",
                str(logs / "c0.log"),
            ]
        )
        assert code == 0, f"the initial apply exited {code}"
        for n in range(args.runs):
            r = one_run(server, tree, logs, n, 1000 + 2 * n, args.streams, args.ttl, rng)
            results.append(r)
            print("  ".join(f"{k} {v}" for k, v in r.items()), flush=True)
    print(
        f"runs {len(results)}: writes after the deadline {sum(int(str(r['after_deadline'])) for r in results)}, "
        f"in flight at the pause at most {max(int(str(r['in_flight'])) for r in results)}, "
        f"objects left at the old revision {sum(int(str(r['old_revision'])) for r in results)}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
