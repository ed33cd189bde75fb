"""The one written precedence that turns verdicts into a plan.

Planning (:func:`~jsops.reconciler.plan.build.plan_changes`) says what would change: a
:class:`~jsops.reconciler.plan.planset.Draft` of choices, with what planning itself refuses beside
each intent (forbidden, a protection, an unknown state, an unsafe migration: :func:`refusals`). Each
judging pass then *returns* what it found, by index, and edits nothing:

1. :func:`~jsops.reconciler.plan.authorize.authorize`: the grants (it also picks an alternative: the
   takeover or not, the migration instead of a recreate, a consumer's own action);
2. :func:`~jsops.reconciler.plan.closure.dependants`: what a blocked item keeps;
3. :func:`~jsops.reconciler.plan.predict.predicted_refusals`: the server's refusals predicted against the live
   estate, and what they block (then the closure again).

:func:`decide` is the one place that ranks verdicts: it returns a new plan (the input is not changed).
When several verdicts meet on one intent, the first in :data:`PRECEDENCE` wins: the server's refusal,
then a protection, an unknown state, a missing permission, a dependency (a saved plan's text reason
ranks above them all: it is not judged again). A block held already (planning's, or an earlier
decide's) stands against a new one that ranks lower; a drop (authorize's) takes the intent out.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import overload

from ..permissions import Blocker
from ..verdict import RUN, Blocked, Dropped, Run, Verdict
from .authorize import Pick
from .model import Choice, PlanItem
from .planset import Draft, Plan

__all__ = ["PRECEDENCE", "decide", "refusals"]

# The written precedence of a block's reasons, strongest first.
PRECEDENCE = (Blocker.SERVER_REFUSAL, Blocker.PROTECTION, Blocker.UNKNOWN, Blocker.PERMISSION, Blocker.DEPENDENCY)


def _rank(v: Verdict) -> int:
    if isinstance(v, Blocked):
        return -1 if isinstance(v.refusal, str) else PRECEDENCE.index(v.refusal.blocker)
    return len(PRECEDENCE) + (0 if isinstance(v, Dropped) else 1)


def _over(held: Verdict, new: list[Verdict]) -> Verdict:
    """The verdict that stands when the passes say ``new`` of an intent that holds ``held``: the
    strongest new one; a drop or a run of its own stands as it is (a run keeps a held block), a
    block only over a held one that ranks lower."""
    if not new:
        return held
    v = min(new, key=_rank)
    if isinstance(v, Dropped):
        return v
    if isinstance(v, Run):
        return v if v.accept_loss and isinstance(held, Run) else held
    return held if isinstance(held, Blocked) and _rank(held) <= _rank(v) else v


def refusals(draft: Draft) -> dict[int, Blocked]:
    """What planning refused, by choice index (a pass's verdicts like any other's)."""
    return {i: c.refused for i, c in enumerate(draft.choices) if c.refused is not None}


@overload
def decide(plan: Draft, *verdicts: Mapping[int, Pick | Verdict]) -> Plan: ...
@overload
def decide(plan: Plan, *verdicts: Mapping[int, Verdict]) -> Plan: ...
def decide(plan: Draft | Plan, *verdicts: Mapping[int, Pick | Verdict]) -> Plan:
    """``plan`` with the ``verdicts`` (each pass's, by index) ranked by :data:`PRECEDENCE`: a new plan
    of (intent, verdict) items. A draft's choices become the alternatives the picks take (their
    planning refusals ranked with the rest); a plan's items keep the verdict they hold, ranked with the
    new ones. ``plan`` is left as it is."""
    if isinstance(plan, Draft):
        settled = (_settle(c, [m[n] for m in verdicts if n in m]) for n, c in enumerate(plan.choices))
        return Plan(plan.target, plan.fingerprint, [item for item in settled if item is not None])
    items: list[PlanItem] = []
    for n, item in enumerate(plan.actions):
        v = _over(item.verdict, [_verdict(m[n]) for m in verdicts if n in m])
        if not isinstance(v, Dropped):
            items.append(PlanItem(item.intent, v))
    return Plan(plan.target, plan.fingerprint, items, plan.version, plan.context, plan.contexts)


def _verdict(v: Pick | Verdict) -> Verdict:
    if isinstance(v, Pick):
        raise TypeError("a pick chooses between a draft's alternatives; a plan's items are chosen already")
    return v


def _settle(c: Choice, said: list[Pick | Verdict]) -> PlanItem | None:
    picks = [p for p in said if isinstance(p, Pick)]
    chosen = picks[0].choice if picks else c
    new = [v for v in (p.verdict if isinstance(p, Pick) else p for p in said) if v is not None]
    v = _over(chosen.refused or RUN, new)
    return None if isinstance(v, Dropped) else PlanItem(chosen.intent, v)
