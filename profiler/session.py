"""The Spark session of the profile job: UTC, no UI, quiet start-up, loopback for local masters; or a
Spark Connect session (:func:`connect_session`) with the same SQL settings and nothing of the JVM.

Imported only when a job runs (it imports pyspark). ``extra_conf`` carries ``jsops profile --conf``.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path

from pyspark import StorageLevel
from pyspark.sql import DataFrame, SparkSession

__all__ = ["make_session", "connect_session", "configure", "keep"]

#: Spark Connect sessions (by session id) whose engine answers ``persist()`` and keeps nothing (Sail 0.7:
#: a persisted JSON input is parsed again by every pass); :func:`keep` uses an eager local checkpoint
#: there. The value: the server's local checkpoint directory when jsops made it (else None).
_CHECKPOINTING: dict[str, Path | None] = {}

#: spark.sql.adaptive.enabled of the job's sessions: off, whatever the number of shuffle partitions.
#: Adaptive execution runs every shuffle stage of a query as a Spark job of its own (a profile of four
#: queries became 21 jobs, 41 stages), and adds nothing this job needs: its joins are broadcast by hand,
#: every shuffle carries partial aggregates, and the partitions are sized by the input
#: (:func:`jsops.profiler.inputs.shuffle_partitions`, one per 256 MiB), so there are none to coalesce.
#: Off, each query is one job: 4 or 5 a profile (docs/profiler.md, Speed).
_ADAPTIVE = "false"


def make_session(
    master: str | None = "local[*]",
    driver_memory: str | None = None,
    shuffle_partitions: int = 4,
    driver_host: str | None = None,
    extra_conf: Mapping[str, str] | None = None,
) -> SparkSession:
    """A SparkSession configured for this job (UTC, no UI, quiet). ``master=None`` keeps spark-submit's.

    A local master keeps the driver on loopback; any other master leaves the driver's address to
    Spark (or ``driver_host``), since executors on other hosts must reach it. ``extra_conf`` is set
    last (``spark.executor.memory``, ``spark.cores.max``, ...).
    """
    local = master is not None and master.startswith("local")
    if local:
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")  # Spark must not pick a non-loopback interface
    b = SparkSession.builder.appName("jsops-profile")
    if master:
        b = b.master(master)
    host = driver_host or ("127.0.0.1" if local else None)
    if host:
        b = b.config("spark.driver.host", host)
    if local:
        b = b.config("spark.driver.bindAddress", "127.0.0.1")
    if driver_memory:
        b = b.config("spark.driver.memory", driver_memory)
    if master is not None:  # jsops starts the JVM: keep Spark's start-up log lines off stderr
        b = b.config("spark.driver.extraJavaOptions", f"-Dlog4j2.configurationFile={_quiet_log4j()}")
    b = (
        b.config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.log.level", "ERROR")
        .config("spark.sql.shuffle.partitions", str(shuffle_partitions))
        .config("spark.sql.adaptive.enabled", _ADAPTIVE)
        .config("spark.sql.session.timeZone", "UTC")
    )
    for key, value in (extra_conf or {}).items():
        b = b.config(key, value)
    spark = _quietly(b) if master is not None else b.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    configure(spark)
    return spark


def connect_session(
    url: str,
    shuffle_partitions: int = 4,
    extra_conf: Mapping[str, str] | None = None,
    *,
    checkpoint: bool = False,
    checkpoint_dir: str | None = None,
) -> SparkSession:
    """A Spark Connect session at ``url`` (``sc://HOST:PORT``) with the job's SQL settings. Only session
    settings can be set over Connect (the server's master, memory and log level are its own); a setting
    the server refuses fails here, before any work. ``checkpoint``: the engine ignores ``persist`` and
    has a checkpoint directory (jsops's Sail server), so :func:`keep` checkpoints instead;
    ``checkpoint_dir``: that directory, when local (a released checkpoint's files are removed there)."""
    spark: SparkSession = SparkSession.builder.remote(url).getOrCreate()
    if checkpoint:
        _CHECKPOINTING[str(getattr(spark, "session_id", ""))] = Path(checkpoint_dir) if checkpoint_dir else None
    try:
        configure(spark)
        spark.conf.set("spark.sql.shuffle.partitions", str(shuffle_partitions))
        spark.conf.set("spark.sql.adaptive.enabled", _ADAPTIVE)
        for key, value in (extra_conf or {}).items():
            spark.conf.set(key, value)
    except BaseException:
        _release(spark)
        raise
    return spark


def keep(df: DataFrame, level: StorageLevel = StorageLevel.DISK_ONLY) -> tuple[DataFrame, Callable[[], None]]:
    """``df`` computed once for the passes that follow, and the call that releases it: ``persist(level)``
    on Spark; an eager ``localCheckpoint`` on an engine that ignores ``persist`` (a session opened with
    ``checkpoint=True``: Sail). Sail keeps a checkpoint's files until its server stops, whatever the
    client releases, so where jsops knows the directory (its own server's), releasing removes the files
    this checkpoint wrote: a ``--every`` loop does not grow the disk run after run."""
    session_id = getattr(df.sparkSession, "session_id", None)
    if session_id is None or str(session_id) not in _CHECKPOINTING:
        kept = df.persist(level)

        def unpersist() -> None:
            kept.unpersist()

        return kept, unpersist
    root = _CHECKPOINTING[str(session_id)]
    before = _checkpoints(root)
    checkpointed = df.localCheckpoint(eager=True)
    made = _checkpoints(root) - before

    def remove() -> None:
        for path in made:
            shutil.rmtree(path, ignore_errors=True)

    return checkpointed, remove


def _checkpoints(root: Path | None) -> set[Path]:
    """The checkpoints under a Sail checkpoint directory (``SESSION/CHECKPOINT``)."""
    if root is None or not root.is_dir():
        return set()
    return {c for s in root.iterdir() if s.is_dir() for c in s.iterdir()}


def _release(spark: SparkSession) -> None:
    """Close a Connect session that failed half-way (its client threads would keep the process alive)."""
    try:
        spark.stop()
    except Exception:  # the first error is the one to report
        pass


def _quietly(builder: SparkSession.Builder) -> SparkSession:
    """Start the JVM with its stderr in a log file of its own: the JVM's and Spark's start-up lines
    (incubator modules, default log level, ...) stay out of jsops's output; errors still reach jsops
    as exceptions, and the file is named when the start fails."""
    fd, log = tempfile.mkstemp(prefix="jsops-profile-spark-", suffix=".log")
    sys.stderr.flush()
    saved = os.dup(2)
    os.dup2(fd, 2)
    try:
        spark: SparkSession = builder.getOrCreate()  # the JVM inherits fd 2 now, and keeps it
    except Exception as exc:
        raise RuntimeError(f"{exc} (Spark's log: {log})") from exc  # kept: the message names it
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(fd)
    # the JVM keeps writing to the file it inherited; unlinking removes its name, the space goes at exit
    Path(log).unlink(missing_ok=True)
    return spark


def configure(spark: SparkSession) -> None:
    """Session settings the job relies on (also applied to a session spark-submit made)."""
    spark.conf.set("spark.sql.session.timeZone", "UTC")
    # Parquet TIMESTAMP(NANOS) columns are read as integer ns (Spark's own type holds only microseconds)
    spark.conf.set("spark.sql.legacy.parquet.nanosAsLong", "true")


def _quiet_log4j() -> str:
    path = Path(tempfile.gettempdir()) / "jsops-profile-log4j2.properties"
    if not path.exists():
        path.write_text(
            "rootLogger.level = error\nrootLogger.appenderRef.stderr.ref = console\n"
            "appender.console.type = Console\nappender.console.name = console\n"
            "appender.console.target = SYSTEM_ERR\nappender.console.layout.type = PatternLayout\n"
            "appender.console.layout.pattern = %d{HH:mm:ss} %p %c{1}: %m%n\n"
        )
    return str(path)
