"""Who owns a live object, and what that makes of a change: an owned object is updated (or
recreated), one jsops does not own needs ``--adopt``, one another estate owns needs ``--adopt`` and
an in-place change; the bookkeeping jsops keeps on owned objects (manifest path, context, estate);
NACK's protections."""

from __future__ import annotations

from dataclasses import replace

from jsops.linter import Kind, worst_change_class

from ..configs import NO_EXTRA, Config, Extra
from ..diff import Change
from ..live import CONTEXT, ESTATE, REPO, SOURCE, owned
from ..permissions import Blocker, Refusal, protection
from ..vocabulary import ActionKind, ChangeClass
from .desired import Desired
from .model import Choice, Intent, PlanOptions

__all__ = ["bookkeeping", "owned_action", "protect"]


def bookkeeping(live_cfg: Config, d: Desired, opt: PlanOptions) -> list[Change]:
    """Changes recording the manifest's new path (when the recorded one is stale), its context and
    the estate on an owned object, so that a later scoped ``--prune`` of the old place does not
    delete it."""
    if not owned(live_cfg):
        return []
    meta = live_cfg.metadata
    out = []
    if opt.estates and opt.estate and meta.get(ESTATE) != opt.estate and not opt.foreign(live_cfg):
        out.append(
            Change.of(
                d.kind,
                f"metadata.{ESTATE}",
                meta.get(ESTATE),
                opt.estate,
                ChangeClass.IN_PLACE,
                "jsops records the estate that owns the object (it scopes --prune and takeovers)",
            )
        )
    if opt.estates and opt.estate is None and opt.repo and not meta.get(ESTATE) and not meta.get(REPO):
        out.append(
            Change.of(
                d.kind,
                f"metadata.{REPO}",
                None,
                opt.repo,
                ChangeClass.IN_PLACE,
                "jsops records the repository the object comes from (--prune deletes only its own)",
            )
        )
    if opt.stale_source is None:
        return out
    recorded = meta.get(SOURCE)
    if d.file and recorded != d.file and not (isinstance(recorded, str) and not opt.stale_source(recorded)):
        out.append(
            Change.of(
                d.kind,
                f"metadata.{SOURCE}",
                recorded,
                d.file,
                ChangeClass.IN_PLACE,
                "jsops records where the manifest now is (it scopes --prune)",
            )
        )
    ctx = meta.get(CONTEXT, "default")
    if ctx != d.context:
        out.append(
            Change.of(
                d.kind,
                f"metadata.{CONTEXT}",
                None if ctx == "default" else ctx,
                None if d.context == "default" else d.context,
                ChangeClass.IN_PLACE,
                "jsops records the manifest's context (it scopes --prune)",
            )
        )
    return out


def protect(act: Choice, d: Desired, live_cfg: Config) -> Refusal | None:
    """Why NACK's protection fields forbid ``act`` (:func:`jsops.reconciler.permissions.protection`);
    None when they do not (or planning refused it already)."""
    if act.refused is not None:
        return None
    i = act.intent
    why = protection(
        i.action, bool(i.changes), prevent_update=d.prevent_update, live=live_cfg.metadata, desired=d.config.metadata
    )
    return Refusal(Blocker.PROTECTION, why) if why is not None else None


def _one_way_note(changes: list[Change]) -> str | None:
    notes = [f"{c.path}: {c.consequence}" for c in changes if c.cls == ChangeClass.ONE_WAY]
    return "cannot be undone: " + "; ".join(notes) if notes else None


def _unadopted(kind: str, name: str, stream: str | None, changes: list[Change], config: Config) -> Intent:
    """What the plan holds for an object jsops may not take over: its changes, not made (an
    update, or a recreate when one of them needs it)."""
    recreate = ChangeClass(worst_change_class([c.cls for c in changes])) == ChangeClass.RECREATE
    return Intent(
        ActionKind.RECREATE if recreate else ActionKind.UPDATE, Kind(kind), name, stream, changes, None, config
    )


def owned_action(
    kind: str,
    name: str,
    stream: str | None,
    live_cfg: Config,
    changes: list[Change],
    opt: PlanOptions,
    config: Config,
    extra: Extra = NO_EXTRA,
) -> Choice | None:
    """The choice for a live object with ``changes``, by who owns it; None when nothing changes.
    An object jsops does not own (or another estate owns) is planned as taken over, with what the
    plan holds without the adopt grant beside it (:attr:`Choice.unadopted`: authorize decides).
    ``extra``: the live config's fields the catalog does not know, sent back with the config."""
    other = opt.foreign(live_cfg)
    if other is not None:
        act: Choice | None = _takeover(kind, name, stream, other, changes, opt, config)
    elif owned(live_cfg):
        act = _change(kind, name, stream, changes, config, adopting=False)
    else:
        act = _change(kind, name, stream, changes, config, adopting=True)
        assert act is not None  # taking an object over is an action of its own
        act = replace(
            act.map(lambda i: replace(i, adopting="exists and is not managed by jsops; ")),
            unadopted=_unadopted(kind, name, stream, changes, config) if changes else None,
        )
    if act is None:
        return None
    return replace(
        act.map(lambda i: replace(i, extra=extra)),
        unadopted=replace(act.unadopted, extra=extra) if act.unadopted is not None else None,
    )


def _change(
    kind: str, name: str, stream: str | None, changes: list[Change], config: Config, *, adopting: bool
) -> Choice | None:
    k = Kind(kind)
    if not changes:
        if adopting:
            return Choice(
                Intent(
                    ActionKind.ADOPT,
                    k,
                    name,
                    stream,
                    [],
                    "jsops takes over the object (ownership metadata is added)",
                    config,
                )
            )
        return None
    cls = ChangeClass(worst_change_class([c.cls for c in changes]))
    if cls == ChangeClass.FORBIDDEN:
        forbidden = [c for c in changes if c.cls == ChangeClass.FORBIDDEN]
        act = Choice(
            Intent(ActionKind.UPDATE, k, name, stream, changes, "; ".join(c.consequence for c in forbidden), config)
        )
        return act.refuse(
            Refusal(
                Blocker.SERVER_REFUSAL, "the server cannot make this change: " + ", ".join(c.path for c in forbidden)
            )
        )
    if cls == ChangeClass.RECREATE:
        return Choice(Intent(ActionKind.RECREATE, k, name, stream, changes, None, config))
    return Choice(
        Intent(
            ActionKind.ADOPT if adopting else ActionKind.UPDATE,
            k,
            name,
            stream,
            changes,
            _one_way_note(changes),
            config,
        )
    )


def _takeover(
    kind: str, name: str, stream: str | None, other: str, changes: list[Change], opt: PlanOptions, config: Config
) -> Choice:
    """The choice for an object owned by estate ``other``: an in-place takeover (the estate mark
    changes) when the other changes are in place too; without the adopt grant, its changes are not
    made (:attr:`Choice.unadopted`)."""
    mine = f"estate {opt.estate!r}" if opt.estate else "this repository (no estate: in the jsops config)"
    change = Change.of(
        kind,
        f"metadata.{ESTATE}",
        other,
        opt.estate,
        ChangeClass.IN_PLACE,
        f"jsops takes the object over from estate {other!r}",
    )
    unadopted = _unadopted(kind, name, stream, changes + [change], config)
    changes = changes + [change]
    cls = ChangeClass(worst_change_class([c.cls for c in changes]))
    adopting = f"owned by estate {other!r}, not {mine}; "
    if cls in (ChangeClass.FORBIDDEN, ChangeClass.RECREATE):
        act = Intent(
            ActionKind.RECREATE if cls == ChangeClass.RECREATE else ActionKind.UPDATE,
            Kind(kind),
            name,
            stream,
            changes,
            None,
            config,
            adopting=adopting,
        )
        why = Refusal(
            Blocker.PROTECTION, f"owned by estate {other!r}; a takeover is an in-place update only, this change is not"
        )
        return Choice(act, unadopted=unadopted).refuse(why)
    act = Intent(
        ActionKind.ADOPT,
        Kind(kind),
        name,
        stream,
        changes,
        f"jsops takes the object over from estate {other!r}",
        config,
        adopting=adopting,
    )
    return Choice(act, unadopted=unadopted)
