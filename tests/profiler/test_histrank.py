"""Exact percentiles from a log-bucket histogram (the Sail path, ``exact_all``) equal Spark's exact
``percentile`` and numpy value for value: ties, one value, two values, values sharing a bucket, negative
and zero values, a target bucket too full to collect (falls back to ``percentile``)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from jsops.profiler.histrank import Histogram, bucket, histogram_quantiles, interpolate

QS = [0.0, 0.25, 0.5, 0.9, 0.99, 0.999, 1.0]

GROUPS: dict[str, list[int]] = {
    "one": [7],
    "two": [3, 10],
    "ties": [5] * 40 + [9] * 3 + [1] * 17,
    "same_bucket": [1_000_000 + i for i in range(0, 2000, 7)],  # 0.2 % apart: one or two log buckets
    "negative": [-(10**12), -5, -1, 0, 0, 0, 1, 2, 3**20, 2**40],
    "zeros": [0] * 11,
    "wide": [int(x) for x in np.random.default_rng(5).lognormal(15, 2, 5000)] + [0, 1, 2] * 50,
}


def _df(spark: Any) -> Any:
    rows = [(k, str(k == "wide"), v) for k, vs in GROUPS.items() for v in vs]
    return spark.createDataFrame(rows, "g string, h string, v long")


def _percentile(spark_df: Any) -> dict[tuple[str, str], list[float]]:
    from pyspark.sql import functions as F

    return {
        (r["g"], r["h"]): [float(x) for x in r["q"]]
        for r in spark_df.groupBy("g", "h").agg(F.percentile("v", QS).alias("q")).collect()
    }


@pytest.mark.parametrize("pair_limit", [1_000_000, 5])
def test_histogram_quantiles_equal_sparks_percentile_and_numpy(spark: Any, pair_limit: int) -> None:
    df = _df(spark)
    got, left = histogram_quantiles(df, ["g", "h"], "v", QS, lambda d: d.collect(), pair_limit=pair_limit)
    ref = _percentile(df)
    for (g, h), vals in ref.items():
        n, mx = len(GROUPS[g]), max(GROUPS[g])
        if (g, h) in left:
            assert left[(g, h)] == (n, mx)
            continue
        assert got[(g, h)] == (n, vals, mx), g
        assert vals == pytest.approx(list(np.quantile(GROUPS[g], QS)), rel=1e-12, abs=1e-9), g
    assert set(got) | set(left) == set(ref) and not set(got) & set(left)
    if pair_limit == 5:  # a target bucket of more than 5 values is left to the caller; one distinct value is not
        assert ("same_bucket", "False") in left and {("zeros", "False"), ("ties", "False"), ("one", "False")} <= set(
            got
        )
    else:
        assert not left


def test_quantiles_exact_all_equals_percentile_with_a_fallback_and_an_along_query(
    spark: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pyspark.sql import functions as F

    from jsops.profiler import histrank
    from jsops.profiler.quantiles import Along, quantiles

    monkeypatch.setattr(histrank, "PAIR_LIMIT", 5)
    monkeypatch.setattr(histrank.histogram_quantiles, "__defaults__", (5, None, None))
    df = _df(spark)
    along = Along(df.groupBy("g").agg(F.count("*").alias("cnt")))
    got, exact, approx = quantiles(df, ["g", "h"], "v", 10, 100, QS, exact_all=True, along=along)
    ref = _percentile(df)
    assert {k: q for k, (_, q, _) in got.items()} == ref and (exact, approx) == (len(ref), 0)
    assert {r["g"]: r["cnt"] for r in along.finish()} == {g: len(vs) for g, vs in GROUPS.items()}


@pytest.mark.parametrize("pair_limit", [100_000, -1])
def test_quantiles_on_spark_histogram_then_percentile_or_brackets_equal_percentile(
    spark: Any, monkeypatch: pytest.MonkeyPatch, pair_limit: int
) -> None:
    """Spark's way (not ``exact_all``): the histogram for groups up to the exact limit; the groups it leaves
    (here all of them with ``_PAIR_LIMIT`` -1) get Spark's percentile when small, brackets when larger
    (``_EXACT_SMALL`` 100 here: "wide" is bracketed); above the limit ("wide" at limit 1000) approximate."""
    from jsops.profiler import quantiles as q

    monkeypatch.setattr(q, "_PAIR_LIMIT", pair_limit)
    monkeypatch.setattr(q, "_EXACT_SMALL", 100)
    df = _df(spark)
    ref = _percentile(df)
    got, exact, approx = q.quantiles(df, ["g", "h"], "v", 10_000, 10_000, QS)
    assert {k: v for k, (_, v, _) in got.items()} == ref and (exact, approx) == (len(ref), 0)
    got, exact, approx = q.quantiles(df, ["g", "h"], "v", 1_000, 10_000, QS)
    assert (exact, approx) == (len(ref) - 1, 1) and got[("wide", "True")][0] == len(GROUPS["wide"])
    assert {k: v for k, (_, v, _) in got.items() if k[0] != "wide"} == {k: v for k, v in ref.items() if k[0] != "wide"}


def test_buckets_follow_the_values_and_ranks_interpolate_as_spark() -> None:
    h = Histogram([(0, 3, 0, 0), (256, 2, 1, 1), (600, 4, 4, 6)], {600: [(6, 1), (4, 2), (5, 1)]})
    assert h.ordered() and h.n == 9
    assert [h.at(r) for r in range(9)] == [0, 0, 0, 1, 1, 4, 4, 5, 6]
    assert h.wanted([0.0, 0.5]) == set() and h.wanted([0.9]) == {600}
    assert not Histogram([(0, 1, 0, 5), (1, 1, 5, 9)]).ordered()  # equal values in two buckets: not trusted
    assert interpolate(9, 0.9, h.at) == 5.0 + (8 * 0.9 - 7) * 1.0
    assert interpolate(1, 0.999, lambda r: 42) == 42.0
    assert str(bucket("v")) != ""


def test_the_per_second_percentile_is_sparks_to_the_last_digit(spark: Any) -> None:
    """The ingest p99 per second (``compute._percentile``, from (value, count) pairs) interpolates as
    Spark does: ``lo + frac (hi - lo)``; ``(1 - frac) lo + frac hi`` differs in the last digit (1.3 vs
    1.2999999999999998 for the 0.3 percentile of 1 and 2)."""
    from jsops.profiler.compute import _percentile as per_second

    cases = {"a": [1, 2], "b": [3, 3, 10, 11, 500], "c": [7] * 9 + [1_000_003] * 4 + [12]}
    df = spark.createDataFrame([(k, v) for k, vs in cases.items() for v in vs], "g string, v long")
    from pyspark.sql import functions as F

    qs = [0.3, 0.5, 0.9, 0.99, 0.7]
    ref = {r["g"]: [float(x) for x in r["q"]] for r in df.groupBy("g").agg(F.percentile("v", qs).alias("q")).collect()}
    for g, vs in cases.items():
        pairs = sorted((v, vs.count(v)) for v in set(vs))
        assert [per_second(pairs, q) for q in qs] == ref[g], g
