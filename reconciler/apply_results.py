"""What an apply did, and what stops it early.

:class:`ActionResult` is one action's outcome and :class:`ApplyReport` all of them (``jsops.reconciler.apply``
records them; ``jsops.reconciler.readback`` settles those whose request got no answer); :class:`Stop` is the
interruption both of them look at between requests. Below both, so that neither imports the other for them.
"""

from __future__ import annotations

import signal
from dataclasses import dataclass, field

from .plan import PlanItem
from .vocabulary import Outcome

__all__ = ["ActionResult", "ApplyReport", "Stop"]


@dataclass
class ActionResult:
    action: PlanItem
    status: Outcome
    detail: str = ""
    # The JetStream API error code of a failed action (e.g. 10065), None when the failure was not
    # an API error (connection lost, timeout) or the action did not fail.
    err_code: int | None = None
    # Why the action was not attempted when that was an interruption (SIGINT, SIGTERM): such
    # results are summed up rather than listed one by one.
    interrupted: bool = False
    # Not attempted (or stopped at its first write) because the fence refused a write: the lease
    # this apply ran under was lost. Summed up like interruptions.
    fenced: bool = False

    def __post_init__(self) -> None:
        self.status = Outcome(self.status)


@dataclass
class ApplyReport:
    """What an apply did: one :class:`ActionResult` per action of the plan."""

    results: list[ActionResult] = field(default_factory=list)

    def count(self, status: str) -> int:
        return sum(1 for r in self.results if r.status == status)

    @property
    def converged(self) -> bool:
        return all(r.status == Outcome.DONE for r in self.results)


class Stop:
    """Set (from a signal handler) to stop starting requests; the ones in flight finish."""

    def __init__(self) -> None:
        self.signum: int | None = None

    def set(self, signum: int) -> None:
        if self.signum is None:
            self.signum = signum

    def __bool__(self) -> bool:
        return self.signum is not None

    @property
    def name(self) -> str:
        return signal.Signals(self.signum).name if self.signum is not None else ""
