"""``jsops profile --store DIR --every DURATION``: scheduled profiles from one warm session.

The process opens its session once (local Spark, ``spark://``, a Spark Connect server, or Sail) and
then, every DURATION until it is stopped, extends the profile store with the windows it lacks and
rewrites ``-o`` from the whole store: a run costs its queries, not a JVM start.

Health: after each run one line on stderr (the form a cron job, a systemd unit or a pod's log already
collects, and what the rest of ``jsops profile`` prints), e.g.::

    jsops profile: health: run 3 ok in 2.4 s; session Spark (local-1764...) up 2h0m, 3 runs, 0 failed;
    store 26 windows; next run at 2026-11-26T21:00:00Z

A failed run is said in that line and the loop goes on; when the session itself no longer answers
(the JVM or the server is gone), the process says so and exits 1, for its supervisor to restart it
(a new session is a new JVM start, which is what the supervisor's restart count then shows).
No controller integration: the controller (``jsops.reconciler``) has no Spark and must not import it.
With ``--metrics-addr HOST:PORT`` the same health is also served as Prometheus metrics at
``http://HOST:PORT/metrics`` (:mod:`jsops.profiler.metrics`) for as long as the loop runs.

Stopping: Ctrl-C or SIGTERM ends the wait or the run in progress; the session is stopped (jsops's own
JVM or Sail server with it) and the process exits 0. The store and ``-o`` are written by rename, so an
interrupted run leaves the last complete ones. No pyspark import here.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

from jsops.profiler.metrics import MetricsServer, Snapshot, render

if TYPE_CHECKING:  # pyspark is imported by the job that runs the loop
    from pyspark.sql import SparkSession

__all__ = ["Health", "serve", "session_label", "MIN_EVERY_S"]

#: the shortest interval accepted (a run of a few events takes about a second on a warm session)
MIN_EVERY_S = 1.0


@dataclass
class Health:
    """The state of the loop, as the health line says it."""

    session: str
    started: float = field(default_factory=time.monotonic)
    runs: int = 0
    failed: int = 0
    last: str = ""  # "ok" or the last failure's one line
    up: bool = True
    running: bool = False
    last_duration_s: float = 0.0
    last_success: float = 0.0  # unix time, 0: never
    next_run: float = 0.0  # unix time, 0: none scheduled
    windows: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def snapshot(self) -> Snapshot:
        """The state as ``/metrics`` says it (taken under the lock: a scrape runs on another thread)."""
        with self.lock:
            return Snapshot(
                session=self.session,
                up=self.up,
                uptime_s=time.monotonic() - self.started,
                running=self.running,
                ok=self.runs - self.failed,
                failed=self.failed,
                last_duration_s=self.last_duration_s,
                last_success=self.last_success,
                next_run=self.next_run,
                store_windows=self.windows,
            )

    def line(self, took_s: float, store_windows: int, next_at: float | None) -> str:
        up = _span(time.monotonic() - self.started)
        state = "ok" if self.last == "ok" else f"failed ({self.last})"
        text = (
            f"health: run {self.runs} {state} in {took_s:.1f} s; session {self.session} up {up}, "
            f"{self.runs} runs, {self.failed} failed; store {store_windows} windows"
        )
        if next_at is not None:
            text += f"; next run at {datetime.fromtimestamp(next_at, UTC).strftime('%Y-%m-%dT%H:%M:%SZ')}"
        return text


def _span(seconds: float) -> str:
    s = int(seconds)
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{s % 3600 // 60}m"


def session_label(spark: Any, what: str, connect: bool) -> str:  # a classic or a Spark Connect session
    """``what`` and the session's identity: the application id of a classic session (one per JVM
    start), the Spark Connect session id otherwise."""
    try:
        ident = str(spark.session_id) if connect else str(spark.sparkContext.applicationId)
    except Exception:  # an engine that does not tell
        return what
    return f"{what} ({ident})"


def _alive(spark: SparkSession) -> str | None:
    """``None`` when the session still answers a query, else why not (one line)."""
    try:
        spark.range(1).collect()
    except Exception as exc:
        text = str(exc).strip().splitlines()
        return f"{type(exc).__name__}: {text[0] if text else ''}"[:300]
    return None


@contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM unwinds like Ctrl-C (KeyboardInterrupt) while the loop runs."""

    def handler(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    try:
        previous = signal.signal(signal.SIGTERM, handler)
    except ValueError:  # not the main thread: leave SIGTERM as it is
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _store_windows(store: Path) -> int:
    d = store / "windows"
    return sum(1 for f in d.iterdir() if f.name.endswith(".json.gz")) if d.is_dir() else 0


def serve(
    spark: SparkSession,
    run_once: Callable[[], int],
    every_s: float,
    store: Path,
    say: Callable[[str], None],
    label: str,
    *,
    runs: int | None = None,
    clock: Callable[[], float] = time.time,
    metrics: tuple[str, int] | None = None,
) -> int:
    """Call ``run_once`` (one profile with ``spark``; its exit code) now and every ``every_s`` seconds
    (on a fixed schedule from the first run: a run longer than the interval skips the ticks it covered),
    with a health line after each. Ends on Ctrl-C or SIGTERM (0), when the session no longer answers (1),
    or after ``runs`` runs (tests and one-off catch-ups). ``metrics``: serve the health at
    ``http://HOST:PORT/metrics`` while the loop runs (an address that cannot be bound: 1, no run)."""
    health = Health(label)
    server = None
    if metrics is not None:
        try:
            server = MetricsServer(*metrics, lambda: render(health.snapshot())).start()
        except OSError as exc:
            say(f"error: cannot serve /metrics on {metrics[0]}:{metrics[1]}: {(exc.strerror or str(exc)).lower()}")
            return 1
        say(f"serving the loop's health at {server.url}")
    try:
        with _sigterm_as_interrupt():
            return _loop(spark, run_once, every_s, store, say, health, runs, clock)
    finally:
        if server is not None:
            server.stop()


def _loop(
    spark: SparkSession,
    run_once: Callable[[], int],
    every_s: float,
    store: Path,
    say: Callable[[str], None],
    health: Health,
    runs: int | None,
    clock: Callable[[], float],
) -> int:
    first = clock()
    try:
        while True:
            t = time.monotonic()
            with health.lock:
                health.running, health.next_run = True, 0.0
            code = run_once()
            took = time.monotonic() - t
            why = None if code == 0 else _alive(spark)
            windows = _store_windows(store)
            with health.lock:
                health.running, health.last_duration_s, health.windows = False, took, windows
                health.runs += 1
                health.last = "ok" if code == 0 else f"exit {code}"
                if code == 0:
                    health.last_success = clock()
                else:
                    health.failed += 1
                health.up = why is None
            if why is not None:
                say(health.line(took, windows, None))
                say(f"error: the session no longer answers ({why}); stopping (a restart opens a new one)")
                return 1
            done = runs is not None and health.runs >= runs
            now = clock()
            next_at = first + every_s * (int((now - first) // every_s) + 1)
            with health.lock:
                health.next_run = 0.0 if done else next_at
            say(health.line(took, windows, None if done else next_at))
            if done:
                return 0
            time.sleep(max(0.0, next_at - clock()))
    except KeyboardInterrupt:
        say(
            f"stopped after {health.runs} runs ({health.failed} failed); the store and the output hold the last complete run"
        )
        return 0
