"""Benchmark: `jsops profile` on 1M ack samples + advisories + snapshots + ~100k publisher logs.

Prints the wall time of the whole PySpark job (Spark start included) beside DuckDB computing the same
per-consumer ack_time percentiles from the same files, the ratio, and the driver JVM's peak memory.
Target: <= 60 s on a 2-core machine.

    .venv/bin/python bench/profile_speed.py [--acks 1000000] [--publish-ids 95000] [--data DIR] [--master local[2]]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from pathlib import Path


def _vm_hwm_mb(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--acks", type=int, default=1_000_000)
    ap.add_argument("--publish-ids", type=int, default=95_000)  # ~100k attempts with the default retry mix
    ap.add_argument("--data", default="/tmp/jsops-bench-telemetry")
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--driver-memory", default="1g")
    ap.add_argument("--regenerate", action="store_true")
    a = ap.parse_args()

    from profiler.synthetic import default_spec, generate

    data = Path(a.data)
    marker = data / ".spec"
    spec_key = f"{a.acks}/{a.publish_ids}"
    if a.regenerate or not marker.exists() or marker.read_text() != spec_key:
        shutil.rmtree(data, ignore_errors=True)
        t = time.perf_counter()
        counts = generate(data, default_spec(acks=a.acks, publish_ids=a.publish_ids, duration_s=3600, files=4))
        marker.write_text(spec_key)
        print(f"generated {json.dumps(counts)} in {time.perf_counter() - t:.1f} s")
    size_mb = sum(p.stat().st_size for p in data.glob("*.jsonl")) / 2**20
    print(f"input: {data} ({size_mb:.0f} MiB JSON lines)")

    # --- PySpark, Spark start included
    t0 = time.perf_counter()
    from profiler.job import build_profiles, make_session

    spark = make_session(a.master, driver_memory=a.driver_memory)
    t_start = time.perf_counter() - t0
    doc, summary = build_profiles(spark, [str(data)])
    jvm_pid = int(spark.sparkContext._jvm.java.lang.ProcessHandle.current().pid())  # type: ignore[union-attr]
    runtime = spark.sparkContext._jvm.java.lang.Runtime.getRuntime()  # type: ignore[union-attr]
    heap_max_mb = runtime.maxMemory() / 2**20
    jvm_hwm = _vm_hwm_mb(jvm_pid)
    spark.stop()
    t_spark = time.perf_counter() - t0
    py_hwm = _vm_hwm_mb(__import__("os").getpid())

    # --- DuckDB: the same ack percentiles from the same files
    import duckdb

    t1 = time.perf_counter()
    con = duckdb.connect()
    rows = con.execute(
        f"""
        SELECT stream, consumer, count(ack_time) AS n, max(ack_time) AS mx,
               quantile_cont(ack_time, [0.5, 0.9, 0.99, 0.999]) AS q
        FROM read_json('{data}/*.jsonl', format='newline_delimited', ignore_errors=true,
                       columns={{'type': 'VARCHAR', 'stream': 'VARCHAR', 'consumer': 'VARCHAR', 'ack_time': 'BIGINT'}})
        WHERE type = 'io.nats.jetstream.metric.v1.consumer_ack'
        GROUP BY ALL ORDER BY ALL
        """).fetchall()
    t_duck = time.perf_counter() - t1

    worst = 0.0
    for stream, consumer, n, mx, q in rows:
        got = doc["consumers"][f"{stream}/{consumer}"]["ack_time_ns"]
        assert got["samples"] == n and got["max"] == mx, (stream, consumer)
        for name, v in zip(("p50", "p90", "p99", "p999"), q):
            worst = max(worst, abs(got[name] - v) / v)

    print(f"events: {summary.render()}")
    print(f"pyspark  wall {t_spark:6.1f} s   (Spark start {t_start:.1f} s, master {a.master})")
    print(f"duckdb   wall {t_duck:6.1f} s   (ack percentiles only)")
    print(f"ratio    {t_spark / t_duck:6.1f} x   target pyspark <= 60 s: {'OK' if t_spark <= 60 else 'MISSED'}")
    print(f"agreement: largest relative difference of p50/p90/p99/p999 vs DuckDB {worst:.2e}")
    print(f"driver memory: JVM peak RSS {jvm_hwm:.0f} MiB (heap max {heap_max_mb:.0f} MiB), "
          f"Python driver peak RSS {py_hwm:.0f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
