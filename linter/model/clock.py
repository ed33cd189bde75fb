"""The clock rules read: one seam (:func:`now`), so that a finding that depends on the time is known
to the results cache (``Rule.reads_clock``; :class:`ClockReader` is ``RuleContext.now``, which
:mod:`jsops.linter.cache.memo` records) and tests can move the time a lint sees."""

from __future__ import annotations

from datetime import UTC, datetime

__all__ = ["ClockReader", "now"]


def now() -> datetime:
    """The current time, timezone-aware (UTC)."""
    return datetime.now(UTC)


class ClockReader:
    """``RuleContext.now``: kept here, beside the clock, so that the rule API stays small."""

    def now(self) -> datetime:
        """The current time (UTC): the one way a rule reads the clock. A rule that calls it declares
        ``reads_clock = True``; the results cache never keeps or serves a finding made from a clock
        read (:mod:`jsops.linter.cache.memo`)."""
        return now()
