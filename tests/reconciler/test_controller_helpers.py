"""Helpers for the controller tests (no tests here): running a controller in a thread or a
subprocess, reading its endpoints and event log, parsing Prometheus text, polling with deadlines."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from natsserver import free_port

from jsops.reconciler.client import Target
from jsops.reconciler.controller.loop import Controller, ControllerOptions, EventLog

__all__ = [
    "wait_for",
    "Running",
    "Proc",
    "get",
    "parse_prometheus",
    "sample",
    "object_sync_state",
    "STREAM_YAML",
    "CONTROLLER",
]

REPO = Path(__file__).resolve().parents[2]
# ``jsops controller`` as a command line (its paths and options follow)
CONTROLLER = [sys.executable, "-m", "jsops.reconciler.controller.cli"]

STREAM_YAML = """
apiVersion: jsops/v1
kind: Stream
metadata:
  name: ORDERS
spec:
  subjects: ["orders.>"]
  max_age: 1h
---
apiVersion: jsops/v1
kind: Consumer
metadata:
  name: shipper
  stream: ORDERS
spec:
  ack_wait: 30s
"""


def wait_for(cond: Callable[[], Any], timeout: float = 20.0, what: str = "condition") -> Any:
    """Poll ``cond`` until it returns something truthy; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            value = cond()
        except (OSError, urllib.error.URLError, ConnectionError):
            value = None
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def get(port: int, path: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as resp:
            return resp.status, resp.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


_SAMPLE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$")
_LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(,|$)')


def parse_prometheus(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """A strict reader of the Prometheus text format: every sample belongs to a family with HELP and
    TYPE lines before it, label syntax and values parse; returns {(name, labels): value}."""
    assert text.endswith("\n")
    types: dict[str, str] = {}
    helps: set[str] = set()
    out: dict[tuple[str, tuple[tuple[str, str], ...]], float] = {}
    for line in text.splitlines():
        if line.startswith("# HELP "):
            name = line.split(" ")[2]
            assert name not in helps, f"HELP twice for {name}"
            helps.add(name)
            continue
        if line.startswith("# TYPE "):
            _, _, name, kind = line.split(" ")
            assert kind in ("counter", "gauge", "histogram", "summary", "untyped"), line
            assert name in helps and name not in types, line
            types[name] = kind
            continue
        assert line and not line.startswith("#"), f"unexpected line {line!r}"
        m = _SAMPLE.match(line)
        assert m, f"not a sample line: {line!r}"
        name, _, labels_text, value = m.groups()
        family = name
        for suffix in ("_bucket", "_sum", "_count"):
            if name.endswith(suffix) and name[: -len(suffix)] in types and types[name[: -len(suffix)]] == "histogram":
                family = name[: -len(suffix)]
        assert family in types, f"sample {name} has no TYPE line"
        if types[family] == "counter":
            assert name.endswith("_total"), name
        labels: list[tuple[str, str]] = []
        rest = labels_text or ""
        while rest:
            lm = _LABEL.match(rest)
            assert lm, f"bad labels in {line!r}"
            labels.append((lm.group(1), lm.group(2)))
            rest = rest[lm.end() :]
        v = float(value.replace("+Inf", "inf"))
        key = (name, tuple(labels))
        assert key not in out, f"duplicate series {line!r}"
        out[key] = v
    return out


def sample(
    metrics: dict[tuple[str, tuple[tuple[str, str], ...]], float], metric: str, /, **labels: str
) -> float | None:
    want = tuple(sorted(labels.items()))
    for (n, ls), v in metrics.items():
        if n == metric and tuple(sorted(ls)) == want:
            return v
    return None


def object_sync_state(
    metrics: dict[tuple[str, tuple[tuple[str, str], ...]], float],
    kind: str,
    name: str,
    state: str,
    *,
    stream: str = "",
    context: str = "default",
) -> float | None:
    """The ``jsops_controller_object_sync_state`` sample of one object (a stream: ``stream`` empty) and state."""
    return sample(
        metrics, "jsops_controller_object_sync_state", context=context, kind=kind, stream=stream, name=name, state=state
    )


class _Lines(io.TextIOBase):
    """A thread-safe text sink for the event log."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._buf: list[str] = []

    def write(self, s: str) -> int:
        with self._lock:
            self._buf.append(s)
        return len(s)

    def events(self) -> list[dict[str, Any]]:
        with self._lock:
            text = "".join(self._buf)
        return [json.loads(line) for line in text.splitlines() if line]


class Running:
    """A controller running in a thread of the test process."""

    def __init__(self, paths: list[str], url: str, **options: Any) -> None:
        options.setdefault("interval", 0.2)
        options.setdefault("lease", False)
        options.setdefault("max_backoff", 1.0)
        self.options = ControllerOptions(paths=paths, listen=("127.0.0.1", 0), **options)
        self.sink = _Lines()
        self.controller = Controller(self.options, Target(servers=(url,)), log=EventLog(self.sink))  # type: ignore[arg-type]
        self.stop = threading.Event()
        self.code: int | None = None
        self.controller.start_services()
        self.port = int(self.controller.http.address[1])
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        self.code = self.controller.run(self.stop)

    def metrics(self) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
        code, text = get(self.port, "/metrics")
        assert code == 200
        return parse_prometheus(text)

    def events(self, kind: str | None = None) -> list[dict[str, Any]]:
        return [e for e in self.sink.events() if kind is None or e["event"] == kind]

    def rounds(self) -> int:
        return self.controller.rounds

    def settle(self, timeout: float = 20.0) -> None:
        """Wait for two more successful rounds (the live state has been read after any change)."""
        start = self.controller.rounds
        wait_for(
            lambda: self.controller.rounds >= start + 2 and self.controller.last_result == "success",
            timeout,
            "two more rounds",
        )

    def close(self) -> int | None:
        self.stop.set()
        self.thread.join(15)
        assert not self.thread.is_alive(), "the controller did not stop"
        return self.code

    def __enter__(self) -> Running:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Proc:
    """``jsops controller`` in a subprocess (for signals and kill -9)."""

    def __init__(self, paths: list[str], url: str, *extra: str, log: Path, env: dict[str, str] | None = None) -> None:
        self.port = free_port()
        self.log = log
        cmd = [
            *CONTROLLER,
            *paths,
            "--server",
            url,
            "--interval",
            "0.2s",
            "--max-backoff",
            "1s",
            "--listen",
            f"127.0.0.1:{self.port}",
            "--log-file",
            str(log),
            *extra,
        ]
        # the import path this test runs with first (a worktree's view), then the repository
        path = os.pathsep.join(p for p in (os.environ.get("PYTHONPATH", ""), str(REPO)) if p)
        environ = {**os.environ, "PYTHONPATH": path, **(env or {})}
        self.process = subprocess.Popen(cmd, cwd=REPO, env=environ, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def metrics(self) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
        code, text = get(self.port, "/metrics")
        assert code == 200
        return parse_prometheus(text)

    def events(self, kind: str | None = None) -> list[dict[str, Any]]:
        if not self.log.exists():
            return []
        out = []
        for line in self.log.read_text().splitlines():
            try:
                e = json.loads(line)
            except ValueError:
                continue  # a line being written
            if kind is None or e["event"] == kind:
                out.append(e)
        return out

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        if self.process.stderr:
            self.process.stderr.close()
