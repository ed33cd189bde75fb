"""What changed on a target since a saved plan was made: the objects, and the fields of those the plan acts on.

``jsops plan --out`` records, per target (its context), a short digest of every live object's config (and, for a
stream, whether it holds messages): :func:`live_digests`. When ``apply --plan`` finds the live state changed
(the fingerprint differs), :func:`live_changes` names what: an object created or deleted since, one whose
config changed (with each field the plan's changes read from the live state: its value when the plan was made,
and now), a stream that holds messages now. Frozen data; :func:`jsops.reconciler.render_text.stale_lines` says
it. A plan saved by a jsops without the digests gets the objects the plan acts on only.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass

from jsops.linter import Kind

from .configs import config_json
from .diff import JsonValue, normalise
from .live import LiveState
from .plan import Plan, PlanItem
from .vocabulary import ActionKind

__all__ = ["LiveChange", "live_digests", "live_changes"]

_MESSAGES = "+messages"  # a stream's digest suffix: it holds messages


@dataclass(frozen=True)
class LiveChange:
    """One object of the target that differs from when the plan was made.

    ``what``: ``created`` (it exists now, not then), ``deleted``, ``changed`` (its config), ``messages`` (a
    stream that held none holds messages now); ``fields``: for a changed object the plan acts on, each field
    its changes read from the live state, as (path, value when planned, value now)."""

    kind: str
    name: str
    stream: str | None
    what: str
    fields: tuple[tuple[str, JsonValue, JsonValue], ...] = ()

    @property
    def label(self) -> str:
        return f"{self.kind} {self.stream}/{self.name}" if self.kind == Kind.CONSUMER else f"{self.kind} {self.name}"


def _key(kind: str, name: str, stream: str | None) -> str:
    return f"{kind} {stream}/{name}" if kind == Kind.CONSUMER else f"{kind} {name}"


def _digest(value: object) -> str:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def live_digests(live: LiveState) -> dict[str, str]:
    """Per live object (``Stream NAME``, ``Consumer STREAM/NAME``), a short digest of its config; a stream's
    ends in ``+messages`` when it holds messages (what the plan's fingerprint counts)."""
    out: dict[str, str] = {}
    for name, s in sorted(live.streams.items()):
        out[_key(Kind.STREAM, name, None)] = _digest(config_json(s.config, s.extra)) + (
            _MESSAGES if s.messages > 0 else ""
        )
    for (stream, name), c in sorted(live.consumers.items()):
        out[_key(Kind.CONSUMER, name, stream)] = _digest(config_json(c.config, c.extra))
    return out


def _split(key: str) -> tuple[str, str, str | None]:
    kind, _, rest = key.partition(" ")
    if kind == Kind.CONSUMER:
        stream, _, name = rest.partition("/")
        return kind, name, stream
    return kind, rest, None


def live_changes(recorded: Mapping[str, str] | None, live: LiveState, plan: Plan) -> tuple[LiveChange, ...]:
    """What differs between the live state the plan was made on (``recorded``: :func:`live_digests` then; None
    for a plan saved without them: only the objects the plan acts on are judged, by their fields) and ``live``."""
    now = live_digests(live)
    acted = {_key(a.kind, a.name, a.stream): a for a in plan.actions}
    keys = sorted(set(recorded) | set(now)) if recorded is not None else sorted(acted)
    out: list[LiveChange] = []
    for key in keys:
        kind, name, stream = _split(key)
        then, here = (recorded or {}).get(key), now.get(key)
        if recorded is not None and then == here:
            continue
        if recorded is not None and then is None:
            out.append(LiveChange(kind, name, stream, "created"))
            continue
        if here is None:
            if recorded is not None or _planned_live(acted.get(key)):
                out.append(LiveChange(kind, name, stream, "deleted"))
            continue
        fields = _fields(acted.get(key), kind, live, name, stream)
        same_config = then is not None and then.removesuffix(_MESSAGES) == here.removesuffix(_MESSAGES)
        if same_config and here.endswith(_MESSAGES):
            out.append(LiveChange(kind, name, stream, "messages"))
        elif fields or recorded is not None:
            out.append(LiveChange(kind, name, stream, "changed", fields))
    return tuple(out)


def _planned_live(item: PlanItem | None) -> bool:
    """Whether the plan's action read the object as existing (an update, recreate, delete: not a create)."""
    return item is not None and not ActionKind(item.intent.action).creates


def _fields(
    item: PlanItem | None, kind: str, live: LiveState, name: str, stream: str | None
) -> tuple[tuple[str, JsonValue, JsonValue], ...]:
    """The fields the plan's changes of the object read from the live state that are not what they were."""
    changes = item.intent.changes if item is not None else ()
    cur = live.streams.get(name) if kind == Kind.STREAM else live.consumers.get((stream or "", name))
    if cur is None:
        return ()
    shown = normalise(kind, cur.config)
    out: list[tuple[str, JsonValue, JsonValue]] = []
    for c in changes:
        if "." in c.path:  # jsops's bookkeeping metadata, compared apart
            continue
        value = shown.get(c.path)
        if json.dumps(value, sort_keys=True) != json.dumps(c.old, sort_keys=True) and not (value is None and not c.old):
            out.append((c.path, c.old, value))
    return tuple(out)
