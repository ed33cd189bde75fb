"""The clock rules read: one seam (:func:`now`), so that a finding that depends on the time is known
to (``Rule.reads_clock``, ``RuleContext.now``) and tests can move the time a lint sees."""

from __future__ import annotations

from datetime import UTC, datetime

__all__ = ["now"]


def now() -> datetime:
    """The current time, timezone-aware (UTC)."""
    return datetime.now(UTC)
