"""Planning helpers for the data-loss safety of issue 12 (see docs/data-loss.md).

- consumer recreate intents recorded on the parent stream (carried over by stream updates, resumed
  by the next plan);
- tightened limits counted as data loss (:mod:`reconciler.dataloss`);
- the estate mark kept on objects when no estate rules apply (the controller).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from linter.updates import worst

from .dataloss import describe, limit_losses, loss_total
from .diff import Change
from .live import ESTATE, RECREATE_PREFIX, LiveState, LiveStream, interest_loss, owned

if TYPE_CHECKING:
    from .plan import Action, Desired, PlanOptions

__all__ = ["config_digest", "keep_intents", "estate_mark", "limit_loss", "resume_action", "block", "interest_action", "takeover_action"]


def block(act: Action, reason: str) -> None:
    act.wanted, act.action, act.reason = act.action, "blocked", reason


def config_digest(config: dict[str, Any]) -> str:
    """A short digest of a desired consumer config (recorded with a recreate intent)."""
    text = json.dumps(config, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def keep_intents(config: dict[str, Any], live_cfg: dict[str, Any]) -> dict[str, Any]:
    """``config`` with the live stream's recorded recreate intents carried over (an update of the
    stream must not erase the position of a consumer whose recreate was interrupted)."""
    keep = {k: v for k, v in (live_cfg.get("metadata") or {}).items() if k.startswith(RECREATE_PREFIX)}
    if not keep:
        return config
    out = dict(config)
    out["metadata"] = {**(out.get("metadata") or {}), **keep}
    return out


def estate_mark(config: dict[str, Any], cur: Any, opt: PlanOptions) -> dict[str, Any]:
    """Without estate rules, an update keeps the estate the live object records."""
    if opt.estates or cur is None:
        return config
    mark = (cur.config.get("metadata") or {}).get(ESTATE)
    if not mark or not owned(cur.config):
        return config
    out = dict(config)
    out["metadata"] = {**(out.get("metadata") or {}), ESTATE: mark}
    return out


def limit_loss(act: Action, cur: LiveStream, desired: dict[str, Any], live: LiveState, opt: PlanOptions) -> None:
    """Count what ``act``'s tightened limits remove from ``cur``'s stored messages; a loss is data
    loss: said in the changes and the consequence, counted, and blocked without --allow-data-loss."""
    losses = limit_losses(cur, desired, live.read_at, live.limit_loss.get(cur.name))
    if not losses:
        return
    by_limit = {x.limit: x for x in losses}
    act.changes = [replace(c, cls="data-loss", consequence=describe(by_limit[c.path], cur.messages)) if c.path in by_limit else c
                   for c in act.changes]
    total = loss_total(cur, losses)
    act.data_loss = total
    note = "data loss: the new limits remove up to " + f"{total} of {cur.messages} stored message{'s' if cur.messages != 1 else ''} (" + \
        ", ".join(f"{x.limit}: {'unmeasured' if x.messages is None else ('about ' if x.approx else '') + str(x.messages)}" for x in losses) + ")"
    act.consequence = f"{act.consequence}; {note}" if act.consequence else note
    if not opt.allow_data_loss:
        block(act, f"tightened limits remove up to {total} stored message{'s' if total != 1 else ''}; needs --allow-data-loss")


def resume_action(d: Desired, config: dict[str, Any], intent: dict[str, Any]) -> Action:
    from .apply import resume_config  # apply imports this module

    seq = int(intent["seq"])
    note = f"resume interrupted recreate of {d.stream}/{d.name} at stream sequence {seq} (recorded on the stream before its delete)"
    if intent.get("digest") != config_digest(config):
        note += "; the manifest changed since, the new config is created at that position"
    from .plan import Action

    return Action("create", "Consumer", d.name, d.stream, [], note, resume_config(config, seq), resume_seq=seq)


def interest_action(act: Action, live: LiveState, c: Any, opt: PlanOptions) -> None:
    """A consumer delete (prune or recreate) on an interest stream removes its unacknowledged
    messages: data loss, blocked without --allow-data-loss."""
    lost = interest_loss(live.streams.get(c.stream), c.pending)
    if not lost:
        return
    act.data_loss = lost
    note = (f"data loss: on an interest stream, deleting the consumer removes up to {lost} unacknowledged "
            f"message{'s' if lost != 1 else ''} no other consumer is interested in")
    act.consequence = f"{act.consequence}; {note}" if act.consequence else note
    if not opt.allow_data_loss:
        block(act, f"the consumer has {lost} unacknowledged message{'s' if lost != 1 else ''} on an interest stream; needs --allow-data-loss")


def takeover_action(kind: str, name: str, stream: str | None, label: str, other: str, changes: list[Change],
                    opt: PlanOptions, config: dict[str, Any]) -> Action:
    """The action for an object owned by estate ``other``: blocked without --adopt; with it, an
    in-place takeover (the estate mark changes) when the other changes are in place too."""
    from .plan import Action

    mine = f"estate {opt.estate!r}" if opt.estate else "this repository (no estate: in the jsops config)"
    change = Change(f"metadata.{ESTATE}", other, opt.estate, "in-place", f"jsops takes the object over from estate {other!r}")
    if not opt.adopts(kind, name, stream):
        act = Action("update", kind, name, stream, changes + [change], None, config)
        if worst([c.cls for c in changes] or ["in-place"]) == "recreate":
            act.action = "recreate"
        block(act, f"owned by estate {other!r}, not {mine}; pass --adopt {label} to take it over")
        return act
    changes = changes + [change]
    cls = worst([c.cls for c in changes])
    if cls in ("forbidden", "recreate"):
        act = Action("recreate" if cls == "recreate" else "update", kind, name, stream, changes, None, config)
        block(act, f"owned by estate {other!r}; a takeover is an in-place update only, this change is not")
        return act
    return Action("adopt", kind, name, stream, changes, f"jsops takes the object over from estate {other!r}", config)
