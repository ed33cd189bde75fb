"""What a blocked action keeps: the dependency closure of a plan (issue 21).

An action that does not run must not leave the change it belongs to half made. Given the actions
that are blocked (by the plan, the server's predicted refusals, or apply's gates), :func:`dependants`
says what they keep, until nothing more changes (:func:`close`: a plan with those blocked too):

- the deletes of the streams a blocked stream create (or recreate) would replace: a stream that
  left the manifests whose subjects the new one takes (a rename, or a move of its subjects) stays
  while its successor cannot be made;
- the consumer deletes of a stream whose delete is blocked: they are part of that delete (the
  consumer and its position stay with the stream);
- the consumer creates and updates on a stream whose create is blocked (apply would skip them).

:func:`rename_of` tells when the manifests look like a rename (a stream that left them and a new
one with the same subjects), so the plan can name the lossless route. Pure.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from jsops.linter import EffectiveStream, Kind, subjects_collide

from ..live import LiveState, LiveStream, owned
from ..permissions import RENAMED_FROM, Blocker, Permission, Refusal
from ..verdict import Blocked
from ..vocabulary import ActionKind
from .decide import decide
from .model import PlanItem
from .planset import Plan

__all__ = ["close", "dependants", "rename_of", "rename_note"]


def _subjects(config: object) -> list[str]:
    """A stream config's subjects (none for anything else: a consumer's, or no config)."""
    return list(config.subjects) if isinstance(config, EffectiveStream) else []


def _overlap(a: Iterable[str], b: Iterable[str]) -> bool:
    bs = list(b)
    return any(subjects_collide(x, y) for x in a for y in bs)


def _wanted(a: PlanItem) -> ActionKind:
    return ActionKind(a.wanted or a.action)


def dependants(
    actions: Sequence[PlanItem], live: LiveState, blocked: Callable[[PlanItem], bool] | None = None
) -> dict[int, Blocked]:
    """What the blocked actions keep (see the module), by action index, until nothing more changes:
    each blocked as a dependency (:func:`~jsops.reconciler.plan.decide.decide` applies them).

    ``blocked`` says whether an action is blocked (default: its kind is ``blocked``)."""
    is_blocked = blocked or (lambda a: a.action == ActionKind.BLOCKED)
    out: dict[int, Blocked] = {}
    changed = True
    while changed:
        changed = False
        stuck = [a for i, a in enumerate(actions) if is_blocked(a) or i in out]
        stuck_creates = {
            a.name: a for a in stuck if a.kind == Kind.STREAM and _wanted(a) in (ActionKind.CREATE, ActionKind.RECREATE)
        }
        stuck_deletes = {a.name for a in stuck if a.kind == Kind.STREAM and _wanted(a) == ActionKind.DELETE}
        for i, a in enumerate(actions):
            if i in out or is_blocked(a):
                continue
            why = _kept_by(a, live, stuck_creates, stuck_deletes)
            if why is not None:
                out[i] = Blocked(Refusal(Blocker.DEPENDENCY, why))
                changed = True
    return out


def close(plan: Plan, live: LiveState) -> Plan:
    """``plan`` with what its blocked actions keep blocked too (a new plan)."""
    return decide(plan, dependants(plan.actions, live))


def _kept_by(a: PlanItem, live: LiveState, creates: dict[str, PlanItem], deletes: set[str]) -> str | None:
    kind = ActionKind(a.action)
    if a.kind == Kind.STREAM and kind == ActionKind.DELETE:
        s = live.streams.get(a.name)
        mine = _subjects(s.config) if s is not None else []
        for name, c in sorted(creates.items()):
            if name != a.name and (_overlap(mine, _subjects(c.config))):
                return f"kept: Stream {name}, which would take its place (its subjects), is blocked; deleting it now would leave neither"
        return None
    if a.kind != Kind.CONSUMER:
        return None
    if kind == ActionKind.DELETE and a.stream in deletes:
        return f"kept with its stream: the delete of Stream {a.stream} is blocked (the consumer and its position stay with it)"
    if kind != ActionKind.DELETE and a.stream in creates and _wanted(creates[a.stream]) == ActionKind.CREATE:
        return f"its stream {a.stream} is not created (its create is blocked)"
    return None


def rename_of(name: str, config: EffectiveStream, live: LiveState, wanted: set[str]) -> LiveStream | None:
    """The live stream a new stream ``name`` (desired ``config``) looks renamed from: an owned
    stream the manifests (``wanted``: the stream names they declare) no longer declare, with the
    same subjects. None when there is none, or more than one."""
    subs = sorted(_subjects(config))
    if not subs:
        return None
    found = [
        s
        for n, s in live.streams.items()
        if n != name and n not in wanted and owned(s.config) and sorted(_subjects(s.config)) == subs
    ]
    return found[0] if len(found) == 1 else None


def rename_note(old: LiveStream) -> str:
    """What the plan says of a create that looks like a rename of ``old``."""
    held = f"{old.messages} message{'s' if old.messages != 1 else ''}"
    cons = f" and {old.consumer_count} consumer{'s' if old.consumer_count != 1 else ''}" if old.consumer_count else ""
    return (
        f"looks like a rename of {old.name} (it left the manifests; same subjects; it holds {held}{cons}): "
        f"to move them without loss, annotate this stream's manifest with {RENAMED_FROM}: {old.name} "
        f"and apply with {Permission.MIGRATE.flag}"
    )
