"""The one permission decision: a plan judged against grants.

Planning (:func:`~jsops.reconciler.plan.build.plan_changes`) says what would change and what each
action needs (:class:`~jsops.reconciler.permissions.Need`), and leaves beside an action the
alternatives a grant decides. :func:`authorize` is the only place that reads grants
(:class:`~jsops.reconciler.permissions.Grants`: ``jsops plan``/``apply``'s flags, or the controller's
annotations, with the marks an object that left the manifests recorded):

- an object jsops does not own is taken over only with the adopt grant; without it the plan holds
  what :attr:`Action.unadopted` says (blocked: it names the grant), or nothing;
- a stream recreate becomes its migration (:attr:`Action.lossless`) where migrate is granted; its
  consumers are created again with it (recreated), go with the migration (dropped: it creates them,
  or deletes those that left the manifests), or keep their own actions (:attr:`Action.kept`) when
  the recreate does not run;
- an action runs only when each permission it needs is granted, else it is blocked with a typed
  :class:`~jsops.reconciler.permissions.Refusal` naming every missing grant at once (the renderer
  names them in the caller's vocabulary: :mod:`jsops.reconciler.render_refusal`); one that runs with
  the data-loss permission accepts the loss its plan counted (:attr:`Action.accept_loss`);
- a consumer delete that is part of its stream's delete is dropped when the stream's delete runs,
  and also when the prune permission for the stream is missing (it is shown with its stream).

Apply never decides again: it runs what is not blocked, re-checking the live state right before a
destructive request (a safety check). Blocks that no grant lifts (protections, the server's refusals,
an unknown state) are made by planning and by the preflight, typed the same way. Pure.
"""

from __future__ import annotations

from dataclasses import replace

from jsops.linter import Kind

from ..live import LiveState
from ..permissions import Blocker, Grants, Permission, Refusal, Vocabulary, marked
from ..vocabulary import ActionKind
from .decide import Blocked, Dropped, Run, Verdict
from .model import Action
from .planset import Plan

__all__ = ["authorize", "granted"]

# a stream's fate, as its consumers see it: the action chosen for it (None: dropped), and whether it runs
_Fate = tuple[Action | None, bool]


def granted(a: Action, grants: Grants, live: LiveState) -> tuple[frozenset[Permission], Vocabulary]:
    """What ``grants`` grant for ``a``, and in whose words: the controller prunes an object that
    left the manifests by the marks its last apply recorded on it."""
    if grants.via == Vocabulary.ANNOTATIONS and ActionKind(a.wanted or a.action) == ActionKind.DELETE:
        cur = live.streams.get(a.name) if a.kind == Kind.STREAM else live.consumers.get((a.stream or "", a.name))
        return marked(cur.config.metadata if cur is not None else {}), Vocabulary.MARKS
    return grants.of(a.kind, a.name, a.stream), grants.via


def authorize(plan: Plan, grants: Grants, live: LiveState) -> dict[int, Verdict]:
    """The verdicts of ``grants`` on ``plan`` (as :func:`~jsops.reconciler.plan.build.plan_changes`
    made it), by action index (none: it runs as planned); streams first, as their fate decides
    their consumers'. :func:`~jsops.reconciler.plan.decide.decide` applies them."""
    out: dict[int, Verdict] = {}
    puts: dict[str, _Fate] = {}
    deletes: dict[str, _Fate] = {}
    for i, a in enumerate(plan.actions):
        if a.kind != Kind.STREAM:
            continue
        v = _judge(a, grants, live)
        if v is not None:
            out[i] = v
        (deletes if ActionKind(a.wanted or a.action) == ActionKind.DELETE else puts)[a.name] = _fate(a, v)
    for i, a in enumerate(plan.actions):
        if a.kind == Kind.CONSUMER:
            v = _consumer(a, grants, live, puts, deletes)
            if v is not None:
                out[i] = v
    return out


def _fate(a: Action, v: Verdict | None) -> _Fate:
    if isinstance(v, Dropped):
        return None, False
    chosen = v.instead if v is not None and v.instead is not None else a
    return chosen, not isinstance(v, Blocked) and chosen.action != ActionKind.BLOCKED


def _instead(v: Verdict | None, alt: Action) -> Verdict:
    """``v`` (the verdict on ``alt``) as a verdict on the action ``alt`` is the alternative of."""
    if v is None:
        return Run(alt)
    return v if isinstance(v, Dropped) or v.instead is not None else replace(v, instead=alt)


def _consumer(a: Action, grants: Grants, live: LiveState, puts: dict[str, _Fate], deletes: dict[str, _Fate]) -> Verdict | None:
    if a.recreated_with is not None:
        stream, runs = puts.get(a.recreated_with, (None, False))
        if stream is not None and runs and stream.action == ActionKind.RECREATE:
            return _judge(a, grants, live)  # created again with its stream (or deleted before it is)
        if stream is not None and ActionKind(stream.wanted or stream.action) == ActionKind.MIGRATE:
            return Dropped()  # the migration creates it (or deletes it with the old stream)
        return _instead(_judge(a.kept, grants, live), a.kept) if a.kept is not None else Dropped()
    if a.deleted_with is not None:
        gone, runs = deletes.get(a.deleted_with, (None, True))
        if gone is None or runs:
            return Dropped()  # deleted with its stream
        if Permission.PRUNE not in granted(gone, grants, live)[0]:
            return Dropped()  # shown with its stream, whose delete names the grant
    return _judge(a, grants, live)


def _judge(a: Action, grants: Grants, live: LiveState) -> Verdict | None:
    """The verdict on ``a`` (None: it runs as planned, or stays blocked as planning said): the
    alternative the grants choose, blocked where a permission it needs is missing."""
    have, via = granted(a, grants, live)
    if a.adopting is not None and Permission.ADOPT not in have:
        if a.unadopted is None:
            return Dropped()
        return Blocked(Refusal(Blocker.PERMISSION, a.adopting, (Permission.ADOPT,), via), instead=a.unadopted)
    if a.lossless is not None and Permission.MIGRATE in have:
        return _instead(_judge(a.lossless, grants, live), a.lossless)  # the migration, instead of the recreate
    if a.action == ActionKind.BLOCKED:
        return None  # what no grant lifts (planning said why)
    for tier in sorted({n.tier for n in a.needs}):
        needs = [n for n in a.needs if n.tier == tier]
        missing = [n for n in needs if n.permission not in have]
        if missing:  # every grant it lacks, at once
            said = "".join(n.said for n in needs if n.always or n in missing)
            lossless = a.lossless is not None and bool(a.data_loss)
            return Blocked(Refusal(Blocker.PERMISSION, said, tuple(n.permission for n in missing), via, lossless))
    accept = bool(a.data_loss) and any(n.permission == Permission.DATA_LOSS for n in a.needs)
    return Run(accept_loss=True) if accept else None
