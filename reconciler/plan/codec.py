"""A plan's JSON (contracts §5) both ways: :func:`encode_action` writes an action (a
:class:`~jsops.reconciler.plan.planset.PlanSet` puts them together), :func:`decode` reads a plan back through the project's own record validator (the ``*Json`` records below declare what a plan
file may hold); :func:`digest` is the seal over a saved plan's canonical JSON.

An item's JSON is its intent and its verdict: a blocked one's ``reason`` is its verdict rendered
(:func:`jsops.reconciler.render_refusal.reason_of`), or, read back from a file, the text the file says.
"""

# No `from __future__ import annotations`: the records read their annotations as objects.
import builtins
import hashlib
import json
from collections.abc import Callable
from typing import Any, Literal, NamedTuple

from jsops.linter import (
    EffectiveConsumer,
    EffectiveStream,
    Kind,
    Record,
    StrictBool,
    StrictInt,
    StrictStr,
    from_api_json,
    option,
)

from ..configs import NO_EXTRA
from ..diff import Change
from ..render_refusal import reason_of
from ..verdict import RUN, Blocked
from ..vocabulary import ActionKind, ChangeClass
from .migration_spec import MigrationSpec
from .model import Intent, PlanError, PlanItem

__all__ = ["PLAN_VERSION", "Decoded", "decode", "decode_action", "digest", "encode_action"]

PLAN_VERSION = 1

_Name = StrictStr  # a non-empty name (checked with min_length where declared)


class ObjectJson(Record):
    kind: Kind
    name: _Name = option(min_length=1)
    stream: StrictStr | None = None


class ChangeJson(Record):
    path: StrictStr
    old: Any = option(None, alias="from")
    new: Any = option(None, alias="to")
    cls: ChangeClass = option(alias="class")
    consequence: StrictStr | None = None


class MigrationJson(Record):
    source: StrictStr = option(alias="from")
    to: StrictStr
    via: StrictStr | None = None
    via_config: dict[str, Any] | None = None
    consumers: dict[str, dict[str, Any]] | None = None
    messages: StrictInt = 0
    bytes: StrictInt = 0
    strategy: StrictStr | None = None
    reset: tuple[StrictStr, ...] | None = None
    rollback: StrictBool = False


class ActionJson(Record):
    action: ActionKind
    object: ObjectJson
    changes: tuple[ChangeJson, ...] | None = None
    consequence: StrictStr | None = None
    reason: StrictStr | None = None
    wanted: ActionKind | None = None
    config: dict[str, builtins.object] | None = None  # the server's JSON of the config, read by from_api_json below
    resume_seq: StrictInt | None = option(None, ge=1)
    reset_seq: StrictInt | None = option(None, ge=0)
    data_loss: StrictInt | None = option(None, ge=0)
    err_code: StrictInt | None = None
    migration: MigrationJson | None = None
    context: StrictStr | None = None
    replaced_by: StrictStr | None = None


class TargetJson(Record):
    context: _Name = option(min_length=1)
    contexts: tuple[StrictStr, ...] | None = None
    target: StrictStr = ""
    fingerprint: StrictStr
    summary: dict[str, StrictInt] | None = None


class PlanJson(Record):
    version: Literal[1]
    target: StrictStr = ""
    fingerprint: StrictStr
    actions: tuple[ActionJson, ...]
    summary: dict[str, StrictInt] | None = None
    targets: tuple[TargetJson, ...] | None = option(None, min_length=1)  # None: a plan written before targets existed
    binding: dict[str, Any] | None = None


# What one action's fields must agree on, beyond each field's type: (holds, what is wrong).
_RULES: tuple[tuple[Callable[[ActionJson], bool], str], ...] = (
    (lambda a: a.object.kind != Kind.CONSUMER or a.object.stream is not None, "a consumer action has no stream"),
    (
        lambda a: not a.action.server_api or a.object.kind == Kind.CONSUMER,
        "only consumers are paused, resumed or reset",
    ),
    (lambda a: not a.action.writes or a.config is not None, "a {action} action has no config"),
    (
        lambda a: (a.action == ActionKind.RESET) == (a.reset_seq is not None),
        "a reset (and only a reset) has a reset_seq",
    ),
)


def _invalid(exc: ValueError) -> PlanError:
    errors = getattr(exc, "errors", None)
    first = errors()[0] if callable(errors) else None
    if first is None:
        return PlanError(f"not a plan: {exc}")
    where = ".".join(str(x) for x in first["loc"])
    return PlanError(f"not a plan: {where + ': ' if where else ''}{first['msg']}")


def _action(a: ActionJson) -> PlanItem:
    kind, name = a.object.kind, a.object.name
    for holds, wrong in _RULES:
        if not holds(a):
            raise PlanError(f"action for {name!r}: " + wrong.format(action=a.action))
    config, extra = from_api_json(kind, a.config) if a.config is not None else (None, NO_EXTRA)
    migration = _migration(a.migration) if a.migration is not None else None
    changes = [Change.of(kind, c.path, c.old, c.new, c.cls, c.consequence or "") for c in a.changes or ()]
    blocked = a.action == ActionKind.BLOCKED
    intent = Intent(
        (a.wanted or a.action) if blocked else a.action, kind, name, a.object.stream, changes, a.consequence, config,
        a.resume_seq, a.reset_seq, a.data_loss, migration, extra=extra, replaced_by=a.replaced_by,
    )  # fmt: skip
    return PlanItem(intent, Blocked(a.reason or "", a.err_code) if blocked else RUN)


def _migration(m: MigrationJson) -> MigrationSpec:
    via = from_api_json("Stream", m.via_config)[0] if m.via_config is not None else None
    consumers = {name: from_api_json("Consumer", c)[0] for name, c in (m.consumers or {}).items()}
    return MigrationSpec(
        m.source, m.to, m.via, via if isinstance(via, EffectiveStream) else None,
        {name: c for name, c in consumers.items() if isinstance(c, EffectiveConsumer)}, m.messages, m.bytes, m.reset or (), m.rollback,
    )  # fmt: skip


def decode_action(data: object) -> PlanItem:
    """One action of a plan's JSON read back (PlanError: not one)."""
    try:
        return _action(ActionJson.model_validate(data))
    except ValueError as exc:
        raise _invalid(exc) from None


class Decoded(NamedTuple):
    """A plan's JSON read: its targets (context, contexts, target, fingerprint), each action with its
    target's context, and the binding of a saved plan."""

    targets: tuple[TargetJson, ...]
    actions: tuple[tuple[str, PlanItem], ...]
    binding: dict[str, Any] | None


def decode(data: object) -> Decoded:
    """A plan's JSON read back (PlanError: not one this release reads)."""
    if isinstance(data, dict) and data.get("version") != PLAN_VERSION:
        raise PlanError(f"unsupported plan version {data.get('version')!r}")
    try:
        doc = PlanJson.model_validate(data)
    except ValueError as exc:
        raise _invalid(exc) from None
    heads = doc.targets or (TargetJson(context="default", target=doc.target, fingerprint=doc.fingerprint),)
    contexts = [h.context for h in heads]
    if len(set(contexts)) != len(contexts):
        raise PlanError("each target needs a distinct 'context'")
    actions = []
    for raw in doc.actions:
        ctx = raw.context or contexts[0]
        if ctx not in contexts:
            raise PlanError(f"an action names context {ctx!r}, which is not among the plan's targets")
        actions.append((ctx, _action(raw)))
    return Decoded(heads, tuple(actions), doc.binding)


def encode_action(a: PlanItem) -> dict[str, Any]:
    """One item's JSON; what is absent (None) is left out, past ``consequence``."""
    i = a.intent
    out: dict[str, Any] = {
        "action": a.action,
        "object": {"kind": i.kind, "name": i.name, "stream": i.stream},
        "changes": [c.to_json() for c in i.changes],
        "consequence": i.consequence,
    }
    optional = {
        "reason": reason_of(a),
        "wanted": a.wanted,
        "config": i.request() if i.config is not None else None,
        "resume_seq": i.resume_seq,
        "reset_seq": i.reset_seq,
        "data_loss": i.data_loss,
        "err_code": a.err_code,
        "migration": i.migration.to_json() if i.migration is not None else None,
        "replaced_by": i.replaced_by,
    }
    return out | {k: v for k, v in optional.items() if v is not None}


def digest(data: dict[str, Any]) -> str:
    """SHA-256 over a saved plan's canonical JSON, its binding included but the digest left out."""
    body = dict(data)
    body["binding"] = {k: v for k, v in (data.get("binding") or {}).items() if k != "digest"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()
