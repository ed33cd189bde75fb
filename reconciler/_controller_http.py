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


Route = Callable[[], tuple[int, str, str]]  # (status code, body, content type)


def _handler(routes: dict[str, Route], request_timeout: float) -> type[BaseHTTPRequestHandler]:
    """The request handler serving ``routes`` (404 elsewhere, 500 when a route raises)."""

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

    return Handler


class _Slots:
    """The bound on requests served at once, and the deadline of each one being served."""

    def __init__(self, max_connections: int, request_timeout: float) -> None:
        self.free = threading.BoundedSemaphore(max_connections)
        self.request_timeout = request_timeout
        self.active: dict[Any, float] = {}
        self.lock = threading.Lock()

    def reap(self, stopping: threading.Event) -> None:
        """Shut down the sockets of exchanges past their deadline, until ``stopping`` is set."""
        while not stopping.wait(min(0.5, self.request_timeout / 4)):
            now = time.monotonic()
            with self.lock:
                late = [sock for sock, deadline in self.active.items() if deadline < now]
            for sock in late:
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass


def _server_class(host: str, slots: _Slots) -> type[ThreadingHTTPServer]:
    class Server(ThreadingHTTPServer):
        allow_reuse_address = True
        daemon_threads = True
        block_on_close = False
        request_queue_size = 128
        address_family = socket.AF_INET6 if ":" in host else socket.AF_INET

        def process_request(self, request: Any, client_address: Any) -> None:
            if not slots.free.acquire(blocking=False):  # at the bound: answer 503 at once, no thread
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
                slots.free.release()
                raise

        def process_request_thread(self, request: Any, client_address: Any) -> None:
            # the whole exchange (not only each read) must end in time: a client trickling
            # bytes cannot hold its thread forever (the reaper shuts its socket down)
            with slots.lock:
                slots.active[request] = time.monotonic() + slots.request_timeout
            try:
                super().process_request_thread(request, client_address)
            finally:
                with slots.lock:
                    slots.active.pop(request, None)
                slots.free.release()

        def handle_error(self, request: Any, client_address: Any) -> None:
            pass  # a client that went away is not an event; the event log stays JSON lines

    return Server


class StatusServer:
    """Serves the three endpoints from callables; each returns (status code, body)."""

    def __init__(self, host: str, port: int, *, health: Callable[[], tuple[int, str]],
                 ready: Callable[[], tuple[int, str]], metrics: Callable[[], str],
                 max_connections: int = MAX_CONNECTIONS, request_timeout: float = REQUEST_TIMEOUT) -> None:
        def text(probe: Callable[[], tuple[int, str]]) -> Route:
            return lambda: (*probe(), "text/plain; charset=utf-8")

        routes: dict[str, Route] = {
            "/healthz": text(health),
            "/readyz": text(ready),
            "/metrics": lambda: (200, metrics(), CONTENT_TYPE_METRICS),
        }
        slots = _Slots(max_connections, request_timeout)
        self._stopping = threading.Event()
        self._reaper = threading.Thread(target=slots.reap, args=(self._stopping,), name="jsops-http-reaper", daemon=True)
        self.httpd = _server_class(host, slots)((host, port), _handler(routes, request_timeout))
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
