"""A Spark standalone cluster on loopback for tests: a master and workers started from the pyspark
package, each in a process group of its own (tests/procs.py), stopped by group (a worker's executors
with it) when the block ends, and by the suite's reaper when the run is interrupted."""

from __future__ import annotations

import json
import os
import socket
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from procs import spawn

from jsops.profiler.submit import spark_home

__all__ = ["standalone"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _alive_workers(ui_port: int) -> int:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{ui_port}/json/", timeout=2) as r:
            return int(json.load(r).get("aliveworkers", 0))
    except (OSError, ValueError):
        return 0


def _stop(procs: list[Any]) -> None:
    import signal

    for p in procs:
        try:
            os.killpg(p.pid, signal.SIGTERM)
        except (ProcessLookupError, PermissionError):
            pass
    for p in procs:
        try:
            p.wait(timeout=30)
        except Exception:
            pass
        try:
            os.killpg(p.pid, signal.SIGKILL)  # what is left of its group
        except (ProcessLookupError, PermissionError):
            pass
        p.wait()


@contextmanager
def standalone(d: Path, workers: int = 2, timeout: float = 120) -> Iterator[tuple[str, list[Any]]]:
    """``spark://127.0.0.1:PORT`` with ``workers`` registered workers (one core, 512 MiB each), and
    the processes; logs under ``d``."""
    home = spark_home()
    env = {**os.environ, "SPARK_HOME": str(home), "SPARK_LOCAL_IP": "127.0.0.1", "SPARK_DAEMON_MEMORY": "256m"}
    spark_class = str(home / "bin" / "spark-class")
    port, ui = _free_port(), _free_port()
    url = f"spark://127.0.0.1:{port}"
    procs: list[Any] = []

    def start(name: str, *args: str) -> None:
        with open(d / f"{name}.log", "wb") as log:
            procs.append(spawn([spark_class, *args], stdout=log, stderr=-2, env=env, cwd=d))

    try:
        start(
            "master",
            "org.apache.spark.deploy.master.Master",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--webui-port",
            str(ui),
        )
        for i in range(1, workers + 1):
            work = d / f"work{i}"
            work.mkdir()
            start(
                f"worker{i}",
                "org.apache.spark.deploy.worker.Worker",
                "--host",
                "127.0.0.1",
                "--webui-port",
                str(_free_port()),
                "--cores",
                "1",
                "--memory",
                "512m",
                "--work-dir",
                str(work),
                url,
            )
        deadline = time.monotonic() + timeout
        while _alive_workers(ui) < workers:
            if time.monotonic() > deadline or any(p.poll() is not None for p in procs):
                logs = "\n".join(f"--- {f.name}\n{f.read_text(errors='replace')[-1500:]}" for f in d.glob("*.log"))
                raise RuntimeError(f"the standalone cluster did not come up with {workers} workers:\n{logs}")
            time.sleep(0.5)
        yield url, procs
    finally:
        _stop(procs)
