"""A real HTTP receiver of the controller's notices on loopback (no tests here): it records every
request (path, headers, JSON body) and answers with the statuses it is told to, in order."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["NoticeReceiver", "Request"]


class Request:
    def __init__(self, path: str, headers: dict[str, str], body: bytes) -> None:
        self.path = path
        self.headers = headers
        self.body = body
        self.json: Any = json.loads(body)


class NoticeReceiver:
    """``statuses``: the answers to the first requests (then 204). While ``gate`` is clear, a
    request is recorded but not answered."""

    def __init__(self, statuses: list[int] | None = None) -> None:
        self.requests: list[Request] = []
        self.statuses = list(statuses or [])
        self.gate = threading.Event()
        self.gate.set()
        self._lock = threading.Lock()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                with owner._lock:
                    owner.requests.append(Request(self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                    status = owner.statuses.pop(0) if owner.statuses else 204
                owner.gate.wait(30)
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}/hook"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def bodies(self, path: str | None = None) -> list[Any]:
        with self._lock:
            return [r.json for r in self.requests if path is None or r.path == path]

    def wait(self, count: int, timeout: float = 20.0, path: str | None = None) -> list[Any]:
        deadline = time.monotonic() + timeout
        while len(self.bodies(path)) < count:
            if time.monotonic() > deadline:
                raise AssertionError(f"the receiver got {len(self.bodies(path))} notices, waited for {count}")
            time.sleep(0.02)
        return self.bodies(path)

    def close(self) -> None:
        self.gate.set()
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(5)
