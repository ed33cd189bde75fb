"""The controller's HTTP endpoints (stdlib ``http.server`` on a daemon thread): ``/healthz``,
``/readyz`` and ``/metrics``."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["StatusServer", "parse_listen"]

CONTENT_TYPE_METRICS = "text/plain; version=0.0.4; charset=utf-8"
MAX_CONNECTIONS = 16  # requests served at once (one thread each); more are answered 503 at once
REQUEST_TIMEOUT = 5.0  # seconds a client has to send its request and read the answer
BUSY = b"HTTP/1.0 503 Service Unavailable\r\nContent-Type: text/plain\r\nContent-Length: 5\r\nConnection: close\r\n\r\nbusy\n"


def parse_listen(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:PORT`` for IPv6) as a (host, port) pair."""
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or int(port) > 65535:
        raise ValueError(f"--listen wants HOST:PORT, got {text!r}")
    host = host.strip("[]") or "127.0.0.1"
    return host, int(port)


class StatusServer:
    """Serves the three endpoints from callables; each returns (status code, body)."""

    def __init__(self, host: str, port: int, *, health: Callable[[], tuple[int, str]],
                 ready: Callable[[], tuple[int, str]], metrics: Callable[[], str],
                 max_connections: int = MAX_CONNECTIONS, request_timeout: float = REQUEST_TIMEOUT) -> None:
        routes = {
            "/healthz": lambda: (*health(), "text/plain; charset=utf-8"),
            "/readyz": lambda: (*ready(), "text/plain; charset=utf-8"),
            "/metrics": lambda: (200, metrics(), CONTENT_TYPE_METRICS),
        }

        class Handler(BaseHTTPRequestHandler):
            timeout = request_timeout  # every read and write on the socket; a silent client is dropped

            def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
                route = routes.get(self.path.split("?", 1)[0])
                if route is None:
                    code, body, ctype = 404, "not found\n", "text/plain; charset=utf-8"
                else:
                    try:
                        code, body, ctype = route()
                    except Exception as exc:  # never let a handler take the thread down
                        code, body, ctype = 500, f"internal error: {type(exc).__name__}\n", "text/plain; charset=utf-8"
                data = body.encode()
                self.send_response(code)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: object) -> None:  # noqa: A002
                pass  # requests are not events

        slots = threading.BoundedSemaphore(max_connections)
        active: dict[Any, float] = {}
        active_lock = threading.Lock()
        self._stopping = threading.Event()

        def reap() -> None:
            while not self._stopping.wait(min(0.5, request_timeout / 4)):
                now = time.monotonic()
                with active_lock:
                    late = [sock for sock, deadline in active.items() if deadline < now]
                for sock in late:
                    try:
                        sock.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        pass

        self._reaper = threading.Thread(target=reap, name="jsops-http-reaper", daemon=True)

        class Server(ThreadingHTTPServer):
            allow_reuse_address = True
            daemon_threads = True
            block_on_close = False
            request_queue_size = 128
            address_family = socket.AF_INET6 if ":" in host else socket.AF_INET

            def process_request(self, request: Any, client_address: Any) -> None:
                if not slots.acquire(blocking=False):  # at the bound: answer 503 at once, no thread
                    try:
                        request.settimeout(1.0)
                        request.sendall(BUSY)
                    except OSError:
                        pass
                    self.shutdown_request(request)
                    return
                try:
                    super().process_request(request, client_address)
                except BaseException:
                    slots.release()
                    raise

            def process_request_thread(self, request: Any, client_address: Any) -> None:
                # the whole exchange (not only each read) must end in time: a client trickling
                # bytes cannot hold its thread forever (the reaper shuts its socket down)
                with active_lock:
                    active[request] = time.monotonic() + request_timeout
                try:
                    super().process_request_thread(request, client_address)
                finally:
                    with active_lock:
                        active.pop(request, None)
                    slots.release()

            def handle_error(self, request: Any, client_address: Any) -> None:
                pass  # a client that went away is not an event; the event log stays JSON lines

        self.httpd = Server((host, port), Handler)
        self.address = self.httpd.server_address
        self._thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.2}, name="jsops-http", daemon=True)

    def start(self) -> StatusServer:
        self._thread.start()
        self._reaper.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        self.httpd.shutdown()
        self.httpd.server_close()
