"""Differential: ``jsops profile --engine sail`` (a Sail server jsops starts and stops) gives every figure
Apache Spark gives, on the exactness suite's telemetry (JSON lines and compacted Parquet) and through a
profile store. Sail lacks ``percentile_approx`` over an array of percentages: jsops says so and computes
every percentile with the exact ``percentile`` (equal to Spark's exact path)."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from jsops.profiler.events import compact
from jsops.profiler.incremental import build_store_profiles
from jsops.profiler.job import build_profiles
from jsops.profiler.partial import Partial
from jsops.profiler.synthetic import default_spec, generate

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("pysail") is None, reason="pysail is not installed (pip install '.[sail]')"
)


@pytest.fixture(scope="module")
def telemetry(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("telemetry")
    generate(d, default_spec(acks=30_000, publish_ids=6_000, seed=11, files=3))  # the exactness suite's
    return d


@pytest.fixture(scope="module")
def parquet(spark: Any, telemetry: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("pq") / "events"
    compact(spark, [str(telemetry)], str(out))
    return out


def _figures(doc: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in doc.items() if k != "generated_at"}


def _sail(*args: str) -> tuple[dict[str, Any], str]:
    out = Path(args[args.index("-o") + 1])
    r = subprocess.run(
        [sys.executable, "-m", "jsops.linter.cli.app", "profile", "--engine", "sail", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=600,
    )
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(out.read_text()), r.stderr


@pytest.mark.parametrize("fmt", ["json", "parquet"])
def test_sail_equals_spark_figure_for_figure(
    spark: Any, telemetry: Path, parquet: Path, tmp_path: Path, fmt: str
) -> None:
    src = str(telemetry if fmt == "json" else parquet)
    want, _ = build_profiles(spark, [src])
    got, err = _sail(src, "-o", str(tmp_path / "sail.json"))
    assert _figures(got) == _figures(want)
    assert "Sail lacks percentile_approx over an array of percentages" in err
    assert "exact for 3 consumers, approximate for 0" in err


def test_sail_store_equals_spark_store(spark: Any, parquet: Path, tmp_path: Path) -> None:
    want, _ = build_store_profiles(spark, [str(parquet)], tmp_path / "spark-store", Partial(0, 0))
    got, _ = _sail(str(parquet), "-o", str(tmp_path / "sail.json"), "--store", str(tmp_path / "sail-store"), "-q")
    assert _figures(got) == _figures(want)
    assert sorted(p.name for p in (tmp_path / "sail-store").rglob("*") if p.is_file()) == sorted(
        p.name for p in (tmp_path / "spark-store").rglob("*") if p.is_file()
    )


def test_a_group_above_the_exact_limit_is_exact_on_sail_and_says_so(telemetry: Path, tmp_path: Path) -> None:
    """Spark would give percentile_approx above --exact-limit; Sail cannot compute the same thing, so
    jsops computes the exact figure (never a different approximation) and says that the limit is not
    applied."""
    got, err = _sail(str(telemetry), "-o", str(tmp_path / "sail.json"), "--exact-limit", "100")
    assert "--exact-limit does not apply" in err and "exact for 3 consumers, approximate for 0" in err
    assert got["consumers"]["ORDERS/shipper"]["ack_time_ns"]["samples"] > 100


def test_the_client_imports_while_the_server_starts_and_a_failure_there_stops_it() -> None:
    """``SailServer(prepare=...)`` runs ``prepare`` after starting the server's process and before
    waiting for its port (the two overlap); when ``prepare`` fails, the server's process is gone."""
    from jsops.profiler.sail import SailServer

    seen: list[bool] = []

    def prepare() -> None:
        seen.append(server._proc is not None and server._proc.poll() is None)

    server = SailServer(prepare=prepare)
    with server as url:
        assert url.startswith("sc://127.0.0.1:")
    assert seen == [True]

    def broken() -> None:
        raise ImportError("no grpc")

    failing = SailServer(prepare=broken)
    with pytest.raises(ImportError):
        failing.__enter__()
    assert failing._proc is None and failing.url is None


_KEEP = """
import sys, warnings
from pathlib import Path
warnings.simplefilter("ignore")
from jsops.profiler.connect import open_session
from jsops.profiler.sail import SailServer
from jsops.profiler.session import keep

src = Path(sys.argv[1])
server = SailServer()
with server as url:
    spark = open_session(url, shuffle_partitions=1, extra_conf={}, check=False, checkpoint=True)
    try:
        kept, release = keep(spark.read.schema("n bigint").json(str(src)))
        (src / "a.jsonl").unlink()
        root = Path(server._checkpoints)
        files = sum(1 for f in root.rglob("*") if f.is_file())
        print(root, files > 0, kept.count(), kept.agg({"n": "sum"}).collect()[0][0], end=" ")
        release()
        print(sum(1 for f in root.rglob("*") if f.is_file()))
    finally:
        spark.stop()
"""


def test_keep_computes_once_on_sail_where_persist_keeps_nothing(tmp_path: Path) -> None:
    """Sail answers ``persist()`` and keeps nothing, so a persisted JSON input is parsed again by every
    pass; :func:`jsops.profiler.session.keep` checkpoints on a Sail session instead: once kept, the frame
    no longer reads its files (removed here), releasing it removes the checkpoint's files (Sail keeps them
    until it stops), and the server's checkpoint directory goes with the server. (In a
    child: this process may hold a classic session, and PySpark allows no Connect session beside it.)"""
    src = tmp_path / "in"
    src.mkdir()
    (src / "a.jsonl").write_text("".join(f'{{"n": {i}}}\n' for i in range(1000)))
    r = subprocess.run(
        [sys.executable, "-c", _KEEP, str(src)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=300,
    )
    assert r.returncode == 0, r.stderr[-3000:]
    checkpoints, written, count, total, left = r.stdout.split()
    assert (written, int(count), int(total)) == ("True", 1000, 999 * 1000 // 2)
    assert left == "0", "released: the checkpoint's files are gone (a --every loop must not fill the disk)"
    assert not Path(checkpoints).exists()
