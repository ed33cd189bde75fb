"""The cut-over window of ``jsops apply --migrate`` under a steady publish load (issue 14).

A rename (ORDERS -> ORDERS_V2: 100 messages stored, two consumers mid-stream) while a publisher
sends a JetStream publish to the stream's subjects every millisecond, each retried until it is
acknowledged. Per setup, ``--runs`` migrations: the window jsops measures (the old stream's subjects
moved away until the new stream is promoted with them), the longest gap between two acknowledged
publishes (what a publisher sees), and the failed attempts by kind. Setups: a standalone server
(the baseline, measured in the same run), and a 3-node cluster on 127.0.0.1 with the stream R3 and
R1 placed by tag; each cluster median is printed as a ratio to the standalone one. Every run also
checks that every acknowledged publish is in the new stream.

    .venv/bin/python bench/migrate_window.py [--runs 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.append(str(ROOT / "tests"))  # natsserver, as the tests import it (after the packages: tests/rules)

from tests.natsserver import NatsCluster, NatsServer  # noqa: E402
from tests.reconciler.helpers import Js, run  # noqa: E402
from tests.reconciler.migrate_helpers import Cutover, cut_over_under_load, renamed, seed, stored  # noqa: E402

CLUSTER_FAILURES = frozenset({"NoRespondersError", "TimeoutError"})  # a publish in flight while the interest moves


def _runs(url: str, extra: str, runs: int, failures: frozenset[str]) -> list[Cutover]:
    out = []
    js = Js(url)
    try:
        for i in range(runs):
            with tempfile.TemporaryDirectory(prefix="jsops-bench-") as tmp:
                d = Path(tmp) / "m"
                stored(d, extra=extra)
                rc, o, e = run("apply", str(d), "--server", url, "--yes")
                assert rc == 0, o + e
                seed(js)
                renamed(d, extra=extra)
                out.append(cut_over_under_load(url, js, d, "", failures, quiet=True))
            for name in js.streams():
                js.ok(f"$JS.API.STREAM.DELETE.{name}")
            print(
                f"  run {i + 1}: window {out[-1].window_ms:.1f} ms, longest gap {out[-1].gap_ms:.1f} ms, "
                f"failed attempts {sum(out[-1].failures.values())} {dict(sorted(out[-1].failures.items()))}",
                flush=True,
            )
    finally:
        js.close()
    return out


def _summary(label: str, results: list[Cutover], base: float | None) -> float:
    windows = [r.window_ms for r in results]
    gaps = [r.gap_ms for r in results]
    med = statistics.median(windows)
    ratio = f"  (x{med / base:.2f} the standalone median)" if base else ""
    fails: dict[str, int] = {}
    for r in results:
        for k, n in r.failures.items():
            fails[k] = fails.get(k, 0) + n
    print(
        f"{label:<28} window median {med:6.1f} ms, max {max(windows):6.1f} ms; publisher gap median "
        f"{statistics.median(gaps):6.1f} ms, max {max(gaps):7.1f} ms; failed attempts {dict(sorted(fails.items()))}{ratio}"
    )
    return med


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=5)
    args = p.parse_args()
    results: dict[str, list[Cutover]] = {}

    def standalone() -> list[Cutover]:
        with NatsServer() as s:
            return _runs(s.url, "", args.runs, frozenset({"NoRespondersError"}))

    cluster: list[NatsCluster] = []

    def clustered(extra: str) -> Callable[[], list[Cutover]]:
        return lambda: _runs(cluster[0].url, extra, args.runs, CLUSTER_FAILURES)

    setups: list[tuple[str, Callable[[], list[Cutover]]]] = [
        ("standalone", standalone),
        ("3-node cluster, R3", clustered(", num_replicas: 3")),
        ("3-node cluster, R1 placed", clustered(', num_replicas: 1, placement: {tags: ["az:2"]}')),
    ]
    try:
        for label, go in setups:
            if label.startswith("3-node") and not cluster:
                cluster.append(NatsCluster(3).start())
            print(f"{label}:", flush=True)
            results[label] = go()
    finally:
        for c in cluster:
            c.stop()
    print()
    base = _summary("standalone", results["standalone"], None)
    for label in list(results)[1:]:
        _summary(label, results[label], base)


if __name__ == "__main__":
    main()
