"""Benchmark `jsops profile` against DuckDB on the same files, and the cost of extending a profile store.

    .venv/bin/python bench/profile_speed.py [--sizes 1000000 10000000] [--big] [--formats json parquet]
                                            [--master local[2]] [--week-only] [--no-week] [--engines]
    nice .venv/bin/python bench/profile_speed.py --engines [--sizes N ...] [--formats json|parquet ...]
                                            [--rows duckdb floor floor-connect jsops jsops-connect jsops-sail]
                                            [--timeout 900] [--results FILE] [--table-only]

For each size (ack samples; publisher logs scale with them, 95 ids per 1000 acks, plus advisories and
snapshots over one hour) the synthetic telemetry is generated once as JSON lines under ``--data-prefix``
(a multiple of 1M as that many parts written by two processes, :mod:`jsops.profiler.synthetic_sets`:
distinct events over the same hour, not copies; the directory is named by the set's key, so a set made
by another generator version or spec is never reused) and compacted once (``jsops profile --compact``) into Parquet partitioned by day/hour; both are reused
by later runs. Each measurement is a fresh process, timed from outside (whole process: interpreter,
JVM start, job, exit):

* ``jsops``: ``build_profiles`` in a child that starts its own Spark as ``jsops profile`` does
  (``--master``, ``--driver-memory``, shuffle partitions by input size); it reports the driver JVM's and
  the Python driver's peak RSS (VmHWM; in local mode the driver JVM is also the executor, so that is
  the executor's peak too) and the number of Spark jobs it ran (adaptive execution runs each shuffle
  stage as a job of its own);
* ``duckdb``: a child computing the same per-consumer ack_time percentiles (``quantile_cont``) from the
  same files, JSON lines with ``read_json`` and an explicit column list, Parquet with ``read_parquet``;
  the figures are checked against jsops's.

``--engines`` prints only the engines table instead (the issue-27 comparison): per size and format,
DuckDB; the Spark floor (``bench/spark_floor.py``: a minimal hand-written job computing every figure of
the profile, per consumer ack_time count, max and exact percentiles, deliveries, advisories, delivery
rates, per stream ingest, bytes, publish retries and horizons, stored size, retention span, and the
window, one plain query per family of figures, from the compacted Parquet or from the JSON lines read
with an explicit schema of the fields it needs; its document is checked equal to jsops's) cold in
local mode and on a warm Spark Connect server (started from the pyspark package for the run, warmed by one
untimed run of each query and format on the ``--warm-acks`` files); ``jsops profile``'s job cold in local
mode, on the warm Connect server, and on Sail (jsops starts and stops the Sail server); the ratios; the
shuffle partitions jsops picks for the input, and the Spark jobs and stages of the cold local run (a
Connect client cannot see the server's jobs). Every measured row is appended as a record to ``--results``
(default ``DATA_PREFIX-engines.jsonl``) the moment it is measured, so rows and sets can be run
separately (``--rows``, ``--sizes``, ``--formats``; one heavy row at a time under ``nice``) and the table
merges the latest record of each row on the set's current data. A row past ``--timeout`` seconds is
stopped with its process group and shows "timed out after N s" (a Connect row's server is restarted).
The Connect server's driver memory is sized to the largest selected input (``--connect-memory``).
Columns: each row's whole wall time (job time), jsops/floor cold and warm (target <= 1.3x), Sail/DuckDB
(target <= 5x at 10M Parquet), jsops's jobs/stages cold, whether the figures of every row agree (the
documents by digest, the ack figures with DuckDB's), the one-minute load at the end of each row, and
the commit measured.

``--sail-rows`` prints only DuckDB, the whole ``jsops profile --engine sail`` command (its figures checked
against DuckDB's) and the Spark floor cold, per size and format (no Connect server: minutes, not an hour).

``ratio`` is jsops wall / DuckDB wall; ``load`` the one-minute load average when the row was measured. The last rows build a week-long profile store (168 hourly windows
of compacted telemetry, ``--week-acks`` samples in all) and time extending it by one more hour: the
extension reads only that hour's partition and merges 168 stored windows. ``--big`` adds 50M events.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
from engines_table import ROWS  # noqa: E402

HOUR_US = 3_600_000_000
_UNIT = 1_000_000


def _vm_hwm_mb(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


class RowTimeout(Exception):
    """A child ran longer than its timeout (it was stopped, with its process group)."""


def _child(argv: list[str], timeout: float | None = None, opts: Sequence[str] = ()) -> tuple[float, dict[str, Any]]:
    """Run ``bench/profile_speed.py [opts] --child ...`` in a fresh process: (wall seconds, its RESULT line).
    Past ``timeout`` seconds the child and its process group (its JVM) are stopped: RowTimeout."""
    t = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, __file__, *opts, "--child", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(proc.pid, sig)
                proc.communicate(timeout=20)
                break
            except (ProcessLookupError, subprocess.TimeoutExpired):
                continue
        raise RowTimeout(f"timed out after {timeout:.0f} s") from None
    wall = time.perf_counter() - t
    line = next((ln for ln in out.splitlines() if ln.startswith("RESULT ")), None)
    if proc.returncode != 0 or line is None:
        causes = [
            ln for ln in err.splitlines() if re.search(r"(Error|Exception)\b", ln) and not ln.startswith("\tat ")
        ][:6]
        raise SystemExit(
            f"child {argv} failed (exit {proc.returncode}):\n" + "\n".join(causes) + f"\n...\n{err[-2000:]}"
        )
    return wall, json.loads(line[7:])


def _run_child(a: argparse.Namespace) -> int:
    what, data = a.child[0], a.child[1]
    if what == "duckdb":
        import duckdb

        if Path(data).name == "parquet":
            src = f"read_parquet('{data}/**/*.parquet')"
            ack = "kind = 'ack'"
        else:
            src = (
                f"read_json('{data}/*.jsonl', format='newline_delimited', ignore_errors=true, columns="
                "{'type': 'VARCHAR', 'stream': 'VARCHAR', 'consumer': 'VARCHAR', 'ack_time': 'BIGINT'})"
            )
            ack = "type = 'io.nats.jetstream.metric.v1.consumer_ack'"
        rows = (
            duckdb.connect()
            .execute(
                f"SELECT stream, consumer, count(ack_time), max(ack_time), quantile_cont(ack_time, [0.5, 0.9, 0.99, 0.999]) "
                f"FROM {src} WHERE {ack} AND ack_time >= 0 GROUP BY ALL ORDER BY ALL"
            )
            .fetchall()
        )
        print("RESULT " + json.dumps({"rows": [[s, c, n, mx, list(q)] for s, c, n, mx, q in rows]}), flush=True)
        return 0
    if what in ("floor", "floor-connect", "jsops-connect", "jsops-sail"):
        return _run_connect_child(a, what, data)
    from jsops.profiler.inputs import shuffle_partitions
    from jsops.profiler.job import build_profiles, make_session

    spark = make_session(a.master, driver_memory=a.driver_memory, shuffle_partitions=shuffle_partitions([data]))
    jvm_pid = int(spark.sparkContext._jvm.java.lang.ProcessHandle.current().pid())
    spark.sparkContext.setJobGroup("jsops", "profile")
    t = time.perf_counter()
    if what == "jsops":
        doc, summary = build_profiles(spark, [data])
    else:  # store: build or extend the store a[2] with windows before a[3] (us)
        from jsops.profiler.incremental import build_store_profiles
        from jsops.profiler.partial import Partial

        doc, summary = build_store_profiles(spark, [data], Path(a.child[2]), Partial(0, 0), until=int(a.child[3]))
    job = time.perf_counter() - t
    tracker = spark.sparkContext.statusTracker()
    job_ids = tracker.getJobIdsForGroup("jsops")
    jobs = len(job_ids)
    stages = sum(len(info.stageIds) for info in (tracker.getJobInfo(j) for j in job_ids) if info is not None)
    jvm = _vm_hwm_mb(jvm_pid)
    spark.stop()
    print(
        "RESULT "
        + json.dumps(
            {
                "doc": doc,
                "events": sum(summary.kinds.values()),
                "job_s": job,
                "windows": summary.windows,
                "jvm_rss_mib": jvm,
                "spark_jobs": jobs,
                "stages": stages,
                "py_rss_mib": _vm_hwm_mb(os.getpid()),
            }
        ),
        flush=True,
    )
    return 0


def _run_connect_child(a: argparse.Namespace, what: str, data: str) -> int:
    """floor (cold local Spark), floor-connect / jsops-connect (a warm Connect server at a.child[2]),
    jsops-sail (jsops starts and stops a Sail server, as ``--engine sail`` does)."""
    from spark_floor import floor_profile

    from jsops.profiler.compute import build_profiles

    if what == "floor":
        from jsops.profiler.inputs import shuffle_partitions
        from jsops.profiler.job import make_session

        spark = make_session(a.master, driver_memory=a.driver_memory, shuffle_partitions=shuffle_partitions([data]))
        t = time.perf_counter()
        floor_doc = floor_profile(spark, data)
        job = time.perf_counter() - t
        spark.stop()
        print("RESULT " + json.dumps({"doc": floor_doc, "job_s": job}), flush=True)
        return 0
    from jsops.profiler.connect import open_session
    from jsops.profiler.inputs import shuffle_partitions
    from jsops.profiler.sail import SailServer

    def run(url: str, check: bool) -> dict[str, Any]:
        spark = open_session(url, shuffle_partitions=shuffle_partitions([data]), extra_conf={}, check=check)
        t = time.perf_counter()
        if what == "floor-connect":
            out: dict[str, Any] = {"doc": floor_profile(spark, data)}
        else:
            doc, summary = build_profiles(spark, [data], exact_percentiles=what == "jsops-sail")
            out = {"doc": doc, "events": sum(summary.kinds.values())}
        out["job_s"] = time.perf_counter() - t
        spark.stop()
        return out

    if what == "jsops-sail":
        with SailServer() as url:
            res = run(url, False)
    else:
        res = run(a.child[2], True)
    print("RESULT " + json.dumps(res), flush=True)
    return 0


def set_dir(prefix: str, acks: int, duration_s: int = 3600) -> tuple[int, str, Path]:
    """(parts, data-set key, directory) of the bench's set of ``acks`` samples (made or not)."""
    from jsops.profiler.synthetic import default_spec
    from jsops.profiler.synthetic_sets import dataset_key

    spec = default_spec(acks=acks, publish_ids=acks * 95 // 1000, duration_s=duration_s, files=4)
    parts = acks // _UNIT if acks > _UNIT and acks % _UNIT == 0 else 1
    key = dataset_key(spec, parts)
    return parts, key, Path(f"{prefix}-{acks}-{duration_s}-{key}")


def _data(prefix: str, acks: int, duration_s: int = 3600, workers: int = 2) -> tuple[Path, Path]:
    """(JSON lines directory, compacted Parquet directory) of ``acks`` distinct samples, made once.

    A multiple of 1M is written as that many parts (:mod:`jsops.profiler.synthetic_sets`, ``workers``
    processes): distinct events over the same hour. The directory is named by the set's key (every
    generator parameter and the generator's version), so a set made by another generator is never
    reused; ``.spec`` is written last, once the Parquet is complete."""
    from jsops.profiler.synthetic import default_spec
    from jsops.profiler.synthetic_sets import generate_parts

    spec = default_spec(acks=acks, publish_ids=acks * 95 // 1000, duration_s=duration_s, files=4)
    parts, key, base = set_dir(prefix, acks, duration_s)
    json_dir, pq_dir = base / "jsonl", base / "parquet"
    marker = base / ".spec"
    if not marker.exists() or marker.read_text() != key:
        shutil.rmtree(base, ignore_errors=True)
        t = time.perf_counter()
        counts = generate_parts(json_dir, spec, parts, workers)
        print(
            f"  generated {acks} acks ({parts} parts, {sum(counts.values())} events) in {time.perf_counter() - t:.0f} s",
            flush=True,
        )
        t = time.perf_counter()
        r = subprocess.run(
            [
                sys.executable,
                "-m",
                "jsops.linter.cli.app",
                "profile",
                str(json_dir),
                "--compact",
                str(pq_dir),
                "--master",
                "local[2]",
                "-q",
            ],
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        if r.returncode != 0:
            raise SystemExit("compaction failed")
        print(f"  compacted in {time.perf_counter() - t:.0f} s", flush=True)
        marker.write_text(key)
    return json_dir, pq_dir


def _check(doc: dict[str, Any], rows: list[list[Any]]) -> float:
    worst = 0.0
    for s, c, n, mx, q in rows:
        got = doc["consumers"][f"{s}/{c}"]["ack_time_ns"]
        assert got["samples"] == n and got["max"] == mx, (s, c)
        worst = max(worst, *(abs(got[k] - v) / v for k, v in zip(("p50", "p90", "p99", "p999"), q)))
    return worst


def _size_mib(d: Path) -> float:
    return sum(f.stat().st_size for f in d.rglob("*") if f.is_file()) / 2**20


def _week(a: argparse.Namespace) -> list[str]:
    _, pq = _data(a.data_prefix, a.week_acks, 7 * 86400)
    store = Path(f"{a.data_prefix}-store")
    shutil.rmtree(store, ignore_errors=True)
    start = 1_795_176_000_000_000  # the synthetic data's start, 2026-11-20T12:00:00Z
    wall0, built = _child(["store", str(pq), str(store), str(start + 167 * HOUR_US)])
    wall1, ext = _child(["store", str(pq), str(store), str(start + 168 * HOUR_US)])
    return [
        f"| {built['events']} | store: build 167 h of a week (parquet) | {wall0:.1f} s (job {built['job_s']:.1f}) | "
        f"| | {built['jvm_rss_mib']:.0f} / {built['py_rss_mib']:.0f} MiB | windows computed/reused {built['windows']} | "
        f"{built['spark_jobs']} / {built['stages']} | {os.getloadavg()[0]:.1f} |",
        f"| {ext['events']} | store: extend the week by 1 h (parquet) | {wall1:.1f} s (job {ext['job_s']:.1f}) | | | "
        f"{ext['jvm_rss_mib']:.0f} / {ext['py_rss_mib']:.0f} MiB | windows computed/reused {ext['windows']} | "
        f"{ext['spark_jobs']} / {ext['stages']} | {os.getloadavg()[0]:.1f} |",
    ]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1_000_000, 10_000_000], metavar="ACKS")
    ap.add_argument("--big", action="store_true", help="add 50M ack samples (long, and large on disk)")
    ap.add_argument("--week-acks", type=int, default=200_000, help="samples in the week-long store")
    ap.add_argument("--data-prefix", default="/tmp/jsops-bench")
    ap.add_argument("--master", default="local[2]")
    ap.add_argument(
        "--driver-memory", help="local Spark's driver memory (default 1g; --engines: sized to the set's events)"
    )
    ap.add_argument(
        "--formats",
        nargs="+",
        choices=("json", "parquet"),
        default=["json", "parquet"],
        help="input formats to time (default both)",
    )
    ap.add_argument("--prepare", action="store_true", help="only generate and compact the data sets")
    ap.add_argument("--week-only", action="store_true", help="only the profile-store rows")
    ap.add_argument("--no-week", action="store_true", help="without the profile-store rows")
    ap.add_argument(
        "--engines",
        action="store_true",
        help="only the engines table: DuckDB, the Spark floor cold and on a warm Connect server, jsops cold local, on the warm Connect server and on Sail",
    )
    ap.add_argument(
        "--sail-rows",
        action="store_true",
        help="only the Sail rows: per size and format DuckDB, the whole `jsops profile --engine sail` command, and the Spark floor cold",
    )
    ap.add_argument(
        "--warm-acks",
        type=int,
        default=1_000_000,
        help="--engines: the size whose files warm the Connect server (default 1M)",
    )
    ap.add_argument(
        "--rows", nargs="+", choices=ROWS, default=list(ROWS), help="--engines: the rows to measure (default all)"
    )
    ap.add_argument(
        "--timeout",
        type=float,
        default=900.0,
        help="--engines: seconds per row before it is stopped and recorded as timed out",
    )
    ap.add_argument(
        "--results",
        help="--engines: the JSON lines file rows are appended to and merged from (default DATA_PREFIX-engines.jsonl)",
    )
    ap.add_argument(
        "--table-only", action="store_true", help="--engines: print the table from --results, measure nothing"
    )
    ap.add_argument(
        "--connect-memory",
        help="--engines: the Connect server's driver memory (default: sized to the largest selected input)",
    )
    ap.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        return _run_child(a)
    sizes = [] if a.week_only else [*a.sizes, *([50_000_000] if a.big else [])]
    if a.prepare:
        for acks in sizes:
            _data(a.data_prefix, acks)
        _data(a.data_prefix, a.week_acks, 7 * 86400)
        return 0
    if a.sail_rows:
        rows = _sail_rows(a, sizes)
        print(f"\nmaster {a.master} (floor), load average {os.getloadavg()[0]:.1f}\n" + "\n".join(rows))
        return 0
    if a.engines:
        engines = _engines(a, sizes)
        print(
            f"\nmaster {a.master}, load average now {' '.join(f'{x:.1f}' for x in os.getloadavg())}\n"
            + "\n".join(engines)
        )
        return 0
    table = [
        "| events | input | jsops wall | duckdb wall | ratio | peak RSS JVM / Python | agreement | Spark jobs / stages | load |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for acks in sizes:
        print(f"{acks} acks ...", flush=True)
        json_dir, pq_dir = _data(a.data_prefix, acks)
        for fmt, d in (("JSON lines", json_dir), ("parquet", pq_dir)):
            if fmt.split()[0].lower() not in a.formats:
                continue
            wall, res = _child(["jsops", str(d)], opts=["--driver-memory", a.driver_memory or "1g"])
            dwall, duck = _child(["duckdb", str(d)])
            worst = _check(res["doc"], duck["rows"])
            table.append(
                f"| {res['events']} | {fmt} {_size_mib(d):.0f} MiB | {wall:.1f} s (job {res['job_s']:.1f}) | "
                f"{dwall:.1f} s | {wall / dwall:.1f} x | {res['jvm_rss_mib']:.0f} / {res['py_rss_mib']:.0f} MiB | "
                f"{worst:.1e} | {res['spark_jobs']} / {res['stages']} | {os.getloadavg()[0]:.1f} |"
            )
            print(table[-1], flush=True)
    table += [] if a.no_week else _week(a)
    print(f"\nmaster {a.master}, driver memory {a.driver_memory or '1g'}, load average {os.getloadavg()[0]:.1f}")
    print("\n".join(table))
    return 0


def _engines(a: argparse.Namespace, sizes: list[int]) -> list[str]:
    """Measure the selected rows (``--rows``) on the selected sets (``--sizes`` x ``--formats``), one at a
    time, each a fresh process timed whole, each appended as a record to ``--results`` as soon as it is
    measured; then the table of every set from the latest current records (earlier runs' rows merged:
    bench/engines_table.py). The warm Connect server is started only when a Connect row is selected, with
    ``--connect-memory`` (default sized to the largest selected input), and warmed once per row and format
    by an untimed run on the ``--warm-acks`` files; after a Connect row timed out it is restarted."""
    import engines_table as et

    results = Path(a.results or f"{a.data_prefix}-engines.jsonl")
    fmts = [f for f in ("json", "parquet") if f in a.formats]
    keys = {et.set_label(n, f): set_dir(a.data_prefix, n)[1] for n in sizes for f in fmts}
    if not a.table_only:
        plan = [(n, f) for n in sizes for f in fmts]
        inputs = {(n, f): _data(a.data_prefix, n)[0 if f == "json" else 1] for n, f in plan}
        memory = a.connect_memory or f"{et.connect_memory_gib(max(sizes))}g"
        with _ConnectServer(a, memory) as server:
            for n, f in plan:
                for row in (r for r in et.ROWS if r in a.rows):
                    rec = _measure(a, row, inputs[(n, f)], server, f, a.driver_memory or f"{et.local_memory_gib(n)}g")
                    rec.update(set=et.set_label(n, f), key=keys[et.set_label(n, f)], size_mib=_size_mib(inputs[(n, f)]))
                    rec.update(
                        connect_memory=memory if row in et.CONNECT_ROWS else None, commit=_commit(), at=time.time()
                    )
                    with results.open("a") as out:
                        out.write(json.dumps(rec) + "\n")
                    print(f"  {rec['set']:<12} {row:<14} {et.cell(rec):<28} load {rec['load'][0]:.1f}", flush=True)
    print(f"\nresults: {results}")
    return et.render(et.load_records(results), keys, list(keys))


def _measure(
    a: argparse.Namespace, row: str, path: Path, server: _ConnectServer, fmt: str, memory: str
) -> dict[str, Any]:
    """One row on one input, as a record (see bench/engines_table.py): wall and job time, jobs and
    stages, load before and after, the figures' digest and ack figures, or the timeout or failure."""
    import hashlib

    local = row in ("floor", "jsops")
    rec: dict[str, Any] = {"row": row, "load_before": os.getloadavg(), "driver_memory": memory if local else None}
    argv = [{"duckdb": "duckdb", "floor": "floor", "jsops": "jsops"}.get(row, row), str(path)]
    try:
        if row in ("floor-connect", "jsops-connect"):
            argv.append(server.warm(row, fmt))
        wall, res = _child(argv, a.timeout, ["--driver-memory", memory] if local else [])
    except RowTimeout:
        rec["timed_out_s"] = a.timeout
        if row in ("floor-connect", "jsops-connect"):
            server.restart()  # its query may still be running
    except SystemExit as exc:
        rec["error"] = str(exc)[:4000]  # the exception lines come first
    else:
        rec.update(
            wall_s=wall,
            job_s=res.get("job_s"),
            events=res.get("events"),
            spark_jobs=res.get("spark_jobs"),
            stages=res.get("stages"),
        )
        if "rows" in res:
            rec["duck_rows"] = res["rows"]
        if "doc" in res:
            figures = {k: v for k, v in res["doc"].items() if k != "generated_at"}
            rec["figures_sha"] = hashlib.sha256(json.dumps(figures, sort_keys=True).encode()).hexdigest()
            rec["ack_figures"] = {k: v["ack_time_ns"] for k, v in figures["consumers"].items() if "ack_time_ns" in v}
    rec["load"] = os.getloadavg()
    rec["free_gib"] = _free_gib()
    return rec


class _ConnectServer:
    """The warm Spark Connect server of the Connect rows: started on first use, warmed once per row and
    format, restartable, stopped at the end."""

    def __init__(self, a: argparse.Namespace, memory: str) -> None:
        self.a, self.memory = a, memory
        self.stack: Any = None
        self.url: str | None = None
        self.warmed: set[tuple[str, str]] = set()

    def __enter__(self) -> _ConnectServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        if self.stack is not None:
            self.stack.close()
        self.stack, self.url = None, None
        self.warmed.clear()

    def restart(self) -> None:
        self.stop()

    def warm(self, row: str, fmt: str) -> str:
        """The server's URL, after an untimed run of ``row`` on the ``--warm-acks`` files of ``fmt``."""
        import contextlib
        import tempfile

        if self.url is None:
            sys.path.insert(0, str(ROOT))
            from tests.profiler.connect_server import connect_server

            self.stack = contextlib.ExitStack()
            d = self.stack.enter_context(tempfile.TemporaryDirectory(prefix="jsops-bench-connect-"))
            conf = ["--conf", "spark.sql.shuffle.partitions=4"]
            self.url = self.stack.enter_context(connect_server(Path(d), self.a.master, conf, driver_memory=self.memory))
            print(f"  Connect server {self.url}, driver memory {self.memory}", flush=True)
        if (row, fmt) not in self.warmed:
            warm_json, warm_pq = _data(self.a.data_prefix, self.a.warm_acks)
            _child([row, str(warm_pq if fmt == "parquet" else warm_json), self.url], self.a.timeout)
            self.warmed.add((row, fmt))
        return self.url


def _commit() -> str:
    """The code measured: HEAD's short hash, ``+dirty`` with uncommitted changes."""
    head = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT
    ).stdout.strip()
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True, cwd=ROOT
    ).stdout.strip()
    return head + ("+dirty" if dirty else "")


def _sail_rows(a: argparse.Namespace, sizes: list[int]) -> list[str]:
    """Per size and format: DuckDB, the whole ``jsops profile --engine sail`` command (interpreter, Sail
    server start and stop, client, queries, writing the profile), and the Spark floor cold in local mode;
    jsops's figures checked against DuckDB's. Each a fresh process, whole wall time, run once."""
    import tempfile

    table = [
        "| events | input | duckdb | jsops profile --engine sail | Sail/duckdb | floor cold (Spark) | Sail/floor | worst rel. diff to duckdb | load | free GiB |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for acks in sizes:
        json_dir, pq_dir = _data(a.data_prefix, acks)
        for fmt, path in (("JSON lines", json_dir), ("parquet", pq_dir)):
            if fmt.split()[0].lower() not in a.formats:
                continue
            duck, drows = _child(["duckdb", str(path)])
            with tempfile.TemporaryDirectory(prefix="jsops-bench-sail-") as d:
                out = Path(d) / "profiles.json"
                t = time.perf_counter()
                r = subprocess.run(
                    [
                        sys.executable,
                        "-m",
                        "jsops.linter.cli.app",
                        "profile",
                        str(path),
                        "--engine",
                        "sail",
                        "-q",
                        "-o",
                        str(out),
                    ],
                    capture_output=True,
                    text=True,
                    cwd=ROOT,
                    env={**os.environ, "PYTHONPATH": str(ROOT)},
                )
                sail = time.perf_counter() - t
                if r.returncode != 0:
                    raise SystemExit(f"jsops profile --engine sail failed (exit {r.returncode}):\n{r.stderr[-3000:]}")
                worst = _check(json.loads(out.read_text()), drows["rows"])
            floor, _ = _child(["floor", str(path)])
            table.append(
                f"| {acks} acks | {fmt} {_size_mib(path):.0f} MiB | {duck:.1f} s | {sail:.1f} s | {sail / duck:.1f} x | {floor:.1f} s | "
                f"{sail / floor:.2f} x | {worst:.1e} | {os.getloadavg()[0]:.1f} | {_free_gib():.0f} |"
            )
            print(table[-1], flush=True)
    return table


def _free_gib() -> float:
    """MemAvailable, GiB (the machine is shared: the bench reports what was left)."""
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) / 2**20
    return float("nan")


if __name__ == "__main__":
    sys.exit(main())
