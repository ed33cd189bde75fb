"""The controller's HTTP endpoints: ``/healthz``, ``/readyz`` and ``/metrics``.

One asyncio event loop on a daemon thread serves every connection, so a connection that is open
and silent costs a socket, not a thread, and never stands between a probe and its answer (issue 22
item 13: 16 idle connections used to make a liveness probe answer 503). The bounds:

- each exchange (read the request head, answer) must end within ``request_timeout`` seconds, or
  the connection is closed (a client trickling a byte a second holds nothing for longer);
- at most ``max_connections`` connections are open; a new one beyond that closes the oldest
  connection that has not yet sent a complete request (an idle one), so a probe arriving on a
  listener full of idle sockets is still answered;
- a request head is at most ``MAX_HEAD`` bytes.
"""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Callable
from typing import Any

__all__ = ["StatusServer", "parse_listen", "MAX_CONNECTIONS", "REQUEST_TIMEOUT"]

CONTENT_TYPE_METRICS = "text/plain; version=0.0.4; charset=utf-8"
MAX_CONNECTIONS = 512  # connections open at once; beyond it the oldest idle one is closed
REQUEST_TIMEOUT = 5.0  # seconds a client has to send its request and read the answer
MAX_HEAD = 8192  # bytes of request line and headers
_REASONS = {
    200: "OK",
    400: "Bad Request",
    404: "Not Found",
    405: "Method Not Allowed",
    500: "Internal Server Error",
    503: "Service Unavailable",
}


def parse_listen(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:PORT`` for IPv6) as a (host, port) pair."""
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or int(port) > 65535:
        raise ValueError(f"--listen wants HOST:PORT, got {text!r}")
    host = host.strip("[]") or "127.0.0.1"
    return host, int(port)


Route = Callable[[], tuple[int, str, str]]  # (status code, body, content type)


def _answer(code: int, body: str, ctype: str, head_only: bool = False) -> bytes:
    data = body.encode()
    head = (
        f"HTTP/1.0 {code} {_REASONS.get(code, 'Status')}\r\nContent-Type: {ctype}\r\nContent-Length: {len(data)}\r\nConnection: close\r\n\r\n"
    ).encode()
    return head if head_only else head + data


def _respond(routes: dict[str, Route], head: bytes) -> bytes:
    """The answer to one request head (404 elsewhere, 500 naming the kind when a route raises)."""
    plain = "text/plain; charset=utf-8"
    parts = head.split(b"\r\n", 1)[0].split()
    if len(parts) != 3 or not parts[2].startswith(b"HTTP/"):
        return _answer(400, "bad request\n", plain)
    method, target = parts[0], parts[1].decode("latin-1")
    if method not in (b"GET", b"HEAD"):
        return _answer(405, "GET only\n", plain)
    route = routes.get(target.split("?", 1)[0])
    if route is None:
        return _answer(404, "not found\n", plain, method == b"HEAD")
    try:
        code, body, ctype = route()
    except Exception as exc:  # never let a route take the server down
        code, body, ctype = 500, f"the endpoint failed: {type(exc).__name__}\n", plain
    return _answer(code, body, ctype, method == b"HEAD")


class _Loop:
    """The event loop's side: accepts, reads one request head per connection, answers, closes."""

    def __init__(self, routes: dict[str, Route], max_connections: int, request_timeout: float) -> None:
        self.routes = routes
        self.max_connections = max_connections
        self.request_timeout = request_timeout
        self.conns: dict[asyncio.StreamWriter, bool] = {}  # open connections (oldest first): idle?

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.conns[writer] = True
        if len(self.conns) > self.max_connections:  # make room: close the oldest idle connection
            oldest = next((w for w, idle in self.conns.items() if idle and w is not writer), None)
            if oldest is not None:
                del self.conns[oldest]
                oldest.transport.abort()
        try:
            await asyncio.wait_for(self._exchange(reader, writer), self.request_timeout)
        except (TimeoutError, OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError):
            pass
        finally:
            self.conns.pop(writer, None)
            if not writer.is_closing():
                writer.transport.abort()

    async def _exchange(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        if writer in self.conns:
            self.conns[writer] = False
        writer.write(_respond(self.routes, head))
        await writer.drain()
        writer.close()

    def abort_all(self) -> None:
        for writer in list(self.conns):
            writer.transport.abort()


class StatusServer:
    """Serves the three endpoints from callables; each returns (status code, body)."""

    def __init__(
        self,
        host: str,
        port: int,
        *,
        health: Callable[[], tuple[int, str]],
        ready: Callable[[], tuple[int, str]],
        metrics: Callable[[], str],
        max_connections: int = MAX_CONNECTIONS,
        request_timeout: float = REQUEST_TIMEOUT,
    ) -> None:
        def text(probe: Callable[[], tuple[int, str]]) -> Route:
            return lambda: (*probe(), "text/plain; charset=utf-8")

        routes: dict[str, Route] = {
            "/healthz": text(health),
            "/readyz": text(ready),
            "/metrics": lambda: (200, metrics(), CONTENT_TYPE_METRICS),
        }
        self._state = _Loop(routes, max_connections, request_timeout)
        self._loop = asyncio.new_event_loop()
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
            sock.listen(256)
        except OSError:
            sock.close()
            raise
        self.address: Any = sock.getsockname()
        self._server = self._loop.run_until_complete(asyncio.start_server(self._state.serve, sock=sock, limit=MAX_HEAD))
        self._thread = threading.Thread(target=self._loop.run_forever, name="jsops-http", daemon=True)

    def start(self) -> StatusServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        async def _close() -> None:
            self._server.close()
            self._state.abort_all()
            await asyncio.sleep(0.05)  # the aborted exchanges end

        if self._thread.is_alive():
            asyncio.run_coroutine_threadsafe(_close(), self._loop).result(timeout=5)
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=5)
        else:
            self._server.close()
        if not self._loop.is_running():
            self._loop.close()
