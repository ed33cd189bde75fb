"""A real Spark Connect server for tests, started from the installed pyspark package (its
``spark-connect`` jar, ``spark-submit --class ...SparkConnectServer``) on loopback with a free port.

Stopped by its process group at the end, also when the test run is interrupted (the ``finally`` of the
context manager runs on KeyboardInterrupt; the server is in a session of its own, so a second Ctrl-C
does not leave it orphaned mid-start)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from jsops.profiler.submit import spark_home

__all__ = ["connect_server", "free_port", "connect_jar"]

SERVER_CLASS = "org.apache.spark.sql.connect.service.SparkConnectServer"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def connect_jar() -> Path | None:
    """The Spark Connect server jar the pyspark package ships (Spark 4 has it in ``jars/``)."""
    return next(iter(sorted((spark_home() / "jars").glob("spark-connect_*.jar"))), None)


def _listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


@contextmanager
def connect_server(
    workdir: Path,
    master: str = "local[2]",
    conf: Sequence[str] = (),
    timeout_s: float = 240.0,
    driver_memory: str = "768m",
) -> Iterator[str]:
    """``sc://127.0.0.1:PORT`` of a Spark Connect server with ``master`` and ``driver_memory`` (stopped at the end)."""
    home = spark_home()
    port = free_port()
    env = {**os.environ, "SPARK_HOME": str(home), "SPARK_LOCAL_IP": "127.0.0.1"}
    argv = [
        str(home / "bin" / "spark-submit"),
        "--class",
        SERVER_CLASS,
        "--master",
        master,
        "--driver-memory",
        driver_memory,
        "--conf",
        "spark.ui.enabled=false",
        "--conf",
        "spark.connect.grpc.binding.address=127.0.0.1",
        "--conf",
        f"spark.connect.grpc.binding.port={port}",
        "--conf",
        "spark.driver.host=127.0.0.1",
        "--conf",
        "spark.driver.bindAddress=127.0.0.1",
        *conf,
        "spark-internal",
    ]
    log = workdir / "connect-server.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            argv, stdout=out, stderr=subprocess.STDOUT, env=env, cwd=workdir, start_new_session=True
        )
    try:
        deadline = time.monotonic() + timeout_s
        while not _listening(port):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(
                    f"the Spark Connect server did not listen on {port}:\n{log.read_text(errors='replace')[-2000:]}"
                )
            time.sleep(0.5)
        yield f"sc://127.0.0.1:{port}"
    finally:
        _stop(proc)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    for sig, wait in ((signal.SIGTERM, 30), (signal.SIGKILL, 30)):
        if proc.poll() is not None:
            break
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            break
        try:
            proc.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            continue
