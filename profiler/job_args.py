"""``jsops profile``'s command line: its options (:func:`parser`), the checks of what they say together
(:func:`check_args`, :func:`conf_pairs`) and the arguments it passes on under spark-submit (:func:`job_args`).
Imports no Spark: ``jsops profile --help`` and the argument errors need none.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from jsops.profiler.engine import CONNECT_HINT, SAIL_HINT
from jsops.profiler.precision import DEFAULT_EXACT_LIMIT, MIN_ACCURACY

__all__ = ["check_args", "conf_pairs", "job_args", "parser"]


def parser(epilog: str | None) -> argparse.ArgumentParser:
    """The options of ``jsops profile`` in their help order; ``epilog`` ends the help (the install hint)."""
    from jsops.linter.cli.kit import Parser

    p = Parser(
        prog="jsops profile", description="Compute latency and throughput profiles from telemetry.", epilog=epilog
    )
    p.add_argument(
        "telemetry",
        nargs="+",
        metavar="TELEMETRY",
        help="directories or files of JSON lines (.jsonl, .jsonl.gz) or Parquet; any URI Spark reads",
    )
    p.add_argument("-o", "--output", help="profiles JSON file to write ('-' for stdout); required unless --compact")
    _engine_options(p)
    _figure_options(p)
    _spark_options(p)
    _window_options(p.add_argument_group("time windows, profile store and compaction (docs/profiler.md)"))
    p.add_argument("-q", "--quiet", action="store_true", help="no progress or summary on stderr")
    return p


def _engine_options(p: argparse.ArgumentParser) -> None:
    """Where the job runs: a Spark master, a Spark Connect server or a local Sail, and the driver's address."""
    p.add_argument(
        "--master",
        default=None,
        help="Spark master (default local[*]; under spark-submit, the one spark-submit was given)",
    )
    p.add_argument(
        "--remote",
        default=None,
        metavar="sc://HOST:PORT",
        help=f"run on a Spark Connect server (default: $SPARK_REMOTE when --master is not given); the thin client is enough: {CONNECT_HINT}",
    )
    p.add_argument(
        "--engine",
        default="spark",
        choices=("spark", "sail"),
        help=f"spark (default), or sail: start a local Sail server ({SAIL_HINT}; no JVM) for this run and stop it after",
    )
    p.add_argument(
        "--driver-host",
        default=None,
        help="address executors use to reach this driver (non-local masters; default: Spark's choice)",
    )


def _figure_options(p: argparse.ArgumentParser) -> None:
    """How the percentiles are computed: the approximation's accuracy and the largest exact group."""
    p.add_argument(
        "--accuracy",
        type=int,
        default=MIN_ACCURACY,
        help=f"percentile_approx accuracy for large groups, at least {MIN_ACCURACY}",
    )
    p.add_argument(
        "--exact-limit",
        type=int,
        default=DEFAULT_EXACT_LIMIT,
        help="largest group whose percentiles are computed exactly (default %(default)s)",
    )


def _spark_options(p: argparse.ArgumentParser) -> None:
    """Spark's own settings, and the spark-submit bundle instead of a run."""
    p.add_argument("--driver-memory", default=None, help="e.g. 2g (only when jsops starts Spark)")
    p.add_argument(
        "--conf",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a Spark setting, e.g. spark.executor.memory=2g (repeatable)",
    )
    p.add_argument(
        "--print-submit-command",
        action="store_true",
        help="do not run: write the spark-submit bundle (--bundle-dir) and print the command that "
        "submits this job with it (SPARK_HOME set; see docs/profiler.md)",
    )
    p.add_argument(
        "--bundle-dir",
        default=None,
        help="where --print-submit-command writes the bundle (default: a jsops-profile-bundle directory in the system's temporary directory)",
    )


def _window_options(w: argparse._ArgumentGroup) -> None:
    """The time windows, the profile store and its loop, and compaction."""
    w.add_argument(
        "--since",
        default=None,
        metavar="TIME",
        help="only events at or after TIME (a date or RFC 3339 time, UTC unless an offset is given)",
    )
    w.add_argument("--until", default=None, metavar="TIME", help="only events before TIME")
    w.add_argument(
        "--store",
        default=None,
        metavar="DIR",
        help="a profile store: compute the hourly windows DIR lacks, keep the closed ones there, and "
        "write the profile merged from every window in [--since, --until)",
    )
    w.add_argument(
        "--relative-error",
        type=float,
        default=None,
        metavar="A",
        help="with --store: relative error of the log-bucketed percentiles of groups too large to keep exact (default 0.005)",
    )
    w.add_argument(
        "--exact-values",
        type=int,
        default=None,
        metavar="N",
        help="with --store: groups of at most N samples keep exact values (default 100000)",
    )
    w.add_argument(
        "--retry-reach",
        type=int,
        default=900,
        metavar="SECONDS",
        help="with --store: a msg_id's attempts across window edges join if within this many seconds",
    )
    w.add_argument(
        "--every",
        type=_every_type,
        default=None,
        metavar="DURATION",
        help="with --store: keep one session open and run again every DURATION (e.g. 1h, 15m) until stopped (Ctrl-C, SIGTERM), "
        "extending the store and rewriting -o each time, with a health line per run",
    )
    w.add_argument(
        "--metrics-addr",
        default=None,
        metavar="HOST:PORT",
        help="with --every: serve the loop's health as Prometheus metrics at http://HOST:PORT/metrics (port 0: a free one, said on stderr)",
    )
    w.add_argument(
        "--compact",
        default=None,
        metavar="OUT",
        help="do not profile: write the telemetry as Parquet partitioned by day=/hour= under OUT (local or any URI Spark writes)",
    )


def _every_type(text: str) -> float:
    from jsops.linter.cli.kit import duration_type

    return duration_type(bare="s")(text)


def conf_pairs(pairs: Sequence[str]) -> dict[str, str] | str:
    """``--conf KEY=VALUE`` pairs as a dict, or the error message for the first malformed one."""
    out: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            return f"--conf {pair!r}: expected KEY=VALUE"
        out[key.strip()] = value
    return out


def _every_problem(args: argparse.Namespace) -> str | None:
    """The problem with ``--every`` and the options it goes with, or ``None``."""
    from jsops.profiler.every import MIN_EVERY_S

    if args.store is None or args.until is not None or args.compact is not None or args.output == "-":
        return "--every goes with --store and -o FILE, without --until and --compact (each run extends the store up to now)"
    if args.every < MIN_EVERY_S:
        return f"--every must be at least {MIN_EVERY_S:g} s"
    return None


def _metrics_problem(args: argparse.Namespace) -> str | None:
    """The problem with ``--metrics-addr``, or ``None`` (then ``args.metrics`` is its address)."""
    from jsops.profiler.metrics import parse_addr

    if args.every is None:
        return "--metrics-addr goes with --every (the loop's health)"
    try:
        args.metrics = parse_addr(args.metrics_addr)
    except ValueError as exc:
        return str(exc)
    return None


def _check_store_args(args: argparse.Namespace) -> str | None:
    """The first problem with -o, --since/--until and the store options, or ``None``."""
    from jsops.profiler.store import StoreError, parse_time

    if args.output is None and args.compact is None:
        return "the following arguments are required: -o/--output (or --compact OUT)"
    if args.store is None and (args.relative_error is not None or args.exact_values is not None):
        return "--relative-error and --exact-values go with --store"
    if args.relative_error is not None and not 0 < args.relative_error < 0.5:
        return "--relative-error must be between 0 and 0.5"
    if (args.exact_values or 0) < 0 or args.retry_reach < 0:
        return "--exact-values and --retry-reach must not be negative"
    problem = _every_problem(args) if args.every is not None else None
    if problem is None and args.metrics_addr is not None:
        problem = _metrics_problem(args)
    if problem is not None:
        return problem
    try:
        args.since_us = None if args.since is None else parse_time(args.since)
        args.until_us = None if args.until is None else parse_time(args.until)
    except StoreError as exc:
        return str(exc)
    if args.since_us is not None and args.until_us is not None and args.since_us >= args.until_us:
        return "--since must be before --until"
    return None


def job_args(args: argparse.Namespace) -> list[str]:
    """The arguments the job needs under spark-submit (Spark's own settings become spark-submit flags)."""
    out = [*args.telemetry, *(["-o", args.output] if args.output else [])]
    for flag in ("since", "until", "store", "relative_error", "exact_values", "compact"):
        if getattr(args, flag) is not None:
            out += [f"--{flag.replace('_', '-')}", str(getattr(args, flag))]
    if args.every is not None:
        out += ["--every", f"{args.every:g}s"]
    if args.metrics_addr is not None:
        out += ["--metrics-addr", args.metrics_addr]
    if args.retry_reach != 900:
        out += ["--retry-reach", str(args.retry_reach)]
    if args.accuracy != MIN_ACCURACY:
        out += ["--accuracy", str(args.accuracy)]
    if args.exact_limit != DEFAULT_EXACT_LIMIT:
        out += ["--exact-limit", str(args.exact_limit)]
    if args.quiet:
        out.append("-q")
    return out


def check_args(args: argparse.Namespace) -> str | None:
    """The first problem with the figures' options (accuracy, exact limit) and :func:`_check_store_args`'s, or ``None``."""
    if args.accuracy < MIN_ACCURACY:
        return f"--accuracy must be at least {MIN_ACCURACY}"
    if args.exact_limit < 0:
        return "--exact-limit must not be negative"
    return _check_store_args(args)
