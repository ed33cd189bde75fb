"""``jsops profile --store DIR --every DURATION`` on real local Spark: the runs share one session (one
JVM start, one application id), the store grows as telemetry arrives, every run rewrites -o with all
the events so far, ``--metrics-addr`` serves the same health over HTTP, and SIGTERM stops the process
cleanly: exit 0, its JVM gone with it."""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest
from procs import spawn

from jsops.profiler.synthetic import default_spec, generate
from tests.reconciler.test_controller_helpers import parse_prometheus, sample

ROOT = Path(__file__).resolve().parents[2]
_SERVING = re.compile(r"serving the loop's health at (http://\S+)")
_HEALTH = re.compile(
    r"health: run (\d+) (\S+) in [\d.]+ s; session (.+) up \S+, (\d+) runs, (\d+) failed; store (\d+) windows"
)


def _java_children(pid: int) -> set[int]:
    """The java processes whose parent is ``pid``."""
    out = set()
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            stat = (d / "stat").read_text()
        except OSError:
            continue
        comm, rest = stat[stat.index("(") + 1 : stat.rindex(")")], stat[stat.rindex(")") + 2 :].split()
        if comm == "java" and int(rest[1]) == pid:
            out.add(int(d.name))
    return out


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}").exists() and "(zombie)" not in Path(f"/proc/{pid}/status").read_text().lower()


def _samples(out: Path) -> int:
    return sum(
        c["ack_time_ns"]["samples"] for c in json.loads(out.read_text())["consumers"].values() if "ack_time_ns" in c
    )


def test_every_keeps_one_session_extends_the_store_and_stops_on_sigterm(tmp_path: Path) -> None:
    telemetry, store, out = tmp_path / "telemetry", tmp_path / "store", tmp_path / "profiles.json"
    spec = default_spec(acks=2_000, publish_ids=300, duration_s=5400, seed=41, files=1)
    first = generate(telemetry, spec)  # 12:00 - 13:30: window 12:00 closes, 13:00 is the newest
    cmd = [
        sys.executable,
        "-m",
        "jsops.linter.cli.app",
        "profile",
        str(telemetry),
        "--store",
        str(store),
        "-o",
        str(out),
        "--every",
        "2s",
        "--master",
        "local[1]",
        "--metrics-addr",
        "127.0.0.1:0",
    ]
    proc = spawn(
        cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}
    )
    lines: queue.Queue[str] = queue.Queue()
    seen: list[str] = []
    threading.Thread(target=lambda: [lines.put(ln) for ln in proc.stderr or []], daemon=True).start()
    javas: set[int] = set()

    def health(until: float = 600) -> re.Match[str]:
        deadline = time.monotonic() + until
        while time.monotonic() < deadline:
            javas.update(_java_children(proc.pid))
            try:
                line = lines.get(timeout=0.5)
            except queue.Empty:
                assert proc.poll() is None, "".join(seen)[-3000:]
                continue
            seen.append(line)
            m = _HEALTH.search(line) or _SERVING.search(line)
            if m:
                return m
        raise AssertionError("no health line in time:\n" + "".join(seen)[-3000:])

    def scrape(url: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
        with urllib.request.urlopen(url, timeout=30) as r:
            return parse_prometheus(r.read().decode())

    try:
        url = health()[1]  # said before the first run, once the endpoint listens
        one = health()
        assert (one[1], one[2], one[6], one[5]) == ("1", "ok", "1", "0"), one.group(0)
        m = scrape(url)
        assert (
            sample(m, "jsops_profile_session_up") == 1 and sample(m, "jsops_profile_session_info", session=one[3]) == 1
        )
        assert sample(m, "jsops_profile_runs_total", result="ok") >= 1 and sample(m, "jsops_profile_store_windows") >= 1
        assert sample(m, "jsops_profile_last_success_timestamp_seconds") > time.time() - 600
        assert _samples(out) == first["ack"]
        # the next hour arrives (moved in whole, as a collector closes its files)
        later = tmp_path / "later"
        more = generate(
            later, replace(spec, start=datetime(2026, 11, 20, 14, 0, tzinfo=UTC), duration_s=3600, seed=42)
        )  # up to just past 15:00
        later.rename(telemetry / "later")
        runs = [one]
        while int(runs[-1][6]) < 3:  # 13:00 and 14:00 close (and are stored) once a later event exists
            runs.append(health())
        assert [m[2] for m in runs] == ["ok"] * len(runs)
        assert {m[3] for m in runs} == {one[3]} and "(local-" in one[3], (
            "one session (one application id) for every run"
        )
        assert [int(m[1]) for m in runs] == list(range(1, len(runs) + 1))
        assert _samples(out) == first["ack"] + more["ack"]
        assert sorted(f.name for f in (store / "windows").iterdir()) == [
            f"2026-11-20T{h}:00:00Z.json.gz" for h in (12, 13, 14)
        ]
        m = scrape(url)
        assert sample(m, "jsops_profile_store_windows") == 3 and sample(
            m, "jsops_profile_runs_total", result="ok"
        ) >= len(runs)
        assert sample(m, "jsops_profile_runs_total", result="failed") == 0
        javas.update(_java_children(proc.pid))
        assert len(javas) == 1, f"one JVM for every run, saw {sorted(javas)}"
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=120) == 0, "".join(seen)[-3000:]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    while True:
        try:
            seen.append(lines.get(timeout=5))
        except queue.Empty:
            break
    rest = "".join(seen)
    assert "stopped after" in rest, rest[-3000:]
    deadline = time.monotonic() + 60
    while any(_alive(j) for j in javas) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not any(_alive(j) for j in javas), "the JVM outlived jsops profile --every"


@pytest.mark.parametrize(
    "extra, needle",
    [
        ([], "--every goes with --store"),
        (["--store", "S", "--until", "2026-11-20T13:00:00Z"], "--every goes with --store"),
        (["--store", "S", "-o", "-"], "--every goes with --store"),
        (["--store", "S", "--every", "0.5s"], "--every must be at least 1 s"),
        (["--store", "S", "--metrics-addr", "9465"], "--metrics-addr wants HOST:PORT"),
    ],
)
def test_every_argument_checks(
    tmp_path: Path, extra: list[str], needle: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from jsops.profiler.job import main

    argv = [str(tmp_path), "-o", str(tmp_path / "p.json"), "--every", "1h", *extra]
    assert main(argv) == 2
    assert needle in capsys.readouterr().err


def test_metrics_addr_goes_with_every(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from jsops.profiler.job import main

    assert main([str(tmp_path), "-o", str(tmp_path / "p.json"), "--store", "S", "--metrics-addr", "127.0.0.1:0"]) == 2
    assert "--metrics-addr goes with --every" in capsys.readouterr().err
