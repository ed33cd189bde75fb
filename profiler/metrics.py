"""``jsops profile --every ... --metrics-addr HOST:PORT``: the loop's health as Prometheus metrics.

A small HTTP server (the standard library's, on a daemon thread) answers ``GET /metrics`` with the
Prometheus text exposition format (version 0.0.4) of a :class:`Snapshot` taken at each scrape; any other
path is 404. It is not the controller's endpoint server: that one belongs to ``jsops.reconciler``, which
the profiler does not import (the two packages are independent layers, docs/architecture.md), and a
profile loop needs one route, not probes. The names and HELP lines are part of the interface (golden
test, docs/profiler.md). No pyspark import here.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from jsops.linter.cli.kit import prometheus_labels, prometheus_number

__all__ = ["METRICS", "PREFIX", "Snapshot", "render", "parse_addr", "MetricsServer"]

PREFIX = "jsops_profile_"
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

# name (without the prefix) -> (type, help, label names)
METRICS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "session_up": (
        "gauge",
        "1 while the session answers: set at the start and after each run; 0 once a failed run found the session gone (the process then exits 1).",
        (),
    ),
    "session_info": (
        "gauge",
        "The engine and the session of this process (a Spark application id or a Spark Connect session id).",
        ("session",),
    ),
    "uptime_seconds": ("gauge", "Seconds since the session opened.", ()),
    "running": ("gauge", "1 while a profile run is in progress, else 0.", ()),
    "runs_total": ("counter", "Profile runs finished on this session, by result (ok or failed).", ("result",)),
    "last_run_duration_seconds": ("gauge", "Wall time of the last finished run (0: none yet).", ()),
    "last_success_timestamp_seconds": ("gauge", "Unix time at which the last successful run ended (0: never).", ()),
    "next_run_timestamp_seconds": ("gauge", "Unix time of the next scheduled run (0: none scheduled).", ()),
    "store_windows": ("gauge", "Hourly windows in the profile store after the last run.", ()),
}


@dataclass(frozen=True)
class Snapshot:
    """The loop's state at one scrape."""

    session: str
    up: bool
    uptime_s: float
    running: bool
    ok: int
    failed: int
    last_duration_s: float
    last_success: float  # unix time, 0: never
    next_run: float  # unix time, 0: none
    store_windows: int


def render(s: Snapshot) -> str:
    """The Prometheus text exposition of ``s``: every metric with its HELP and TYPE lines."""
    series: dict[str, list[tuple[tuple[str, ...], float]]] = {
        "session_up": [((), 1.0 if s.up else 0.0)],
        "session_info": [((s.session,), 1.0)],
        "uptime_seconds": [((), round(s.uptime_s, 3))],
        "running": [((), 1.0 if s.running else 0.0)],
        "runs_total": [(("failed",), float(s.failed)), (("ok",), float(s.ok))],
        "last_run_duration_seconds": [((), round(s.last_duration_s, 3))],
        "last_success_timestamp_seconds": [((), round(s.last_success, 3))],
        "next_run_timestamp_seconds": [((), round(s.next_run, 3))],
        "store_windows": [((), float(s.store_windows))],
    }
    out: list[str] = []
    for name, (kind, help_text, label_names) in METRICS.items():
        full = PREFIX + name
        out += [f"# HELP {full} {help_text}", f"# TYPE {full} {kind}"]
        for labels, value in series[name]:
            out.append(f"{full}{prometheus_labels(label_names, labels)} {prometheus_number(value)}")
    return "\n".join(out) + "\n"


def parse_addr(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:PORT`` for IPv6; ``:PORT`` is loopback; port 0 picks a free one)."""
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or int(port) > 65535:
        raise ValueError(f"--metrics-addr wants HOST:PORT, got {text!r}")
    return host.strip("[]") or "127.0.0.1", int(port)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    render: Callable[[], str]


class _Server6(_Server):
    address_family = socket.AF_INET6


class _Handler(BaseHTTPRequestHandler):
    timeout = 5  # seconds a client has to send its request
    server: _Server

    def _answer(self, body: bool) -> None:
        if self.path.split("?", 1)[0] != "/metrics":
            code, text, ctype = 404, "not found: the one path is /metrics\n", "text/plain; charset=utf-8"
        else:
            try:
                code, text, ctype = 200, self.server.render(), CONTENT_TYPE
            except Exception as exc:  # never let a scrape take the loop down
                code, text, ctype = 500, f"the metrics failed: {type(exc).__name__}\n", "text/plain; charset=utf-8"
        data = text.encode()
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if body:
            self.wfile.write(data)

    def do_GET(self) -> None:  # the standard library's name
        self._answer(True)

    def do_HEAD(self) -> None:
        self._answer(False)

    def log_message(self, format: str, *args: object) -> None:  # the standard library's name
        pass  # scrapes are not jsops's output


class MetricsServer:
    """Serves ``render()`` at ``/metrics`` on ``(host, port)`` from a daemon thread once started.
    Binding happens here (an address in use raises :class:`OSError`); ``url`` names the bound port."""

    def __init__(self, host: str, port: int, render: Callable[[], str]) -> None:
        self._server = (_Server6 if ":" in host else _Server)((host, port), _Handler)
        self._server.render = render
        bound = self._server.server_address
        bound_host = bound[0].decode() if isinstance(bound[0], bytes) else str(bound[0])
        bound_port = int(bound[1])
        shown = f"[{bound_host}]" if ":" in bound_host else bound_host
        self.url = f"http://{shown}:{bound_port}/metrics"
        self._thread = threading.Thread(target=self._server.serve_forever, name="jsops-profile-metrics", daemon=True)

    def start(self) -> MetricsServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._thread.is_alive():
            self._server.shutdown()
        self._server.server_close()
