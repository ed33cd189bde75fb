"""``jsops profile``: the command line of the PySpark profile job (the computation is in
:mod:`jsops.profiler.compute`, imported only once the arguments are checked, so that ``jsops profile --help``
and the missing-pyspark message need no Spark).

Runs in-process (``jsops profile TELEMETRY -o profiles.json --master local[*]``) or under spark-submit::

    spark-submit --master spark://host:7077 --py-files jsops-profile.zip jsops_profile_main.py TELEMETRY -o p.json

(``jsops profile ... --print-submit-command`` writes that bundle and prints the exact command, see
:mod:`jsops.profiler.submit` and docs/profiler.md). The job uses only
Spark SQL (no Python UDFs, no Python-side tables), so executors start no Python worker at all.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if __package__ in (None, ""):  # spark-submit profiler/job.py: make the package importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from jsops.linter import install_hint  # after the sys.path fix above
from jsops.profiler.engine import CONNECT_HINT, SAIL_HINT
from jsops.profiler.errors import ProfilerError
from jsops.profiler.inputs import check_paths, shuffle_partitions
from jsops.profiler.job_args import check_args, conf_pairs, job_args, parser

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from jsops.profiler.compute import ProfileSummary
    from jsops.profiler.engine import Engine

__all__ = ["main", "build_profiles", "make_session", "INSTALL_HINT"]  # noqa: F822 (lazy, see __getattr__)

INSTALL_HINT = f"jsops profile needs PySpark, the spark extra: {install_hint('spark')} (and Java 17+ on the PATH)"


_LAZY = {"build_profiles": "compute", "ProfileSummary": "compute", "make_session": "session", "EVENT_SCHEMA": "events"}


def __getattr__(name: str) -> object:  # build_profiles, make_session, ... without importing pyspark early
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f"jsops.profiler.{_LAZY[name]}"), name)
    raise AttributeError(name)


def _print_submit_command(args: argparse.Namespace, conf: dict[str, str]) -> int:
    import tempfile

    from jsops.profiler.submit import SubmitError, build_bundle, render_command, submit_command

    directory = Path(args.bundle_dir or Path(tempfile.gettempdir()) / "jsops-profile-bundle")
    if args.driver_host:
        conf = {**conf, "spark.driver.host": args.driver_host}
    try:
        env, argv = submit_command(
            build_bundle(directory), job_args(args), master=args.master, driver_memory=args.driver_memory, conf=conf
        )
    except SubmitError as exc:
        print(f"jsops profile: error: {exc}", file=sys.stderr)
        return 2
    print(render_command(env, argv))
    return 0


def _remote_only() -> bool:
    """The installed pyspark is the Spark Connect client alone (``pyspark-client``: no JVM side)."""
    try:
        from pyspark.util import is_remote_only  # PySpark 4.0+
    except ImportError:
        return False
    return bool(is_remote_only())


def _have_pyspark() -> bool:
    return importlib.util.find_spec("pyspark") is not None


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"


def _failure(exc: BaseException) -> str:
    """One line for a failed job: the innermost Java cause of a Py4J error (not the Py4J wrapper)."""
    java = getattr(exc, "java_exception", None)
    if java is None:
        return _first_line(exc)
    try:
        while java.getCause() is not None:
            java = java.getCause()
        text = str(java.toString()).strip().splitlines()
    except Exception:  # the JVM is gone
        return _first_line(exc)
    return text[0][:300] if text else _first_line(exc)


def _stderr_writer(spark: SparkSession | None, under_submit: bool) -> Callable[[str], None]:
    """Where messages go. Under spark-submit the Python process's stderr is merged into its stdout (the
    JVM reads both as one stream), so messages go to the JVM's own stderr and ``-o -`` stays JSON."""
    gateway = spark.sparkContext._jvm if under_submit and spark is not None else None
    if gateway is not None:
        err = gateway.System.err

        def jvm(line: str) -> None:
            err.println(line)
            err.flush()

        return jvm

    def py(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    return py


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``jsops profile`` and of ``spark-submit profiler/job.py``. Returns the exit code
    (the command runs under :func:`jsops.linter.cli.kit.run`: one line on stderr, never a traceback)."""
    from jsops.linter.cli.kit import run
    from jsops.linter.errors import LinterError
    from jsops.profiler.errors import ProfilerError

    return run(_main, argv, prog="jsops profile", errors=(LinterError, ProfilerError))


def _main(argv: list[str]) -> int:
    args = parser(None if _have_pyspark() else INSTALL_HINT).parse_args(argv)
    problem = check_args(args)
    if problem:
        print(f"jsops profile: error: {problem}", file=sys.stderr)
        return 2
    conf = conf_pairs(args.conf)
    if isinstance(conf, str):
        print(f"jsops profile: error: {conf}", file=sys.stderr)
        return 2
    if args.print_submit_command:
        if args.remote is not None or args.engine != "spark":
            print(
                "jsops profile: error: --print-submit-command is for spark-submit; with --remote or --engine the job runs from here",
                file=sys.stderr,
            )
            return 2
        return _print_submit_command(args, conf)
    problem = check_paths(args.telemetry)
    if problem:
        print(f"jsops profile: error: {problem}", file=sys.stderr)
        return 2
    from jsops.profiler.engine import EngineError, choose

    try:
        engine = choose(args.engine, args.remote, args.master)
        _check_engine_args(args, engine)
    except EngineError as exc:
        print(f"jsops profile: error: {exc}", file=sys.stderr)
        return 2
    try:
        return _run(args, conf, engine)
    except EngineError as exc:
        print(f"jsops profile: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("jsops profile: interrupted; nothing written", file=sys.stderr)
        return 130


def _check_engine_args(args: argparse.Namespace, engine: Engine) -> None:
    """Options that go only with a Spark jsops starts, and the PySpark the engine needs."""
    from jsops.profiler.engine import EngineError

    if engine.connect and (args.driver_memory or args.driver_host):
        raise EngineError(
            "--driver-memory and --driver-host are for a Spark jsops starts; a Spark Connect server has its own driver"
        )
    if not _have_pyspark():  # say the extra of the engine asked for
        if engine.name == "sail":
            raise EngineError(f"--engine sail needs Sail and the Spark Connect client: {SAIL_HINT}")
        if engine.connect:
            raise EngineError(f"--remote (or SPARK_REMOTE) needs the Spark Connect client: {CONNECT_HINT}")
        raise EngineError(INSTALL_HINT)
    if not engine.connect and _remote_only():
        raise EngineError(
            "the installed PySpark is the Spark Connect client only: give --remote sc://HOST:PORT "
            f"(or SPARK_REMOTE), or --engine sail, or install the spark extra for local Spark: {install_hint('spark')}"
        )


def _run(args: argparse.Namespace, conf: dict[str, str], engine: Engine) -> int:
    if engine.name == "sail":
        from jsops.profiler.connect import preload
        from jsops.profiler.engine import SAIL_FALLBACK
        from jsops.profiler.sail import SailServer

        if not args.quiet:  # a store's windows keep histograms: no percentile_approx there
            note = f"; {SAIL_FALLBACK}" if args.store is None and args.compact is None else ""
            print(f"jsops profile: starting Sail{note}", file=sys.stderr, flush=True)
        with SailServer(prepare=preload) as url:  # the client's imports while the server starts
            return _run_connect(args, conf, url, check=False)
    if engine.remote is not None:  # Spark Connect (Sail, the other connected engine, is above)
        return _run_connect(args, conf, engine.remote, check=True)
    return _run_classic(args, conf)


def _run_connect(args: argparse.Namespace, conf: dict[str, str], url: str, *, check: bool) -> int:
    from jsops.profiler.connect import open_session

    with warnings.catch_warnings():  # the Connect client's FutureWarnings and retry notes are not jsops's output
        warnings.simplefilter("ignore")
        spark = open_session(
            url,
            shuffle_partitions=shuffle_partitions(args.telemetry),
            extra_conf=conf,
            check=check,
            checkpoint=args.engine == "sail",
        )
        try:
            return _work(spark, args, _stderr_writer(None, False), exact=args.engine == "sail", connect=True)
        finally:
            spark.stop()  # ends this client's session; the server keeps running


def _run_classic(args: argparse.Namespace, conf: dict[str, str]) -> int:
    from pyspark.sql import SparkSession

    from jsops.profiler import session

    under_submit = "PYSPARK_GATEWAY_PORT" in os.environ and args.master is None
    existing = SparkSession.getActiveSession()
    if not args.quiet and existing is None and not under_submit:
        print(f"jsops profile: starting Spark ({args.master or 'local[*]'})", file=sys.stderr, flush=True)
    try:
        spark = existing or session.make_session(
            None if under_submit else (args.master or "local[*]"),
            args.driver_memory,
            driver_host=args.driver_host,
            extra_conf=conf,
            shuffle_partitions=shuffle_partitions(args.telemetry),
        )
    except Exception as exc:  # no Java, bad master URL, ...
        print(f"jsops profile: error: cannot start Spark: {_first_line(exc)}", file=sys.stderr)
        return 1
    if under_submit:
        session.configure(spark)
    try:
        return _work(spark, args, _stderr_writer(spark, under_submit))
    finally:
        if existing is None and not under_submit:
            spark.stop()


def _work(
    spark: SparkSession,
    args: argparse.Namespace,
    say: Callable[[str], None],
    exact: bool = False,
    connect: bool = False,
) -> int:
    """One job with ``spark``, or with ``--every`` one every DURATION on the same session until stopped."""
    if args.every is None:
        return _job(spark, args, say, exact)
    from jsops.profiler.engine import choose
    from jsops.profiler.every import serve, session_label

    what = "Sail" if args.engine == "sail" else choose(args.engine, args.remote, args.master).describe()
    if what == "Spark":
        what += f" {spark.conf.get('spark.master', None) or args.master or 'local[*]'}"
    label = session_label(spark, what, connect)
    return serve(
        spark,
        lambda: _job(spark, args, say, exact),
        args.every,
        Path(args.store),
        lambda line: say(f"jsops profile: {line}"),
        label,
        metrics=getattr(args, "metrics", None),
    )


def _job(spark: SparkSession, args: argparse.Namespace, say: Callable[[str], None], exact: bool = False) -> int:
    """Compact or profile with ``spark``, write the output, say what was done. ``exact``: every
    percentile by the exact ``percentile`` (see :mod:`jsops.profiler.engine`)."""
    progress = None if args.quiet else (lambda line: say(f"jsops profile: {line}"))
    started = time.monotonic()
    try:
        if args.compact is not None:
            from jsops.profiler.events import compact

            counts = compact(spark, args.telemetry, args.compact)
            if not args.quiet:
                say(
                    f"jsops profile: compacted {sum(counts.values()) - counts['untimed']} events into {args.compact} "
                    f"({counts['untimed']} without a timestamp skipped) in {time.monotonic() - started:.1f} s"
                )
            return 0
        doc, summary = _profiles(spark, args, progress, exact)
    except ProfilerError as exc:
        say(f"jsops profile: error: {exc}")
        return 2
    except Exception as exc:
        from jsops.profiler.inputs import broken_input

        broken = broken_input(args.telemetry)  # name the file Spark could not read, when one is broken
        if broken:
            say(f"jsops profile: error: {broken}")
            return 2
        say(f"jsops profile: error: {_failure(exc)}")
        return 1
    outliers = summary.outlier_warning()
    if outliers:
        say(f"jsops profile: warning: {outliers}")
    if not summary.kinds and not summary.windows:
        say(
            f"jsops profile: warning: no telemetry events in {', '.join(args.telemetry)} (record some with `jsops collect`); the profiles are empty"
        )
    if not _write(doc, args.output, say):
        return 2
    if not args.quiet:
        say(
            f"jsops profile: {summary.render()}; wrote {len(doc['streams'])} streams and "
            f"{len(doc['consumers'])} consumers to {args.output} in {time.monotonic() - started:.1f} s"
        )
    return 0


def _profiles(
    spark: SparkSession, args: argparse.Namespace, progress: Callable[[str], None] | None, exact: bool = False
) -> tuple[dict[str, Any], ProfileSummary]:
    from jsops.profiler import compute

    if args.store is None:
        return compute.build_profiles(
            spark,
            args.telemetry,
            accuracy=args.accuracy,
            exact_limit=args.exact_limit,
            progress=progress,
            since=args.since_us,
            until=args.until_us,
            exact_percentiles=exact,
        )
    from jsops.profiler.incremental import build_store_profiles
    from jsops.profiler.partial import DEFAULT_ALPHA, DEFAULT_EXACT_VALUES, Partial

    template = Partial(
        0,
        0,
        args.relative_error or DEFAULT_ALPHA,
        DEFAULT_EXACT_VALUES if args.exact_values is None else args.exact_values,
        args.retry_reach * 1_000_000,
    )
    return build_store_profiles(
        spark, args.telemetry, Path(args.store), template, since=args.since_us, until=args.until_us, progress=progress
    )


def _write(doc: dict[str, Any], output: str, say: Callable[[str], None]) -> bool:
    text = json.dumps(doc, indent=2) + "\n"
    if output == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return True
    out = Path(output)
    try:
        tmp = out.with_name(out.name + ".tmp")
        tmp.write_text(text)
        tmp.replace(out)
    except OSError as exc:
        say(f"jsops profile: error: cannot write {out}: {exc.strerror or exc}")
        return False
    return True


if __name__ == "__main__":  # spark-submit profiler/job.py ...
    sys.exit(main())
