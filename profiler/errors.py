"""The one base exception of the ``profiler`` package.

Every error ``profiler`` raises derives from :class:`ProfilerError`; ``jsops collect`` and ``jsops
profile`` print it as one line with exit code 2, never a traceback.
"""

from __future__ import annotations

__all__ = ["ProfilerError"]


class ProfilerError(Exception):
    """Base of the errors of the profiler package (telemetry input, Spark start-up, profile output)."""
