"""Test hook for hard exits at named points of an apply (``JSOPS_FAULT``): a kill -9 of jsops
mid-apply, reproducible. Used by :mod:`jsops.reconciler.apply` and :mod:`jsops.reconciler.migration_steps`."""

from __future__ import annotations

import os
import signal
import time

__all__ = ["fault"]

_passed: dict[str, int] = {}


def fault(point: str) -> None:
    """``JSOPS_FAULT=<point>`` exits the process hard at ``point``;
    ``JSOPS_FAULT=<point>:pause:<file>`` writes ``<file>.reached`` and waits (up to 60s) for
    ``<file>`` to exist (a test kills the server meanwhile); ``JSOPS_FAULT=<point>:stop:<n>`` stops
    the whole process (SIGSTOP, as a debugger or a stalled host would) the n-th time it passes
    ``point``, until a test sends SIGCONT."""
    spec = os.environ.get("JSOPS_FAULT", "")
    if not spec or spec.split(":", 1)[0] != point:
        return
    parts = spec.split(":", 2)
    if len(parts) == 3 and parts[1] == "stop":
        _passed[point] = _passed.get(point, 0) + 1
        if _passed[point] == int(parts[2]):
            os.kill(os.getpid(), signal.SIGSTOP)
        return
    if len(parts) == 3 and parts[1] == "pause":
        with open(parts[2] + ".reached", "w", encoding="utf-8") as fh:
            fh.write(point)
        for _ in range(600):
            if os.path.exists(parts[2]):
                return
            time.sleep(0.1)
        return
    os._exit(137)
