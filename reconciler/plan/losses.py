"""Planning helpers for the data-loss safety of issue 12 (see docs/data-loss.md).

- consumer recreate intents recorded on the parent stream (carried over by stream updates, resumed
  by the next plan);
- tightened limits counted as data loss (:mod:`jsops.reconciler.dataloss`);
- the estate mark kept on objects when no estate rules apply (the controller).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from typing import Any

from jsops.linter import EffectiveConsumer, EffectiveStream, Kind, api_json

from ..configs import ConfigT, with_metadata
from ..dataloss import describe, limit_losses, loss_total, tightened
from ..interestloss import filter_loss, retention_loss
from ..live import ESTATE, RECREATE_PREFIX, REPO, LiveConsumer, LiveState, LiveStream, interest_loss, owned
from ..permissions import Need, Permission
from ..vocabulary import ActionKind, ChangeClass
from .desired import Desired, resume_config
from .model import Intent, PlanOptions

__all__ = [
    "need",
    "config_digest",
    "keep_intents",
    "estate_mark",
    "limit_loss",
    "resume_action",
    "interest_action",
    "interest_update_loss",
]


def need(act: Intent, n: Need) -> Intent:
    """``act`` needing ``n`` (in place of what it needed of that permission before)."""
    return replace(act, needs=tuple(x for x in act.needs if x.permission != n.permission) + (n,))


def config_digest(config: EffectiveConsumer) -> str:
    """A short digest of a desired consumer config (recorded with a recreate intent): of its JSON."""
    text = json.dumps(api_json(config), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def keep_intents(config: EffectiveStream, live_cfg: EffectiveStream) -> EffectiveStream:
    """``config`` with the live stream's recorded recreate intents carried over (an update of the
    stream must not erase the position of a consumer whose recreate was interrupted)."""
    return with_metadata(config, {k: v for k, v in live_cfg.metadata.items() if k.startswith(RECREATE_PREFIX)})


def estate_mark(config: ConfigT, cur: LiveStream | LiveConsumer | None, opt: PlanOptions) -> ConfigT:
    """Without estate rules, an update keeps the estate the live object records; and an object
    keeps the repository it records (the first repository that applied it prunes it)."""
    if cur is None or not owned(cur.config):
        return config
    live_meta = cur.config.metadata
    return with_metadata(
        config, {k: live_meta[k] for k in ((ESTATE,) if not opt.estates else ()) + (REPO,) if live_meta.get(k)}
    )


def limit_loss(act: Intent, cur: LiveStream, desired: EffectiveStream, live: LiveState) -> Intent:
    """Count what ``act``'s tightened limits remove from ``cur``'s stored messages; a loss is data
    loss: said in the changes and the consequence, counted, and needs the data-loss permission."""
    if desired.discard == "new":
        tight = tightened(cur.config, desired)
        discards = [
            replace(c, consequence=_discard_new(c.path, cur, desired))
            if c.path in ("max_msgs", "max_bytes") and c.path in tight
            else c
            for c in act.changes
        ]
        act = replace(act, changes=discards)
    losses = limit_losses(cur, desired, live.read_at, live.limit_loss.get(cur.name))
    if not losses:
        return act
    by_limit = {x.limit: x for x in losses}
    total = loss_total(cur, losses)
    changes = [
        replace(c, cls=ChangeClass.DATA_LOSS, consequence=describe(by_limit[c.path], cur.messages))
        if c.path in by_limit
        else c
        for c in act.changes
    ]
    note = (
        "data loss: the new limits remove up to "
        + f"{total} of {cur.messages} stored message{'s' if cur.messages != 1 else ''} ("
        + ", ".join(
            f"{x.limit}: {'unmeasured' if x.messages is None else ('about ' if x.approx else '') + str(x.messages)}"
            for x in losses
        )
        + ")"
    )
    act = replace(act, changes=changes, data_loss=total).noted(note)
    return need(
        act,
        Need(
            Permission.DATA_LOSS, f"tightened limits remove up to {total} stored message{'s' if total != 1 else ''}; "
        ),
    )


def _discard_new(limit: str, cur: LiveStream, desired: EffectiveStream) -> str:
    """What a lower ``max_msgs``/``max_bytes`` does with ``discard: new``: nothing stored goes; new
    messages (a bucket's puts) are refused while the stream is over the limit."""
    held = cur.messages if limit == "max_msgs" else cur.bytes
    new = desired.max_msgs if limit == "max_msgs" else desired.max_bytes
    unit = "messages" if limit == "max_msgs" else "bytes"
    now = (
        f"it holds {held} {unit} now, more than the new limit: every new message (every put, for a bucket) is refused until enough are removed"
        if held > new
        else "once it is full, new messages (puts, for a bucket) are refused"
    )
    return f"with discard: new nothing stored is removed; {now}"


def resume_action(d: Desired, config: EffectiveConsumer, intent: dict[str, Any]) -> Intent:
    seq = int(intent["seq"])
    note = f"resume interrupted recreate of {d.stream}/{d.name} at stream sequence {seq} (recorded on the stream before its delete)"
    if intent.get("digest") != config_digest(config):
        note += "; the manifest changed since, the new config is created at that position"
    return Intent(
        ActionKind.CREATE, Kind.CONSUMER, d.name, d.stream, [], note, resume_config(config, seq), resume_seq=seq
    )


def interest_action(act: Intent, live: LiveState, c: LiveConsumer) -> Intent:
    """A consumer delete (prune or recreate) on an interest stream removes its unacknowledged
    messages: data loss, which needs the data-loss permission."""
    lost = interest_loss(live.streams.get(c.stream), c.pending)
    if not lost:
        return act
    note = (
        f"data loss: on an interest stream, deleting the consumer removes up to {lost} unacknowledged "
        f"message{'s' if lost != 1 else ''} no other consumer is interested in"
    )
    act = replace(act, data_loss=lost).noted(note)
    return need(
        act,
        Need(
            Permission.DATA_LOSS,
            f"the consumer has {lost} unacknowledged message{'s' if lost != 1 else ''} on an interest stream; ",
            always=True,
        ),
    )


def interest_update_loss(act: Intent, live: LiveState, desired: EffectiveStream | EffectiveConsumer) -> Intent:
    """An in-place update that makes an interest stream drop stored messages (issue 21): a change
    of retention to ``interest`` (the messages no consumer has pending), or a consumer's narrower
    filter (the messages no consumer takes any more). Counted from the live state, added to the
    action's data loss, and needs the data-loss permission, as tightened limits do."""
    if isinstance(desired, EffectiveStream):
        s = live.streams.get(act.name)
        lost = retention_loss(s, desired, live) if s is not None else 0
        path = "retention"
        note = (
            f"data loss: on an interest stream the server keeps only the messages a consumer has pending: "
            f"up to {lost} of {s.messages if s else 0} stored messages are removed"
        )
    else:
        s = live.streams.get(act.stream or "")
        c = live.consumers.get((act.stream or "", act.name))
        lost = filter_loss(s, c, desired, live) if s is not None and c is not None else 0
        path = "filter_subjects" if "filter_subjects" in {ch.path for ch in act.changes} else "filter_subject"
        note = (
            f"data loss: on an interest stream the server removes the messages no consumer takes any more: "
            f"up to {lost} stored message{'s' if lost != 1 else ''} outside the new filter"
        )
    if not lost or s is None:
        return act
    changes = [
        replace(c, cls=ChangeClass.DATA_LOSS, consequence=note)
        if c.path in (path, "filter_subject", "filter_subjects")
        else c
        for c in act.changes
    ]
    total = min(s.messages, (act.data_loss or 0) + lost)
    act = replace(act, changes=changes, data_loss=total).noted(note)
    return need(
        act, Need(Permission.DATA_LOSS, f"the change removes up to {total} stored message{'s' if total != 1 else ''}; ")
    )
