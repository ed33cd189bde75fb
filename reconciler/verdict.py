"""What the judging passes say of an intent: :data:`Verdict` = :class:`Run` | :class:`Blocked` | :class:`Dropped`.

A verdict is the other half of a plan's item (:class:`~jsops.reconciler.plan.model.PlanItem`): the
intent says what to do, the verdict whether it is done. Passes return verdicts by item index;
:func:`~jsops.reconciler.plan.decide.decide` is the one place that ranks them. Pure data: it imports no
renderer (:mod:`jsops.reconciler.render_refusal` renders a verdict); it lives beside
:class:`~jsops.reconciler.permissions.Refusal`, outside the plan package, so that the renderer and the
plan's codec both read it without a cycle.
"""

from __future__ import annotations

from dataclasses import dataclass

from .permissions import Refusal

__all__ = ["RUN", "Blocked", "Dropped", "Run", "Verdict"]


@dataclass(frozen=True)
class Run:
    """The intent runs; ``accept_loss``: the data-loss permission accepts the loss it counted (else
    apply re-checks the live state right before a destructive request and refuses a new loss)."""

    accept_loss: bool = False


@dataclass(frozen=True)
class Blocked:
    """The intent does not run, for ``refusal`` (typed; a ``str``: the reason a saved plan's JSON
    says); ``err_code``: the server's answer, when the server would refuse it."""

    refusal: Refusal | str
    err_code: int | None = None


@dataclass(frozen=True)
class Dropped:
    """The intent leaves the plan: another one does what it would (or it has nothing to do)."""


Verdict = Run | Blocked | Dropped

RUN = Run()
