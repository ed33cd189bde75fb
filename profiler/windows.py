"""Partial profiles per time window on Spark: every window of the input in one pass per figure.

Each aggregation groups by the window index ``w = floor(t / window)`` as well as by its own keys, so a
week of hourly windows costs the same seven small jobs as one hour. Only per-window, per-group rows
reach the driver (bucket counts, value counts of small groups, the retried ids near a window's edges),
where :mod:`jsops.profiler.partial` turns them into :class:`~jsops.profiler.partial.Partial` objects. Events without
a timestamp belong to no window: they are counted (``untimed``) and skipped.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F
from pyspark.sql import types as T

from jsops.profiler.events import ADVISORY_PREFIX
from jsops.profiler.histrank import literal_table
from jsops.profiler.partial import Counter, Histogram, Partial, gamma

__all__ = ["window_partials"]

PartOf = Callable[[int], Partial]
"""The partial profile of window ``w`` (made on first use)."""

_ADVISORY_KINDS = ("max_deliver", "nak", "terminated")
_ZERO = -(2**31)


def window_partials(ev: DataFrame, template: Partial, window_us: int) -> tuple[dict[int, Partial], dict[str, int]]:
    """The partial profile of every window (index ``w``: ``[w * window_us, (w + 1) * window_us)``) that
    has events in ``ev`` (the normalised events, already cut to the windows wanted), with the settings of
    ``template``; and the counts of events per kind that have no timestamp."""
    ev = ev.withColumn("w", F.floor(F.col("t") / window_us))
    parts: dict[int, Partial] = {}

    def part(w: int) -> Partial:
        w = int(w)
        return parts.setdefault(
            w, Partial(w * window_us, (w + 1) * window_us, template.alpha, template.exact_limit, template.reach)
        )

    untimed = _census(ev, part)
    _acks(ev, part, template.alpha, template.exact_limit)
    pub = ev.where((F.col("kind") == "publish") & F.col("stream").isNotNull() & F.col("w").isNotNull())
    _per_second(pub, part)
    _horizons(pub, part, window_us, template)
    _counters(ev, part)
    _sizes(ev, part)
    return parts, untimed


def _census(ev: DataFrame, part: PartOf) -> dict[str, int]:
    kind, t = F.col("kind"), F.col("t")
    is_ack, is_adv, is_pub = kind == "ack", kind == "advisory", kind == "publish"
    ack_ok = F.col("ack_time").isNull() | (F.col("ack_time") >= 0)
    d = F.when(is_ack & ack_ok & (F.col("deliveries") >= 1), F.col("deliveries"))
    adv = F.when(
        is_adv,
        F.coalesce(*[F.when(F.col("type") == ADVISORY_PREFIX + k, F.lit(k)) for k in _ADVISORY_KINDS], F.lit("other")),
    ).when(kind == "unknown", F.coalesce(F.col("type"), F.lit("(no type)")))
    rows = (
        ev.groupBy(
            "w",
            "kind",
            adv.alias("adv"),
            F.when(is_ack | is_adv | is_pub, F.col("stream")).alias("stream"),
            F.when(is_ack | is_adv, F.col("consumer")).alias("consumer"),
        )
        .agg(
            F.count("*").alias("n"),
            F.min(t).alias("lo"),
            F.max(t).alias("hi"),
            F.count(d).alias("d_n"),
            F.count(F.when(d == 1, 1)).alias("d_first"),
            F.max(d).alias("d_max"),
        )
        .collect()
    )
    untimed: dict[str, int] = {}
    for r in rows:
        k, n = r["kind"], int(r["n"])
        if r["w"] is None:
            untimed[k] = untimed.get(k, 0) + n
            continue
        p: Partial = part(r["w"])
        p.kinds[k] = p.kinds.get(k, 0) + n
        if k == "unknown":
            p.unknown_types[r["adv"]] = p.unknown_types.get(r["adv"], 0) + n
        if k in ("bad", "unknown"):
            continue
        p.bounds = _span(p.bounds, (int(r["lo"]), int(r["hi"])))
        s, con = r["stream"], r["consumer"]
        if k == "ack" and s is not None and con is not None and r["d_n"]:
            p.consumer(f"{s}/{con}").deliveries = (int(r["d_n"]), int(r["d_first"]), int(r["d_max"]))
        elif k == "advisory" and s is not None and con is not None:
            c = p.consumer(f"{s}/{con}")
            c.advisories = c.advisories or {a: 0 for a in _ADVISORY_KINDS}
            if r["adv"] in c.advisories:
                c.advisories[r["adv"]] += n
        elif k == "publish" and s is not None:
            p.stream(s).attempts += n
            p.publish_bounds = _span(p.publish_bounds, (int(r["lo"]), int(r["hi"])))
    return untimed


def _span(a: tuple[int, int] | None, b: tuple[int, int]) -> tuple[int, int]:
    return b if a is None else (min(a[0], b[0]), max(a[1], b[1]))


def _bucket(v: Column, alpha: float) -> Column:
    return F.when(v <= 0, F.lit(_ZERO)).otherwise(F.floor(F.log(v) / math.log(gamma(alpha)))).cast("int")


def _acks(ev: DataFrame, part: PartOf, alpha: float, exact_limit: int) -> None:
    """Per window and consumer: log-bucket counts, and the value counts of the groups small enough."""
    acks = ev.where(
        (F.col("kind") == "ack")
        & F.col("stream").isNotNull()
        & F.col("consumer").isNotNull()
        & (F.col("ack_time") >= 0)
        & F.col("w").isNotNull()
    )
    sizes = (
        acks.groupBy("w", "stream", "consumer").agg(F.count("*").alias("n"), F.max("ack_time").alias("mx")).collect()
    )
    small = []
    for r in sizes:
        key = f"{r['stream']}/{r['consumer']}"
        n = int(r["n"])
        part(r["w"]).consumer(key).ack = Histogram(alpha, n, int(r["mx"]), {}, {} if n <= exact_limit else None)
        if n <= exact_limit:
            small.append([int(r["w"]), r["stream"], r["consumer"], True])
    if not sizes:
        return
    schema = T.StructType(
        [
            T.StructField("w", T.LongType()),
            T.StructField("stream", T.StringType()),
            T.StructField("consumer", T.StringType()),
            T.StructField("_small", T.BooleanType()),
        ]
    )
    flagged = (
        acks
        if not small
        else acks.join(F.broadcast(literal_table(ev.sparkSession, schema, small)), ["w", "stream", "consumer"], "left")
    )
    exact_v = F.when(F.col("_small"), F.col("ack_time")) if small else F.lit(None).cast("long")
    rows = (
        flagged.groupBy("w", "stream", "consumer", _bucket(F.col("ack_time"), alpha).alias("b"), exact_v.alias("v"))
        .count()
        .collect()
    )
    for r in rows:
        h = part(r["w"]).consumer(f"{r['stream']}/{r['consumer']}").ack
        assert h is not None
        b, c = int(r["b"]), int(r["count"])
        h.buckets[b] = h.buckets.get(b, 0) + c
        if h.exact is not None and r["v"] is not None:
            h.exact[int(r["v"])] = c


def _per_second(pub: DataFrame, part: PartOf) -> None:
    ok = pub.where(F.col("result") == "ok").withColumn("sec", F.floor(F.col("t") / 1_000_000))
    per_sec = ok.groupBy("w", "stream", "sec").agg(
        F.count("*").alias("c"), F.sum("bytes").alias("b"), F.count("bytes").alias("nb")
    )
    for r in (
        per_sec.groupBy("w", "stream", "c")
        .agg(F.count("*").alias("secs"), F.sum("b").alias("b"), F.max("b").alias("bmax"), F.sum("nb").alias("nb"))
        .collect()
    ):
        s = part(r["w"]).stream(r["stream"])
        s.per_sec[int(r["c"])] = int(r["secs"])
        s.bytes_total += int(r["b"] or 0)
        s.bytes_peak = max(s.bytes_peak, int(r["bmax"] or 0))
        s.bytes_n += int(r["nb"])
    per_min = ok.groupBy("w", "stream", F.floor(F.col("t") / 60_000_000).alias("m")).count()
    for r in per_min.groupBy("w", "stream").agg(F.max("count").alias("pm")).collect():
        part(r["w"]).stream(r["stream"]).peak_min = int(r["pm"])


def _horizons(pub: DataFrame, part: PartOf, window_us: int, template: Partial) -> None:
    """Retry horizons of the ids inside a window; the ids near its edges as (attempts, first, last)."""
    ids = (
        pub.where(F.col("msg_id").isNotNull())
        .groupBy("w", "stream", "msg_id")
        .agg(F.count("*").alias("n"), F.min("t").alias("lo"), F.max("t").alias("hi"))
    )
    edge = (F.col("lo") < F.col("w") * window_us + template.reach) | (
        F.col("hi") >= (F.col("w") + 1) * window_us - template.reach
    )
    rows = (
        ids.where(edge | (F.col("n") >= 2))
        .groupBy(
            "w",
            "stream",
            *[F.when(edge, F.col(c)).alias(c) for c in ("msg_id", "n", "lo", "hi")],
            F.when(~edge, (F.col("hi") - F.col("lo")) * 1000).alias("h"),
        )
        .count()
        .collect()
    )
    for r in rows:
        s = part(r["w"]).stream(r["stream"])
        if r["msg_id"] is not None:
            s.edges[r["msg_id"]] = (int(r["n"]), int(r["lo"]), int(r["hi"]))
        else:
            s.horizons = s.horizons or Histogram(template.alpha)
            s.horizons.add(int(r["h"]), int(r["count"]))
            if s.horizons.exact is not None and s.horizons.n > template.exact_limit:
                s.horizons.exact = None


def _counters(ev: DataFrame, part: PartOf) -> None:
    """Per window: deltas of ConsumerInfo ``delivered.consumer_seq`` and StreamInfo ``state.last_seq``."""
    cons = ev.where(
        (F.col("kind") == "consumer_info") & F.col("consumer").isNotNull() & F.col("c_delivered").isNotNull()
    ).select("w", "stream", "consumer", "t", F.col("c_delivered").alias("v"))
    strm = ev.where((F.col("kind") == "stream_info") & F.col("s_last_seq").isNotNull()).select(
        "w", "stream", F.lit(None).cast("string").alias("consumer"), "t", F.col("s_last_seq").alias("v")
    )
    snaps = (
        cons.unionByName(strm)
        .where(F.col("stream").isNotNull() & F.col("t").isNotNull())
        .dropDuplicates(["stream", "consumer", "t"])
    )
    keys = ["w", "stream", "consumer"]
    order = Window.partitionBy(*keys).orderBy("t")
    d, dt = F.col("v") - F.lag("v").over(order), F.col("t") - F.lag("t").over(order)
    deltas = snaps.select(*keys, "t", "v", d.alias("d"), dt.alias("dt"))
    valid = (F.col("dt") > 0) & (F.col("d") >= 0)
    agg = deltas.groupBy(*keys).agg(
        F.sum(F.when(valid, F.col("d"))).alias("total"),
        F.sum(F.when(valid, F.col("dt"))).alias("dts"),
        F.max(F.when(valid, F.col("d") * 1e6 / F.col("dt"))).alias("peak"),
        F.min_by(F.struct("t", "v"), "t").alias("first"),
        F.max_by(F.struct("t", "v"), "t").alias("last"),
    )
    for r in agg.collect():
        c = Counter(
            int(r["total"] or 0),
            int(r["dts"] or 0),
            r["peak"],
            (int(r["first"]["t"]), int(r["first"]["v"])),
            (int(r["last"]["t"]), int(r["last"]["v"])),
        )
        p: Partial = part(r["w"])
        if r["consumer"] is None:
            p.stream(r["stream"]).seq = c
        else:
            p.consumer(f"{r['stream']}/{r['consumer']}").delivery = c


def _sizes(ev: DataFrame, part: PartOf) -> None:
    snaps = ev.where(
        (F.col("kind") == "stream_info")
        & F.col("stream").isNotNull()
        & F.col("t").isNotNull()
        & (F.col("s_messages") > 0)
    )
    for r in (
        snaps.groupBy("w", "stream")
        .agg(
            F.sum("s_bytes").alias("b"),
            F.sum("s_messages").alias("m"),
            F.max_by(F.struct("t", "s_first", "s_last"), "t").alias("latest"),
        )
        .collect()
    ):
        s = part(r["w"]).stream(r["stream"])
        s.size = (None if r["b"] is None else int(r["b"]), int(r["m"]))
        lt = r["latest"]
        s.latest = (int(lt["t"]), lt["s_first"], lt["s_last"])
