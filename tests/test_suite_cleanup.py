"""An interrupted test run leaves no process behind (issue 22 item 14): a pytest that started a
nats-server, or a Spark standalone master and workers, is interrupted with SIGINT (Ctrl-C) or
SIGTERM while a test runs; afterwards none of the processes it started is alive."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent

NATS_TEST = """
import os, time
from natsserver import NatsServer

def test_hangs_with_a_server():
    servers = [NatsServer().start(), NatsServer().start()]  # not in a fixture: nothing tears them down
    with open(os.environ["PIDS"], "w") as fh:
        fh.write(" ".join(str(s.process.pid) for s in servers))
    time.sleep(600)
"""

SPARK_TEST = """
import os, time
from pathlib import Path
from sparkcluster import standalone

def test_hangs_with_a_cluster(tmp_path):
    with standalone(tmp_path, workers=2) as (url, procs):
        with open(os.environ["PIDS"], "w") as fh:
            fh.write(" ".join(str(p.pid) for p in procs))
        time.sleep(600)
"""


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(") ", 1)[1][0] != "Z"
    except (FileNotFoundError, IndexError):
        return False


def _group_members(pgids: list[int]) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().split(") ", 1)[1].split()
            except (OSError, IndexError):
                continue
            if int(fields[2]) in pgids and fields[0] != "Z":
                out.append(int(entry.name))
    return out


def _interrupt_run(tmp_path: Path, test: str, sig: int, ready_timeout: float) -> list[int]:
    (tmp_path / "test_hang.py").write_text(test)
    pids = tmp_path / "pids"
    env = {
        **os.environ,
        "PIDS": str(pids),
        "PYTHONPATH": os.pathsep.join([str(TESTS), str(TESTS / "profiler"), str(REPO)]),
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "pytest", "-q", "-p", "procs", "-p", "no:cacheprovider", str(tmp_path / "test_hang.py")],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + ready_timeout
        while not (pids.exists() and pids.read_text().strip()):
            assert proc.poll() is None, "the inner pytest ended before its processes started"
            assert time.monotonic() < deadline, "the inner pytest did not start its processes in time"
            time.sleep(0.2)
        started = [int(p) for p in pids.read_text().split()]
        assert all(_alive(p) for p in started)
        proc.send_signal(sig)
        proc.wait(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return started


@pytest.mark.integration
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_an_interrupted_run_leaves_no_nats_server(tmp_path: Path, sig: int) -> None:
    started = _interrupt_run(tmp_path, NATS_TEST, sig, 60)
    deadline = time.monotonic() + 30
    while any(_alive(p) for p in started) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert [p for p in started if _alive(p)] == []


@pytest.mark.skipif(shutil.which("java") is None and not os.environ.get("JAVA_HOME"), reason="Spark needs Java")
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_an_interrupted_run_leaves_no_spark_master_or_worker(tmp_path: Path, sig: int) -> None:
    pytest.importorskip("pyspark")
    started = _interrupt_run(tmp_path, SPARK_TEST, sig, 240)
    deadline = time.monotonic() + 60
    while _group_members(started) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert _group_members(started) == []  # the master, the workers and anything they started
