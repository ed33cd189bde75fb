"""The profile job on a real Spark standalone cluster: a master and two workers on loopback, started from
the pyspark package. ``jsops profile --master spark://...`` and the command ``--print-submit-command``
prints (spark-submit with the profiler zipped for --py-files, run from another directory without
PYTHONPATH) give every figure local mode gives. No Python on the executors: PYSPARK_PYTHON names a
binary that does not exist. One run of each; workers of one core and 512 MiB."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from jsops.profiler.job import build_profiles
from jsops.profiler.synthetic import default_spec, generate

from .sparkcluster import standalone

ROOT = Path(__file__).resolve().parents[2]
NO_PYTHON = "/nonexistent/python-for-executors"

pytestmark = pytest.mark.skipif(
    shutil.which("java") is None and not os.environ.get("JAVA_HOME"),
    reason="a Spark standalone cluster needs Java 17+ (no java on PATH, no JAVA_HOME)",
)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """spark://127.0.0.1:PORT with two registered workers (stopped by process group at the end)."""
    try:
        with standalone(tmp_path_factory.mktemp("cluster")) as (url, _):
            yield url
    except RuntimeError as exc:
        pytest.fail(str(exc))


@pytest.fixture(scope="module")
def telemetry(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("telemetry")
    generate(d, default_spec(acks=2_000, publish_ids=400, seed=23, files=2))
    return d


@pytest.fixture(scope="module")
def local_profile(spark: Any, telemetry: Path) -> dict[str, Any]:
    doc, _ = build_profiles(spark, [str(telemetry)])
    return doc


def _figures(doc: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in doc.items() if k != "generated_at"}


def _executor_conf() -> list[str]:
    return [
        "--conf",
        "spark.executor.memory=512m",
        "--conf",
        "spark.cores.max=2",
        "--conf",
        "spark.sql.shuffle.partitions=2",
        "--conf",
        "spark.executorEnv.PYSPARK_PYTHON=" + NO_PYTHON,
    ]


def test_jsops_profile_on_the_cluster_equals_local_mode(
    cluster: str, telemetry: Path, tmp_path: Path, local_profile: dict[str, Any]
) -> None:
    out = tmp_path / "cluster.json"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYSPARK_PYTHON": NO_PYTHON, "SPARK_LOCAL_IP": "127.0.0.1"}
    cmd = [
        sys.executable,
        "-m",
        "jsops.linter.cli.app",
        "profile",
        telemetry.as_uri(),
        "-o",
        str(out),
        "--master",
        cluster,
        "--driver-host",
        "127.0.0.1",
        "--driver-memory",
        "512m",
        *_executor_conf(),
    ]
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=1500)
    assert r.returncode == 0, r.stderr[-3000:]
    assert _figures(json.loads(out.read_text())) == _figures(local_profile)


def test_spark_submit_with_the_printed_command_equals_local_mode(
    cluster: str, telemetry: Path, tmp_path: Path, local_profile: dict[str, Any]
) -> None:
    out = tmp_path / "submit.json"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    printed = subprocess.run(
        [
            sys.executable,
            "-m",
            "jsops.linter.cli.app",
            "profile",
            telemetry.as_uri(),
            "-o",
            str(out),
            "--master",
            cluster,
            "--driver-memory",
            "512m",
            *_executor_conf(),
            "--conf",
            "spark.driver.host=127.0.0.1",
            "--print-submit-command",
            "--bundle-dir",
            str(tmp_path / "bundle"),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert printed.returncode == 0, printed.stderr
    words = shlex.split(printed.stdout.strip())
    assignments = {w.split("=", 1)[0]: w.split("=", 1)[1] for w in words if "=" in w and w.split("=", 1)[0].isupper()}
    argv = words[len(assignments) :]
    assert set(assignments) == {"SPARK_HOME", "PYSPARK_DRIVER_PYTHON"} and argv[0].endswith("bin/spark-submit")
    assert "--py-files" in argv and argv[argv.index("--py-files") + 1].endswith(".zip")
    # no PYTHONPATH, no SPARK_HOME but the printed one, run from elsewhere: the driver imports profiler
    # from the zip; executors would fail to start any Python
    clean = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "SPARK_HOME", "PYSPARK_DRIVER_PYTHON")}
    run_env = {**clean, **assignments, "PYSPARK_PYTHON": NO_PYTHON, "SPARK_LOCAL_IP": "127.0.0.1"}
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    r = subprocess.run(argv, capture_output=True, text=True, env=run_env, cwd=elsewhere, timeout=1500)
    assert r.returncode == 0, r.stderr[-3000:]
    assert _figures(json.loads(out.read_text())) == _figures(local_profile)


def test_jsops_profile_through_connect_on_the_cluster_equals_local_mode(
    cluster: str, telemetry: Path, tmp_path: Path, local_profile: dict[str, Any]
) -> None:
    """A Spark Connect server whose master is the standalone cluster: ``jsops profile --remote`` runs the
    job on the cluster's executors (no Python there either) and gives every figure local mode gives."""
    from .connect_server import connect_server

    out = tmp_path / "connect.json"
    server_conf = [*_executor_conf()]
    with connect_server(tmp_path, cluster, server_conf) as url:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        env.pop("SPARK_REMOTE", None)
        r = subprocess.run(
            [
                sys.executable,
                "-m",
                "jsops.linter.cli.app",
                "profile",
                telemetry.as_uri(),
                "-o",
                str(out),
                "--remote",
                url,
            ],
            capture_output=True,
            text=True,
            env=env,
            timeout=1500,
        )
    assert r.returncode == 0, r.stderr[-3000:]
    assert _figures(json.loads(out.read_text())) == _figures(local_profile)
