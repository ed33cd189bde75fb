"""``jsops profile``: the PySpark job turning contract §3 telemetry into contract §4 profiles.

Runs in-process (``jsops profile TELEMETRY -o profiles.json --master local[*]``) or under spark-submit::

    spark-submit --master local[2] profiler/job.py TELEMETRY -o profiles.json

The job uses only Spark SQL functions (no Python UDFs), so executors need no Python packages; the driver
needs ``profiler`` and ``linter.model.profiles`` (pydantic) importable.

How figures are computed (all times are read at microsecond precision, durations written as ns):

* ack_time percentiles per consumer, all as numpy's default (linear interpolation between closest
  ranks), exact for groups up to ``exact_limit`` (default 50M) by refinement: the census pass's
  ``percentile_approx`` (accuracy >= 10000) brackets each target rank, one more pass counts the samples
  below each bracket and the distinct values inside it (about 4.4, at most 6.4 n/accuracy), and the
  driver picks the exact ranks (a bracket that misses its ranks, possible below 100k samples, falls
  back to Spark's exact ``percentile``, which holds a group in memory). Groups above ``exact_limit``
  get ``percentile_approx`` alone, whose *rank* is within ``samples / accuracy`` of the target: at
  accuracy 10000 p99 lies between p98.99 and p99.01, p999 between p99.89 and p99.91.
* driver memory does not grow with the number of events: parsed events are cached on local disk (not
  in the heap); no per-event data reaches the driver (only per-stream/consumer results and brackets of
  at most 6.4 x exact_limit / accuracy values per quantile and group); Spark's in-memory exact
  percentile only ever holds a group of at most 100k values.
* deliveries from the ack samples' ``deliveries``; advisories counted per type (present only when some
  advisory for the consumer was captured); delivery rates from ConsumerInfo snapshots
  (``delivered.consumer_seq`` deltas over ``ts`` deltas; the peak is the highest snapshot-interval rate).
* stream ingest from publisher logs (``result: ok`` attempts) per second over the publisher-log window,
  every empty second counted as 0; peak per minute over UTC minutes. Without publisher logs, ingest
  messages and mean rate come from StreamInfo snapshots (``state.last_seq`` deltas).
* stored message size = sum(state.bytes) / sum(state.messages) over snapshots; retention span =
  ``last_ts - first_ts`` of the latest snapshot holding messages.
* publish retry horizon per msg_id with >= 2 attempts: last attempt ts - first attempt ts; p99 and max.
"""

from __future__ import annotations

import math
import os
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pyspark import StorageLevel
from pyspark.sql import Column, DataFrame, SparkSession, Window
from pyspark.sql import functions as F
from pyspark.sql import types as T

from linter.model.profiles import Profiles
from profiler.job import DEFAULT_EXACT_LIMIT, MIN_ACCURACY

__all__ = ["ProfileSummary", "build_profiles", "make_session", "EVENT_SCHEMA", "MIN_ACCURACY"]

ACK_TYPE = "io.nats.jetstream.metric.v1.consumer_ack"
ADVISORY_PREFIX = "io.nats.jetstream.advisory.v1."
PUBLISH_TYPE = "io.jsops.publish.v1"
GAP_TYPE = "io.jsops.collect.v1.gap"
# Groups of up to _EXACT_SMALL values get Spark's exact percentile (their distinct values in memory);
# larger ones up to the exact limit are refined from brackets of about 4.4 n/accuracy values each, so
# the default keeps a bracket under ~20k values (memory independent of the number of events).
_EXACT_SMALL = 100_000
QUANTILES = (0.5, 0.9, 0.99, 0.999)
_INPUT_GLOB = "*.{jsonl,jsonl.gz,json,json.gz}"
# The parsed events are cached on local disk, never in the JVM heap: a heap cache grows with the input
# until the driver runs out of memory (10M events do not fit a 1 GiB driver).
_CACHE_LEVEL = StorageLevel.DISK_ONLY

_L, _S = T.LongType(), T.StringType()
# Timestamps are read as strings and converted with try_to_timestamp: parsing them inside the JSON
# reader costs about three times the whole parse; an unparseable timestamp becomes null (no evidence).
_TS = _S


def _f(name: str, dtype: T.DataType) -> T.StructField:
    return T.StructField(name, dtype, True)


# One superset schema for every event kind: each line is parsed once; extra fields are ignored and
# missing ones are null. A line that is not a JSON object or has a wrongly typed field is a bad line.
EVENT_SCHEMA = T.StructType([
    _f("type", _S), _f("timestamp", _TS), _f("ts", _TS),
    # ack samples and advisories
    _f("stream", _S), _f("consumer", _S), _f("ack_time", _L), _f("deliveries", _L),
    # publisher attempt logs
    _f("msg_id", _S), _f("attempt", _L), _f("bytes", _L), _f("result", _S),
    # StreamInfo / ConsumerInfo snapshots
    _f("stream_name", _S), _f("name", _S),
    _f("config", T.StructType([_f("name", _S)])),
    _f("state", T.StructType([_f("messages", _L), _f("bytes", _L), _f("first_ts", _TS), _f("last_seq", _L),
                              _f("last_ts", _TS)])),
    _f("delivered", T.StructType([_f("consumer_seq", _L)])),
    _f("_corrupt", _S),
])


@dataclass
class ProfileSummary:
    """What the job read and skipped (printed on stderr by the CLI)."""

    kinds: dict[str, int] = field(default_factory=dict)
    unknown_types: dict[str, int] = field(default_factory=dict)
    exact_groups: int = 0
    approx_groups: int = 0

    @property
    def bad_lines(self) -> int:
        return self.kinds.get("bad", 0)

    @property
    def unknown(self) -> int:
        return self.kinds.get("unknown", 0)

    def render(self) -> str:
        read = sum(self.kinds.values())
        known = ", ".join(f"{k} {v}" for k, v in sorted(self.kinds.items()) if k not in ("bad", "unknown"))
        text = f"read {read} events ({known or 'none recognised'})"
        skipped = []
        if self.bad_lines:
            skipped.append(f"{self.bad_lines} bad lines")
        if self.unknown:
            top = ", ".join(f"{t} x{n}" for t, n in sorted(self.unknown_types.items(), key=lambda x: -x[1])[:5])
            skipped.append(f"{self.unknown} unknown events" + (f" ({top})" if top else ""))
        if skipped:
            text += "; skipped " + "; ".join(skipped)
        if self.exact_groups or self.approx_groups:
            text += (f"; ack_time percentiles exact for {self.exact_groups} consumers, approximate for "
                     f"{self.approx_groups}")
        return text


def make_session(master: str | None = "local[*]", driver_memory: str | None = None,
                 shuffle_partitions: int = 4, driver_host: str | None = None) -> SparkSession:
    """A SparkSession configured for this job (UTC, no UI, quiet). ``master=None`` keeps spark-submit's.

    A local master keeps the driver on loopback; any other master leaves the driver's address to
    Spark (or ``driver_host``), since executors on other hosts must reach it.
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
    b = (b.config("spark.ui.enabled", "false")
         .config("spark.ui.showConsoleProgress", "false")
         .config("spark.log.level", "ERROR")
         .config("spark.sql.shuffle.partitions", str(shuffle_partitions))
         .config("spark.sql.session.timeZone", "UTC"))
    spark = _quietly(b) if master is not None else b.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    configure(spark)
    return spark


def _quietly(builder: Any) -> SparkSession:
    """Start the JVM with its stderr in a log file of its own: the JVM's and Spark's start-up lines
    (incubator modules, default log level, ...) stay out of jsops's output; errors still reach jsops
    as exceptions, and the file is named when the start fails."""
    import tempfile

    fd, log = tempfile.mkstemp(prefix="jsops-profile-spark-", suffix=".log")
    sys.stderr.flush()
    saved = os.dup(2)
    os.dup2(fd, 2)
    try:
        return builder.getOrCreate()  # the JVM inherits fd 2 now, and keeps it
    except Exception as exc:
        raise RuntimeError(f"{exc} (Spark's log: {log})") from exc
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(fd)


def configure(spark: SparkSession) -> None:
    """Session settings the job relies on (also applied to a session spark-submit made)."""
    spark.conf.set("spark.sql.session.timeZone", "UTC")
    # Parquet TIMESTAMP(NANOS) columns are read as integer ns (Spark's own type holds only microseconds)
    spark.conf.set("spark.sql.legacy.parquet.nanosAsLong", "true")


def _quiet_log4j() -> str:
    import tempfile

    path = Path(tempfile.gettempdir()) / "jsops-profile-log4j2.properties"
    if not path.exists():
        path.write_text("rootLogger.level = error\nrootLogger.appenderRef.stderr.ref = console\n"
                        "appender.console.type = Console\nappender.console.name = console\n"
                        "appender.console.target = SYSTEM_ERR\nappender.console.layout.type = PatternLayout\n"
                        "appender.console.layout.pattern = %d{HH:mm:ss} %p %c{1}: %m%n\n")
    return str(path)


# ---------------------------------------------------------------------------------------------- reading


def _is_local(path: str) -> bool:
    return "://" not in path and not path.startswith("file:")


def _has(path: str, suffixes: tuple[str, ...]) -> bool:
    p = Path(path)
    if p.is_file():
        return p.name.endswith(suffixes)
    return any(f.name.endswith(suffixes) for f in p.rglob("*") if f.is_file())


_JSON_SUFFIXES = (".jsonl", ".jsonl.gz", ".json", ".json.gz")


def _read_json(spark: SparkSession, path: str) -> DataFrame:
    """Spark's own JSON reader with the explicit superset schema (no inference, no Python)."""
    return (spark.read.schema(EVENT_SCHEMA).option("mode", "PERMISSIVE")
            .option("columnNameOfCorruptRecord", "_corrupt").option("recursiveFileLookup", "true")
            .option("pathGlobFilter", _INPUT_GLOB).json(path))


def _read_parquet(spark: SparkSession, path: str) -> DataFrame | None:
    """Parquet as Parquet: typed columns as written (the schema comes from the files' footers, never from
    the data); ``None`` when there is no Parquet file under ``path``."""
    try:
        return (spark.read.option("recursiveFileLookup", "true").option("pathGlobFilter", "*.parquet")
                .parquet(path))
    except Exception as exc:  # no Parquet files under a URI: Spark has no footer to read
        if "UNABLE_TO_INFER_SCHEMA" in str(exc) or "Unable to infer schema" in str(exc):
            return None
        raise


def _field(schema: T.DataType, dotted: str) -> T.DataType | None:
    for part in dotted.split("."):
        if not isinstance(schema, T.StructType) or part not in schema.fieldNames():
            return None
        schema = schema[part].dataType
    return schema


def _get(df: DataFrame, dotted: str, dtype: T.DataType) -> Column:
    """Column ``dotted`` of ``df`` cast to ``dtype``, or a typed null when the files do not have it."""
    have = _field(df.schema, dotted)
    if have is None:
        return F.lit(None).cast(dtype)
    return F.col(dotted) if have == dtype else F.col(dotted).cast(dtype)


def _ts_micros(df: DataFrame, dotted: str) -> Column:
    """Microseconds since the epoch from an RFC 3339 string, a Parquet timestamp, or integer ns."""
    have = _field(df.schema, dotted)
    if have is None:
        return F.lit(None).cast(_L)
    c = F.col(dotted)
    if isinstance(have, (T.TimestampType, T.TimestampNTZType)):
        return F.unix_micros(c.cast(T.TimestampType()))
    if isinstance(have, (T.LongType, T.IntegerType)):  # ns integers (and Parquet TIMESTAMP(NANOS) as long)
        return F.floor(c / 1000).cast(_L)
    return F.unix_micros(F.try_to_timestamp(c.cast(_S)))


def _present(df: DataFrame, name: str) -> Column:
    return F.col(name).isNotNull() if _field(df.schema, name) is not None else F.lit(False)


def _kind(df: DataFrame) -> Column:
    t = _get(df, "type", _S)
    corrupt = _get(df, "_corrupt", _S)
    return (F.when(corrupt.isNotNull(), "bad")
            .when(t == ACK_TYPE, "ack")
            .when(t.startswith(ADVISORY_PREFIX), "advisory")
            .when(t == PUBLISH_TYPE, "publish")
            .when(t == GAP_TYPE, "gap")
            .when(t.isin("io.nats.jetstream.api.v1.stream_info_response") | (
                t.isNull() & _present(df, "state") & _get(df, "config.name", _S).isNotNull()), "stream_info")
            .when(t.isin("io.nats.jetstream.api.v1.consumer_info_response") | (
                t.isNull() & _get(df, "stream_name", _S).isNotNull() & _get(df, "name", _S).isNotNull()
                & _present(df, "delivered")), "consumer_info")
            .otherwise("unknown"))


def _normalise(df: DataFrame) -> DataFrame:
    """The columns the figures need, from a JSON-lines or a Parquet frame (whatever subset it has)."""
    kinded = df.select(F.coalesce(_kind(df), F.lit("bad")).alias("kind"), *[F.col(f"`{c}`") for c in df.columns])
    g = lambda name, dtype: _get(kinded, name, dtype)  # noqa: E731
    return kinded.select(
        "kind",
        # the type is kept only where it says more than the kind (less to cache)
        F.when(F.col("kind").isin("advisory", "unknown"), g("type", _S)).alias("type"),
        F.coalesce(_ts_micros(kinded, "timestamp"), _ts_micros(kinded, "ts")).alias("t"),
        F.coalesce(g("stream", _S), g("stream_name", _S), g("config.name", _S)).alias("stream"),
        F.coalesce(g("consumer", _S), g("name", _S)).alias("consumer"),
        g("ack_time", _L).alias("ack_time"), g("deliveries", _L).alias("deliveries"), g("msg_id", _S).alias("msg_id"),
        g("bytes", _L).alias("bytes"), g("result", _S).alias("result"),
        g("state.messages", _L).alias("s_messages"), g("state.bytes", _L).alias("s_bytes"),
        g("state.last_seq", _L).alias("s_last_seq"),
        _ts_micros(kinded, "state.first_ts").alias("s_first"), _ts_micros(kinded, "state.last_ts").alias("s_last"),
        g("delivered.consumer_seq", _L).alias("c_delivered"),
    )


def _events(spark: SparkSession, paths: Sequence[str]) -> DataFrame:
    frames: list[DataFrame] = []
    for p in paths:
        local = _is_local(p)
        if not local or _has(p, _JSON_SUFFIXES):
            frames.append(_normalise(_read_json(spark, p)))
        if not local or _has(p, (".parquet",)):
            pq = _read_parquet(spark, p)
            if pq is not None:
                frames.append(_normalise(pq))
    if not frames:  # nothing to read: an empty table of the right shape
        frames.append(_normalise(_read_json(spark, paths[0])))
    out = frames[0]
    for f in frames[1:]:
        out = out.unionByName(f)
    return out


# ------------------------------------------------------------------------------------------ aggregation


def _select_rank(pairs: list[tuple[int, int]], below: int, rank: int) -> int | None:
    """The value of 0-based ``rank`` among all values, given the sorted (value, count) pairs of a bracket
    and the number of values below it; ``None`` when the rank is outside the bracket."""
    seen = below
    if rank < seen:
        return None
    for v, c in pairs:
        seen += c
        if rank < seen:
            return v
    return None


def _refine(n: int, q: float, below: int, pairs: list[tuple[int, int]]) -> float | None:
    """Exact percentile ``q`` (linear interpolation between closest ranks, as numpy and Spark's
    ``percentile``) of ``n`` values from a bracket that holds its ranks; ``None`` if it does not."""
    h = (n - 1) * q
    lo_rank, hi_rank = math.floor(h), math.ceil(h)
    lo = _select_rank(pairs, below, lo_rank)
    hi = _select_rank(pairs, below, hi_rank)
    if lo is None or hi is None:
        return None
    return lo + (h - lo_rank) * (hi - lo)


def _around(qs: Sequence[float], accuracy: int) -> list[float]:
    """For each quantile q: q - d, q, q + d. percentile_approx's values there bracket the ranks of the
    exact q (its rank error is at most n/accuracy; d adds 2/_EXACT_SMALL so that the bracket holds
    both interpolation ranks for every group larger than _EXACT_SMALL)."""
    d = 2.0 / accuracy + 2.0 / _EXACT_SMALL
    return [min(1.0, max(0.0, q + x)) for q in qs for x in (-d, 0.0, d)]


def _literal_table(spark: SparkSession, schema: T.StructType, rows: Sequence[Sequence[Any]]) -> DataFrame:
    """A small table as a SQL literal (inline of an array of structs): unlike ``createDataFrame`` it
    needs no Python worker on the executors."""

    def lit(v: Any, dtype: T.DataType) -> Column:
        if isinstance(dtype, T.ArrayType):
            return F.array(*[F.lit(x) for x in v]).cast(dtype) if v else F.array().cast(dtype)
        return F.lit(v).cast(dtype)

    structs = [F.struct(*[lit(v, f.dataType).alias(f.name) for v, f in zip(row, schema.fields)]) for row in rows]
    return spark.range(1).select(F.inline(F.array(*structs)))


def _bracket_counts(df: DataFrame, keys: list[str], value: str,
                    brackets: dict[tuple[Any, ...], list[tuple[int, int]]]) -> dict[tuple[Any, ...], list[tuple[int, list[tuple[int, int]]]]]:
    """One pass over ``df``: per key and bracket ``[lo, hi]``, the number of values below ``lo`` and the
    sorted (value, count) pairs inside. Only the pairs reach the driver (a few per thousand values)."""
    nq = len(next(iter(brackets.values())))
    spark = df.sparkSession
    schema = T.StructType([*(_f(k, _S) for k in keys), _f("_lo", T.ArrayType(_L)), _f("_hi", T.ArrayType(_L))])
    table = _literal_table(spark, schema, [[*k, [b[0] for b in br], [b[1] for b in br]] for k, br in brackets.items()])
    v, lo, hi = F.col("_v0"), F.col("_lo"), F.col("_hi")
    joined = df.join(F.broadcast(table), keys, "inner").select(*keys, F.col(value).alias("_v0"), "_lo", "_hi")
    inside = F.filter(F.sequence(F.lit(0), F.lit(nq - 1)), lambda i: (v >= F.get(lo, i)) & (v <= F.get(hi, i)))
    # a value inside two brackets (ties) yields two rows: count it below the others' brackets once
    rows = joined.select(*keys, "_v0", "_lo", F.posexplode_outer(inside).alias("_pos", "_qi"))
    first = F.col("_pos").isNull() | (F.col("_pos") == 0)
    agg = (rows.groupBy(*keys, "_qi", F.when(F.col("_qi").isNotNull(), v).alias("_v"))
           .agg(F.count("*").alias("_c"),
                *[F.count(F.when(first & (v < F.get(lo, F.lit(i))), 1)).alias(f"_b{i}") for i in range(nq)]))
    below: dict[tuple[Any, ...], list[int]] = {k: [0] * nq for k in brackets}
    pairs: dict[tuple[Any, ...], list[list[tuple[int, int]]]] = {k: [[] for _ in range(nq)] for k in brackets}
    for r in agg.collect():
        k = tuple(r[c] for c in keys)
        if k not in below:
            continue
        for i in range(nq):
            below[k][i] += int(r[f"_b{i}"])
        if r["_qi"] is not None:
            pairs[k][int(r["_qi"])].append((int(r["_v"]), int(r["_c"])))
    return {k: [(below[k][i], sorted(pairs[k][i])) for i in range(nq)] for k in brackets}


def _quantiles(df: DataFrame, keys: list[str], value: str, exact_limit: int, accuracy: int,
               qs: Sequence[float] = QUANTILES, sizes: dict[tuple[Any, ...], tuple[int, int]] | None = None,
               total_bound: int | None = None, around: dict[tuple[Any, ...], list[int]] | None = None,
               ) -> tuple[dict[tuple[Any, ...], tuple[int, list[float], int]], int, int]:
    """Per key: (count, quantiles, max). Exact for groups up to ``exact_limit`` values, else approximate.

    Exact percentiles come from Spark's ``percentile`` for groups of at most ``_EXACT_SMALL`` values
    (it holds a group's distinct values in memory). Larger groups up to ``exact_limit`` are refined:
    ``percentile_approx`` (rank error at most n/accuracy) brackets each target rank between its values
    at ``q -/+ d`` (:func:`_around`); one more pass counts the values below each bracket and the
    distinct values inside it (about 4.4, at most 6.4 n/accuracy), from which the driver picks the exact
    ranks. A bracket that does not hold its ranks falls back to Spark's exact percentile for a small
    group and to the approximate value otherwise (the group then counts as approximate).

    ``sizes`` (key -> (count, max)) and ``around`` (key -> percentile_approx at :func:`_around`) may
    come from an earlier pass; then every group not above ``exact_limit`` goes through the brackets.
    When ``sizes`` is unknown but at most ``total_bound`` values exist in all, one exact pass does it.
    """
    df = df.where(F.col(value).isNotNull())
    result: dict[tuple[Any, ...], tuple[int, list[float], int]] = {}
    qs = list(qs)
    if sizes is None and total_bound is not None and total_bound <= min(exact_limit, _EXACT_SMALL):
        rows = df.groupBy(*keys).agg(F.percentile(F.col(value), qs).alias("q"), F.count(value).alias("n"),
                                     F.max(value).alias("mx")).collect()
        for r in rows:
            result[tuple(r[k] for k in keys)] = (int(r["n"]), [float(x) for x in r["q"]], int(r["mx"]))
        return result, len(result), 0
    if sizes is None:
        sizes = {tuple(r[k] for k in keys): (r["n"], r["mx"])
                 for r in df.groupBy(*keys).agg(F.count(value).alias("n"), F.max(value).alias("mx")).collect()}
    sizes = {k: (int(n), int(mx)) for k, (n, mx) in sizes.items() if n > 0}
    if not sizes:
        return {}, 0, 0
    pcts = _around(qs, accuracy)
    spark = df.sparkSession

    def only(ks: Iterable[tuple[Any, ...]]) -> DataFrame:
        table = _literal_table(spark, T.StructType([_f(k, _S) for k in keys]), [list(k) for k in ks])
        return df.join(F.broadcast(table), keys, "inner")

    def exact(ks: list[tuple[Any, ...]]) -> None:
        sub = df if len(ks) == len(sizes) else only(ks)
        for r in sub.groupBy(*keys).agg(F.percentile(F.col(value), qs).alias("q")).collect():
            k = tuple(r[c] for c in keys)
            if k in sizes:
                result[k] = (sizes[k][0], [float(x) for x in r["q"]], sizes[k][1])

    exact_groups = approx_groups = 0
    if around is None:
        small = [k for k, (n, _) in sizes.items() if n <= min(_EXACT_SMALL, exact_limit)]
        if small:
            exact(small)
            exact_groups += len(small)
        others = [k for k in sizes if k not in result]
        around = {}
        if others:
            sub = df if len(others) == len(sizes) else only(others)
            for r in sub.groupBy(*keys).agg(F.percentile_approx(F.col(value), pcts, accuracy).alias("a")).collect():
                around[tuple(r[c] for c in keys)] = [int(x) for x in r["a"]]
    pending: dict[tuple[Any, ...], list[tuple[int, int]]] = {}
    for k, (n, mx) in sizes.items():
        if k in result or k not in around:
            continue
        a = around[k]
        if n > exact_limit:
            result[k] = (n, [float(a[3 * i + 1]) for i in range(len(qs))], mx)
            approx_groups += 1
        else:
            pending[k] = [(a[3 * i], a[3 * i + 2]) for i in range(len(qs))]
    retry: list[tuple[Any, ...]] = []
    if pending:
        for k, got in _bracket_counts(df, keys, value, pending).items():
            n, mx = sizes[k]
            refined = [_refine(n, q, below, pairs) for q, (below, pairs) in zip(qs, got)]
            if all(x is not None for x in refined):
                result[k] = (n, [float(x) for x in refined if x is not None], mx)
                exact_groups += 1
            elif n <= _EXACT_SMALL:
                retry.append(k)
            else:
                result[k] = (n, [float(around[k][3 * i + 1]) for i in range(len(qs))], mx)
                approx_groups += 1
    if retry:
        exact(retry)
        exact_groups += len(retry)
    return result, exact_groups, approx_groups


def _ns(v: float) -> int:
    return int(round(v))


_ADVISORY_KINDS = ("max_deliver", "nak", "terminated")


@dataclass
class _Census:
    """What one aggregation over every event tells: kinds, window, per-consumer ack and advisory counts,
    per-stream publish attempts and bounds. Its size is bounded by the estate (streams x consumers x a few
    kinds), never by the number of events."""

    kinds: dict[str, int] = field(default_factory=dict)
    window: tuple[int, int] | None = None
    ack_sizes: dict[tuple[str, str], tuple[int, int]] = field(default_factory=dict)  # (count, max)
    ack_around: dict[tuple[str, str], list[int]] = field(default_factory=dict)  # approx at _around(QUANTILES)
    deliveries: dict[tuple[str, str], tuple[int, int, int]] = field(default_factory=dict)  # (n, first, max)
    advisories: dict[tuple[str, str], dict[str, int]] = field(default_factory=dict)
    attempts: dict[str, int] = field(default_factory=dict)
    publish_bounds: tuple[int, int] | None = None


def _census(ev: DataFrame, accuracy: int) -> _Census:
    kind, t = F.col("kind"), F.col("t")
    is_ack, is_adv, is_pub = kind == "ack", kind == "advisory", kind == "publish"
    ack_ok = F.col("ack_time").isNull() | (F.col("ack_time") >= 0)
    a = F.when(is_ack & (F.col("ack_time") >= 0), F.col("ack_time"))
    d = F.when(is_ack & ack_ok & (F.col("deliveries") >= 1), F.col("deliveries"))
    adv = F.when(is_adv, F.coalesce(*[F.when(F.col("type") == ADVISORY_PREFIX + k, F.lit(k)) for k in _ADVISORY_KINDS],
                                    F.lit("other")))
    rows = ev.groupBy(
        "kind", adv.alias("adv"),
        F.when(is_ack | is_adv | is_pub, F.col("stream")).alias("stream"),
        F.when(is_ack | is_adv, F.col("consumer")).alias("consumer"),
    ).agg(
        F.count("*").alias("n"), F.min(t).alias("lo"), F.max(t).alias("hi"), F.count(t).alias("nt"),
        F.count(a).alias("a_n"), F.max(a).alias("a_max"),
        F.percentile_approx(a, _around(QUANTILES, accuracy), accuracy).alias("a_around"),
        F.count(d).alias("d_n"), F.count(F.when(d == 1, 1)).alias("d_first"), F.max(d).alias("d_max"),
    ).collect()
    c = _Census()
    lo = hi = plo = phi = None
    for r in rows:
        k = r["kind"]
        c.kinds[k] = c.kinds.get(k, 0) + int(r["n"])
        if k in ("bad", "unknown"):
            continue
        if r["lo"] is not None:
            lo = r["lo"] if lo is None else min(lo, r["lo"])
            hi = r["hi"] if hi is None else max(hi, r["hi"])
        s, con = r["stream"], r["consumer"]
        if k == "ack" and s is not None and con is not None:
            if r["a_n"]:
                c.ack_sizes[(s, con)] = (int(r["a_n"]), int(r["a_max"]))
                c.ack_around[(s, con)] = [int(x) for x in r["a_around"]]
            if r["d_n"]:
                c.deliveries[(s, con)] = (int(r["d_n"]), int(r["d_first"]), int(r["d_max"]))
        elif k == "advisory" and s is not None and con is not None:
            counts = c.advisories.setdefault((s, con), {n: 0 for n in _ADVISORY_KINDS})
            if r["adv"] in counts:
                counts[r["adv"]] += int(r["n"])
        elif k == "publish" and s is not None and r["nt"]:
            c.attempts[s] = c.attempts.get(s, 0) + int(r["nt"])
            plo = r["lo"] if plo is None else min(plo, r["lo"])
            phi = r["hi"] if phi is None else max(phi, r["hi"])
    if lo is not None:
        c.window = (int(lo), int(hi))
    if plo is not None:
        c.publish_bounds = (int(plo), int(phi))
    return c


def _consumer_profiles(ev: DataFrame, rest: DataFrame, census: _Census, exact_limit: int, accuracy: int,
                       summary: ProfileSummary) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}

    def slot(stream: str, consumer: str) -> dict[str, Any]:
        return out.setdefault(f"{stream}/{consumer}", {})

    acks = ev.where((F.col("kind") == "ack") & F.col("stream").isNotNull() & F.col("consumer").isNotNull()
                    & (F.col("ack_time") >= 0)).select("stream", "consumer", "ack_time")
    qs, summary.exact_groups, summary.approx_groups = _quantiles(
        acks, ["stream", "consumer"], "ack_time", exact_limit, accuracy, sizes=dict(census.ack_sizes),
        around=dict(census.ack_around))
    for (s, c), (n, q, mx) in qs.items():
        slot(s, c)["ack_time_ns"] = {"samples": n, "p50": _ns(q[0]), "p90": _ns(q[1]), "p99": _ns(q[2]),
                                     "p999": _ns(q[3]), "max": mx}
    for (s, c), (n, first, mx) in census.deliveries.items():
        slot(s, c)["deliveries"] = {"first_try_ratio": first / n, "redelivered_ratio": (n - first) / n, "max": mx}
    for (s, c), counts in census.advisories.items():
        slot(s, c)["advisories"] = dict(counts)

    snaps = rest.where((F.col("kind") == "consumer_info") & F.col("stream").isNotNull()
                       & F.col("consumer").isNotNull() & F.col("t").isNotNull() & F.col("c_delivered").isNotNull())
    for r in _interval_rates(snaps, ["stream", "consumer"], "c_delivered").collect():
        slot(r["stream"], r["consumer"])["delivery"] = {"mean_per_s": r["mean"], "peak_per_s": r["peak"]}
    return out


def _interval_rates(snaps: DataFrame, keys: list[str], counter: str) -> DataFrame:
    """Mean and peak rate of a monotone counter between consecutive snapshots (resets are skipped)."""
    snaps = snaps.dropDuplicates([*keys, "t"])
    w = Window.partitionBy(*keys).orderBy("t")
    d = (snaps.select(*keys, (F.col(counter) - F.lag(counter).over(w)).alias("d"),
                      (F.col("t") - F.lag("t").over(w)).alias("dt"))
         .where((F.col("dt") > 0) & (F.col("d") >= 0)))
    return d.groupBy(*keys).agg(
        F.sum("d").alias("total"),
        (F.sum("d") * 1e6 / F.sum("dt")).alias("mean"),
        F.max(F.col("d") * 1e6 / F.col("dt")).alias("peak"))


def _stream_profiles(rest: DataFrame, census: _Census, exact_limit: int, accuracy: int) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}

    def slot(stream: str) -> dict[str, Any]:
        return out.setdefault(stream, {})

    pub = rest.where((F.col("kind") == "publish") & F.col("stream").isNotNull() & F.col("t").isNotNull())
    if census.publish_bounds is not None:
        lo, hi = (b // 1_000_000 for b in census.publish_bounds)
        ok = pub.where(F.col("result") == "ok").withColumn("sec", F.floor(F.col("t") / 1_000_000))
        per_sec = ok.groupBy("stream", "sec").agg(F.count("*").alias("c"), F.sum("bytes").alias("b"),
                                                  F.count("bytes").alias("nb"))
        # the dense grid of every second of the publisher-log window, per stream with ok publishes
        grid = (per_sec.select("stream").distinct()
                .select("stream", F.explode(F.sequence(F.lit(lo), F.lit(hi))).alias("sec")))
        filled = grid.join(per_sec, ["stream", "sec"], "left").fillna(0, ["c", "b", "nb"])
        stats = filled.groupBy("stream").agg(
            F.sum("c").alias("messages"), F.count("*").alias("nsec"), F.percentile("c", 0.99).alias("p99"),
            F.max("c").alias("peak"), F.sum("b").alias("bytes"), F.max("b").alias("bpeak"),
            F.sum("nb").alias("nb"))
        per_min = (ok.groupBy("stream", F.floor(F.col("t") / 60_000_000).alias("m")).count()
                   .groupBy("stream").agg(F.max("count").alias("pm")))
        for r in stats.join(per_min, "stream", "left").collect():  # one job for both
            s = slot(r["stream"])
            s["ingest"] = {"messages": int(r["messages"]), "mean_per_s": r["messages"] / r["nsec"],
                           "p99_per_s": float(r["p99"]), "peak_per_s": int(r["peak"]),
                           "peak_per_min": int(r["pm"])}
            if r["nb"]:
                s["bytes"] = {"mean_per_s": r["bytes"] / r["nsec"], "peak_per_s": int(r["bpeak"])}

        horizons = (pub.where(F.col("msg_id").isNotNull()).groupBy("stream", "msg_id")
                    .agg(F.count("*").alias("n"), ((F.max("t") - F.min("t")) * 1000).alias("h"))
                    .where(F.col("n") >= 2))
        # a retried id has at least two attempts: at most attempts/2 horizons in all
        hq, _, _ = _quantiles(horizons, ["stream"], "h", exact_limit, accuracy, (0.99,),
                              total_bound=sum(census.attempts.values()) // 2)
        for name, attempts in census.attempts.items():
            retry: dict[str, Any] = {"attempts": attempts, "retried_ids": 0}
            if (name,) in hq:
                n, q, mx = hq[(name,)]
                retry.update(retried_ids=n, horizon_p99_ns=_ns(q[0]), horizon_max_ns=mx)
            slot(name)["publish_retry"] = retry

    snaps = rest.where((F.col("kind") == "stream_info") & F.col("stream").isNotNull() & F.col("t").isNotNull())
    size = snaps.where(F.col("s_messages") > 0).groupBy("stream").agg(
        (F.sum("s_bytes") / F.sum("s_messages")).alias("size"),
        F.max_by(F.struct("s_first", "s_last"), "t").alias("latest"))
    rates_df = _interval_rates(snaps.where(F.col("s_last_seq").isNotNull()), ["stream"], "s_last_seq")
    sizes: dict[str, float] = {}
    rates: dict[str, Any] = {}
    for r in size.join(rates_df, "stream", "full").collect():  # one job for both
        s = slot(r["stream"])
        if r["size"] is not None:
            sizes[r["stream"]] = float(r["size"])
        lt = r["latest"]
        if lt is not None and lt["s_first"] is not None and lt["s_last"] is not None and lt["s_last"] >= lt["s_first"]:
            s["retention_span_ns"] = int(lt["s_last"] - lt["s_first"]) * 1000
        if r["total"] is not None:
            rates[r["stream"]] = r
            if "ingest" not in s:
                s["ingest"] = {"messages": int(r["total"]), "mean_per_s": float(r["mean"])}
    for name, s in out.items():
        r = rates.get(name)
        if name in sizes:
            b = s.setdefault("bytes", {})
            b["stored_msg_size_mean"] = sizes[name]
            if "mean_per_s" not in b and r is not None:
                b["mean_per_s"] = float(r["mean"]) * sizes[name]
    return {k: v for k, v in out.items() if v}


def _iso(micros: int) -> str:
    dt = datetime.fromtimestamp(micros // 1_000_000, UTC).replace(microsecond=micros % 1_000_000)
    return dt.strftime("%Y-%m-%dT%H:%M:%S") + (f".{dt.microsecond:06d}".rstrip("0") if dt.microsecond else "") + "Z"


def build_profiles(spark: SparkSession, paths: Sequence[str], *, accuracy: int = MIN_ACCURACY,
                   exact_limit: int = DEFAULT_EXACT_LIMIT,
                   progress: Callable[[str], None] | None = None) -> tuple[dict[str, Any], ProfileSummary]:
    """Compute the profiles document (validated against :class:`linter.model.profiles.Profiles`).

    Passes: the input is parsed once into a cached table of the columns the figures need; one
    aggregation over it (the census) gives every count, the window and the ack group sizes; one more
    computes the ack_time percentiles; the few non-ack events (publisher logs, snapshots) are cached
    apart and the remaining small jobs run on them. Only per-group results reach the driver.
    ``progress`` receives one line per pass with its wall time.
    """
    clock = [time.monotonic()]

    def done(what: str) -> None:
        now = time.monotonic()
        if progress is not None:
            progress(f"{what} ({now - clock[0]:.1f}s)")
        clock[0] = now

    if accuracy < MIN_ACCURACY:
        raise ValueError(f"--accuracy must be at least {MIN_ACCURACY} (got {accuracy})")
    summary = ProfileSummary()
    ev = _events(spark, paths).persist(_CACHE_LEVEL)
    rest = None
    try:
        census = _census(ev, accuracy)
        summary.kinds = dict(census.kinds)
        done(f"read and census: {sum(census.kinds.values())} events")
        if summary.unknown:
            for r in ev.where(F.col("kind") == "unknown").groupBy("type").count().orderBy(F.desc("count")).limit(5).collect():
                summary.unknown_types[r["type"] or "(no type)"] = int(r["count"])
        doc: dict[str, Any] = {"version": 1, "generated_at": _iso(int(datetime.now(UTC).timestamp() * 1e6))}
        if census.window is not None:
            doc["window"] = {"start": _iso(census.window[0]), "end": _iso(census.window[1])}
        rest = ev.where(F.col("kind").isin("publish", "stream_info", "consumer_info")).persist(_CACHE_LEVEL)
        consumers = _consumer_profiles(ev, rest, census, exact_limit, accuracy, summary)
        done(f"consumers: {len(consumers)}")
        doc["streams"] = dict(sorted(_stream_profiles(rest, census, exact_limit, accuracy).items()))
        done(f"streams: {len(doc['streams'])}")
        doc["consumers"] = dict(sorted(consumers.items()))
    finally:
        if rest is not None:
            rest.unpersist()
        ev.unpersist()
    Profiles.model_validate(doc)
    return doc, summary
