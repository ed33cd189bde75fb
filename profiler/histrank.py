"""Exact per-group percentiles from a log-bucket histogram and the values of a few buckets.

An engine whose exact ``percentile`` is slow (Sail holds and sorts every value of a group) gets the same
figures from two aggregations it runs fast, nothing approximate on the way:

1. per group and log bucket (:func:`bucket`, about 0.27 % wide, negative values mirrored below zero):
   the count, min and max; the driver checks that the buckets are ordered as their values (each bucket's
   max below the next one's min), so the bucket is only a key and its floating point never changes a figure;
2. for the buckets holding the target ranks (``floor``/``ceil`` of ``(n - 1) q``) that hold more than one
   distinct value: their (value, count) pairs. With the counts below each bucket from pass 1 the driver
   picks the exact ranks and interpolates as Spark's ``percentile`` does (:func:`interpolate`).

A group whose buckets are not ordered, or whose target bucket holds more than ``pair_limit`` values, is
left to the caller (Spark's exact ``percentile``). See docs/profiler.md, "Percentiles and their error bound".
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pyspark.sql import Column, DataFrame, Row, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

__all__ = [
    "Histogram",
    "bucket",
    "histogram_query",
    "histogram_quantiles",
    "histograms",
    "interpolate",
    "literal_table",
]

#: a target bucket of more values than this is not collected (the group falls back to ``percentile``)
PAIR_LIMIT = 1_000_000
_FILTER_GROUPS = 256  # up to this many groups, pass 2 filters by an expression, else joins a literal table

Key = tuple[Any, ...]


def bucket(value: str | Column) -> Column:
    """The log bucket of ``value`` (a column or its name): ``floor(log2(|v| + 1) * 256)``, ``-1 -`` that
    below zero; null for null."""
    v = (F.col(value) if isinstance(value, str) else value).cast("double")
    mag = F.floor(F.log2(F.abs(v) + F.lit(1.0)) * F.lit(256.0))
    return F.when(v < 0, -mag - F.lit(1)).otherwise(mag).cast("long")


def interpolate(n: int, q: float, at: Callable[[int], float]) -> float:
    """Spark's exact ``percentile`` ``q`` of ``n`` values given the value at each 0-based rank, in the
    same double arithmetic as Spark 4.3 and Sail (linear interpolation between the closest ranks,
    ``position = (n - 1) q``: ``lo + (position - floor(position)) (hi - lo)``)."""
    position = (n - 1) * q
    lower, higher = math.floor(position), math.ceil(position)
    lo, hi = at(lower), at(higher)
    if higher == lower or lo == hi:
        return float(lo)
    return float(lo) + (position - lower) * (float(hi) - float(lo))


@dataclass
class Histogram:
    """One group's pass-1 buckets, sorted: (bucket, count, min, max); the values of the collected ones."""

    rows: list[tuple[int, int, float, float]]  # (bucket, count, smallest, largest value)
    pairs: dict[int, list[tuple[float, int]]] = field(default_factory=dict)  # (value, count) by bucket

    @property
    def n(self) -> int:
        return sum(c for _, c, _, _ in self.rows)

    def ordered(self) -> bool:
        """Each bucket's values all below the next bucket's (the ranks then follow the buckets)."""
        return all(a[3] < b[2] for a, b in zip(self.rows, self.rows[1:]))

    def holding(self, rank: int) -> tuple[int, int]:
        """The index of the bucket holding 0-based ``rank`` and the number of values below that bucket."""
        below = 0
        for i, (_, c, _, _) in enumerate(self.rows):
            if rank < below + c:
                return i, below
            below += c
        raise ValueError(rank)

    def wanted(self, qs: Sequence[float]) -> set[int]:
        """The buckets whose (value, count) pairs the ranks of ``qs`` need (not those of one distinct value)."""
        n, out = self.n, set()
        for q in qs:
            h = (n - 1) * q
            for rank in (math.floor(h), math.ceil(h)):
                i, _ = self.holding(rank)
                if self.rows[i][2] != self.rows[i][3]:
                    out.add(self.rows[i][0])
        return out

    def at(self, rank: int) -> float:
        """The value of 0-based ``rank``."""
        i, seen = self.holding(rank)
        b, _, lo, hi = self.rows[i]
        if lo == hi:
            return lo
        for v, c in sorted(self.pairs[b]):
            seen += c
            if rank < seen:
                return v
        raise ValueError(rank)


def literal_table(spark: SparkSession, schema: T.StructType, rows: Sequence[Sequence[Any]]) -> DataFrame:
    """A small table as a SQL literal (inline of an array of structs): unlike ``createDataFrame`` it
    needs no Python worker on the executors."""

    def lit(v: Any, dtype: T.DataType) -> Column:
        if isinstance(dtype, T.ArrayType):
            return F.array(*[F.lit(x) for x in v]).cast(dtype) if v else F.array().cast(dtype)
        return F.lit(v).cast(dtype)

    structs = [F.struct(*[lit(v, f.dataType).alias(f.name) for v, f in zip(row, schema.fields)]) for row in rows]
    return spark.range(1).select(F.inline(F.array(*structs)))


def _key(r: Row, keys: list[str]) -> Key:
    return tuple(r[k] for k in keys)


def _only_buckets(df: DataFrame, keys: list[str], value: str, want: dict[Key, list[tuple[Any, Any]]]) -> DataFrame:
    """The rows of ``df`` in the wanted (group, value range)s: the ranges are buckets' [min, max], which
    hold exactly their bucket's values since the buckets are ordered (no bucket computed per row)."""
    v = F.col(value)
    if len(want) <= _FILTER_GROUPS:
        cond: Column | None = None
        for k, ranges in want.items():
            one = F.lit(False)
            for lo, hi in ranges:
                one = one | v.between(F.lit(lo), F.lit(hi))
            for name, x in zip(keys, k):
                one = one & (F.col(name) == F.lit(x))
            cond = one if cond is None else cond | one
        return df.where(cond) if cond is not None else df.limit(0)
    vtype = df.schema[value].dataType
    schema = T.StructType(
        [
            *(T.StructField(k, T.StringType(), True) for k in keys),
            T.StructField("_rlo", vtype, True),
            T.StructField("_rhi", vtype, True),
        ]
    )
    table = literal_table(df.sparkSession, schema, [[*k, lo, hi] for k, ranges in want.items() for lo, hi in ranges])
    return (
        df.join(F.broadcast(table), keys, "inner").where(v.between(F.col("_rlo"), F.col("_rhi"))).drop("_rlo", "_rhi")
    )


def histogram_query(df: DataFrame, keys: list[str], value: str) -> DataFrame:
    """Pass 1 over ``df``: per group and bucket (``_hb``) the count (``_hc``), min (``_hlo``) and max (``_hhi``)."""
    return df.groupBy(*keys, bucket(value).alias("_hb")).agg(
        F.count(value).alias("_hc"), F.min(value).alias("_hlo"), F.max(value).alias("_hhi")
    )


def histograms(rows: Sequence[Row], keys: list[str]) -> dict[Key, Histogram]:
    """The histograms of the rows of :func:`histogram_query` (or rows with its columns)."""
    hists: dict[Key, Histogram] = {}
    for r in rows:
        hists.setdefault(_key(r, keys), Histogram([])).rows.append((int(r["_hb"]), int(r["_hc"]), r["_hlo"], r["_hhi"]))
    return hists


def histogram_quantiles(
    df: DataFrame,
    keys: list[str],
    value: str,
    qs: Sequence[float],
    collect: Callable[[DataFrame], list[Row]],
    pair_limit: int = PAIR_LIMIT,
    limit: int | None = None,
    hists: dict[Key, Histogram] | None = None,
) -> tuple[dict[Key, tuple[int, list[float], int]], dict[Key, tuple[int, int]]]:
    """Per group of ``df`` (non-null ``value``): (count, exact percentiles ``qs``, max), and the groups
    left to the caller with their (count, max): those of more than ``limit`` values, and those pass 1
    cannot rank. ``collect`` runs pass 1 (it may carry a query of the caller's,
    :class:`jsops.profiler.quantiles.Along`) and pass 2; ``hists``: pass 1's result, already known."""
    if hists is None:
        hists = histograms(collect(histogram_query(df, keys, value)), keys)
    left: dict[Key, tuple[int, int]] = {}
    want: dict[Key, set[int]] = {}
    for k, h in hists.items():
        h.rows.sort(key=lambda row: row[0])
        if not h.ordered() or (limit is not None and h.n > limit):
            left[k] = (h.n, int(h.rows[-1][3]))
            continue
        bs = h.wanted(qs)
        if any(c > pair_limit for b, c, _, _ in h.rows if b in bs):
            left[k] = (h.n, int(h.rows[-1][3]))
        elif bs:
            want[k] = bs
    if want:
        ranges = {k: [(b, lo, hi) for b, _, lo, hi in hists[k].rows if b in bs] for k, bs in want.items()}
        pairs = _only_buckets(df, keys, value, {k: [(lo, hi) for _, lo, hi in rs] for k, rs in ranges.items()})
        for r in collect(pairs.groupBy(*keys, value).agg(F.count("*").alias("_hc"))):
            k, x = _key(r, keys), r[value]
            b = next(b for b, lo, hi in ranges[k] if lo <= x <= hi)
            hists[k].pairs.setdefault(b, []).append((x, int(r["_hc"])))
    out: dict[Key, tuple[int, list[float], int]] = {}
    for k, h in hists.items():
        if k not in left:
            n = h.n
            out[k] = (n, [interpolate(n, q, h.at) for q in qs], int(h.rows[-1][3]))
    return out, left
