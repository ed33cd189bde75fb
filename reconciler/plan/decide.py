"""Verdicts and the one written precedence that turns them into a plan.

Planning (:func:`~jsops.reconciler.plan.build.plan_changes`) says what would change; each judging pass
then *returns* what it found, by action index, and edits nothing:

1. :func:`~jsops.reconciler.plan.authorize.authorize`: the grants (it also picks an alternative: the
   takeover or not, the migration instead of a recreate, a consumer's own action);
2. :func:`~jsops.reconciler.plan.closure.dependants`: what a blocked action keeps;
3. :func:`~jsops.reconciler.plan.predict.predicted_refusals`: the server's refusals predicted against the live
   estate, and what they block (then the closure again).

:func:`decide` is the one place that applies verdicts: it returns a new plan (the input is not changed).
When several verdicts, or a block planning made, meet on one action, the first in :data:`PRECEDENCE`
wins: the server's refusal, then a protection, an unknown state, a missing permission, a dependency.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from ..permissions import Blocker, Refusal
from ..vocabulary import ActionKind
from .model import Action
from .planset import Plan

__all__ = ["PRECEDENCE", "Blocked", "Dropped", "Run", "Verdict", "decide"]

# The written precedence of a block's reasons, strongest first.
PRECEDENCE = (Blocker.SERVER_REFUSAL, Blocker.PROTECTION, Blocker.UNKNOWN, Blocker.PERMISSION, Blocker.DEPENDENCY)


@dataclass(frozen=True)
class Run:
    """The action runs: ``instead`` (an alternative planning left: the migration, a consumer's own
    action), else itself; ``accept_loss``: the data-loss permission accepts the loss it counted."""

    instead: Action | None = None
    accept_loss: bool = False


@dataclass(frozen=True)
class Blocked:
    """The action (or ``instead``: the alternative the plan holds) does not run, for ``refusal``;
    ``err_code``: the server's answer, when the server would refuse it."""

    refusal: Refusal
    err_code: int | None = None
    instead: Action | None = None


@dataclass(frozen=True)
class Dropped:
    """The action leaves the plan: another action does what it would (or it has nothing to do)."""


Verdict = Run | Blocked | Dropped


def _rank(v: Verdict) -> int:
    if isinstance(v, Blocked):
        return PRECEDENCE.index(v.refusal.blocker)
    return len(PRECEDENCE) + (0 if isinstance(v, Dropped) else 1)


def _held(a: Action) -> int | None:
    """The rank of the block ``a`` holds already (None: not blocked; -1: a saved plan's text reason)."""
    if a.action != ActionKind.BLOCKED:
        return None
    return PRECEDENCE.index(a.refusal.blocker) if a.refusal is not None else -1


def _apply(a: Action, v: Verdict) -> Action | None:
    if isinstance(v, Dropped):
        return None
    base = v.instead if v.instead is not None else a
    if isinstance(v, Run):
        return replace(base, accept_loss=True) if v.accept_loss else base
    held = _held(base)
    if held is not None and held <= _rank(v):
        return base  # blocked already, for a reason that ranks as high
    return base.blocked(v.refusal, v.err_code)


def decide(plan: Plan, *verdicts: Mapping[int, Verdict]) -> Plan:
    """``plan`` with the ``verdicts`` (each pass's, by action index) applied by :data:`PRECEDENCE`: a
    new plan whose blocked actions say why; ``plan`` and its actions are left as they are."""
    actions: list[Action] = []
    for i, a in enumerate(plan.actions):
        found = [m[i] for m in verdicts if i in m]
        kept = _apply(a, min(found, key=_rank)) if found else a
        if kept is not None:
            actions.append(kept)
    return replace(plan, actions=actions)
