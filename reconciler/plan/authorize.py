"""The one permission decision: a plan judged against grants.

Planning (:func:`~jsops.reconciler.plan.build.plan_changes`) says what would change and what each
action needs (:class:`~jsops.reconciler.permissions.Need`), and leaves beside an action the
alternatives a grant decides. :func:`authorize` is the only place that reads grants
(:class:`~jsops.reconciler.permissions.Grants`: ``jsops plan``/``apply``'s flags, or the controller's
annotations, with the marks an object that left the manifests recorded):

- an object jsops does not own is taken over only with the adopt grant; without it the plan holds
  what :attr:`~jsops.reconciler.plan.model.Choice.unadopted` says (blocked: it names the grant), or nothing;
- a stream recreate becomes its migration (:attr:`~jsops.reconciler.plan.model.Choice.lossless`) where migrate is granted; its
  consumers are created again with it (recreated), go with the migration (dropped: it creates them,
  or deletes those that left the manifests), or keep their own actions (:attr:`~jsops.reconciler.plan.model.Choice.kept`) when
  the recreate does not run;
- an action runs only when each permission it needs is granted, else it is blocked with a typed
  :class:`~jsops.reconciler.permissions.Refusal` naming every missing grant at once (the renderer
  names them in the caller's vocabulary: :mod:`jsops.reconciler.render_refusal`); one that runs with
  the data-loss permission accepts the loss its plan counted (:attr:`~jsops.reconciler.verdict.Run.accept_loss`);
- a consumer delete that is part of its stream's delete is dropped when the stream's delete runs,
  and also when the prune permission for the stream is missing (it is shown with its stream).

Apply never decides again: it runs what is not blocked, re-checking the live state right before a
destructive request (a safety check). Blocks that no grant lifts (protections, the server's refusals,
an unknown state) are made by planning and by the preflight, typed the same way. Pure: it returns
its picks and verdicts by choice index (:class:`Pick`), and edits nothing.
"""

from __future__ import annotations

from typing import NamedTuple

from jsops.linter import Kind

from ..live import LiveState
from ..permissions import Blocker, Grants, Permission, Refusal, Vocabulary, marked
from ..verdict import Blocked, Dropped, Run, Verdict
from ..vocabulary import ActionKind
from .model import Choice, Intent
from .planset import Draft

__all__ = ["Pick", "authorize", "granted"]


class Pick(NamedTuple):
    """What authorize says of one choice: the alternative it takes (its ``intent``, with what planning
    refused of it) and the verdict of the grants on it (None: it runs, or stays as planning refused it)."""

    choice: Choice
    verdict: Verdict | None = None


# a stream's fate, as its consumers see it: the intent chosen for it (None: dropped), and whether it runs
_Fate = tuple[Intent | None, bool]


def granted(a: Intent, grants: Grants, live: LiveState) -> tuple[frozenset[Permission], Vocabulary]:
    """What ``grants`` grant for ``a``, and in whose words: the controller prunes an object that
    left the manifests by the marks its last apply recorded on it."""
    if grants.via == Vocabulary.ANNOTATIONS and a.action == ActionKind.DELETE:
        cur = live.streams.get(a.name) if a.kind == Kind.STREAM else live.consumers.get((a.stream or "", a.name))
        return marked(cur.config.metadata if cur is not None else {}), Vocabulary.MARKS
    return grants.of(a.kind, a.name, a.stream), grants.via


def authorize(draft: Draft, grants: Grants, live: LiveState) -> dict[int, Pick]:
    """What ``grants`` pick and say of ``draft`` (as :func:`~jsops.reconciler.plan.build.plan_changes`
    made it), by choice index (none: it runs as planned); streams first, as their fate decides
    their consumers'. :func:`~jsops.reconciler.plan.decide.decide` ranks the verdicts."""
    out: dict[int, Pick] = {}
    puts: dict[str, _Fate] = {}
    deletes: dict[str, _Fate] = {}
    for i, c in enumerate(draft.choices):
        if c.intent.kind != Kind.STREAM:
            continue
        p = _judge(c, grants, live)
        if p is not None:
            out[i] = p
        (deletes if c.intent.action == ActionKind.DELETE else puts)[c.intent.name] = _fate(c, p)
    for i, c in enumerate(draft.choices):
        if c.intent.kind == Kind.CONSUMER:
            p = _consumer(c, grants, live, puts, deletes)
            if p is not None:
                out[i] = p
    return out


def _fate(c: Choice, p: Pick | None) -> _Fate:
    if p is not None and isinstance(p.verdict, Dropped):
        return None, False
    chosen = p.choice if p is not None else c
    return chosen.intent, not (p is not None and isinstance(p.verdict, Blocked)) and chosen.refused is None


def _instead(p: Pick | None, alt: Choice) -> Pick:
    """``p`` (what the grants say of ``alt``) as what they say of the choice ``alt`` is the alternative of."""
    return Pick(alt) if p is None else p


def _consumer(
    c: Choice, grants: Grants, live: LiveState, puts: dict[str, _Fate], deletes: dict[str, _Fate]
) -> Pick | None:
    if c.recreated_with is not None:
        stream, runs = puts.get(c.recreated_with, (None, False))
        if stream is not None and runs and stream.action == ActionKind.RECREATE:
            return _judge(c, grants, live)  # created again with its stream (or deleted before it is)
        if stream is not None and stream.action == ActionKind.MIGRATE:
            return Pick(c, Dropped())  # the migration creates it (or deletes it with the old stream)
        return _instead(_judge(c.kept, grants, live), c.kept) if c.kept is not None else Pick(c, Dropped())
    if c.deleted_with is not None:
        gone, runs = deletes.get(c.deleted_with, (None, True))
        if gone is None or runs:
            return Pick(c, Dropped())  # deleted with its stream
        if Permission.PRUNE not in granted(gone, grants, live)[0]:
            return Pick(c, Dropped())  # shown with its stream, whose delete names the grant
    return _judge(c, grants, live)


def _judge(c: Choice, grants: Grants, live: LiveState) -> Pick | None:
    """What the grants say of ``c`` (None: it runs as planned, or stays refused as planning said):
    the alternative they choose, blocked where a permission it needs is missing."""
    a = c.intent
    have, via = granted(a, grants, live)
    if a.adopting is not None and Permission.ADOPT not in have:
        if c.unadopted is None:
            return Pick(c, Dropped())
        return Pick(Choice(c.unadopted), Blocked(Refusal(Blocker.PERMISSION, a.adopting, (Permission.ADOPT,), via)))
    if c.lossless is not None and Permission.MIGRATE in have:
        return _instead(_judge(c.lossless, grants, live), c.lossless)  # the migration, instead of the recreate
    if c.refused is not None:
        return None  # what no grant lifts (planning said why)
    for tier in sorted({n.tier for n in a.needs}):
        needs = [n for n in a.needs if n.tier == tier]
        missing = [n for n in needs if n.permission not in have]
        if missing:  # every grant it lacks, at once
            said = "".join(n.said for n in needs if n.always or n in missing)
            lossless = c.lossless is not None and bool(a.data_loss)
            return Pick(
                c, Blocked(Refusal(Blocker.PERMISSION, said, tuple(n.permission for n in missing), via, lossless))
            )
    accept = bool(a.data_loss) and any(n.permission == Permission.DATA_LOSS for n in a.needs)
    return Pick(c, Run(accept_loss=True)) if accept else None
