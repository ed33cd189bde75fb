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

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from pyspark import StorageLevel
from pyspark.sql import DataFrame, Row, SparkSession, Window
from pyspark.sql import functions as F

from linter.model.profiles import Profiles
from profiler import quantiles as _q
from profiler.events import ADVISORY_PREFIX, between, read_events
from profiler.job import DEFAULT_EXACT_LIMIT, MIN_ACCURACY
from profiler.partial import iso
from profiler.quantiles import QUANTILES, quantiles

__all__ = ["ProfileSummary", "build_profiles"]

# The parsed events are cached on local disk, never in the JVM heap: a heap cache grows with the input
# until the driver runs out of memory (10M events do not fit a 1 GiB driver).
_CACHE_LEVEL = StorageLevel.DISK_ONLY


@dataclass
class ProfileSummary:
    """What the job read and skipped (printed on stderr by the CLI)."""

    kinds: dict[str, int] = field(default_factory=dict)
    unknown_types: dict[str, int] = field(default_factory=dict)
    exact_groups: int = 0
    approx_groups: int = 0
    windows: tuple[int, int] | None = None  # with a profile store: windows computed, windows reused

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
        if self.windows is not None:
            text += f"; {self.windows[0]} windows computed, {self.windows[1]} read from the store"
        if self.exact_groups or self.approx_groups:
            text += (f"; ack_time percentiles exact for {self.exact_groups} consumers, approximate for "
                     f"{self.approx_groups}")
        return text


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
        F.percentile_approx(a, _q._around(QUANTILES, accuracy), accuracy).alias("a_around"),
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
    if lo is not None and hi is not None:
        c.window = (int(lo), int(hi))
    if plo is not None and phi is not None:
        c.publish_bounds = (int(plo), int(phi))
    return c


def _consumer_profiles(ev: DataFrame, rest: DataFrame, census: _Census, exact_limit: int, accuracy: int,
                       summary: ProfileSummary) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}

    def slot(stream: str, consumer: str) -> dict[str, Any]:
        return out.setdefault(f"{stream}/{consumer}", {})

    acks = ev.where((F.col("kind") == "ack") & F.col("stream").isNotNull() & F.col("consumer").isNotNull()
                    & (F.col("ack_time") >= 0)).select("stream", "consumer", "ack_time")
    qs, summary.exact_groups, summary.approx_groups = quantiles(
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
        hq, _, _ = quantiles(horizons, ["stream"], "h", exact_limit, accuracy, (0.99,),
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
    rates: dict[str, Row] = {}
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
        rate = rates.get(name)
        if name in sizes:
            b = s.setdefault("bytes", {})
            b["stored_msg_size_mean"] = sizes[name]
            if "mean_per_s" not in b and rate is not None:
                b["mean_per_s"] = float(rate["mean"]) * sizes[name]
    return {k: v for k, v in out.items() if v}


def build_profiles(spark: SparkSession, paths: Sequence[str], *, accuracy: int = MIN_ACCURACY,
                   exact_limit: int = DEFAULT_EXACT_LIMIT, progress: Callable[[str], None] | None = None,
                   since: int | None = None, until: int | None = None) -> tuple[dict[str, Any], ProfileSummary]:
    """Compute the profiles document (validated against :class:`linter.model.profiles.Profiles`).

    Passes: the input is parsed once into a cached table of the columns the figures need; one
    aggregation over it (the census) gives every count, the window and the ack group sizes; one more
    computes the ack_time percentiles; the few non-ack events (publisher logs, snapshots) are cached
    apart and the remaining small jobs run on them. Only per-group results reach the driver.
    ``progress`` receives one line per pass with its wall time. ``since``/``until`` (microseconds)
    keep the events of ``[since, until)`` only (then events without a timestamp are skipped).
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
    ev = between(read_events(spark, paths), since, until).persist(_CACHE_LEVEL)
    rest = None
    try:
        census = _census(ev, accuracy)
        summary.kinds = dict(census.kinds)
        done(f"read and census: {sum(census.kinds.values())} events")
        if summary.unknown:
            for r in ev.where(F.col("kind") == "unknown").groupBy("type").count().orderBy(F.desc("count")).limit(5).collect():
                summary.unknown_types[r["type"] or "(no type)"] = int(r["count"])
        doc: dict[str, Any] = {"version": 1, "generated_at": iso(int(datetime.now(UTC).timestamp() * 1e6))}
        if census.window is not None:
            doc["window"] = {"start": iso(census.window[0]), "end": iso(census.window[1])}
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
