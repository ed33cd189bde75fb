"""Which engine a run uses (no Spark needed): --engine, --remote, --master and SPARK_REMOTE."""

from __future__ import annotations

import pytest

from jsops.profiler.engine import Engine, EngineError, choose


def test_spark_remote_counts_only_without_remote_and_master() -> None:
    env = {"SPARK_REMOTE": "sc://connect:15002"}
    assert choose("spark", None, None, env=env) == Engine(remote="sc://connect:15002")
    assert choose("spark", None, "local[2]", env=env) == Engine()  # --master wins over the environment
    assert choose("spark", "sc://other:1", None, env=env) == Engine(remote="sc://other:1")
    assert choose("spark", None, None, env={}) == Engine()
    sail = choose("sail", None, None, env=env)
    assert sail.name == "sail" and sail.connect and sail.exact_percentiles
    assert not Engine(remote="sc://h:1").exact_percentiles and Engine(remote="sc://h:1").connect
    assert not Engine().connect


@pytest.mark.parametrize(
    ("engine", "remote", "master", "needle"),
    [
        ("duckdb", None, None, "expected one of spark, sail"),
        ("sail", None, "local[1]", "starts its own server"),
        ("spark", "sc://h:1", "local[1]", "give one"),
        ("spark", "grpc://h:1", None, "expected sc://HOST:PORT"),
        ("spark", "sc://:15002", None, "expected sc://HOST:PORT"),
        ("spark", "sc://h:port", None, "the port is not a number"),
    ],
)
def test_conflicts_and_bad_urls_are_refused(engine: str, remote: str | None, master: str | None, needle: str) -> None:
    with pytest.raises(EngineError, match=needle):
        choose(engine, remote, master, env={})
