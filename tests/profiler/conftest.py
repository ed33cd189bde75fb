"""One local Spark session for the whole profiler test run (local[2], UTC, quiet)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

pyspark = pytest.importorskip("pyspark")

from jsops.profiler.job import make_session  # noqa: E402


@pytest.fixture(scope="session")
def spark() -> Iterator[object]:
    session = make_session("local[2]", driver_memory="1g", shuffle_partitions=2)
    yield session
    session.stop()
