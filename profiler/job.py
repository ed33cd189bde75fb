"""``jsops profile``: the command line of the PySpark profile job (the computation is in
:mod:`profiler.compute`, imported only once the arguments are checked, so that ``jsops profile --help``
and the missing-pyspark message need no Spark).

Runs in-process (``jsops profile TELEMETRY -o profiles.json --master local[*]``) or under spark-submit::

    spark-submit --master spark://host:7077 --py-files jsops-profile.zip profiler/job.py TELEMETRY -o p.json

(``python -m profiler.submit`` builds the zip and runs that; see docs/profiler.md). The job uses only
Spark SQL (no Python UDFs, no Python-side tables), so executors start no Python worker at all.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

if __package__ in (None, ""):  # spark-submit profiler/job.py: make the package importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from profiler.inputs import check_paths  # noqa: E402 (after the sys.path fix above)

__all__ = ["main", "build_profiles", "make_session", "INSTALL_HINT"]  # noqa: F822 (lazy, see __getattr__)

MIN_ACCURACY = 10_000
DEFAULT_EXACT_LIMIT = 50_000_000
INSTALL_HINT = "jsops profile needs PySpark: pip install 'jsops[spark]' (and Java 17+ on the PATH)"


_LAZY = {"build_profiles": "compute", "ProfileSummary": "compute", "make_session": "session",
         "EVENT_SCHEMA": "events"}


def __getattr__(name: str) -> Any:  # build_profiles, make_session, ... without importing pyspark early
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f"profiler.{_LAZY[name]}"), name)
    raise AttributeError(name)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(2, f"jsops profile: error: {message}\n")


def _parser() -> argparse.ArgumentParser:
    epilog = None if _have_pyspark() else INSTALL_HINT
    p = _Parser(prog="jsops profile", description="Compute latency and throughput profiles from telemetry.",
                epilog=epilog)
    p.add_argument("telemetry", nargs="+", metavar="TELEMETRY",
                   help="directories or files of JSON lines (.jsonl, .jsonl.gz) or Parquet; any URI Spark reads")
    p.add_argument("-o", "--output", required=True, help="profiles JSON file to write ('-' for stdout)")
    p.add_argument("--master", default=None,
                   help="Spark master (default local[*]; under spark-submit, the one spark-submit was given)")
    p.add_argument("--driver-host", default=None,
                   help="address executors use to reach this driver (non-local masters; default: Spark's choice)")
    p.add_argument("--accuracy", type=int, default=MIN_ACCURACY,
                   help=f"percentile_approx accuracy for large groups, at least {MIN_ACCURACY}")
    p.add_argument("--exact-limit", type=int, default=DEFAULT_EXACT_LIMIT,
                   help="largest group whose percentiles are computed exactly (default %(default)s)")
    p.add_argument("--driver-memory", default=None, help="e.g. 2g (only when jsops starts Spark)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress or summary on stderr")
    return p


def _have_pyspark() -> bool:
    return importlib.util.find_spec("pyspark") is not None


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"


def _stderr_writer(spark: Any, under_submit: bool) -> Callable[[str], None]:
    """Where messages go. Under spark-submit the Python process's stderr is merged into its stdout (the
    JVM reads both as one stream), so messages go to the JVM's own stderr and ``-o -`` stays JSON."""
    if under_submit and spark is not None:
        err = spark.sparkContext._jvm.System.err  # noqa: SLF001

        def jvm(line: str) -> None:
            err.println(line)
            err.flush()

        return jvm

    def py(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    return py


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``jsops profile`` and of ``spark-submit profiler/job.py``. Returns the exit code."""
    args = _parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    if args.accuracy < MIN_ACCURACY:
        print(f"jsops profile: error: --accuracy must be at least {MIN_ACCURACY}", file=sys.stderr)
        return 2
    if args.exact_limit < 0:
        print("jsops profile: error: --exact-limit must not be negative", file=sys.stderr)
        return 2
    problem = check_paths(args.telemetry)
    if problem:
        print(f"jsops profile: error: {problem}", file=sys.stderr)
        return 2
    if not _have_pyspark():
        print(f"jsops profile: error: {INSTALL_HINT}", file=sys.stderr)
        return 2
    try:
        return _run(args)
    except KeyboardInterrupt:
        print("jsops profile: interrupted; nothing written", file=sys.stderr)
        return 130


def _run(args: argparse.Namespace) -> int:
    from pyspark.sql import SparkSession

    from profiler import compute, session

    under_submit = "PYSPARK_GATEWAY_PORT" in os.environ and args.master is None
    existing = SparkSession.getActiveSession()
    if not args.quiet and existing is None and not under_submit:
        print(f"jsops profile: starting Spark ({args.master or 'local[*]'})", file=sys.stderr, flush=True)
    try:
        spark = existing or session.make_session(None if under_submit else (args.master or "local[*]"),
                                                 args.driver_memory, driver_host=args.driver_host)
    except Exception as exc:  # no Java, bad master URL, ...
        print(f"jsops profile: error: cannot start Spark: {_first_line(exc)}", file=sys.stderr)
        return 1
    if under_submit:
        session.configure(spark)
    say = _stderr_writer(spark, under_submit)
    progress = None if args.quiet else (lambda line: say(f"jsops profile: {line}"))
    started = time.monotonic()
    try:
        doc, summary = compute.build_profiles(spark, args.telemetry, accuracy=args.accuracy,
                                              exact_limit=args.exact_limit, progress=progress)
    except Exception as exc:
        say(f"jsops profile: error: {_first_line(exc)}")
        return 1
    finally:
        if existing is None and not under_submit:
            spark.stop()
    if not summary.kinds:
        say(f"jsops profile: warning: no telemetry events in {', '.join(args.telemetry)} "
            "(record some with `jsops collect`); the profiles are empty")
    text = json.dumps(doc, indent=2) + "\n"
    if args.output == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        out = Path(args.output)
        try:
            tmp = out.with_name(out.name + ".tmp")
            tmp.write_text(text)
            tmp.replace(out)
        except OSError as exc:
            say(f"jsops profile: error: cannot write {out}: {exc.strerror or exc}")
            return 2
    if not args.quiet:
        say(f"jsops profile: {summary.render()}; wrote {len(doc['streams'])} streams and "
            f"{len(doc['consumers'])} consumers to {args.output} in {time.monotonic() - started:.1f} s")
    return 0


if __name__ == "__main__":  # spark-submit profiler/job.py ...
    sys.exit(main())
