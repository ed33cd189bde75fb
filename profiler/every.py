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

Stopping: Ctrl-C or SIGTERM ends the wait or the run in progress; the session is stopped (jsops's own
JVM or Sail server with it) and the process exits 0. The store and ``-o`` are written by rename, so an
interrupted run leaves the last complete ones. No pyspark import here.
"""

from __future__ import annotations

import signal
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from types import FrameType
from typing import Any

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


def session_label(spark: Any, what: str, connect: bool) -> str:
    """``what`` and the session's identity: the application id of a classic session (one per JVM
    start), the Spark Connect session id otherwise."""
    try:
        ident = str(spark.session_id) if connect else str(spark.sparkContext.applicationId)
    except Exception:  # an engine that does not tell
        return what
    return f"{what} ({ident})"


def _alive(spark: Any) -> str | None:
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
    spark: Any,
    run_once: Callable[[], int],
    every_s: float,
    store: Path,
    say: Callable[[str], None],
    label: str,
    *,
    runs: int | None = None,
    clock: Callable[[], float] = time.time,
) -> int:
    """Call ``run_once`` (one profile with ``spark``; its exit code) now and every ``every_s`` seconds
    (on a fixed schedule from the first run: a run longer than the interval skips the ticks it covered),
    with a health line after each. Ends on Ctrl-C or SIGTERM (0), when the session no longer answers (1),
    or after ``runs`` runs (tests and one-off catch-ups)."""
    health = Health(label)
    first = clock()
    with _sigterm_as_interrupt():
        try:
            while True:
                t = time.monotonic()
                code = run_once()
                health.runs += 1
                health.last = "ok" if code == 0 else f"exit {code}"
                if code != 0:
                    health.failed += 1
                    why = _alive(spark)
                    if why is not None:
                        say(health.line(time.monotonic() - t, _store_windows(store), None))
                        say(f"error: the session no longer answers ({why}); stopping (a restart opens a new one)")
                        return 1
                done = runs is not None and health.runs >= runs
                now = clock()
                next_at = first + every_s * (int((now - first) // every_s) + 1)
                say(health.line(time.monotonic() - t, _store_windows(store), None if done else next_at))
                if done:
                    return 0
                time.sleep(max(0.0, next_at - clock()))
        except KeyboardInterrupt:
            say(f"stopped after {health.runs} runs ({health.failed} failed); the store and the output hold the last complete run")
            return 0
