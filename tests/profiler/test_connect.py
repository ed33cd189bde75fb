"""``jsops profile --remote`` on a real Spark Connect server started from the pyspark package (loopback,
free port, local master, a pre-shared token): every figure equal to local mode's; ``SPARK_REMOTE`` read
as PySpark reads it; one-line errors for an unreachable endpoint, a refused token and a bad URL."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from jsops.profiler.connect import check_versions
from jsops.profiler.engine import EngineError
from jsops.profiler.job import build_profiles
from jsops.profiler.synthetic import default_spec, generate

from .connect_server import connect_jar, connect_server, free_port

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "jsops-test-token"

pytestmark = pytest.mark.skipif(
    shutil.which("java") is None and not os.environ.get("JAVA_HOME"),
    reason="a Spark Connect server needs Java 17+ (no java on PATH, no JAVA_HOME)",
)


def _connect_client_missing() -> str | None:
    try:
        from pyspark.sql.connect.utils import check_dependencies

        check_dependencies()
    except ImportError as exc:
        return f"the Spark Connect client's dependencies are not installed ({exc})"
    return None


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The server's host:port (clients add the token); stopped at the end of the module."""
    if connect_jar() is None:
        pytest.skip("the installed pyspark ships no spark-connect jar (Spark 3.x: it is a Maven package)")
    missing = _connect_client_missing()
    if missing:
        pytest.skip(missing)
    with connect_server(
        tmp_path_factory.mktemp("connect"), "local[2]", ["--conf", f"spark.connect.authenticate.token={TOKEN}"]
    ) as url:
        yield url.removeprefix("sc://").replace("127.0.0.1", "localhost")


@pytest.fixture(scope="module")
def telemetry(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("telemetry")
    generate(d, default_spec(acks=30_000, publish_ids=6_000, seed=11, files=3))  # the exactness suite's
    return d


@pytest.fixture(scope="module")
def local_profile(spark: Any, telemetry: Path) -> dict[str, Any]:
    doc, _ = build_profiles(spark, [str(telemetry)])
    return doc


def _figures(doc: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in doc.items() if k != "generated_at"}


def _jsops(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if k != "SPARK_REMOTE"}
    return subprocess.run(
        [sys.executable, "-m", "jsops.linter.cli.app", "profile", *args],
        capture_output=True,
        text=True,
        env={**base, "PYTHONPATH": str(ROOT), **(env or {})},
        timeout=1200,
    )


def test_remote_profile_equals_local_mode_figure_for_figure(
    server: str, telemetry: Path, tmp_path: Path, local_profile: dict[str, Any]
) -> None:
    out = tmp_path / "remote.json"
    r = _jsops(str(telemetry), "-o", str(out), "--remote", f"sc://{server}/;token={TOKEN}")
    assert r.returncode == 0, r.stderr[-3000:]
    assert _figures(json.loads(out.read_text())) == _figures(local_profile)
    # only jsops's own lines: no client warnings, no JVM output (the server's log is its own)
    assert all(line.startswith("jsops profile: ") for line in r.stderr.splitlines()), r.stderr


def test_spark_remote_is_read_when_no_master_is_given(
    server: str, telemetry: Path, tmp_path: Path, local_profile: dict[str, Any]
) -> None:
    out = tmp_path / "env.json"
    r = _jsops(str(telemetry), "-o", str(out), "-q", env={"SPARK_REMOTE": f"sc://{server}/;token={TOKEN}"})
    assert r.returncode == 0 and r.stderr == "", r.stderr[-3000:]
    assert _figures(json.loads(out.read_text())) == _figures(local_profile)


def test_a_refused_token_is_one_line(server: str, telemetry: Path, tmp_path: Path) -> None:
    r = _jsops(str(telemetry), "-o", str(tmp_path / "x.json"), "--remote", f"sc://{server}/;token=wrong")
    assert r.returncode == 1 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "refused this client (UNAUTHENTICATED)" in r.stderr and "token" in r.stderr
    assert not (tmp_path / "x.json").exists()


def test_unreachable_endpoint_is_one_line_and_quick(telemetry: Path, tmp_path: Path) -> None:
    port = free_port()  # nothing listens there
    r = _jsops(str(telemetry), "-o", str(tmp_path / "x.json"), "--remote", f"sc://127.0.0.1:{port}")
    assert r.returncode == 1 and r.stderr.strip() == (
        f"jsops profile: error: cannot reach the Spark Connect server at 127.0.0.1:{port}: connection refused"
    )


def test_a_token_to_a_plain_server_by_address_is_one_line(server: str, telemetry: Path, tmp_path: Path) -> None:
    """A token makes PySpark's client speak TLS to any host but ``localhost``: to this plain server it would retry
    the handshake for minutes; the probe says so at once."""
    port = server.rsplit(":", 1)[1]
    r = _jsops(str(telemetry), "-o", str(tmp_path / "x.json"), "--remote", f"sc://127.0.0.1:{port}/;token={TOKEN}")
    assert r.returncode == 1 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert f"at 127.0.0.1:{port} does not speak TLS" in r.stderr and f"sc://localhost:{port}/;token=" in r.stderr
    assert not (tmp_path / "x.json").exists()


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--remote", "http://host:15002"], "expected sc://HOST:PORT"),
        (["--remote", "sc://host:99999"], "the port is not a number"),
        (["--remote", "sc://h:1", "--master", "local[1]"], "give one"),
        (["--remote", "sc://h:1", "--driver-memory", "1g"], "has its own driver"),
        (["--engine", "sail", "--remote", "sc://h:1"], "starts its own server"),
        (["--remote", "sc://h:1", "--print-submit-command"], "is for spark-submit"),
    ],
)
def test_remote_argument_errors_exit_2(telemetry: Path, tmp_path: Path, args: list[str], needle: str) -> None:
    r = _jsops(str(telemetry), "-o", str(tmp_path / "x.json"), *args)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and needle in r.stderr, r.stderr


def test_a_client_of_another_major_version_is_refused() -> None:
    check_versions("4.3.0", "4.1.2")
    with pytest.raises(
        EngineError,
        match=r"version mismatch: this client is PySpark 4.3.0, the server runs "
        r"Spark 3.5.1.*pyspark\[connect\]==3.5",
    ):
        check_versions("4.3.0", "3.5.1")
