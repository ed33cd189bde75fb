"""Where the time of ``jsops profile --engine sail`` goes, against DuckDB on the same file (issue 27).

    .venv/bin/python bench/sail_phases.py [DATA] [--runs 2]

DATA defaults to the 10M-event Parquet of ``bench/profile_speed.py`` (``/tmp/jsops-bench-10000000-3600-KEY/parquet``, KEY the set's key;
run ``bench/profile_speed.py --prepare`` first). Per run, each a fresh process timed from outside:

* ``duckdb``: ``bench/profile_speed.py``'s DuckDB child (the same per-consumer ack figures);
* ``jsops profile --engine sail``: the whole command, as a user runs it;
* a phases child doing what that command does, with a clock between the steps: the interpreter and
  jsops's imports, the Sail server start (``serial``: waited for, then the Connect client's imports;
  ``overlap``: the imports while the server starts, as ``jsops profile`` does), the session, each
  query pass (as ``build_profiles`` reports them), writing the profile, stopping the session and the
  server, and the interpreter's exit (outside wall minus the last clock).

The machine is shared: the load average is printed with each row; compare rows of one run only.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from profile_speed import set_dir

ROOT = Path(__file__).resolve().parents[1]
_ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def _phases_child(data: str, mode: str) -> int:
    t0 = time.perf_counter()
    marks: list[tuple[str, float]] = []

    def mark(what: str) -> None:
        marks.append((what, time.perf_counter()))

    import warnings

    from jsops.profiler import job  # noqa: F401  (the command's own module, as `jsops profile` loads it)
    from jsops.profiler.connect import open_session, preload
    from jsops.profiler.inputs import shuffle_partitions
    from jsops.profiler.sail import SailServer

    mark("jsops imports")
    server = SailServer(prepare=preload if mode == "overlap" else None)
    url = server.__enter__()
    mark("Sail start + client imports" if mode == "overlap" else "Sail start")
    if mode == "serial":
        preload()
        mark("client imports")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        spark = open_session(url, shuffle_partitions=shuffle_partitions([data]), extra_conf={}, check=False)
        mark("session")
        from jsops.profiler import compute

        mark("query module import")
        doc, _ = compute.build_profiles(
            spark, [data], exact_percentiles=True, progress=lambda line: mark("  query: " + line)
        )
        mark("queries left (validation)")
        out = Path(tempfile.gettempdir()) / "jsops-sail-phases.json"
        out.write_text(json.dumps(doc, indent=2) + "\n")
        mark("write the profile")
        spark.stop()
        mark("stop the session")
    server.__exit__(None, None, None)
    mark("stop the server")
    rows, prev = [], t0
    for what, t in marks:
        rows.append([what, t - prev])
        prev = t
    print("RESULT " + json.dumps({"rows": rows, "inside_s": prev - t0}), flush=True)
    return 0


def _timed(argv: list[str]) -> tuple[float, str]:
    t = time.perf_counter()
    r = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT, env=_ENV)
    wall = time.perf_counter() - t
    if r.returncode != 0:
        raise SystemExit(f"{argv} failed (exit {r.returncode}):\n{r.stderr[-3000:]}")
    return wall, r.stdout


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data", nargs="?", default=str(set_dir("/tmp/jsops-bench", 10_000_000)[2] / "parquet"))
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--child", choices=("serial", "overlap"), help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        return _phases_child(a.data, a.child)
    py = sys.executable
    for run in range(a.runs):
        duck, _ = _timed([py, str(ROOT / "bench" / "profile_speed.py"), "--child", "duckdb", a.data])
        whole, _ = _timed(
            [py, "-m", "jsops.linter.cli.app", "profile", a.data, "--engine", "sail", "-q", "-o", os.devnull]
        )
        print(
            f"run {run + 1}: duckdb {duck:.2f} s; jsops profile --engine sail {whole:.2f} s = {whole / duck:.1f} x duckdb; load {os.getloadavg()[0]:.1f}"
        )
        for mode in ("serial", "overlap"):
            wall, out = _timed([py, __file__, a.data, "--child", mode])
            res = json.loads(next(line for line in out.splitlines() if line.startswith("RESULT "))[7:])
            rows = [*res["rows"], ["interpreter start + exit (outside wall - inside)", wall - res["inside_s"]]]
            print(f"  phases ({mode}): wall {wall:.2f} s = {wall / duck:.1f} x duckdb; load {os.getloadavg()[0]:.1f}")
            for what, s in rows:
                print(f"    {what:58s} {s:6.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
