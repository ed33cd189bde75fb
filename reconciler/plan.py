"""Plans as data: what apply would do to a target, each action with its classified changes.

:func:`build_plan` is pure: it takes the desired objects (effective configs from the manifests)
and a :class:`~reconciler.live.LiveState`, and returns a :class:`Plan`. Renderers live in
``reconciler.render_text`` and ``reconciler.render_json``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from linter import Estate, Resource, effective_consumer, effective_stream
from linter.updates import worst

from .diff import Change, diff_configs
from .live import MANAGED_BY, OWNER, SOURCE, LiveState, owned

__all__ = [
    "Desired",
    "Action",
    "Plan",
    "PlanOptions",
    "PlanError",
    "desired_from_estate",
    "build_plan",
    "stamp",
    "stream_order",
    "ACTIONS",
]

PLAN_VERSION = 1
ACTIONS = ("create", "update", "recreate", "delete", "adopt", "blocked")


class PlanError(Exception):
    """A saved plan that cannot be read."""


@dataclass(frozen=True)
class Desired:
    kind: str  # "Stream" | "Consumer"
    name: str
    stream: str | None
    config: dict[str, Any]  # effective config, server JSON shape, without jsops bookkeeping
    file: str = ""

    @property
    def key(self) -> tuple[str, str | None, str]:
        return (self.kind, self.stream, self.name)


@dataclass
class PlanOptions:
    prune: bool = False
    adopt: frozenset[str] = frozenset()
    allow_recreate: bool = False
    allow_data_loss: bool = False
    keep_position: bool = True

    def adopts(self, kind: str, name: str, stream: str | None) -> bool:
        if kind == "Stream":
            return name in self.adopt
        return f"{stream}/{name}" in self.adopt or stream in self.adopt or name in self.adopt


@dataclass
class Action:
    action: str
    kind: str
    name: str
    stream: str | None = None
    changes: list[Change] = field(default_factory=list)
    consequence: str | None = None
    config: dict[str, Any] | None = None  # what apply sends (creates, updates, recreates, adopts)
    reason: str | None = None  # why an action is blocked
    wanted: str | None = None  # the action a blocked one would be

    @property
    def label(self) -> str:
        return f"{self.kind} {self.stream}/{self.name}" if self.kind == "Consumer" else f"{self.kind} {self.name}"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "action": self.action,
            "object": {"kind": self.kind, "name": self.name, "stream": self.stream},
            "changes": [c.to_json() for c in self.changes],
            "consequence": self.consequence,
        }
        if self.reason is not None:
            out["reason"] = self.reason
        if self.wanted is not None:
            out["wanted"] = self.wanted
        if self.config is not None:
            out["config"] = self.config
        return out

    @classmethod
    def from_json(cls, data: Any) -> "Action":
        if not isinstance(data, dict) or not isinstance(data.get("object"), dict):
            raise PlanError("an action is not an object with an 'object'")
        obj = data["object"]
        act, kind, name = data.get("action"), obj.get("kind"), obj.get("name")
        if act not in ACTIONS or kind not in ("Stream", "Consumer") or not isinstance(name, str) or not name:
            raise PlanError(f"bad action {json.dumps(data)[:120]}")
        stream = obj.get("stream")
        if kind == "Consumer" and not isinstance(stream, str):
            raise PlanError(f"consumer action {name!r} has no stream")
        config = data.get("config")
        if act in ("create", "update", "recreate", "adopt") and not isinstance(config, dict):
            raise PlanError(f"{act} action for {name!r} has no config")
        changes = []
        for c in data.get("changes") or []:
            if not isinstance(c, dict):
                raise PlanError("a change is not an object")
            changes.append(Change(str(c.get("path")), c.get("from"), c.get("to"), str(c.get("class")), str(c.get("consequence") or "")))
        return cls(act, kind, name, stream, changes, data.get("consequence"), config, data.get("reason"), data.get("wanted"))


@dataclass
class Plan:
    target: str
    fingerprint: str
    actions: list[Action] = field(default_factory=list)
    version: int = PLAN_VERSION

    @property
    def changed(self) -> bool:
        return bool(self.actions)

    def summary(self) -> dict[str, int]:
        out = {a: 0 for a in ("create", "update", "recreate", "delete", "blocked", "adopt")}
        for a in self.actions:
            out[a.action] += 1
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "target": self.target,
            "fingerprint": self.fingerprint,
            "actions": [a.to_json() for a in self.actions],
            "summary": self.summary(),
        }

    @classmethod
    def from_json(cls, data: Any) -> "Plan":
        if not isinstance(data, dict):
            raise PlanError("a plan is a JSON object")
        if data.get("version") != PLAN_VERSION:
            raise PlanError(f"unsupported plan version {data.get('version')!r}")
        if not isinstance(data.get("fingerprint"), str) or not isinstance(data.get("actions"), list):
            raise PlanError("a plan needs 'fingerprint' and 'actions'")
        return cls(str(data.get("target", "")), data["fingerprint"], [Action.from_json(a) for a in data["actions"]])


# -------------------------------------------------------------------------------------------------
# desired state


def desired_from_estate(estate: Estate, context: str = "default") -> list[Desired]:
    """Effective configs of the estate's objects routed to ``context`` (objects without a context
    are ``default`` and go to every target)."""
    res = [r for r in estate.resources if r.context in (context, "default")]
    streams = {r.name: r for r in res if r.kind == "Stream"}
    origins = {n: r.config for n, r in streams.items()}
    out: list[Desired] = []
    eff: dict[str, dict[str, Any]] = {}
    for r in res:
        if r.kind == "Stream":
            cfg = effective_stream(r.config, name=r.name, origins=origins)  # type: ignore[arg-type]
            eff[r.name] = cfg
            out.append(Desired("Stream", r.name, None, cfg, r.file))
    for r in res:
        if r.kind == "Consumer":
            out.append(Desired("Consumer", r.name, r.stream, _consumer(r, eff.get(r.stream or "")), r.file))
    return out


def _consumer(r: Resource, stream: dict[str, Any] | None) -> dict[str, Any]:
    cfg = r.config
    durable = getattr(cfg, "durable_name", None)
    cname = getattr(cfg, "name", None)
    if not durable and not cname:
        durable = r.name
    return effective_consumer(cfg, stream, durable_name=durable, name=cname)  # type: ignore[arg-type]


def stamp(config: dict[str, Any], source: str) -> dict[str, Any]:
    """``config`` with jsops ownership metadata."""
    out = dict(config)
    meta = dict(out.get("metadata") or {})
    meta[MANAGED_BY] = OWNER
    if source:
        meta[SOURCE] = source
    out["metadata"] = meta
    return out


def _deps(config: dict[str, Any]) -> set[str]:
    names = set()
    for src in [config.get("mirror"), *(config.get("sources") or [])]:
        if isinstance(src, dict) and src.get("name") and not src.get("external"):
            names.add(str(src["name"]))
    return names


def stream_order(configs: dict[str, dict[str, Any]]) -> list[str]:
    """Stream names with origins before the mirrors and sources that read them (cycles broken by name)."""
    deps = {n: _deps(c) & set(configs) - {n} for n, c in configs.items()}
    done: list[str] = []
    placed: set[str] = set()
    remaining = sorted(configs)
    while remaining:
        ready = [n for n in remaining if deps[n] <= placed] or remaining[:1]
        for n in ready:
            done.append(n)
            placed.add(n)
        remaining = [n for n in remaining if n not in placed]
    return done


# -------------------------------------------------------------------------------------------------
# planning


def _one_way_note(changes: list[Change]) -> str | None:
    notes = [f"{c.path}: {c.consequence}" for c in changes if c.cls == "one-way"]
    return "cannot be undone: " + "; ".join(notes) if notes else None


def build_plan(desired: list[Desired], live: LiveState, options: PlanOptions | None = None, *, target: str = "") -> Plan:
    """The actions that make ``live`` match ``desired``, in the order apply runs them."""
    opt = options or PlanOptions()
    plan = Plan(target, live.fingerprint())
    streams = {d.name: d for d in desired if d.kind == "Stream"}
    consumers = [d for d in desired if d.kind == "Consumer"]
    recreated: set[str] = set()
    created: set[str] = set()

    for name in stream_order({n: d.config for n, d in streams.items()}):
        d = streams[name]
        cur = live.streams.get(name)
        config = stamp(d.config, d.file)
        if name in live.unknown:
            act = Action("update", "Stream", name, None, [], None, config)
            _block(act, "the stream did not answer (no leader, or a move in progress); its state is unknown, plan again later")
            plan.actions.append(act)
            recreated.discard(name)
            continue
        if cur is None:
            plan.actions.append(Action("create", "Stream", name, None, [], None, config))
            created.add(name)
            continue
        changes = diff_configs("Stream", cur.config, d.config)
        act = _owned_action("Stream", name, None, cur.config, changes, opt, config)
        if act is None:
            continue
        if act.action == "recreate":
            holds = cur.messages
            act.consequence = (
                f"the stream is deleted and created again: {holds} stored message{'s' if holds != 1 else ''} "
                f"{'are' if holds != 1 else 'is'} lost"
                + (f", and its {cur.consumer_count} consumer{'s are' if cur.consumer_count != 1 else ' is'} deleted (those in the manifests are created again)" if cur.consumer_count else "")
            )
            if not opt.allow_recreate:
                _block(act, "needs --allow-recreate")
            elif holds > 0 and not opt.allow_data_loss:
                _block(act, f"the stream holds {holds} message{'s' if holds != 1 else ''}; needs --allow-data-loss")
            else:
                recreated.add(name)
        elif act.action in ("update", "adopt"):
            paths = {c.path for c in act.changes}
            if {"placement", "num_replicas"} <= paths:
                note = "applied in two steps: replicas first, then the move"
                act.consequence = f"{act.consequence}; {note}" if act.consequence else note
        plan.actions.append(act)

    for d in consumers:
        key = (d.stream or "", d.name)
        config = stamp(d.config, d.file)
        cur = live.consumers.get(key)
        if d.stream in live.unknown:
            continue
        if d.stream in recreated:
            plan.actions.append(Action("create", "Consumer", d.name, d.stream, [], "created again with its recreated stream", config))
            continue
        if cur is None:
            plan.actions.append(Action("create", "Consumer", d.name, d.stream, [], None, config))
            continue
        changes = diff_configs("Consumer", cur.config, d.config)
        act = _owned_action("Consumer", d.name, d.stream, cur.config, changes, opt, config)
        if act is None:
            continue
        if act.action == "recreate":
            if opt.keep_position and cur.ack_floor > 0:
                act.consequence = (
                    f"the consumer is deleted and created again at its position (from stream sequence {cur.ack_floor + 1}, "
                    "after its ack floor); unacknowledged messages are delivered again"
                )
            else:
                act.consequence = "consumer position and pending acks are lost"
            if not opt.allow_recreate:
                _block(act, "needs --allow-recreate")
        plan.actions.append(act)

    if opt.prune:
        wanted_streams = set(streams)
        wanted_consumers = {(d.stream, d.name) for d in consumers}
        deleting: set[str] = set()
        stream_deletes: list[Action] = []
        live_order = stream_order({n: s.config for n, s in live.streams.items()})
        for name in reversed(live_order):
            s = live.streams[name]
            if name in wanted_streams or not owned(s.config):
                continue
            holds = s.messages
            act = Action("delete", "Stream", name, None, [], f"the stream and its {holds} stored message{'s' if holds != 1 else ''} are deleted"
                         + (f", with its {s.consumer_count} consumer{'s' if s.consumer_count != 1 else ''}" if s.consumer_count else ""))
            if holds > 0 and not opt.allow_data_loss:
                _block(act, f"the stream holds {holds} message{'s' if holds != 1 else ''}; needs --allow-data-loss")
            else:
                deleting.add(name)
            stream_deletes.append(act)
        for key in sorted(live.consumers):
            c = live.consumers[key]
            if key in wanted_consumers or key[0] in deleting or not owned(c.config):
                continue
            plan.actions.append(Action("delete", "Consumer", key[1], key[0], [], "the consumer and its position are deleted"))
        plan.actions.extend(stream_deletes)
    return plan


def _block(act: Action, reason: str) -> None:
    act.wanted, act.action, act.reason = act.action, "blocked", reason


def _owned_action(kind: str, name: str, stream: str | None, live_cfg: dict[str, Any], changes: list[Change],
                  opt: PlanOptions, config: dict[str, Any]) -> Action | None:
    is_owned = owned(live_cfg)
    adopting = not is_owned and opt.adopts(kind, name, stream)
    label = f"{stream}/{name}" if kind == "Consumer" else name
    if not is_owned and not adopting:
        if not changes:
            return None
        act = Action("update", kind, name, stream, changes, None, config)
        cls = worst([c.cls for c in changes])
        if cls == "recreate":
            act.action = "recreate"
        _block(act, f"exists and is not managed by jsops; pass --adopt {label} to take it over")
        return act
    if not changes:
        return Action("adopt", kind, name, stream, [], "jsops takes over the object (ownership metadata is added)", config) if adopting else None
    cls = worst([c.cls for c in changes])
    if cls == "forbidden":
        act = Action("update", kind, name, stream, changes, "; ".join(c.consequence for c in changes if c.cls == "forbidden"), config)
        _block(act, "the server cannot make this change: " + ", ".join(c.path for c in changes if c.cls == "forbidden"))
        return act
    if cls == "recreate":
        return Action("recreate", kind, name, stream, changes, None, config)
    return Action("adopt" if adopting else "update", kind, name, stream, changes, _one_way_note(changes), config)
