"""Exact per-consumer ack_time percentiles on Sail: Sail's ``percentile`` against two cheap passes (issue 27).

    .venv/bin/python bench/sail_exact.py [PARQUET] [--runs 2]

On Sail, the one exact-``percentile`` aggregation is most of ``jsops profile --engine sail``'s time at
10M events (its accumulator holds and sorts every value of a group). The same exact figures come from
two aggregations Sail runs fast, with nothing approximate on the way:

1. a histogram per group over log buckets (``floor(log2(v + 1) * 256)``: 0.27 % wide) with the counts;
2. for the buckets holding the target ranks (``floor``/``ceil`` of ``(n - 1) q``), the (value, count)
   pairs; the counts below each bucket come from pass 1, so the driver picks the exact ranks and
   interpolates as Spark 4.3 and Sail do (``lo + frac (hi - lo)``). The bucket is only a key (the same expression in both passes),
   so its floating point never changes a figure.

Prints both timings (fresh Sail server per run) and checks the figures equal, value for value. The job's
version is ``profiler/histrank.py`` (used for every percentile on Sail).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
import warnings
from typing import Any

from profile_speed import set_dir

QS = (0.5, 0.9, 0.99, 0.999)
Key = tuple[str, str]


def _two_pass(acks: Any) -> tuple[dict[Key, list[float]], int]:
    from pyspark.sql import functions as F

    b = F.floor(F.log2(F.col("ack_time") + 1) * 256)
    hist: dict[Key, list[tuple[int, int]]] = {}
    for r in acks.groupBy("stream", "consumer", b.alias("b")).agg(F.count("*").alias("c")).collect():
        hist.setdefault((r["stream"], r["consumer"]), []).append((int(r["b"]), int(r["c"])))
    below: dict[Key, dict[int, int]] = {}
    want: dict[Key, set[int]] = {}
    sizes: dict[Key, int] = {}
    for k, rows in hist.items():
        rows.sort()
        acc, cum = 0, {}
        for bucket, c in rows:
            cum[bucket], acc = acc, acc + c
        below[k], sizes[k] = cum, acc
        for q in QS:
            h = (acc - 1) * q
            for rank in {math.floor(h), math.ceil(h)}:
                want.setdefault(k, set()).add(next(bk for bk, c in rows if cum[bk] + c > rank))
    cond = None
    for (s, c), buckets in want.items():
        one = (F.col("stream") == s) & (F.col("consumer") == c) & b.isin(sorted(buckets))
        cond = one if cond is None else cond | one
    pairs: dict[Key, dict[int, list[tuple[int, int]]]] = {}
    rows2 = acks.where(cond).groupBy("stream", "consumer", b.alias("b"), "ack_time").count().collect()
    for r in rows2:
        pairs.setdefault((r["stream"], r["consumer"]), {}).setdefault(int(r["b"]), []).append(
            (int(r["ack_time"]), int(r["count"]))
        )

    def at(k: Key, rank: int) -> int:
        for bucket in sorted(pairs[k]):
            seen = below[k][bucket]
            for v, c in sorted(pairs[k][bucket]):
                seen += c
                if rank < seen:
                    return v
        raise ValueError(rank)

    out: dict[Key, list[float]] = {}
    for k, n in sizes.items():
        vals = []
        for q in QS:
            h = (n - 1) * q
            lo, hi = math.floor(h), math.ceil(h)
            a, z = at(k, lo), at(k, hi)
            vals.append(float(a) if lo == hi or a == z else float(a) + (h - lo) * (float(z) - float(a)))
        out[k] = vals
    return out, len(rows2)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data", nargs="?", default=str(set_dir("/tmp/jsops-bench", 10_000_000)[2] / "parquet"))
    ap.add_argument("--runs", type=int, default=2)
    a = ap.parse_args()
    warnings.simplefilter("ignore")
    from pyspark.sql import functions as F

    from jsops.profiler.connect import open_session
    from jsops.profiler.sail import SailServer

    for run in range(a.runs):
        with SailServer() as url:
            spark = open_session(url, shuffle_partitions=1, extra_conf={}, check=False)
            acks = (
                spark.read.parquet(a.data)
                .where((F.col("kind") == "ack") & (F.col("ack_time") >= 0))
                .select("stream", "consumer", "ack_time")
            )
            t = time.perf_counter()
            two, npairs = _two_pass(acks)
            t_two = time.perf_counter() - t
            t = time.perf_counter()
            ref = {
                (r["stream"], r["consumer"]): [float(x) for x in r["q"]]
                for r in acks.groupBy("stream", "consumer").agg(F.percentile("ack_time", list(QS)).alias("q")).collect()
            }
            t_pct = time.perf_counter() - t
            spark.stop()
        same = ref == two
        print(
            f"run {run + 1}: Sail percentile {t_pct:.2f} s; histogram + pairs {t_two:.2f} s ({npairs} pairs) = {t_two / t_pct:.2f} x; "
            f"{len(ref)} groups, figures equal: {same}; load {os.getloadavg()[0]:.1f}",
            flush=True,
        )
        if not same:
            print(f"  percentile {ref}\n  two passes {two}")
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
