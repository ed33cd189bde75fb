"""Benchmark `jsops profile`: speed against DuckDB, and driver memory against input size.

Speed (default): 1M ack samples + advisories + snapshots + ~100k publisher logs. Prints the wall time of
the whole PySpark job (Spark start included) beside DuckDB computing the same per-consumer ack_time
percentiles from the same files, the ratio, and the CPU seconds the Spark JVM used. Target: <= 60 s
on a 2-core machine.

    .venv/bin/python bench/profile_speed.py [--acks 1000000] [--master local[2]] [--driver-memory 1g]

Memory (``--memory 1000000 10000000``): for each size, a fresh child process starts its own Spark
(same master and ``--driver-memory``), runs the job and reports, for that process tree only:

* ``jvm_rss_peak``: VmHWM of the Spark driver JVM (its peak resident set, from /proc/PID/status; in
  local mode the driver JVM is also the executor, so this is everything Spark held);
* ``heap_peak``: the sum over the JVM's heap memory pools of ``MemoryPoolMXBean.getPeakUsage().used``
  (each pool's high-water mark, garbage included: how far the JVM let the heap grow; the pools peak at
  different times, so the sum can exceed ``-Xmx``);
* ``heap_live_peak``: the largest heap in use right after a garbage collection, sampled every 0.2 s
  (``MemoryPoolMXBean.getCollectionUsage().used`` summed over heap pools): what the job kept alive;
* ``py_rss_peak``: VmHWM of the Python driver process (PySpark's driver side: the job's Python code
  and every result it collects).

"Flat" means 10M events finish in the same ``--driver-memory`` as 1M and the figures do not grow ~10x.
Telemetry is generated once per size under ``--data-prefix`` (``/tmp/jsops-bench-telemetry-<acks>``)
and reused; ``--regenerate`` forces it. Each size's publisher logs scale with it (95 ids per 1000 acks).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def _vm_hwm_mb(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def _cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _data(prefix: str, acks: int, regenerate: bool) -> Path:
    from profiler.synthetic import default_spec, generate

    data = Path(f"{prefix}-{acks}")
    marker = data / ".spec"
    publish_ids = acks * 95 // 1000  # ~100k attempts per 1M acks with the default retry mix
    key = f"{acks}/{publish_ids}"
    if regenerate or not marker.exists() or marker.read_text() != key:
        import shutil

        shutil.rmtree(data, ignore_errors=True)
        t = time.perf_counter()
        counts = generate(data, default_spec(acks=acks, publish_ids=publish_ids, duration_s=3600, files=4))
        marker.write_text(key)
        print(f"generated {json.dumps(counts)} into {data} in {time.perf_counter() - t:.1f} s", flush=True)
    return data


class _HeapSampler:
    """Polls the driver JVM's heap pools through py4j: high-water marks and live heap after GC."""

    def __init__(self, jvm: Any) -> None:
        mf = jvm.java.lang.management.ManagementFactory
        heap = jvm.java.lang.management.MemoryType.HEAP
        self.pools = [p for p in mf.getMemoryPoolMXBeans() if p.getType().equals(heap)]
        self.live_peak = 0
        self._stop = threading.Event()
        self._t = threading.Thread(target=self._run, daemon=True)

    def _live(self) -> int:
        total = 0
        for p in self.pools:
            u = p.getCollectionUsage()
            total += u.getUsed() if u is not None else 0
        return total

    def _run(self) -> None:
        while not self._stop.wait(0.2):
            try:
                self.live_peak = max(self.live_peak, self._live())
            except Exception:  # the gateway is shutting down
                return

    def start(self) -> _HeapSampler:
        self._t.start()
        return self

    def stop(self) -> tuple[float, float]:
        self._stop.set()
        self._t.join()
        self.live_peak = max(self.live_peak, self._live())
        peak = sum(p.getPeakUsage().getUsed() for p in self.pools)
        return peak / 2**20, self.live_peak / 2**20


def _memory_child(data: str, master: str, driver_memory: str) -> int:
    """One fresh process: start Spark, run the job, print one JSON line of measurements."""
    t0 = time.perf_counter()
    from profiler.job import build_profiles, make_session

    spark = make_session(master, driver_memory=driver_memory)
    jvm = spark.sparkContext._jvm  # type: ignore[attr-defined]
    jvm_pid = int(jvm.java.lang.ProcessHandle.current().pid())
    heap_max = jvm.java.lang.Runtime.getRuntime().maxMemory() / 2**20
    sampler = _HeapSampler(jvm).start()
    t1 = time.perf_counter()
    doc, summary = build_profiles(spark, [data])
    t_job = time.perf_counter() - t1
    heap_peak, heap_live = sampler.stop()
    out = {"events": sum(summary.kinds.values()), "jvm_rss_peak_mib": _vm_hwm_mb(jvm_pid),
           "heap_peak_mib": heap_peak, "heap_live_peak_mib": heap_live, "heap_max_mib": heap_max,
           "job_s": t_job, "wall_s": None, "jvm_cpu_s": _cpu_s(jvm_pid),
           "exact_groups": summary.exact_groups, "approx_groups": summary.approx_groups}
    spark.stop()
    out["wall_s"] = time.perf_counter() - t0
    out["py_rss_peak_mib"] = _vm_hwm_mb(os.getpid())
    print("MEMORY " + json.dumps(out), flush=True)
    return 0


def _memory(a: argparse.Namespace) -> int:
    rows = []
    for acks in a.memory:
        data = _data(a.data_prefix, acks, a.regenerate)
        size_mb = sum(p.stat().st_size for p in data.glob("*.jsonl")) / 2**20
        print(f"{acks} acks: {data} ({size_mb:.0f} MiB JSON lines); profiling in a fresh process ...", flush=True)
        r = subprocess.run([sys.executable, __file__, "--memory-child", str(data), "--master", a.master,
                            "--driver-memory", a.driver_memory], capture_output=True, text=True, cwd=ROOT)
        line = next((ln for ln in r.stdout.splitlines() if ln.startswith("MEMORY ")), None)
        if r.returncode != 0 or line is None:
            errors = [ln for ln in r.stderr.splitlines() if "Error" in ln or "Exception" in ln]
            print("\n".join(errors[:20]) + "\n" + r.stderr[-2000:], file=sys.stderr)
            print(f"{acks} acks: the job failed (exit {r.returncode})")
            continue
        m = json.loads(line[7:])
        m["input_mib"] = size_mb
        print(f"{acks} acks: {json.dumps(m)}", flush=True)
        rows.append(m)
    if not rows:
        return 1
    print(f"\ndriver memory (master {a.master}, --driver-memory {a.driver_memory}):")
    print(f"{'events':>10} {'input MiB':>9} {'JVM RSS peak':>12} {'heap peak':>9} {'heap live peak':>14} "
          f"{'Python RSS peak':>15} {'job s':>6} {'JVM CPU s':>9}")
    for m in rows:
        print(f"{m['events']:>10} {m['input_mib']:>9.0f} {m['jvm_rss_peak_mib']:>12.0f} {m['heap_peak_mib']:>9.0f} "
              f"{m['heap_live_peak_mib']:>14.0f} {m['py_rss_peak_mib']:>15.0f} {m['job_s']:>6.1f} {m['jvm_cpu_s']:>9.1f}")
    print(f"(MiB; heap max {rows[0]['heap_max_mib']:.0f} MiB; see the module docstring for what each column measures)")
    return 0


def _speed(a: argparse.Namespace) -> int:
    data = _data(a.data_prefix, a.acks, a.regenerate)
    size_mb = sum(p.stat().st_size for p in data.glob("*.jsonl")) / 2**20
    print(f"input: {data} ({size_mb:.0f} MiB JSON lines)")

    # --- PySpark, Spark start included
    t0 = time.perf_counter()
    from profiler.job import build_profiles, make_session

    spark = make_session(a.master, driver_memory=a.driver_memory)
    t_start = time.perf_counter() - t0
    jvm_pid = int(spark.sparkContext._jvm.java.lang.ProcessHandle.current().pid())  # type: ignore[union-attr]
    cpu0 = _cpu_s(jvm_pid)
    t1 = time.perf_counter()
    doc, summary = build_profiles(spark, [str(data)])
    t_job = time.perf_counter() - t1
    cpu_job = _cpu_s(jvm_pid) - cpu0
    spark.stop()
    t_spark = time.perf_counter() - t0

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
    print(f"pyspark  wall {t_spark:6.1f} s   (Spark start {t_start:.1f} s, job {t_job:.1f} s using {cpu_job:.1f} "
          f"JVM CPU s, master {a.master})")
    print(f"duckdb   wall {t_duck:6.1f} s   (ack percentiles only)")
    target = f"   target (1M acks) pyspark <= 60 s: {'OK' if t_spark <= 60 else 'MISSED'}" if a.acks <= 1_000_000 else ""
    print(f"ratio    {t_spark / t_duck:6.1f} x   (job alone {t_job / t_duck:.1f} x){target}")
    print(f"agreement: largest relative difference of p50/p90/p99/p999 vs DuckDB {worst:.2e}")
    print(f"load average at the end: {os.getloadavg()[0]:.1f} (the machine is shared: compare CPU seconds)")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--acks", type=int, default=1_000_000)
    ap.add_argument("--data-prefix", default="/tmp/jsops-bench-telemetry")
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--driver-memory", default="1g")
    ap.add_argument("--regenerate", action="store_true")
    ap.add_argument("--memory", type=int, nargs="+", metavar="ACKS",
                    help="measure driver memory at these sizes (e.g. 1000000 10000000), each in a fresh process")
    ap.add_argument("--memory-child", metavar="DIR", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.memory_child:
        return _memory_child(a.memory_child, a.master, a.driver_memory)
    if a.memory:
        return _memory(a)
    return _speed(a)


if __name__ == "__main__":
    sys.exit(main())
