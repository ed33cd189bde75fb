"""Hostile servers for the tests, on loopback: a minimal NATS protocol speaker whose JetStream API
answers a test decides (a list that never ends, odd JSON types), and a tiny HTTP server whose
monitoring endpoints drip or send a gigabyte. Real nats-server cannot be made to misbehave like
this; everything else in the suite uses the real one."""

from __future__ import annotations

import json
import socket
import socketserver
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["FakeNats", "FakeHttp", "Answer"]

# subject, payload -> the answer's payload (bytes or a JSON-able value), or None (no answer)
Answer = Callable[[str, bytes], Any]


class _NatsHandler(socketserver.StreamRequestHandler):
    server: _NatsTcp

    def handle(self) -> None:
        info = {
            "server_id": "NFAKE",
            "server_name": "fake",
            "version": "2.15.1",
            "proto": 1,
            "go": "go1.24",
            "host": "127.0.0.1",
            "port": self.server.server_address[1],
            "headers": True,
            "max_payload": 1048576,
            "jetstream": True,
            **self.server.info,
        }
        self.wfile.write(b"INFO " + json.dumps(info).encode() + b"\r\n")
        subs: dict[str, str] = {}
        lock = threading.Lock()

        def send(subject: str, data: bytes) -> None:
            for sid, pattern in list(subs.items()):
                if _matches(pattern, subject):
                    with lock:
                        self.wfile.write(f"MSG {subject} {sid} {len(data)}\r\n".encode() + data + b"\r\n")
                        self.wfile.flush()
                    return

        while True:
            line = self.rfile.readline()
            if not line:
                return
            op, _, rest = line.strip().partition(b" ")
            op = op.upper()
            if op == b"PING":
                with lock:
                    self.wfile.write(b"PONG\r\n")
            elif op == b"SUB":
                parts = rest.decode().split()
                subs[parts[-1]] = parts[0]
            elif op in (b"PUB", b"HPUB"):
                parts = rest.decode().split()
                total = int(parts[-1])
                payload = self.rfile.read(total + 2)[:total]
                if op == b"HPUB":
                    payload = payload[int(parts[-2]) :]
                subject, reply = parts[0], parts[1] if len(parts) > (3 if op == b"HPUB" else 2) else ""
                if reply:
                    self.server.respond(subject, payload, lambda data, r=reply: send(r, data))
            # CONNECT, UNSUB, PONG: nothing to do


def _matches(pattern: str, subject: str) -> bool:
    p, s = pattern.split("."), subject.split(".")
    for i, tok in enumerate(p):
        if tok == ">":
            return len(s) > i
        if i >= len(s) or (tok != "*" and tok != s[i]):
            return False
    return len(p) == len(s)


class _NatsTcp(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, answer: Answer, info: dict[str, Any], repeat: float | None) -> None:
        super().__init__(("127.0.0.1", 0), _NatsHandler)
        self.answer = answer
        self.info = info
        self.repeat = repeat
        self.requests: list[str] = []

    def respond(self, subject: str, payload: bytes, send: Callable[[bytes], None]) -> None:
        self.requests.append(subject)
        value = self.answer(subject, payload)
        if value is None:
            return
        data = value if isinstance(value, bytes) else json.dumps(value).encode()
        send(data)
        if self.repeat:  # keep answering the same request, as a chatty responder would

            def again() -> None:
                while True:
                    time.sleep(self.repeat or 0.5)
                    try:
                        send(data)
                    except OSError:
                        return

            threading.Thread(target=again, daemon=True).start()


class FakeNats:
    """A NATS server speaking just enough protocol for nats-py: requests are answered by ``answer``
    (``repeat``: every answer is sent again every that many seconds, for ever)."""

    def __init__(self, answer: Answer, *, info: dict[str, Any] | None = None, repeat: float | None = None) -> None:
        self._tcp = _NatsTcp(answer, info or {}, repeat)
        self._thread = threading.Thread(target=self._tcp.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"nats://127.0.0.1:{self._tcp.server_address[1]}"

    @property
    def requests(self) -> list[str]:
        return self._tcp.requests

    def __enter__(self) -> FakeNats:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._tcp.shutdown()
        self._tcp.server_close()


class FakeHttp:
    """An HTTP server answering every GET with ``behave(path, wfile)``'s writes (headers included)."""

    def __init__(self, behave: Callable[[str, Any], None]) -> None:
        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                try:
                    behave(self.path, self.wfile)
                except OSError:
                    pass

            def log_message(self, format: str, *args: object) -> None:
                pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def __enter__(self) -> FakeHttp:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


def free_socket_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
