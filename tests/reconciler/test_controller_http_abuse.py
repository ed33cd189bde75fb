"""The controller's HTTP endpoints under abuse (issue 12): hanging clients do not each hold a thread
for ever, clients that disconnect early leave no traceback in the event log (stderr by default),
and the endpoints answer again once the abusers are gone. ``jsops controller`` runs as a
subprocess against a real nats-server."""

from __future__ import annotations

import json
import os
import socket
import struct
import subprocess
import threading
from pathlib import Path

import pytest
from natsserver import free_port

from jsops.reconciler.controller.endpoints import StatusServer

from .helpers import NatsServer, manifest
from .test_controller_helpers import CONTROLLER, REPO, STREAM_YAML, get, wait_for

pytestmark = pytest.mark.integration


def _threads(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("Threads:"):
            return int(line.split()[1])
    raise AssertionError("no thread count")


def _rst_after_request(port: int) -> None:
    """Send a request and vanish with a reset before reading the answer."""
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    s.sendall(b"GET /metrics HTTP/1.0\r\n\r\n")
    s.close()


def test_hanging_and_vanishing_clients(server: NatsServer, tmp_path: Path) -> None:
    manifest(tmp_path / "m", "orders.yaml", STREAM_YAML)
    port = free_port()
    stderr = tmp_path / "stderr.log"
    cmd = [
        *CONTROLLER,
        str(tmp_path / "m"),
        "--server",
        server.url,
        "--interval",
        "0.5s",
        "--no-lease",
        "--listen",
        f"127.0.0.1:{port}",
    ]
    with open(stderr, "wb") as err:
        proc = subprocess.Popen(
            cmd, cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)}, stdout=subprocess.DEVNULL, stderr=err
        )
    hung: list[socket.socket] = []
    try:
        wait_for(lambda: get(port, "/healthz")[0] == 200, what="healthz")
        before = _threads(proc.pid)
        for _ in range(300):  # connect, send nothing, keep the socket open
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            hung.append(s)
        for s in hung[:5]:  # and a few trickling a request a byte at a time
            s.sendall(b"G")
        # idle and trickling sockets hold no thread and do not stand between a probe and its answer
        assert [get(port, "/healthz")[0] for _ in range(10)] == [200] * 10
        assert _threads(proc.pid) <= before + 1
        for _ in range(200):
            _rst_after_request(port)
        # every hanging client is dropped (request timeout), then the endpoints answer again
        wait_for(lambda: get(port, "/healthz") == (200, "ok\n"), what="healthz after the abuse", timeout=30)
        for s in hung:
            s.settimeout(10)
            try:
                data = s.recv(1024)
            except OSError:
                data = b""
            assert data == b""
    finally:
        for s in hung:
            s.close()
        proc.terminate()
        proc.wait(timeout=20)
    lines = stderr.read_text().splitlines()
    assert lines, "no events"
    for line in lines:  # the event log is JSON lines and nothing else
        assert isinstance(json.loads(line), dict), line
    assert not any("Traceback" in line for line in lines)


def test_status_server_bounds_connections_and_time() -> None:
    srv = StatusServer(
        "127.0.0.1",
        0,
        health=lambda: (200, "ok\n"),
        ready=lambda: (200, "ready\n"),
        metrics=lambda: "",
        max_connections=2,
        request_timeout=0.5,
    ).start()
    port = int(srv.address[1])
    try:
        a = socket.create_connection(("127.0.0.1", port))
        b = socket.create_connection(("127.0.0.1", port))
        a.settimeout(10)
        b.settimeout(10)
        b.sendall(b"GET /heal")  # trickles, never finishes: dropped at the request timeout
        # at the bound a probe is still answered: the oldest idle connection makes room
        assert get(port, "/healthz") == (200, "ok\n")
        assert _closed(a) and _closed(b)
        a.close()
        b.close()
    finally:
        srv.stop()


def test_sixteen_idle_connections_do_not_fail_probes() -> None:
    """Issue 22 item 13: 16 idle connections made 24 of 30 /healthz probes answer 503."""
    srv = StatusServer(
        "127.0.0.1", 0, health=lambda: (200, "ok\n"), ready=lambda: (200, "ready\n"), metrics=lambda: ""
    ).start()
    port = int(srv.address[1])
    idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(16)]
    try:
        before = threading.active_count()
        codes = [get(port, "/healthz")[0] for _ in range(30)]
        assert codes == [200] * 30
        assert threading.active_count() <= before  # no thread per connection
        many = [socket.create_connection(("127.0.0.1", port)) for _ in range(600)]  # past the bound
        try:
            assert get(port, "/readyz") == (200, "ready\n")
        finally:
            for s in many:
                s.close()
    finally:
        for s in idle:
            s.close()
        srv.stop()


def test_answers_are_http() -> None:
    srv = StatusServer(
        "127.0.0.1",
        0,
        health=lambda: (200, "ok\n"),
        ready=lambda: 1 / 0,  # type: ignore[arg-type,return-value]
        metrics=lambda: "m 1\n",
    ).start()
    port = int(srv.address[1])
    try:
        assert get(port, "/metrics") == (200, "m 1\n")
        assert get(port, "/nope")[0] == 404
        code, body = get(port, "/readyz")
        assert code == 500 and "internal error" not in body
        with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
            s.sendall(b"garbage\r\n\r\n")
            assert s.recv(100).startswith(b"HTTP/1.0 400")
    finally:
        srv.stop()


def _closed(s: socket.socket) -> bool:
    try:
        return s.recv(100) == b""
    except ConnectionResetError:
        return True
