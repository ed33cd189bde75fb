"""Consumer changes made through server APIs instead of a recreate (:mod:`jsops.reconciler.server_apis`).

- ``pause_until``: with the pause API (2.11+) a change is in place: the plan shows a ``pause`` or
  ``resume`` action (``||``, ``|>``); on an older release it stays forbidden and the plan says the
  release cannot pause; on an unknown release (no live state read) it stays as it was.
- a changed start (``deliver_policy``, ``opt_start_seq``, ``opt_start_time``) whose only other
  changes are in place: with the reset API (2.14+) a ``reset`` action (``<<``) instead of a recreate.
  By default the consumer starts again after its ack floor, as a recreate at its position did
  (``reset_seq`` 0); with ``--reset-position`` at the sequence the new start names (a rewind), when
  the server accepts a reset there for the consumer's live start. The manifest's start is recorded in
  ``io.jsops.resume`` (an update cannot change the start fields), so the plan afterwards is empty.
"""

from __future__ import annotations

from dataclasses import replace

from jsops.linter import EffectiveConsumer

from ..diff import START_FIELDS, Change
from ..live import LiveConsumer, LiveState
from ..permissions import Need, Permission
from ..server_apis import can_pause, can_reset, no_pause_reason, reset_allowed, start_sequence
from ..vocabulary import ActionKind, ChangeClass
from .desired import hold_start
from .model import Intent, PlanOptions

__all__ = ["pause_changes", "pause_action", "reset_action"]

_START_KEPT = "the server keeps the live start; the consumer is reset instead (below) and the manifest's start recorded"


def pause_changes(changes: list[Change], live: LiveState) -> list[Change]:
    """``changes`` with a ``pause_until`` change classed by what the live server can do."""
    out = []
    for c in changes:
        if c.path == "pause_until":
            able = can_pause(live.server_version)
            if able:
                c = replace(c, cls=ChangeClass.IN_PLACE, consequence=_pause_note(c.new, live.read_at))
            elif able is False:
                c = replace(c, consequence=no_pause_reason(str(live.server_version)))
        out.append(c)
    return out


def _pause_note(until: object, now: float) -> str:
    if until is None:
        return "resumed through the pause API ($JS.API.CONSUMER.PAUSE): deliveries start again"
    from ..live import parse_ts

    when = parse_ts(until)
    if when is not None and when <= now:
        return "the time has passed: the pause API records it and the consumer is not paused"
    return "paused through the pause API ($JS.API.CONSUMER.PAUSE): no deliveries until then (the position is kept)"


def pause_action(act: Intent) -> Intent:
    """An owned consumer's update whose changes include ``pause_until`` (in place: the server has
    the pause API) becomes a ``pause`` or ``resume``; apply sends the other changes as an update."""
    if act.action != ActionKind.UPDATE:
        return act
    pause = next((c for c in act.changes if c.path == "pause_until" and c.cls == ChangeClass.IN_PLACE), None)
    return act if pause is None else replace(act, action=ActionKind.RESUME if pause.new is None else ActionKind.PAUSE)


def reset_action(
    act: Intent, cur: LiveConsumer, config: EffectiveConsumer, live: LiveState, opt: PlanOptions
) -> Intent | None:
    """A consumer recreate as a ``reset``, when the server can make it (see the module); None when it
    cannot. ``config``: the desired config (with jsops's metadata) and its start."""
    if not can_reset(live.server_version):
        return None
    if any(c.cls in (ChangeClass.RECREATE, ChangeClass.FORBIDDEN) and c.path not in START_FIELDS for c in act.changes):
        return None
    stream = live.streams.get(cur.stream)
    if opt.keep_position:
        seq = 0
        what = (
            f"the consumer starts again after its ack floor (stream sequence {cur.ack_floor + 1} now) through the reset API "
            "($JS.API.CONSUMER.RESET), as a recreate at its position would, without deleting it; unacknowledged messages are delivered again"
        )
    else:
        want = start_sequence(config, stream.first_seq if stream else 0, stream.last_seq if stream else 0)
        if want is None or not reset_allowed(cur.config, want):
            return None
        seq = want
        what = (
            f"the consumer starts again at stream sequence {seq} (the new start) through the reset API "
            "($JS.API.CONSUMER.RESET), without deleting it; pending acknowledgements are dropped"
        )
    act = replace(
        act,
        action=ActionKind.RESET,
        reset_seq=seq,
        # Refused by the server as an update: never in place, its own class (reset) in JSON and text.
        changes=[
            replace(c, cls=ChangeClass.RESET, consequence=_START_KEPT) if c.path in START_FIELDS else c
            for c in act.changes
        ],
        config=hold_start(config, cur.config),
        consequence=what + "; the manifest's start is recorded in io.jsops.resume (the server keeps the live one)",
    )
    return _forward_loss(act, cur, live, seq)


def _forward_loss(act: Intent, cur: LiveConsumer, live: LiveState, seq: int) -> Intent:
    """A reset past the ack floor on an interest stream removes the messages it skips that no other
    consumer wants: data loss (an upper bound), which needs the data-loss permission."""
    stream = live.streams.get(cur.stream)
    if stream is None or stream.config.retention != "interest" or seq <= cur.ack_floor + 1:
        return act
    lost = min(stream.messages, seq - 1 - cur.ack_floor)
    if lost <= 0:
        return act
    act = act.noted(
        f"data loss: on an interest stream the skipped messages no other consumer wants are removed (up to {lost})"
    )
    return replace(
        act,
        data_loss=lost,
        needs=(
            Need(
                Permission.DATA_LOSS,
                f"the reset skips up to {lost} message{'s' if lost != 1 else ''} of an interest stream; ",
            ),
        ),
    )
