"""Long-lived helper processes of the test suite (nats-servers, a Spark master and its workers) that
an interrupted run never leaves behind.

Each is started by :func:`spawn` in a process group of its own (its children, e.g. a Spark worker's
executors, join it), so that Ctrl-C in the terminal does not reach it half-way, and is recorded.
They are stopped by whoever started them (fixtures), and whatever is still running is killed by
group: when the pytest session ends (``pytest_unconfigure``), at interpreter exit (``atexit``), and
on SIGTERM or SIGHUP, which this plugin turns into the same unwinding as Ctrl-C (KeyboardInterrupt:
fixtures are torn down, then the rest is killed). Loaded for every run by ``-p procs`` (pyproject's
pytest ``addopts``).
"""

from __future__ import annotations

import atexit
import os
import signal
import subprocess
import threading
import time
from typing import Any

__all__ = ["spawn", "reap", "live"]

_lock = threading.Lock()
_groups: dict[int, subprocess.Popen[Any]] = {}  # process group id -> its leader


def spawn(cmd: list[str], **kwargs: Any) -> subprocess.Popen[Any]:
    """``subprocess.Popen(cmd, **kwargs)`` in a new process group, recorded for :func:`reap`."""
    kwargs["start_new_session"] = True
    proc: subprocess.Popen[Any] = subprocess.Popen(cmd, **kwargs)
    with _lock:
        _groups[proc.pid] = proc
    return proc


def live() -> list[int]:
    """The recorded process groups whose leader still runs."""
    with _lock:
        return [pgid for pgid, p in _groups.items() if p.poll() is None]


def _signal_group(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def reap(grace: float = 5.0) -> None:
    """Stop every recorded group: SIGTERM, then SIGKILL after ``grace`` seconds (the group's other
    members too, even when its leader already exited)."""
    with _lock:
        groups = dict(_groups)
        _groups.clear()
    for pgid in groups:
        _signal_group(pgid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    for pgid, proc in groups.items():
        try:
            proc.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            pass
        _signal_group(pgid, signal.SIGKILL)  # what is left of the group (children of the leader)
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass


atexit.register(reap)


def _interrupt(signum: int, frame: Any) -> None:
    # the first one unwinds as Ctrl-C does (fixtures torn down); the default action comes back for a
    # second one, so that a run stuck in a teardown can still be ended
    signal.signal(signum, signal.SIG_DFL)
    raise KeyboardInterrupt(f"signal {signum}")


def pytest_configure(config: Any) -> None:
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, _interrupt)


def pytest_unconfigure(config: Any) -> None:
    reap()
