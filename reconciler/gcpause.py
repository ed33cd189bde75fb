"""No garbage collection while a plan is made: :func:`jsops.linter.gcpause.gc_paused` (one home,
shared with ``jsops lint``)."""

from __future__ import annotations

from jsops.linter import gc_paused

__all__ = ["gc_paused"]
