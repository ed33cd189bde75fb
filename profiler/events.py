"""Reading telemetry into the one table of columns the profile figures need.

JSON lines are read by Spark's JSON reader with :data:`EVENT_SCHEMA` (no inference); Parquet is read as
Parquet with the column types its footers declare (typed timestamps, nanosecond integers). Either way
each event becomes one row of :func:`normalise`'s columns (``kind``, ``t`` in microseconds, ...).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from pyspark import StorageLevel
from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

from jsops.profiler.inputs import JSON_SUFFIXES, has_files, is_local
from jsops.profiler.session import keep

__all__ = [
    "ACK_TYPE",
    "ADVISORY_PREFIX",
    "PUBLISH_TYPE",
    "GAP_TYPE",
    "EVENT_SCHEMA",
    "COMPACT_SCHEMA",
    "COMPACT_MARKER",
    "read_events",
    "normalise",
    "compact",
    "between",
]

ACK_TYPE = "io.nats.jetstream.metric.v1.consumer_ack"
ADVISORY_PREFIX = "io.nats.jetstream.advisory.v1."
PUBLISH_TYPE = "io.jsops.publish.v1"
GAP_TYPE = "io.jsops.collect.v1.gap"
_INPUT_GLOB = "*.{jsonl,jsonl.gz,json,json.gz}"
_L, _S = T.LongType(), T.StringType()
# Timestamps are read as strings and converted with try_to_timestamp: parsing them inside the JSON
# reader costs about three times the whole parse; an unparseable timestamp becomes null (no evidence).
_TS = _S


def _f(name: str, dtype: T.DataType) -> T.StructField:
    return T.StructField(name, dtype, True)


# One superset schema for every event kind: each line is parsed once; extra fields are ignored and
# missing ones are null. A line that is not a JSON object or has a wrongly typed field is a bad line.
EVENT_SCHEMA = T.StructType(
    [
        _f("type", _S),
        _f("timestamp", _TS),
        _f("ts", _TS),
        # ack samples and advisories
        _f("stream", _S),
        _f("consumer", _S),
        _f("ack_time", _L),
        _f("deliveries", _L),
        # publisher attempt logs
        _f("msg_id", _S),
        _f("attempt", _L),
        _f("bytes", _L),
        _f("result", _S),
        # StreamInfo / ConsumerInfo snapshots
        _f("stream_name", _S),
        _f("name", _S),
        _f("config", T.StructType([_f("name", _S)])),
        _f(
            "state",
            T.StructType(
                [_f("messages", _L), _f("bytes", _L), _f("first_ts", _TS), _f("last_seq", _L), _f("last_ts", _TS)]
            ),
        ),
        _f("delivered", T.StructType([_f("consumer_seq", _L)])),
        _f("_corrupt", _S),
    ]
)


def _read_json(spark: SparkSession, path: str) -> DataFrame:
    """Spark's own JSON reader with the explicit superset schema (no inference, no Python)."""
    return (
        spark.read.schema(EVENT_SCHEMA)
        .option("mode", "PERMISSIVE")
        .option("columnNameOfCorruptRecord", "_corrupt")
        .option("recursiveFileLookup", "true")
        .option("pathGlobFilter", _INPUT_GLOB)
        .json(path)
    )


def _read_parquet(spark: SparkSession, path: str) -> DataFrame | None:
    """Parquet as Parquet: typed columns as written (the schema comes from the files' footers, never from
    the data); ``None`` when there is no Parquet file under ``path``."""
    try:
        df = spark.read.option("recursiveFileLookup", "true").option("pathGlobFilter", "*.parquet").parquet(path)
        df.schema  # noqa: B018 (a Spark Connect client analyses lazily: ask for the schema here, where the error is expected)
        return df
    except Exception as exc:  # no Parquet files under a URI: Spark has no footer to read
        condition = getattr(exc, "getCondition", None)
        if (callable(condition) and condition() == "UNABLE_TO_INFER_SCHEMA") or "Unable to infer schema" in str(exc):
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
    return (
        F.when(corrupt.isNotNull(), "bad")
        .when(t == ACK_TYPE, "ack")
        .when(t.startswith(ADVISORY_PREFIX), "advisory")
        .when(t == PUBLISH_TYPE, "publish")
        .when(t == GAP_TYPE, "gap")
        .when(
            t.isin("io.nats.jetstream.api.v1.stream_info_response")
            | (t.isNull() & _present(df, "state") & _get(df, "config.name", _S).isNotNull()),
            "stream_info",
        )
        .when(
            t.isin("io.nats.jetstream.api.v1.consumer_info_response")
            | (
                t.isNull()
                & _get(df, "stream_name", _S).isNotNull()
                & _get(df, "name", _S).isNotNull()
                & _present(df, "delivered")
            ),
            "consumer_info",
        )
        .otherwise("unknown")
    )


def normalise(df: DataFrame) -> DataFrame:
    """The columns the figures need, from a JSON-lines or a Parquet frame (whatever subset it has); a
    compacted table (:func:`compact`) has them already."""
    if {"kind", "t"} <= set(df.columns):
        return df.select(*[_get(df, f.name, f.dataType).alias(f.name) for f in COMPACT_SCHEMA.fields])
    kinded = df.select(F.coalesce(_kind(df), F.lit("bad")).alias("kind"), *[F.col(f"`{c}`") for c in df.columns])

    def g(name: str, dtype: T.DataType) -> Column:
        return _get(kinded, name, dtype)

    return kinded.select(
        "kind",
        # the type is kept only where it says more than the kind (less to cache)
        F.when(F.col("kind").isin("advisory", "unknown"), g("type", _S)).alias("type"),
        F.coalesce(_ts_micros(kinded, "timestamp"), _ts_micros(kinded, "ts")).alias("t"),
        F.coalesce(g("stream", _S), g("stream_name", _S), g("config.name", _S)).alias("stream"),
        F.coalesce(g("consumer", _S), g("name", _S)).alias("consumer"),
        g("ack_time", _L).alias("ack_time"),
        g("deliveries", _L).alias("deliveries"),
        g("msg_id", _S).alias("msg_id"),
        g("bytes", _L).alias("bytes"),
        g("result", _S).alias("result"),
        g("state.messages", _L).alias("s_messages"),
        g("state.bytes", _L).alias("s_bytes"),
        g("state.last_seq", _L).alias("s_last_seq"),
        _ts_micros(kinded, "state.first_ts").alias("s_first"),
        _ts_micros(kinded, "state.last_ts").alias("s_last"),
        g("delivered.consumer_seq", _L).alias("c_delivered"),
    )


def _compacted_root(path: str) -> bool:
    """A local path inside a table :func:`compact` wrote (its marker is at the root, ``day=``/``hour=`` below)."""
    p = Path(path).resolve()
    return any((d / COMPACT_MARKER).is_file() for d in (p, *list(p.parents)[:2]))


def read_events(spark: SparkSession, paths: Sequence[str]) -> DataFrame:
    """Every event under ``paths`` (JSON lines and Parquet, local or any URI Spark reads) as one table of
    :func:`normalise`'s columns. A compacted table is read with its explicit schema."""
    frames: list[DataFrame] = []
    compacted = [p for p in paths if is_local(p) and _compacted_root(p)]
    if compacted:  # one scan for all of them (a store run may pass one directory per hour)
        frames.append(
            spark.read.schema(COMPACT_SCHEMA)
            .option("recursiveFileLookup", "true")
            .option("pathGlobFilter", "*.parquet")
            .parquet(*compacted)
        )
    for p in paths:
        local = is_local(p)
        if p in compacted:
            continue
        if not local or has_files(p, JSON_SUFFIXES):
            frames.append(normalise(_read_json(spark, p)))
        if not local or has_files(p, (".parquet",)):
            pq = _read_parquet(spark, p)
            if pq is not None:
                frames.append(normalise(pq))
    if not frames:  # nothing to read: an empty table of the right shape
        frames.append(normalise(_read_json(spark, paths[0])))
    out = frames[0]
    for f in frames[1:]:
        out = out.unionByName(f)
    return out


#: the columns of the normalised table (what the figures need), also the schema of a compacted table
COMPACT_SCHEMA = T.StructType(
    [
        _f("kind", _S),
        _f("type", _S),
        _f("t", _L),
        _f("stream", _S),
        _f("consumer", _S),
        _f("ack_time", _L),
        _f("deliveries", _L),
        _f("msg_id", _S),
        _f("bytes", _L),
        _f("result", _S),
        _f("s_messages", _L),
        _f("s_bytes", _L),
        _f("s_last_seq", _L),
        _f("s_first", _L),
        _f("s_last", _L),
        _f("c_delivered", _L),
    ]
)
COMPACT_MARKER = "_jsops_events.json"


def compact(spark: SparkSession, paths: Sequence[str], out: str) -> dict[str, int]:
    """Write the events under ``paths`` as Parquet partitioned by ``day=YYYY-MM-DD/hour=HH`` (UTC) under
    ``out``, in :data:`COMPACT_SCHEMA` (the normalised columns, ``t`` in microseconds). A partition that is
    written again is replaced (dynamic partition overwrite), others are kept. Events without a timestamp
    belong to no hour and are not written. Returns the counts per kind written, plus ``untimed``."""
    ev, release = keep(read_events(spark, paths), StorageLevel.DISK_ONLY)  # parsed once, counted after the write
    ts = F.timestamp_micros(F.col("t"))
    timed = ev.where(F.col("t").isNotNull()).select(
        *COMPACT_SCHEMA.fieldNames(),
        F.date_format(ts, "yyyy-MM-dd").alias("day"),
        F.date_format(ts, "HH").alias("hour"),
    )
    (timed.write.mode("overwrite").option("partitionOverwriteMode", "dynamic").partitionBy("day", "hour").parquet(out))
    counts = {r["kind"]: int(r["count"]) for r in timed.groupBy("kind").count().collect()}
    counts["untimed"] = ev.where(F.col("t").isNull()).count()
    release()
    if is_local(out):
        (Path(out) / COMPACT_MARKER).write_text(
            json.dumps({"format": 1, "columns": COMPACT_SCHEMA.fieldNames(), "partitions": ["day", "hour"]}) + "\n"
        )
    return counts


def between(ev: DataFrame, since: int | None, until: int | None, keep_untimed: bool = False) -> DataFrame:
    """The events of ``[since, until)`` (microseconds; ``None`` is open); those without a timestamp are
    dropped unless ``keep_untimed``."""
    cond: Column | None = None
    if since is not None:
        cond = F.col("t") >= since
    if until is not None:
        cond = (F.col("t") < until) if cond is None else cond & (F.col("t") < until)
    if cond is None:
        return ev
    return ev.where(F.col("t").isNull() | cond) if keep_untimed else ev.where(cond)
