"""How many Spark jobs a profile costs, with one shuffle partition and with several, on multi-file JSON
lines and multi-file (day/hour) Parquet input: at most :data:`AFTER` (half of the 21 it took before
adaptive execution was turned off, each shuffle stage a job of its own, then fewer once passes shared a
query), and the same figures whatever the count."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from jsops.profiler.compute import build_profiles
from jsops.profiler.events import compact
from jsops.profiler.synthetic import default_spec, generate

#: the Spark jobs of one profile before adaptive execution was turned off (bench/profile_speed.py, 1M events)
BEFORE = 21
#: on this telemetry (small groups, some of whose brackets miss): the census with the events per day (1 job);
#: the brackets with the non-ack figures (1, and 1 for its broadcast table); the exact percentile of the
#: groups whose bracket missed (1 and 1). Was 7 while the days and the non-ack figures had queries of their own.
AFTER = 5


@pytest.fixture(scope="module")
def inputs(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    d = tmp_path_factory.mktemp("jobs")
    generate(d / "jsonl", default_spec(acks=6_000, publish_ids=1_000, duration_s=2 * 3600, seed=17, files=4))
    compact(spark, [str(d / "jsonl")], str(d / "parquet"))
    assert len(list((d / "parquet").rglob("*.parquet"))) > 1
    return {"jsonl": str(d / "jsonl"), "parquet": str(d / "parquet")}


@pytest.fixture
def partitions(spark: Any) -> Iterator[Any]:
    before = spark.conf.get("spark.sql.shuffle.partitions")
    yield lambda n: spark.conf.set("spark.sql.shuffle.partitions", str(n))
    spark.conf.set("spark.sql.shuffle.partitions", before)


def _profile(spark: Any, path: str, group: str) -> tuple[dict[str, Any], int, int]:
    sc = spark.sparkContext
    sc.setJobGroup(group, "profile")
    try:
        doc, _ = build_profiles(spark, [path])
    finally:
        sc.setLocalProperty("spark.jobGroup.id", None)
    tracker = sc.statusTracker()
    jobs = tracker.getJobIdsForGroup(group)
    stages = sum(len(info.stageIds) for info in (tracker.getJobInfo(j) for j in jobs) if info is not None)
    return {k: v for k, v in doc.items() if k != "generated_at"}, len(jobs), stages


@pytest.mark.parametrize("fmt", ["jsonl", "parquet"])
def test_jobs_per_profile_with_one_and_several_shuffle_partitions(
    spark: Any, inputs: dict[str, str], partitions: Any, fmt: str
) -> None:
    partitions(1)
    one, jobs_one, _ = _profile(spark, inputs[fmt], f"one-{fmt}")
    partitions(4)
    several, jobs_several, stages = _profile(spark, inputs[fmt], f"several-{fmt}")
    assert several == one, "the figures do not depend on the number of shuffle partitions"
    assert jobs_one <= AFTER <= BEFORE // 2, jobs_one
    assert jobs_several <= AFTER, f"{jobs_several} jobs ({stages} stages) with 4 shuffle partitions"
