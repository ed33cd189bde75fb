"""Per-group percentiles on Spark: exact (Spark's ``percentile`` for small groups, bracket refinement for
large ones) up to an exact limit, ``percentile_approx`` with a stated rank error above it.

All percentiles are numpy's default (linear interpolation between the closest ranks, ``h = (n-1)q``).
See docs/profiler.md, "Percentiles and their error bound".
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from pyspark.sql import DataFrame, Row
from pyspark.sql import functions as F
from pyspark.sql import types as T

from jsops.profiler.histrank import Histogram, histogram_quantiles, literal_table

__all__ = ["QUANTILES", "Along", "GroupQuantiles", "Key", "quantiles"]

# Groups of up to _EXACT_SMALL values get Spark's exact percentile (their distinct values in memory);
# larger ones up to the exact limit are refined from brackets of about 4.4 n/accuracy values each, so
# the default keeps a bracket under ~20k values (memory independent of the number of events).
_EXACT_SMALL = 100_000
# a histogram bucket holding a target rank reaches the driver as its (value, count) pairs up to this many
# values (a bucket's values are within about 0.27 % of each other), else its group takes the way below
_PAIR_LIMIT = 100_000
QUANTILES = (0.5, 0.9, 0.99, 0.999)
_L, _S = T.LongType(), T.StringType()

Key = tuple[Any, ...]
#: per group key: (count, quantile values, max)
GroupQuantiles = dict[Key, tuple[int, list[float], int]]


def _f(name: str, dtype: T.DataType) -> T.StructField:
    return T.StructField(name, dtype, True)


@dataclass
class Along:
    """A query of the caller's that runs within the first query :func:`quantiles` runs (one Spark job
    for both; the two row shapes are unioned by name, a column ``_along`` tells them apart), or alone
    from :meth:`finish` when :func:`quantiles` ran none. Its column names must not be those of
    :func:`quantiles`'s queries with another type (keys, ``q``, ``n``, ``mx``, ``_a``, ``_qi``, ``_v``, ``_c``, ``_b0`` ...)."""

    df: DataFrame
    rows: list[Row] | None = None

    def collect(self, df: DataFrame) -> list[Row]:
        """The rows of ``df``, with this query's rows kept in :attr:`rows` the first time."""
        if self.rows is not None:
            return df.collect()
        mine = self.df.withColumn("_along", F.lit(True))
        rows = df.withColumn("_along", F.lit(False)).unionByName(mine, allowMissingColumns=True).collect()
        self.rows = [r for r in rows if r["_along"]]
        return [r for r in rows if not r["_along"]]

    def finish(self) -> list[Row]:
        """This query's rows (running it alone if no query carried it)."""
        if self.rows is None:
            self.rows = self.df.collect()
        return self.rows


def _plain(df: DataFrame) -> list[Row]:
    return df.collect()


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


def _bracket_counts(
    df: DataFrame,
    keys: list[str],
    value: str,
    brackets: dict[Key, list[tuple[int, int]]],
    collect: Callable[[DataFrame], list[Row]] = _plain,
) -> dict[Key, list[tuple[int, list[tuple[int, int]]]]]:
    """One pass over ``df``: per key and bracket ``[lo, hi]``, the number of values below ``lo`` and the
    sorted (value, count) pairs inside. Only the pairs reach the driver (a few per thousand values)."""
    nq = len(next(iter(brackets.values())))
    spark = df.sparkSession
    schema = T.StructType([*(_f(k, _S) for k in keys), _f("_lo", T.ArrayType(_L)), _f("_hi", T.ArrayType(_L))])
    table = literal_table(spark, schema, [[*k, [b[0] for b in br], [b[1] for b in br]] for k, br in brackets.items()])
    v, lo, hi = F.col("_v0"), F.col("_lo"), F.col("_hi")
    joined = df.join(F.broadcast(table), keys, "inner").select(*keys, F.col(value).alias("_v0"), "_lo", "_hi")
    inside = F.filter(F.sequence(F.lit(0), F.lit(nq - 1)), lambda i: (v >= F.get(lo, i)) & (v <= F.get(hi, i)))
    # a value inside two brackets (ties) yields two rows: count it below the others' brackets once
    rows = joined.select(*keys, "_v0", "_lo", F.posexplode_outer(inside).alias("_pos", "_qi"))
    first = F.col("_pos").isNull() | (F.col("_pos") == 0)
    agg = rows.groupBy(*keys, "_qi", F.when(F.col("_qi").isNotNull(), v).alias("_v")).agg(
        F.count("*").alias("_c"),
        *[F.count(F.when(first & (v < F.get(lo, F.lit(i))), 1)).alias(f"_b{i}") for i in range(nq)],
    )
    below: dict[Key, list[int]] = {k: [0] * nq for k in brackets}
    pairs: dict[Key, list[list[tuple[int, int]]]] = {k: [[] for _ in range(nq)] for k in brackets}
    for r in collect(agg):
        k = tuple(r[c] for c in keys)
        if k not in below:
            continue
        for i in range(nq):
            below[k][i] += int(r[f"_b{i}"])
        if r["_qi"] is not None:
            pairs[k][int(r["_qi"])].append((int(r["_v"]), int(r["_c"])))
    return {k: [(below[k][i], sorted(pairs[k][i])) for i in range(nq)] for k in brackets}


class _Groups:
    """One :func:`quantiles` call: the groups' sizes, the results so far and the passes that fill them."""

    def __init__(
        self,
        df: DataFrame,
        keys: list[str],
        value: str,
        qs: list[float],
        sizes: dict[Key, tuple[int, int]],
        along: Along | None = None,
    ) -> None:
        self.df, self.keys, self.value, self.qs, self.sizes = df, keys, value, qs, sizes
        self.collect = _plain if along is None else along.collect
        self.result: GroupQuantiles = {}
        self.exact_groups = self.approx_groups = 0

    def key(self, row: Row) -> Key:
        return tuple(row[c] for c in self.keys)

    def only(self, ks: Iterable[Key]) -> DataFrame:
        """The rows of the groups ``ks`` (all rows when that is every group)."""
        ks = list(ks)
        if len(ks) == len(self.sizes):
            return self.df
        table = literal_table(self.df.sparkSession, T.StructType([_f(k, _S) for k in self.keys]), [list(k) for k in ks])
        return self.df.join(F.broadcast(table), self.keys, "inner")

    def exact(self, ks: list[Key]) -> None:
        """Spark's exact ``percentile`` for the groups ``ks`` (small groups only: held in memory)."""
        for r in self.collect(
            self.only(ks).groupBy(*self.keys).agg(F.percentile(F.col(self.value), self.qs).alias("q"))
        ):
            k = self.key(r)
            if k in self.sizes:
                self.result[k] = (self.sizes[k][0], [float(x) for x in r["q"]], self.sizes[k][1])
        self.exact_groups += len(ks)

    def approx(self, k: Key, around_k: list[int]) -> None:
        n, mx = self.sizes[k]
        self.result[k] = (n, [float(around_k[3 * i + 1]) for i in range(len(self.qs))], mx)
        self.approx_groups += 1

    def around(self, accuracy: int, exact_limit: int) -> dict[Key, list[int]]:
        """Small groups exactly, then ``percentile_approx`` at :func:`_around` for the others."""
        small = [k for k, (n, _) in self.sizes.items() if n <= min(_EXACT_SMALL, exact_limit)]
        if small:
            self.exact(small)
        return self.brackets([k for k in self.sizes if k not in self.result], accuracy)

    def brackets(self, ks: list[Key], accuracy: int) -> dict[Key, list[int]]:
        """``percentile_approx`` at :func:`_around` for the groups ``ks``."""
        if not ks:
            return {}
        agg = F.percentile_approx(F.col(self.value), _around(self.qs, accuracy), accuracy).alias("_a")
        return {
            self.key(r): [int(x) for x in r["_a"]] for r in self.collect(self.only(ks).groupBy(*self.keys).agg(agg))
        }

    def refine(self, around: dict[Key, list[int]], exact_limit: int) -> None:
        """Exact ranks from brackets for groups up to ``exact_limit``; approximate values above it."""
        pending: dict[Key, list[tuple[int, int]]] = {}
        for k, (n, _) in self.sizes.items():
            if k in self.result or k not in around:
                continue
            a = around[k]
            if n > exact_limit:
                self.approx(k, a)
            else:
                pending[k] = [(a[3 * i], a[3 * i + 2]) for i in range(len(self.qs))]
        retry: list[Key] = []
        if pending:
            for k, got in _bracket_counts(self.df, self.keys, self.value, pending, self.collect).items():
                n, mx = self.sizes[k]
                refined = [_refine(n, q, below, pairs) for q, (below, pairs) in zip(self.qs, got)]
                if all(x is not None for x in refined):
                    self.result[k] = (n, [float(x) for x in refined if x is not None], mx)
                    self.exact_groups += 1
                elif n <= _EXACT_SMALL:
                    retry.append(k)
                else:
                    self.approx(k, around[k])
        if retry:
            self.exact(retry)


def _by_histogram(
    df: DataFrame,
    keys: list[str],
    value: str,
    qs: list[float],
    exact_limit: int,
    accuracy: int,
    along: Along | None,
    hists: dict[Key, Histogram] | None,
) -> tuple[GroupQuantiles, int, int]:
    """Exact percentiles from a histogram pass and the values of its target buckets
    (:func:`jsops.profiler.histrank.histogram_quantiles`, at most ``_PAIR_LIMIT`` values per bucket) for
    the groups up to ``exact_limit``; the others as before: Spark's exact percentile up to ``_EXACT_SMALL``
    values, brackets refined (or approximate above ``exact_limit``) above."""
    collect = _plain if along is None else along.collect
    result, left = histogram_quantiles(
        df, keys, value, qs, collect, pair_limit=_PAIR_LIMIT, limit=exact_limit, hists=hists
    )
    if not left:
        return result, len(result), 0
    groups = _Groups(df, keys, value, qs, {**{k: (r[0], r[2]) for k, r in result.items()}, **left}, along)
    groups.result.update(result)
    groups.exact_groups = len(result)
    small = [k for k, (n, _) in left.items() if n <= min(_EXACT_SMALL, exact_limit)]
    if small:
        groups.exact(small)
    groups.refine(groups.brackets([k for k in left if k not in groups.result], accuracy), exact_limit)
    return groups.result, groups.exact_groups, groups.approx_groups


def quantiles(
    df: DataFrame,
    keys: list[str],
    value: str,
    exact_limit: int,
    accuracy: int,
    qs: Sequence[float] = QUANTILES,
    sizes: dict[Key, tuple[int, int]] | None = None,
    total_bound: int | None = None,
    around: dict[Key, list[int]] | None = None,
    exact_all: bool = False,
    along: Along | None = None,
    hists: dict[Key, Histogram] | None = None,
) -> tuple[GroupQuantiles, int, int]:
    """Per key: (count, quantiles, max), and the numbers of exact and approximate groups. Exact for
    groups up to ``exact_limit`` values, else approximate.

    Exact percentiles come from a histogram pass and a pass over the values of the buckets that hold the
    target ranks (:func:`jsops.profiler.histrank.histogram_quantiles`: two code-generated aggregations,
    at most ``_PAIR_LIMIT`` values of a bucket reach the driver). A group the histogram cannot rank
    (buckets out of order, a target bucket too full) gets Spark's ``percentile`` if it has at most
    ``_EXACT_SMALL`` values (it holds a group's values in memory), else is refined:
    ``percentile_approx`` (rank error at most n/accuracy) brackets each target rank between its values
    at ``q -/+ d`` (:func:`_around`); one more pass counts the values below each bracket and the
    distinct values inside it (about 4.4, at most 6.4 n/accuracy), from which the driver picks the exact
    ranks. A bracket that does not hold its ranks falls back to Spark's exact percentile for a small
    group and to the approximate value otherwise (the group then counts as approximate). Groups above
    ``exact_limit`` get ``percentile_approx`` alone.

    ``hists``: the histogram pass's result, from a query of the caller's. ``sizes`` (key -> (count,
    max)) and ``around`` (key -> percentile_approx at :func:`_around`) from an earlier pass send every
    group not above ``exact_limit`` through the brackets. When ``sizes`` is unknown but at most
    ``total_bound`` values exist in all, one exact pass does it. ``exact_all`` (an engine without
    ``percentile_approx`` over an array, :mod:`jsops.profiler.engine`) takes exact percentiles for every
    group, whatever its size, from the histogram (Sail's exact ``percentile`` is about 3 x slower at 10M
    values). ``along``: a query of the caller's to run within the first of these passes (:class:`Along`).
    """
    df = df.where(F.col(value).isNotNull())
    collect = _plain if along is None else along.collect
    qs = list(qs)
    small = total_bound is not None and total_bound <= min(exact_limit, _EXACT_SMALL)
    if exact_all:
        result, left = histogram_quantiles(df, keys, value, qs, collect, hists=hists)
        if left:  # buckets out of order or too full: Spark's exact percentile for those groups
            groups = _Groups(df, keys, value, qs, {**{k: (r[0], r[2]) for k, r in result.items()}, **left}, along)
            groups.exact(list(left))
            result.update(groups.result)
        return result, len(result), 0
    if sizes is None and small:
        rows = collect(
            df.groupBy(*keys).agg(
                F.percentile(F.col(value), qs).alias("q"), F.count(value).alias("n"), F.max(value).alias("mx")
            )
        )
        result = {tuple(r[k] for k in keys): (int(r["n"]), [float(x) for x in r["q"]], int(r["mx"])) for r in rows}
        return result, len(result), 0
    if around is None:
        return _by_histogram(df, keys, value, qs, exact_limit, accuracy, along, hists)
    sizes = {k: (int(n), int(mx)) for k, (n, mx) in (sizes or {}).items() if n > 0}
    if not sizes:
        return {}, 0, 0
    groups = _Groups(df, keys, value, qs, sizes, along)
    groups.refine(around, exact_limit)
    return groups.result, groups.exact_groups, groups.approx_groups
