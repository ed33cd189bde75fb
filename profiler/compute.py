"""``jsops profile``: the PySpark job turning telemetry into profiles (formats: docs/formats.md).

Runs in-process (``jsops profile TELEMETRY -o profiles.json --master local[*]``) or under spark-submit::

    spark-submit --master local[2] profiler/job.py TELEMETRY -o profiles.json

The job uses only Spark SQL functions (no Python UDFs), so executors need no Python packages; the driver
needs ``profiler`` and ``jsops.linter.model.profiles`` (pydantic) importable.

How figures are computed (all times are read at microsecond precision, durations written as ns):

* ack_time percentiles per consumer, all as numpy's default (linear interpolation between closest
  ranks), exact for groups up to ``exact_limit`` (default 50M): a histogram pass (per log bucket the
  count, min and max, a code-generated aggregation) and a pass collecting the values of the buckets
  that hold the target ranks (:mod:`jsops.profiler.histrank`). A group it cannot rank falls back to
  Spark's exact ``percentile`` up to 100k samples, else to refinement: ``percentile_approx``
  (accuracy >= 10000) brackets each target rank, one more pass counts the samples below each bracket
  and the distinct values inside it (about 4.4, at most 6.4 n/accuracy), and the driver picks the exact
  ranks (:mod:`jsops.profiler.quantiles`). Groups above ``exact_limit`` get ``percentile_approx`` alone,
  whose *rank* is within ``samples / accuracy`` of the target: at accuracy 10000 p99 lies between
  p98.99 and p99.01, p999 between p99.89 and p99.91.
* driver memory does not grow with the number of events: parsed events are cached on local disk (not
  in the heap); no per-event data reaches the driver (only per-stream/consumer results, histograms, and
  at most 100k values per quantile and group, or brackets of at most 6.4 x exact_limit / accuracy
  values); Spark's in-memory exact
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
from pyspark.sql import Column, DataFrame, Row, SparkSession, Window
from pyspark.sql import functions as F

from jsops.linter import Profiles
from jsops.profiler import quantiles as _q
from jsops.profiler.events import ADVISORY_PREFIX, between, read_events
from jsops.profiler.histrank import Histogram, bucket, histogram_query, interpolate
from jsops.profiler.inputs import worth_caching
from jsops.profiler.outliers import GAP_DAYS, exclude_outliers, within_gap
from jsops.profiler.partial import iso
from jsops.profiler.precision import DEFAULT_EXACT_LIMIT, MIN_ACCURACY
from jsops.profiler.quantiles import Along, Key, quantiles
from jsops.profiler.session import keep

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
    outliers: int = 0  # events dated outside the telemetry's days (jsops.profiler.outliers), left out
    kept: tuple[int, int] | None = None  # the days kept [start, end), microseconds

    def outlier_warning(self) -> str | None:
        """The warning about left-out events, or None."""
        if not self.outliers or self.kept is None:
            return None
        return (
            f"{self.outliers} events dated outside {iso(self.kept[0])[:10]} .. {iso(self.kept[1] - 1)[:10]} were left out "
            f"(more than {GAP_DAYS} days away from the bulk of the telemetry; docs/profiler.md, Outliers)"
        )

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
            text += (
                f"; ack_time percentiles exact for {self.exact_groups} consumers, approximate for {self.approx_groups}"
            )
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
    ack_hists: dict[Key, Histogram] = field(default_factory=dict)  # the ack_time histograms (histrank's pass 1)
    deliveries: dict[tuple[str, str], tuple[int, int, int]] = field(default_factory=dict)  # (n, first, max)
    advisories: dict[tuple[str, str], dict[str, int]] = field(default_factory=dict)
    attempts: dict[str, int] = field(default_factory=dict)
    publish_bounds: tuple[int, int] | None = None
    unknown_types: dict[str, int] = field(default_factory=dict)

    def top_unknown(self) -> dict[str, int]:
        """The five most frequent types of the unknown events."""
        return dict(sorted(self.unknown_types.items(), key=lambda x: (-x[1], x[0]))[:5])


def _census_query(ev: DataFrame) -> DataFrame:
    """The census of ``ev`` as one query: one row per kind, advisory or unknown type, stream, consumer
    and, for the acks, ack_time log bucket (``_hb``, :func:`jsops.profiler.histrank.bucket`): the census
    is also the first pass of the exact ack_time percentiles (the histogram, ``a_min``/``a_max``)."""
    kind, t = F.col("kind"), F.col("t")
    is_ack, is_adv, is_pub = kind == "ack", kind == "advisory", kind == "publish"
    ack_ok = F.col("ack_time").isNull() | (F.col("ack_time") >= 0)
    a = F.when(is_ack & (F.col("ack_time") >= 0), F.col("ack_time"))
    d = F.when(is_ack & ack_ok & (F.col("deliveries") >= 1), F.col("deliveries"))
    adv = F.when(
        is_adv,
        F.coalesce(*[F.when(F.col("type") == ADVISORY_PREFIX + k, F.lit(k)) for k in _ADVISORY_KINDS], F.lit("other")),
    ).when(kind == "unknown", F.coalesce(F.col("type"), F.lit("(no type)")))  # unknown: its type
    return ev.groupBy(
        "kind",
        adv.alias("adv"),
        F.when(is_ack | is_adv | is_pub, F.col("stream")).alias("stream"),
        F.when(is_ack | is_adv, F.col("consumer")).alias("consumer"),
        F.when(F.col("stream").isNotNull() & F.col("consumer").isNotNull(), bucket(a)).alias("_hb"),
    ).agg(
        F.count("*").alias("n"),
        F.min(t).alias("lo"),
        F.max(t).alias("hi"),
        F.count(t).alias("nt"),
        F.count(a).alias("a_n"),
        F.min(a).alias("a_min"),
        F.max(a).alias("a_max"),
        F.count(d).alias("d_n"),
        F.count(F.when(d == 1, 1)).alias("d_first"),
        F.max(d).alias("d_max"),
    )


def _census(rows: list[Row]) -> _Census:
    """The census from the rows of :func:`_census_query`."""
    c = _Census()
    bounds: dict[str, tuple[Any, Any]] = {}  # the first and last timestamps: of every event, of the publish logs
    for r in rows:
        k = r["kind"]
        c.kinds[k] = c.kinds.get(k, 0) + int(r["n"])
        if k == "unknown":
            c.unknown_types[r["adv"]] = c.unknown_types.get(r["adv"], 0) + int(r["n"])
        if k in ("bad", "unknown"):
            continue
        if r["lo"] is not None:
            _widen(bounds, "all", r)
        s, con = r["stream"], r["consumer"]
        if k == "publish" and s is not None and r["nt"]:
            c.attempts[s] = c.attempts.get(s, 0) + int(r["nt"])
            _widen(bounds, "publish", r)
        elif s is not None and con is not None:
            _count_consumer(c, k, (s, con), r)
    window, publish = bounds.get("all"), bounds.get("publish")
    if window is not None and window[0] is not None and window[1] is not None:
        c.window = (int(window[0]), int(window[1]))
    if publish is not None and publish[0] is not None and publish[1] is not None:
        c.publish_bounds = (int(publish[0]), int(publish[1]))
    return c


def _widen(bounds: dict[str, tuple[Any, Any]], key: str, r: Row) -> None:
    """``bounds[key]`` widened to the row's first and last timestamps."""
    lo, hi = bounds.get(key, (None, None))
    bounds[key] = (r["lo"] if lo is None else min(lo, r["lo"]), r["hi"] if hi is None else max(hi, r["hi"]))


def _count_consumer(c: _Census, kind: str, pair: tuple[str, str], r: Row) -> None:
    """A census row of one consumer's acks (their count, largest ack_time, histogram bucket and
    deliveries) or advisories, added to ``c``."""
    if kind == "ack":
        if r["a_n"]:
            n, mx = c.ack_sizes.get(pair, (0, r["a_max"]))
            c.ack_sizes[pair] = (n + int(r["a_n"]), max(mx, int(r["a_max"])))
            c.ack_hists.setdefault(pair, Histogram([])).rows.append(
                (int(r["_hb"]), int(r["a_n"]), int(r["a_min"]), int(r["a_max"]))
            )
        if r["d_n"]:
            n, first, mx = c.deliveries.get(pair, (0, 0, r["d_max"]))
            c.deliveries[pair] = (n + int(r["d_n"]), first + int(r["d_first"]), max(mx, int(r["d_max"])))
    elif kind == "advisory":
        counts = c.advisories.setdefault(pair, {n: 0 for n in _ADVISORY_KINDS})
        if r["adv"] in counts:
            counts[r["adv"]] += int(r["n"])


def _consumer_profiles(
    ev: DataFrame,
    census: _Census,
    exact_limit: int,
    accuracy: int,
    summary: ProfileSummary,
    exact_all: bool = False,
    along: Along | None = None,
) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}

    def slot(stream: str, consumer: str) -> dict[str, Any]:
        return out.setdefault(f"{stream}/{consumer}", {})

    acks = ev.where(
        (F.col("kind") == "ack")
        & F.col("stream").isNotNull()
        & F.col("consumer").isNotNull()
        & (F.col("ack_time") >= 0)
    ).select("stream", "consumer", "ack_time")
    qs, summary.exact_groups, summary.approx_groups = quantiles(
        acks,
        ["stream", "consumer"],
        "ack_time",
        exact_limit,
        accuracy,
        sizes=dict(census.ack_sizes),
        exact_all=exact_all,
        hists=census.ack_hists,
        along=along,
    )
    for (s, c), (n, q, mx) in qs.items():
        slot(s, c)["ack_time_ns"] = {
            "samples": n,
            "p50": _ns(q[0]),
            "p90": _ns(q[1]),
            "p99": _ns(q[2]),
            "p999": _ns(q[3]),
            "max": mx,
        }
    for (s, c), (n, first, mx) in census.deliveries.items():
        slot(s, c)["deliveries"] = {"first_try_ratio": first / n, "redelivered_ratio": (n - first) / n, "max": mx}
    for (s, c), counts in census.advisories.items():
        slot(s, c)["advisories"] = dict(counts)
    return out


def _horizons(rest: DataFrame) -> DataFrame:
    """Per stream and retried msg_id (at least two attempts): the retry horizon ``h`` in ns."""
    pub = rest.where((F.col("kind") == "publish") & F.col("stream").isNotNull() & F.col("t").isNotNull())
    return (
        pub.where(F.col("msg_id").isNotNull())
        .groupBy("stream", "msg_id")
        .agg(F.count("*").alias("n"), ((F.max("t") - F.min("t")) * 1000).alias("h"))
        .where(F.col("n") >= 2)
    )


def _horizons_inline(census: _Census, exact_limit: int, exact_all: bool) -> bool:
    """Whether the retry horizons' exact p99 fits the query of :func:`_rest_query` (Spark's exact
    ``percentile`` per stream): a retried id has at least two attempts, so at most attempts/2 horizons."""
    bound = sum(census.attempts.values()) // 2
    return census.publish_bounds is not None and (exact_all or bound <= min(exact_limit, _q._EXACT_SMALL))


def _rest_query(rest: DataFrame, census: _Census, horizons: bool = False) -> DataFrame:
    """Every figure of the non-ack events (publisher logs, snapshots) in one query: each part is
    aggregated apart and the results share one row shape (``fig`` says which part a row is).
    ``horizons``: the retry horizons' count, max and exact p99 per stream too (``fig`` ``hz``); else
    their histogram pass (``fig`` ``hzh``: bucket, count, min, max), for :func:`quantiles`."""
    parts = [
        _rates(
            rest.where(
                (F.col("kind") == "consumer_info") & F.col("consumer").isNotNull() & F.col("c_delivered").isNotNull()
            ),
            "drate",
            ["stream", "consumer"],
            "c_delivered",
        ),
        _rates(
            rest.where((F.col("kind") == "stream_info") & F.col("s_last_seq").isNotNull()),
            "srate",
            ["stream"],
            "s_last_seq",
        ),
    ]
    snaps = rest.where(
        (F.col("kind") == "stream_info")
        & F.col("stream").isNotNull()
        & F.col("t").isNotNull()
        & (F.col("s_messages") > 0)
    )
    latest = F.max_by(F.struct("s_first", "s_last"), "t")
    parts.append(
        _row(
            snaps.groupBy("stream").agg((F.sum("s_bytes") / F.sum("s_messages")).alias("x"), latest.alias("l")),
            "size",
            x=F.col("x"),
            a=F.col("l.s_first"),
            b=F.col("l.s_last"),
        )
    )
    if census.publish_bounds is not None:
        ok = rest.where(
            (F.col("kind") == "publish")
            & F.col("stream").isNotNull()
            & F.col("t").isNotNull()
            & (F.col("result") == "ok")
        )
        per_sec = ok.groupBy("stream", F.floor(F.col("t") / 1_000_000).alias("sec")).agg(
            F.count("*").alias("c"), F.sum("bytes").alias("b"), F.count("bytes").alias("nb")
        )
        # the distribution of the per-second counts (seconds without a publish are added on the driver)
        hist = per_sec.groupBy("stream", "c").agg(
            F.count("*").alias("secs"),
            F.sum("b").alias("b"),
            F.max(F.coalesce("b", F.lit(0))).alias("bmax"),
            F.sum("nb").alias("nb"),
        )
        parts.append(_row(hist, "sec", a=F.col("c"), b=F.col("secs"), c=F.col("b"), d=F.col("bmax"), e=F.col("nb")))
        per_min = ok.groupBy("stream", F.floor(F.col("t") / 60_000_000).alias("m")).count()
        parts.append(_row(per_min.groupBy("stream").agg(F.max("count").alias("pm")), "min", a=F.col("pm")))
    if horizons:
        hz = (
            _horizons(rest)
            .groupBy("stream")
            .agg(F.count("h").alias("n"), F.max("h").alias("mx"), F.percentile(F.col("h"), [0.99]).alias("q"))
        )
        parts.append(_row(hz, "hz", a=F.col("n"), b=F.col("mx"), x=F.get(F.col("q"), 0)))
    elif census.publish_bounds is not None:  # the histogram pass of the retry horizons' p99 (quantiles' hists)
        hh = histogram_query(_horizons(rest), ["stream"], "h")
        parts.append(_row(hh, "hzh", a=F.col("_hb"), b=F.col("_hc"), c=F.col("_hlo"), d=F.col("_hhi")))
    out = parts[0]
    for p in parts[1:]:
        out = out.unionByName(p)
    return out


_ROW = {"a": "long", "b": "long", "c": "long", "d": "long", "e": "long", "x": "double", "y": "double"}


def _row(df: DataFrame, fig: str, **values: Column) -> DataFrame:
    """``df`` in the shared row shape of :func:`_rest_query`: fig, stream, consumer and the ``values``."""
    consumer = F.col("consumer") if "consumer" in df.columns else F.lit(None).cast("string")
    return df.select(
        F.lit(fig).alias("fig"),
        "stream",
        consumer.alias("consumer"),
        *[values.get(k, F.lit(None)).cast(t).alias(k) for k, t in _ROW.items()],
    )


def _rates(snaps: DataFrame, fig: str, keys: list[str], counter: str) -> DataFrame:
    """Total, mean and peak rate of a monotone counter between consecutive snapshots (resets skipped)."""
    snaps = snaps.where(F.col("stream").isNotNull() & F.col("t").isNotNull()).dropDuplicates([*keys, "t"])
    w = Window.partitionBy(*keys).orderBy("t")
    d = snaps.select(
        *keys, (F.col(counter) - F.lag(counter).over(w)).alias("d"), (F.col("t") - F.lag("t").over(w)).alias("dt")
    ).where((F.col("dt") > 0) & (F.col("d") >= 0))
    agg = d.groupBy(*keys).agg(
        F.sum("d").alias("total"),
        (F.sum("d") * 1e6 / F.sum("dt")).alias("mean"),
        F.max(F.col("d") * 1e6 / F.col("dt")).alias("peak"),
    )
    return _row(agg, fig, a=F.col("total"), x=F.col("mean"), y=F.col("peak"))


def _percentile(counts: Sequence[tuple[int, int]], p: float) -> float:
    """Spark's exact ``percentile`` of the multiset of sorted (value, count) pairs, in the same double
    arithmetic (:func:`jsops.profiler.histrank.interpolate`)."""

    def at(rank: int) -> int:
        seen = 0
        for v, c in counts:
            seen += c
            if rank < seen:
                return v
        raise ValueError(rank)

    return interpolate(sum(c for _, c in counts), p, at)


def _ingest(rows: list[Row], bounds: tuple[int, int], out: dict[str, dict[str, Any]]) -> None:
    """Ingest and bytes per second from the per-second count distribution of each stream's ok publishes
    over the dense grid of every second of the publisher-log window (a second without one counts 0)."""
    nsec = bounds[1] // 1_000_000 - bounds[0] // 1_000_000 + 1
    hist: dict[str, list[Row]] = {}
    per_min: dict[str, int] = {}
    for r in rows:
        if r["fig"] == "sec":
            hist.setdefault(r["stream"], []).append(r)
        elif r["fig"] == "min":
            per_min[r["stream"]] = int(r["a"])
    for name, rs in hist.items():
        busy = sum(int(r["b"]) for r in rs)
        counts = sorted([(0, nsec - busy)] if nsec > busy else [])
        counts += sorted((int(r["a"]), int(r["b"])) for r in rs)
        messages = sum(int(r["a"]) * int(r["b"]) for r in rs)
        s = out.setdefault(name, {})
        s["ingest"] = {
            "messages": messages,
            "mean_per_s": messages / nsec,
            "p99_per_s": _percentile(counts, 0.99),
            "peak_per_s": max(int(r["a"]) for r in rs),
            "peak_per_min": per_min[name],
        }
        if sum(int(r["e"]) for r in rs):
            s["bytes"] = {
                "mean_per_s": sum(int(r["c"] or 0) for r in rs) / nsec,
                "peak_per_s": max(int(r["d"]) for r in rs),
            }


def _stream_profiles(
    rest: DataFrame, rows: list[Row], census: _Census, exact_limit: int, accuracy: int, exact_all: bool = False
) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    if census.publish_bounds is not None:
        _ingest(rows, census.publish_bounds, out)
        _publish_retries(rest, rows, census, exact_limit, accuracy, exact_all, out)
    sizes, rates = _sizes_and_rates(rows, out)
    for name, s in out.items():
        rate = rates.get(name)
        if name in sizes:
            b = s.setdefault("bytes", {})
            b["stored_msg_size_mean"] = sizes[name]
            if "mean_per_s" not in b and rate is not None:
                b["mean_per_s"] = float(rate["x"]) * sizes[name]
    return {k: v for k, v in out.items() if v}


def _publish_retries(
    rest: DataFrame,
    rows: list[Row],
    census: _Census,
    exact_limit: int,
    accuracy: int,
    exact_all: bool,
    out: dict[str, dict[str, Any]],
) -> None:
    """Each publishing stream's ``publish_retry`` (attempts, retried ids, their horizons' p99 and max) into ``out``."""
    if _horizons_inline(census, exact_limit, exact_all):  # computed by _rest_query
        hq = {(r["stream"],): (int(r["a"]), [float(r["x"])], int(r["b"])) for r in rows if r["fig"] == "hz" and r["a"]}
    else:
        hists: dict[Key, Histogram] = {}
        for r in rows:
            if r["fig"] == "hzh":
                hists.setdefault((r["stream"],), Histogram([])).rows.append(
                    (int(r["a"]), int(r["b"]), int(r["c"]), int(r["d"]))
                )
        hq, _, _ = quantiles(
            _horizons(rest), ["stream"], "h", exact_limit, accuracy, (0.99,), exact_all=exact_all, hists=hists
        )
    for name, attempts in census.attempts.items():
        retry: dict[str, Any] = {"attempts": attempts, "retried_ids": 0}
        if (name,) in hq:
            n, q, mx = hq[(name,)]
            retry.update(retried_ids=n, horizon_p99_ns=_ns(q[0]), horizon_max_ns=mx)
        out.setdefault(name, {})["publish_retry"] = retry


def _sizes_and_rates(rows: list[Row], out: dict[str, dict[str, Any]]) -> tuple[dict[str, float], dict[str, Row]]:
    """The streams' stored message size means and ingest rate rows; their retention spans and
    ingest figures put into ``out`` (every stream with a row gets its entry)."""
    sizes: dict[str, float] = {}
    rates: dict[str, Row] = {}
    for r in rows:
        if r["fig"] == "size":
            s = out.setdefault(r["stream"], {})
            if r["x"] is not None:
                sizes[r["stream"]] = float(r["x"])
            if r["a"] is not None and r["b"] is not None and r["b"] >= r["a"]:
                s["retention_span_ns"] = int(r["b"] - r["a"]) * 1000
        elif r["fig"] == "srate":
            s = out.setdefault(r["stream"], {})
            rates[r["stream"]] = r
            if "ingest" not in s:
                s["ingest"] = {"messages": int(r["a"]), "mean_per_s": float(r["x"])}
    return sizes, rates


def _census_rows(ev: DataFrame, summary: ProfileSummary) -> tuple[DataFrame, list[Row]]:
    """The events without their outliers, and the rows of their census (:func:`_census_query`):
    every event within GAP_DAYS days: no outlier, no query; else the days are counted, and the
    census runs again without the outliers if there are any (``summary`` says what was kept)."""
    rows = _census_query(ev).collect()
    timed = [r for r in rows if r["lo"] is not None]
    summary.kept = within_gap(min((r["lo"] for r in timed), default=None), max((r["hi"] for r in timed), default=None))
    if summary.kept is None and timed:
        ev, summary.outliers, summary.kept = exclude_outliers(ev)
        if summary.outliers:
            rows = _census_query(ev).collect()
    return ev, rows


def build_profiles(
    spark: SparkSession,
    paths: Sequence[str],
    *,
    accuracy: int = MIN_ACCURACY,
    exact_limit: int = DEFAULT_EXACT_LIMIT,
    progress: Callable[[str], None] | None = None,
    since: int | None = None,
    until: int | None = None,
    exact_percentiles: bool = False,
) -> tuple[dict[str, Any], ProfileSummary]:
    """Compute the profiles document (validated against :class:`jsops.linter.model.profiles.Profiles`).

    Queries over the input: one (the census) gives every count, the window, the unknown types, the
    first and last timestamps (no outlier when they are at most GAP_DAYS days apart; else one more
    query counts the days), the ack group sizes and their ack_time histograms; one collects the values
    of the histograms' target buckets and computes every figure of the few non-ack events (publisher
    logs, snapshots) with their retry horizons (a union: one Spark job). JSON input is parsed once into a disk cache of the
    columns the figures need; Parquet is scanned again instead (cheaper than a cache). Only per-group
    results reach the driver. ``progress`` receives one line per pass with its wall time.
    ``since``/``until`` (microseconds) keep the events of ``[since, until)`` only (then events without
    a timestamp are skipped). ``exact_percentiles`` (an engine without ``percentile_approx`` over an
    array, such as Sail) computes every percentile exactly, whatever the group's size.
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
    ev = between(read_events(spark, paths), since, until)
    release: Callable[[], None] | None = None
    if worth_caching(paths):
        ev, release = keep(ev, _CACHE_LEVEL)  # persist on Spark; a checkpoint on Sail, which keeps nothing persisted
    try:
        ev, rows = _census_rows(ev, summary)
        census = _census(rows)
        summary.kinds, summary.unknown_types = dict(census.kinds), census.top_unknown()
        done(f"read and census: {sum(census.kinds.values())} events")
        doc: dict[str, Any] = {"version": 1, "generated_at": iso(int(datetime.now(UTC).timestamp() * 1e6))}
        if census.window is not None:
            doc["window"] = {"start": iso(census.window[0]), "end": iso(census.window[1])}
        rest = ev.where(F.col("kind").isin("publish", "stream_info", "consumer_info"))
        # the non-ack figures' query runs within the ack_time percentiles' first query (one job for both)
        along = Along(_rest_query(rest, census, _horizons_inline(census, exact_limit, exact_percentiles)))
        consumers = _consumer_profiles(ev, census, exact_limit, accuracy, summary, exact_percentiles, along)
        rows = along.finish()
        done(f"ack_time percentiles and the non-ack figures: {len(consumers)} consumers")
        for r in rows:
            if r["fig"] == "drate":
                consumers.setdefault(f"{r['stream']}/{r['consumer']}", {})["delivery"] = {
                    "mean_per_s": r["x"],
                    "peak_per_s": r["y"],
                }
        doc["streams"] = dict(
            sorted(_stream_profiles(rest, rows, census, exact_limit, accuracy, exact_percentiles).items())
        )
        done(f"streams: {len(doc['streams'])}")
        doc["consumers"] = dict(sorted(consumers.items()))
    finally:
        if release is not None:
            release()
    Profiles.model_validate(doc)
    return doc, summary
