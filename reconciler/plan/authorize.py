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

from ..live import LiveState
from ..permissions import Blocker, Grants, Permission, Refusal, Vocabulary, marked
from ..vocabulary import ActionKind
from .model import Action
from .planset import Plan

__all__ = ["authorize", "granted"]


def granted(a: Action, grants: Grants, live: LiveState) -> tuple[frozenset[Permission], Vocabulary]:
    """What ``grants`` grant for ``a``, and in whose words: the controller prunes an object that
    left the manifests by the marks its last apply recorded on it."""
    if grants.via == Vocabulary.ANNOTATIONS and ActionKind(a.wanted or a.action) == ActionKind.DELETE:
        cur = live.streams.get(a.name) if a.kind == "Stream" else live.consumers.get((a.stream or "", a.name))
        return marked(cur.config.metadata if cur is not None else {}), Vocabulary.MARKS
    return grants.of(a.kind, a.name, a.stream), grants.via


def authorize(plan: Plan, grants: Grants, live: LiveState) -> Plan:
    """Judge ``plan`` (as :func:`~jsops.reconciler.plan.build.plan_changes` made it) against
    ``grants``, in place; streams first, as their fate decides their consumers'. Returns ``plan``."""
    judged: list[Action | None] = list(plan.actions)
    puts: dict[str, Action | None] = {}
    deletes: dict[str, Action] = {}
    for i, a in enumerate(plan.actions):
        if a.kind != "Stream":
            continue
        judged[i] = _judge(a, grants, live)
        if a.action == ActionKind.DELETE or a.wanted == ActionKind.DELETE:
            deletes[a.name] = a
        else:
            puts[a.name] = judged[i]
    for i, a in enumerate(plan.actions):
        if a.kind == "Consumer":
            judged[i] = _consumer(a, grants, live, puts, deletes)
    plan.actions = [a for a in judged if a is not None]
    return plan


def _consumer(a: Action, grants: Grants, live: LiveState, puts: dict[str, Action | None], deletes: dict[str, Action]) -> Action | None:
    if a.recreated_with is not None:
        stream = puts.get(a.recreated_with)
        if stream is not None and stream.action == ActionKind.RECREATE:
            return _judge(a, grants, live)  # created again with its stream (or deleted before it is)
        if stream is not None and ActionKind(stream.wanted or stream.action) == ActionKind.MIGRATE:
            return None  # the migration creates it (or deletes it with the old stream)
        return _judge(a.kept, grants, live) if a.kept is not None else None
    if a.deleted_with is not None:
        stream = deletes.get(a.deleted_with)
        if stream is None or stream.action == ActionKind.DELETE:
            return None  # deleted with its stream
        if Permission.PRUNE not in granted(stream, grants, live)[0]:
            return None  # shown with its stream, whose delete names the grant
    return _judge(a, grants, live)


def _judge(a: Action, grants: Grants, live: LiveState) -> Action | None:
    """``a``, or the alternative the grants choose, blocked where a permission it needs is missing."""
    have, via = granted(a, grants, live)
    if a.adopting is not None and Permission.ADOPT not in have:
        alt = a.unadopted
        if alt is not None:
            alt.block(Refusal(Blocker.PERMISSION, a.adopting, (Permission.ADOPT,), via))
        return alt
    if a.lossless is not None and Permission.MIGRATE in have:
        return _judge(a.lossless, grants, live)  # the migration, instead of the recreate
    if a.action == ActionKind.BLOCKED:
        return a  # what no grant lifts (planning said why)
    for tier in sorted({n.tier for n in a.needs}):
        needs = [n for n in a.needs if n.tier == tier]
        missing = [n for n in needs if n.permission not in have]
        if missing:  # every grant it lacks, at once
            said = "".join(n.said for n in needs if n.always or n in missing)
            lossless = a.lossless is not None and bool(a.data_loss)
            a.block(Refusal(Blocker.PERMISSION, said, tuple(n.permission for n in missing), via, lossless))
            return a
    a.accept_loss = bool(a.data_loss) and any(n.permission == Permission.DATA_LOSS for n in a.needs)
    return a
