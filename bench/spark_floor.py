"""The Spark floor of ``bench/profile_speed.py --engines``: a minimal hand-written PySpark job computing
the same profile figures as ``jsops profile`` from the bench's files, written plainly (one query per
family of figures, one collect each, nothing jsops's job does for robustness or memory bounds).

What it computes, with the definitions of docs/formats.md (the bench checks the document equal to
jsops's, figure for figure):

* per consumer: ack_time samples, max and the exact p50/p90/p99/p999 (Spark's in-memory ``percentile``,
  whatever the group's size); deliveries (first-try and redelivered ratios, max); advisory counts by
  type; delivery rates (mean and peak) from ConsumerInfo snapshot deltas;
* per stream: ingest from ok publishes (messages, mean, p99 and peak per second over the dense seconds
  of the publisher-log window, peak per UTC minute; the per-second counts are collected and the p99
  taken on the driver), bytes per second (mean, peak), publish attempts and retry horizons (retried
  ids, exact p99 and max), stored message size and retention span from StreamInfo snapshots;
* the window (first and last event time).

What it leaves out (none of it changes a figure on the bench's synthetic telemetry): bad lines and
unknown events (counted by jsops, absent here), outliers dated far from the bulk (none), the
StreamInfo-derived ingest that jsops uses only without publisher logs, and percentile refinement for
groups too large for memory. Input: the compacted Parquet as it is, or the JSON lines read with an
explicit schema of the fields the figures need and cached (the figures read them seven times).
"""

from __future__ import annotations

import math
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ACK = "io.nats.jetstream.metric.v1.consumer_ack"
ADVISORY = "io.nats.jetstream.advisory.v1."
PUBLISH = "io.jsops.publish.v1"
QS = [0.5, 0.9, 0.99, 0.999]

_JSON_SCHEMA = (
    "type string, timestamp string, ts string, stream string, consumer string, ack_time bigint, deliveries bigint, "
    "msg_id string, bytes bigint, result string, stream_name string, name string, config struct<name: string>, "
    "state struct<messages: bigint, bytes: bigint, first_ts: string, last_seq: bigint, last_ts: string>, "
    "delivered struct<consumer_seq: bigint>"
)


def _events(spark: Any, data: str) -> Any:
    """The events with the columns the figures need (the compacted Parquet has them as they are)."""
    from pyspark.sql import functions as F

    if Path(data).name == "parquet":
        return spark.read.parquet(data)
    raw = spark.read.schema(_JSON_SCHEMA).json(data)

    def us(c: Any) -> Any:
        return F.unix_micros(F.to_timestamp(c))

    kind = (
        F.when(F.col("type") == ACK, "ack")
        .when(F.col("type").startswith(ADVISORY), "advisory")
        .when(F.col("type") == PUBLISH, "publish")
        .when(F.col("type").isNull() & F.col("state").isNotNull(), "stream_info")
        .when(F.col("type").isNull() & F.col("delivered").isNotNull(), "consumer_info")
    )
    return raw.select(
        kind.alias("kind"),
        "type",
        us(F.coalesce("timestamp", "ts")).alias("t"),
        F.coalesce("stream", "stream_name", "config.name").alias("stream"),
        F.coalesce("consumer", "name").alias("consumer"),
        "ack_time",
        "deliveries",
        "msg_id",
        "bytes",
        "result",
        F.col("state.messages").alias("s_messages"),
        F.col("state.bytes").alias("s_bytes"),
        us("state.first_ts").alias("s_first"),
        us("state.last_ts").alias("s_last"),
        F.col("delivered.consumer_seq").alias("c_delivered"),
    ).cache()


def _iso(us: int) -> str:
    dt = datetime.fromtimestamp(us // 1_000_000, UTC)
    frac = f".{us % 1_000_000:06d}".rstrip("0") if us % 1_000_000 else ""
    return dt.strftime("%Y-%m-%dT%H:%M:%S") + frac + "Z"


def _p(sorted_values: list[int], q: float) -> float:
    """Exact percentile, linear interpolation between the closest ranks (as Spark's ``percentile``)."""
    pos = (len(sorted_values) - 1) * q
    lo, hi = math.floor(pos), math.ceil(pos)
    a, b = sorted_values[lo], sorted_values[hi]
    return float(a) if lo == hi or a == b else (hi - pos) * float(a) + (pos - lo) * float(b)


def floor_profile(spark: Any, data: str) -> dict[str, Any]:
    """The profiles document (without ``generated_at``) of the telemetry under ``data``."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    ev = _events(spark, data)
    kind, t = F.col("kind"), F.col("t")
    consumers: dict[str, dict[str, Any]] = {}
    streams: dict[str, dict[str, Any]] = {}
    d = F.col("deliveries")
    for r in (
        ev.where((kind == "ack") & (F.col("ack_time") >= 0))
        .groupBy("stream", "consumer")
        .agg(
            F.count("ack_time").alias("n"),
            F.max("ack_time").alias("mx"),
            F.percentile("ack_time", QS).alias("q"),
            F.count(F.when(d >= 1, 1)).alias("dn"),
            F.count(F.when(d == 1, 1)).alias("d1"),
            F.max(F.when(d >= 1, d)).alias("dmax"),
        )
        .collect()
    ):
        c = consumers.setdefault(f"{r['stream']}/{r['consumer']}", {})
        q = [int(round(x)) for x in r["q"]]
        c["ack_time_ns"] = {"samples": r["n"], "p50": q[0], "p90": q[1], "p99": q[2], "p999": q[3], "max": r["mx"]}
        if r["dn"]:
            c["deliveries"] = {
                "first_try_ratio": r["d1"] / r["dn"],
                "redelivered_ratio": (r["dn"] - r["d1"]) / r["dn"],
                "max": r["dmax"],
            }
    for r in ev.where(kind == "advisory").groupBy("stream", "consumer", "type").count().collect():
        counts = consumers.setdefault(f"{r['stream']}/{r['consumer']}", {}).setdefault(
            "advisories", {"max_deliver": 0, "nak": 0, "terminated": 0}
        )
        if r["type"][len(ADVISORY) :] in counts:
            counts[r["type"][len(ADVISORY) :]] += r["count"]
    snaps = ev.where(kind == "consumer_info").select("stream", "consumer", "t", "c_delivered")
    w = Window.partitionBy("stream", "consumer").orderBy("t")
    deltas = snaps.select(
        "stream",
        "consumer",
        (F.col("c_delivered") - F.lag("c_delivered").over(w)).alias("d"),
        (t - F.lag("t").over(w)).alias("dt"),
    )
    for r in (
        deltas.where((F.col("dt") > 0) & (F.col("d") >= 0))
        .groupBy("stream", "consumer")
        .agg((F.sum("d") * 1e6 / F.sum("dt")).alias("mean"), F.max(F.col("d") * 1e6 / F.col("dt")).alias("peak"))
        .collect()
    ):
        consumers.setdefault(f"{r['stream']}/{r['consumer']}", {})["delivery"] = {
            "mean_per_s": r["mean"],
            "peak_per_s": r["peak"],
        }

    pub = ev.where(kind == "publish")
    bounds = pub.agg(F.min(t), F.max(t)).first()
    nsec = bounds[1] // 1_000_000 - bounds[0] // 1_000_000 + 1
    per_sec: dict[str, list[Any]] = {}
    for r in (
        pub.where(F.col("result") == "ok")
        .groupBy("stream", F.floor(t / 1_000_000).alias("sec"))
        .agg(F.count("*").alias("c"), F.sum("bytes").alias("b"))
        .collect()
    ):
        per_sec.setdefault(r["stream"], []).append(r)
    for name, rows in per_sec.items():
        counts = sorted([0] * (nsec - len(rows)) + [r["c"] for r in rows])
        per_min: dict[int, int] = {}
        for r in rows:
            per_min[r["sec"] // 60] = per_min.get(r["sec"] // 60, 0) + r["c"]
        messages = sum(counts)
        streams.setdefault(name, {})["ingest"] = {
            "messages": messages,
            "mean_per_s": messages / nsec,
            "p99_per_s": _p(counts, 0.99),
            "peak_per_s": counts[-1],
            "peak_per_min": max(per_min.values()),
        }
        streams[name]["bytes"] = {
            "mean_per_s": sum(r["b"] or 0 for r in rows) / nsec,
            "peak_per_s": max(r["b"] or 0 for r in rows),
        }
    for r in pub.groupBy("stream").agg(F.count("t").alias("n")).collect():
        streams.setdefault(r["stream"], {})["publish_retry"] = {"attempts": r["n"], "retried_ids": 0}
    ids = (
        pub.where(F.col("msg_id").isNotNull())
        .groupBy("stream", "msg_id")
        .agg(F.count("*").alias("n"), ((F.max(t) - F.min(t)) * 1000).alias("h"))
    )
    for r in (
        ids.where(F.col("n") >= 2)
        .groupBy("stream")
        .agg(F.count("h").alias("n"), F.max("h").alias("mx"), F.percentile("h", 0.99).alias("p99"))
        .collect()
    ):
        streams[r["stream"]]["publish_retry"].update(
            retried_ids=r["n"], horizon_p99_ns=int(round(r["p99"])), horizon_max_ns=r["mx"]
        )

    info = ev.where((kind == "stream_info") & (F.col("s_messages") > 0))
    latest = F.max_by(F.struct("s_first", "s_last"), "t")
    for r in (
        info.groupBy("stream").agg((F.sum("s_bytes") / F.sum("s_messages")).alias("size"), latest.alias("l")).collect()
    ):
        s = streams.setdefault(r["stream"], {})
        s.setdefault("bytes", {})["stored_msg_size_mean"] = r["size"]
        s["retention_span_ns"] = (r["l"]["s_last"] - r["l"]["s_first"]) * 1000

    lo, hi = ev.agg(F.min(t), F.max(t)).first()
    ev.unpersist()
    return {
        "version": 1,
        "window": {"start": _iso(lo), "end": _iso(hi)},
        "consumers": dict(sorted(consumers.items())),
        "streams": dict(sorted(streams.items())),
    }
