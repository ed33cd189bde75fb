"""``jsops profile --every --metrics-addr``: the /metrics text (golden: names, HELP and TYPE lines are an
interface), its HTTP server, and the loop's health in it with a real local Spark session (a failed run,
then a good one, scraped over HTTP while the loop runs)."""

from __future__ import annotations

import os
import socket
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from jsops.profiler.every import serve
from jsops.profiler.metrics import CONTENT_TYPE, MetricsServer, Snapshot, parse_addr, render
from tests.reconciler.test_controller_helpers import parse_prometheus, sample

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "profile-metrics.txt"
UPDATE = os.environ.get("JSOPS_UPDATE_GOLDEN") == "1"


def _get(url: str, method: str = "GET") -> tuple[int, str, str]:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, method=method), timeout=30) as r:
            return r.status, r.headers.get("Content-Type", ""), r.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers.get("Content-Type", ""), exc.read().decode()


def test_metrics_text_matches_golden_and_parses() -> None:
    text = render(
        Snapshot(
            session='Spark local[2] (local-1764183600123) "a\\b"',
            up=True,
            uptime_s=7261.25,
            running=False,
            ok=3,
            failed=1,
            last_duration_s=2.4,
            last_success=1795176000.5,
            next_run=1795179600.0,
            store_windows=26,
        )
    )
    if UPDATE:
        GOLDEN.write_text(text)
    assert text == GOLDEN.read_text()
    parsed = parse_prometheus(text)
    assert sample(parsed, "jsops_profile_runs_total", result="ok") == 3
    assert sample(parsed, "jsops_profile_runs_total", result="failed") == 1
    assert (
        sample(parsed, "jsops_profile_session_info", session='Spark local[2] (local-1764183600123) \\"a\\\\b\\"') == 1
    )
    assert sample(parsed, "jsops_profile_store_windows") == 26


def test_parse_addr() -> None:
    assert parse_addr("127.0.0.1:9465") == ("127.0.0.1", 9465)
    assert parse_addr(":0") == ("127.0.0.1", 0)
    assert parse_addr("[::1]:9465") == ("::1", 9465)
    for bad in ("9465", "host:", "h:99999", "h:x"):
        with pytest.raises(ValueError, match="--metrics-addr wants HOST:PORT"):
            parse_addr(bad)


def test_the_server_answers_metrics_only_and_refuses_a_taken_port() -> None:
    server = MetricsServer("127.0.0.1", 0, lambda: "x 1\n").start()
    try:
        assert _get(server.url) == (200, CONTENT_TYPE, "x 1\n")
        assert _get(server.url, "HEAD")[:2] == (200, CONTENT_TYPE)
        assert _get(server.url.replace("/metrics", "/healthz"))[0] == 404
        port = int(server.url.rsplit(":", 1)[1].split("/")[0])
        with pytest.raises(OSError):
            MetricsServer("127.0.0.1", port, lambda: "")
    finally:
        server.stop()
    with pytest.raises(OSError), socket.create_connection(("127.0.0.1", port), timeout=5):
        pass  # stopped: nothing listens any more


def test_the_loop_serves_its_health_on_a_real_session(spark: Any, tmp_path: Path) -> None:
    """Two runs on a local Spark session: the first fails (exit 2), the second is good; each scrapes
    /metrics over HTTP while it runs. The session is a real one, so the failed run's liveness check
    queries it and finds it up."""
    said: list[str] = []
    scraped: list[dict[tuple[str, tuple[tuple[str, str], ...]], float]] = []
    (tmp_path / "windows").mkdir()

    def url() -> str:
        line = next(s for s in said if "serving the loop's health at " in s)
        return line.rsplit(" ", 1)[1]

    def run_once() -> int:
        code, ctype, text = _get(url())
        assert (code, ctype) == (200, CONTENT_TYPE)
        scraped.append(parse_prometheus(text))
        if len(scraped) == 1:
            return 2
        spark.range(10).count()  # a run's work on the session
        (tmp_path / "windows" / "2026-11-20T12:00:00Z.json.gz").write_bytes(b"")
        return 0

    assert (
        serve(spark, run_once, 1.0, tmp_path, said.append, "Spark local[2] (local-1)", runs=2, metrics=("127.0.0.1", 0))
        == 0
    )
    first, second = scraped
    assert sample(first, "jsops_profile_session_up") == 1 and sample(first, "jsops_profile_running") == 1
    assert (
        sample(first, "jsops_profile_runs_total", result="ok") == 0
        and sample(first, "jsops_profile_last_success_timestamp_seconds") == 0
    )
    assert sample(first, "jsops_profile_session_info", session="Spark local[2] (local-1)") == 1
    assert sample(second, "jsops_profile_runs_total", result="failed") == 1
    assert sample(second, "jsops_profile_runs_total", result="ok") == 0
    assert sample(second, "jsops_profile_session_up") == 1, "the failed run found the session answering"
    assert sample(second, "jsops_profile_last_run_duration_seconds") > 0
    assert sample(second, "jsops_profile_uptime_seconds") >= sample(first, "jsops_profile_uptime_seconds")
    assert any("health: run 1 failed (exit 2)" in s for s in said) and any("health: run 2 ok" in s for s in said)
    with pytest.raises(urllib.error.URLError):
        _get(url())  # the loop is over: so is its endpoint


def test_an_address_in_use_ends_the_loop_before_any_run(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        said: list[str] = []
        runs: list[int] = []
        assert (
            serve(
                None, lambda: runs.append(1) or 0, 1.0, tmp_path, said.append, "x", runs=1, metrics=("127.0.0.1", port)
            )
            == 1
        )
    assert runs == []
    assert said == [f"error: cannot serve /metrics on 127.0.0.1:{port}: address already in use"]
