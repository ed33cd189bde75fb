"""The controller's HTTP endpoints (stdlib ``http.server`` on a daemon thread): ``/healthz``,
``/readyz`` and ``/metrics``."""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

__all__ = ["StatusServer", "parse_listen"]

CONTENT_TYPE_METRICS = "text/plain; version=0.0.4; charset=utf-8"


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
                 ready: Callable[[], tuple[int, str]], metrics: Callable[[], str]) -> None:
        routes = {
            "/healthz": lambda: (*health(), "text/plain; charset=utf-8"),
            "/readyz": lambda: (*ready(), "text/plain; charset=utf-8"),
            "/metrics": lambda: (200, metrics(), CONTENT_TYPE_METRICS),
        }

        class Handler(BaseHTTPRequestHandler):
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

        class Server(ThreadingHTTPServer):
            allow_reuse_address = True
            daemon_threads = True
            address_family = socket.AF_INET6 if ":" in host else socket.AF_INET

        self.httpd = Server((host, port), Handler)
        self.address = self.httpd.server_address
        self._thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.2}, name="jsops-http", daemon=True)

    def start(self) -> "StatusServer":
        self._thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
