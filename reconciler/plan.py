"""Plans as data: what apply would do to a target, each action with its classified changes.

:func:`build_plan` is pure: it takes the desired objects (effective configs from the manifests)
and a :class:`~reconciler.live.LiveState`, and returns a :class:`Plan`. Renderers live in
``reconciler.render_text`` and ``reconciler.render_json``.
"""

from __future__ import annotations

import hashlib
import json
import os
import posixpath
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from linter import Estate, Resource, effective_consumer, effective_stream
from linter import Target as LintTarget
from linter.loader import PREVENT_DELETE, PREVENT_UPDATE
from linter.updates import worst

from ._plan_dataloss import (
    config_digest,
    estate_mark,
    interest_action,
    keep_intents,
    limit_loss,
    resume_action,
    takeover_action,
)
from .diff import Change, diff_configs
from .live import (
    CONTEXT,
    DATA_LOSS_MARK,
    ESTATE,
    MANAGED_BY,
    OWNER,
    PREVENT_DELETE_MARK,
    PRUNE_MARK,
    RECREATE_PREFIX,
    RESUME,
    SOURCE,
    LiveState,
    owned,
    recreate_intents,
)

__all__ = [
    "Desired",
    "Action",
    "Plan",
    "PlanSet",
    "PlanOptions",
    "PlanError",
    "desired_from_estate",
    "prune_marks",
    "annotation_true",
    "ALLOW_PRUNE",
    "ALLOW_DATA_LOSS",
    "build_plan",
    "stamp",
    "source_path",
    "in_scope",
    "stream_order",
    "ACTIONS",
    "seal",
    "seal_intact",
    "config_digest",
]

PLAN_VERSION = 1
ALLOW_PRUNE = "jsops.io/allow-prune"
ALLOW_DATA_LOSS = "jsops.io/allow-data-loss"
ACTIONS = ("create", "update", "recreate", "delete", "adopt", "blocked")


class PlanError(Exception):
    """A saved plan that cannot be read."""


@dataclass(frozen=True)
class Desired:
    kind: str  # "Stream" | "Consumer"
    name: str
    stream: str | None
    config: dict[str, Any]  # effective config, server JSON shape, without jsops bookkeeping
    file: str = ""  # the manifest's path as recorded in metadata (see source_path)
    context: str = "default"  # the manifest's metadata.context
    prevent_update: bool = False  # NACK's preventUpdate (jsops.io/prevent-update): created, never changed

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
    # Prune scope. None: every owned object (the behaviour without scoping). Otherwise an owned
    # object is pruned only when its recorded manifest path lies under one of ``prune_paths``
    # (source_path form) and its recorded context is one of ``prune_contexts``.
    prune_paths: tuple[str, ...] | None = None
    prune_contexts: frozenset[str] | None = None
    # Given an owned object's recorded manifest path that differs from where the manifests now
    # declare it: True when the record is stale (the file is gone, or was loaded in this run and no
    # longer declares the object), so that apply records the new path.
    stale_source: Callable[[str], bool] | None = None
    # Estate rules (jsops plan/apply set them): objects are stamped with ``estate`` (when set),
    # --prune considers only owned objects whose recorded estate equals ``estate`` (None: objects
    # without one), and an object recorded for another estate needs --adopt. Off: objects keep
    # whatever estate they carry and no estate is checked (the controller, pure unit tests).
    estates: bool = False
    estate: str | None = None

    def foreign(self, config: dict[str, Any]) -> str | None:
        """The other estate an owned object is recorded for (None: this one, or no estate rules)."""
        if not self.estates or not owned(config):
            return None
        mark = (config.get("metadata") or {}).get(ESTATE)
        return str(mark) if mark and mark != self.estate else None

    def prunable(self, config: dict[str, Any]) -> bool:
        """Whether ``--prune`` may delete this live object (when the manifests no longer declare it)."""
        if not owned(config):
            return False
        meta = config.get("metadata") or {}
        if self.estates and meta.get(ESTATE) != self.estate:
            return False
        if self.prune_contexts is not None and meta.get(CONTEXT, "default") not in self.prune_contexts:
            return False
        if self.prune_paths is not None:
            src = meta.get(SOURCE)
            return isinstance(src, str) and in_scope(src, self.prune_paths)
        return True

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
    # A consumer create that resumes an interrupted recreate at this stream sequence (the
    # intent recorded on its stream; apply clears the record after the create).
    resume_seq: int | None = None
    # Stored messages this action removes (upper bound): a stream delete or recreate of a stream
    # holding messages, or tightened limits (reconciler.dataloss). None: none.
    data_loss: int | None = None
    # Set by apply's gate: the plan counted a loss and --allow-data-loss is given. Otherwise the
    # request functions re-check the live state right before a destructive request and refuse it
    # when it would now lose data (not serialised).
    accept_loss: bool = field(default=False, compare=False)

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
        if self.resume_seq is not None:
            out["resume_seq"] = self.resume_seq
        if self.data_loss is not None:
            out["data_loss"] = self.data_loss
        return out

    @classmethod
    def from_json(cls, data: Any) -> Action:
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
        resume = data.get("resume_seq")
        if resume is not None and (not isinstance(resume, int) or isinstance(resume, bool) or resume < 1):
            raise PlanError(f"action for {name!r} has a bad resume_seq")
        loss = data.get("data_loss")
        if loss is not None and (not isinstance(loss, int) or isinstance(loss, bool) or loss < 0):
            raise PlanError(f"action for {name!r} has a bad data_loss")
        return cls(act, kind, name, stream, changes, data.get("consequence"), config, data.get("reason"), data.get("wanted"),
                   resume, loss)


@dataclass
class Plan:
    target: str
    fingerprint: str
    actions: list[Action] = field(default_factory=list)
    version: int = PLAN_VERSION
    context: str = "default"  # the name the target goes by (the manifests' metadata.context)
    contexts: tuple[str, ...] = ()  # every manifest context routed to this target

    @property
    def changed(self) -> bool:
        return bool(self.actions)

    def summary(self) -> dict[str, int]:
        """Counts per action; ``data_loss`` (only when not 0): the stored messages the runnable
        actions remove (stream deletes and recreates, tightened limits), an upper bound."""
        out = {a: 0 for a in ("create", "update", "recreate", "delete", "blocked", "adopt")}
        lost = 0
        for a in self.actions:
            out[a.action] += 1
            if a.action != "blocked":
                lost += a.data_loss or 0
        if lost:
            out["data_loss"] = lost
        return out

    def header(self) -> dict[str, Any]:
        return {
            "context": self.context,
            "contexts": list(self.contexts or (self.context,)),
            "target": self.target,
            "fingerprint": self.fingerprint,
            "summary": self.summary(),
        }

    def to_json(self) -> dict[str, Any]:
        return PlanSet([self]).to_json()

    @classmethod
    def from_json(cls, data: Any) -> Plan:
        """A one-target plan (a saved plan with several targets is a :class:`PlanSet`)."""
        plans = PlanSet.from_json(data).plans
        if len(plans) != 1:
            raise PlanError(f"the plan covers {len(plans)} targets; read it as a PlanSet")
        return plans[0]


@dataclass
class PlanSet:
    """The plans of one run, one per target, in the order they are shown and applied.

    JSON (contracts §5, extended compatibly): ``target`` and ``fingerprint`` are the first
    target's; ``actions`` lists every target's actions, grouped per target in ``targets`` order,
    each carrying its target's ``context``; ``summary`` counts them all; ``targets`` lists each
    target's ``context``, ``contexts``, ``target``, ``fingerprint`` and ``summary``.
    """

    plans: list[Plan] = field(default_factory=list)
    # A saved plan's binding to what it was made from (see :func:`seal`): the PATHs, the template
    # environment, a digest of the manifests, and a digest over the whole saved plan. Written only
    # by ``jsops plan --out``; ``None`` for plans shown on stdout.
    binding: dict[str, Any] | None = None

    @property
    def changed(self) -> bool:
        return any(p.changed for p in self.plans)

    def summary(self) -> dict[str, int]:
        out = {a: 0 for a in ("create", "update", "recreate", "delete", "blocked", "adopt")}
        for p in self.plans:
            for k, v in p.summary().items():
                out[k] = out.get(k, 0) + v
        return out

    def to_json(self) -> dict[str, Any]:
        first = self.plans[0] if self.plans else Plan("", "")
        actions = []
        for p in self.plans:
            for a in p.actions:
                actions.append({**a.to_json(), "context": p.context})
        out = {
            "version": PLAN_VERSION,
            "target": first.target,
            "fingerprint": first.fingerprint,
            "actions": actions,
            "summary": self.summary(),
            "targets": [p.header() for p in self.plans],
        }
        if self.binding is not None:
            out["binding"] = self.binding
        return out

    @classmethod
    def from_json(cls, data: Any) -> PlanSet:
        if not isinstance(data, dict):
            raise PlanError("a plan is a JSON object")
        if data.get("version") != PLAN_VERSION:
            raise PlanError(f"unsupported plan version {data.get('version')!r}")
        if not isinstance(data.get("fingerprint"), str) or not isinstance(data.get("actions"), list):
            raise PlanError("a plan needs 'fingerprint' and 'actions'")
        heads = data.get("targets")
        if heads is None:  # a plan written before targets existed: one target
            heads = [{"context": "default", "target": data.get("target", ""), "fingerprint": data["fingerprint"]}]
        if not isinstance(heads, list) or not heads or not all(isinstance(h, dict) for h in heads):
            raise PlanError("'targets' must be a non-empty list of objects")
        plans: dict[str, Plan] = {}
        for h in heads:
            ctx, fp = h.get("context"), h.get("fingerprint")
            if not isinstance(ctx, str) or not ctx or not isinstance(fp, str) or ctx in plans:
                raise PlanError("each target needs a distinct 'context' and a 'fingerprint'")
            ctxs = h.get("contexts") or [ctx]
            if not isinstance(ctxs, list) or not all(isinstance(c, str) for c in ctxs):
                raise PlanError(f"target {ctx!r}: 'contexts' must be a list of names")
            plans[ctx] = Plan(str(h.get("target", "")), fp, context=ctx, contexts=tuple(ctxs))
        first = next(iter(plans))
        for raw in data["actions"]:
            ctx = raw.get("context", first) if isinstance(raw, dict) else first
            if ctx not in plans:
                raise PlanError(f"an action names context {ctx!r}, which is not among the plan's targets")
            plans[ctx].actions.append(Action.from_json(raw))
        binding = data.get("binding")
        if binding is not None and not isinstance(binding, dict):
            raise PlanError("'binding' must be an object")
        return cls(list(plans.values()), binding)


def _plan_digest(data: dict[str, Any]) -> str:
    """SHA-256 over a saved plan's canonical JSON, its binding included but the digest left out."""
    body = dict(data)
    body["binding"] = {k: v for k, v in (data.get("binding") or {}).items() if k != "digest"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def seal(plans: PlanSet, binding: dict[str, Any]) -> dict[str, Any]:
    """The JSON of a saved plan: ``plans`` with ``binding`` (what it was made from: PATHs,
    environment, manifest digest) and a digest over everything, live fingerprints and targets
    included, so that ``apply --plan`` can tell an edited or misplaced plan."""
    data = PlanSet(plans.plans, {k: v for k, v in binding.items() if k != "digest"}).to_json()
    data["binding"]["digest"] = _plan_digest(data)
    return data


def seal_intact(data: dict[str, Any]) -> bool:
    """Whether a saved plan's JSON still matches the digest :func:`seal` gave it."""
    binding = data.get("binding")
    return isinstance(binding, dict) and binding.get("digest") == _plan_digest(data)


# -------------------------------------------------------------------------------------------------
# desired state


def _root() -> str:
    """The repository root (the nearest directory from cwd upward holding ``.git``), else cwd."""
    here = os.path.abspath(os.getcwd())
    d = here
    while True:
        if os.path.exists(os.path.join(d, ".git")):
            return d
        parent = os.path.dirname(d)
        if parent == d:
            return here
        d = parent


def source_path(path: str, root: str | None = None) -> str:
    """How a manifest path (or a PATH argument) is recorded and compared: relative to the
    repository root with ``/`` separators when it lies under it, else absolute."""
    base = root or _root()
    full = os.path.normpath(os.path.join(os.getcwd(), path))
    rel = os.path.relpath(full, base)
    if rel == "." or not rel.startswith(".."):
        return rel.replace(os.sep, "/")
    return full.replace(os.sep, "/")


def in_scope(recorded: str, scopes: Iterable[str]) -> bool:
    """Whether the recorded path ``recorded`` lies under (or is) one of ``scopes`` (both in
    :func:`source_path` form)."""
    recorded = _norm(recorded)
    if recorded is None:
        return False
    for s in scopes:
        s = (_norm(s) or "").rstrip("/") or "/"
        if s == "." and not recorded.startswith("/"):
            return True
        if recorded == s or recorded.startswith(s if s.endswith("/") else s + "/"):
            return True
    return False


def _norm(path: str) -> str | None:
    """``path`` (``/`` separators) normalised; None for a relative path that climbs out of the
    repository (``manifests/../../x``): it is under no scope."""
    norm = posixpath.normpath(path) if path else path
    if not norm.startswith("/") and (norm == ".." or norm.startswith("../")):
        return None
    return norm


def desired_from_estate(
    estate: Estate,
    context: str = "default",
    *,
    contexts: Iterable[str] | None = None,
    target: LintTarget | None = None,
    root: str | None = None,
) -> list[Desired]:
    """Effective configs of the estate's objects routed to one target.

    A manifest annotated ``jsops.io/allow-prune: "true"`` gets the prune mark in its metadata
    (:func:`prune_marks`), so ``jsops plan``/``apply`` and the controller want the same server
    metadata and neither undoes the other's apply.

    With ``contexts``: exactly the objects whose ``metadata.context`` is one of them (objects
    without one are ``default``). Without it: those of ``context`` plus every ``default`` object.
    ``target`` gives the limits the server fills defaults from (see ``reconciler.limits``).
    Manifest paths are recorded in :func:`source_path` form (relative to ``root``, default the
    repository root)."""
    wanted = set(contexts) if contexts is not None else {context, "default"}
    res = [r for r in estate.resources if r.context in wanted]
    base = root or _root()
    paths = {f: source_path(f, base) for f in {r.file for r in res if r.file}}
    streams = {r.name: r for r in res if r.kind == "Stream"}
    origins = {n: r.config for n, r in streams.items()}
    out: list[Desired] = []
    eff: dict[str, dict[str, Any]] = {}
    for r in res:
        if r.kind == "Stream":
            cfg = effective_stream(r.config, name=r.name, origins=origins, target=target)  # type: ignore[arg-type]
            eff[r.name] = cfg
            out.append(Desired("Stream", r.name, None, _marked(cfg, r), paths.get(r.file, ""), r.context,
                               annotation_true(r.annotations, PREVENT_UPDATE)))
    for r in res:
        if r.kind == "Consumer":
            out.append(Desired("Consumer", r.name, r.stream, _marked(_consumer(r, eff.get(r.stream or ""), target), r),
                               paths.get(r.file, ""), r.context, annotation_true(r.annotations, PREVENT_UPDATE)))
    return out


def annotation_true(annotations: dict[str, str] | None, name: str) -> bool:
    """Whether the manifest annotation ``name`` is set to true (``"true"``, ``"yes"`` or ``"1"``)."""
    return str((annotations or {}).get(name, "")).strip().lower() in ("true", "yes", "1")


def prune_marks(annotations: dict[str, str] | None) -> dict[str, str]:
    """The metadata that records a manifest's prune permissions on the server: an object that
    left the manifests has no annotations left to read, so the controller reads these back.
    ``io.jsops.allow-prune`` for ``jsops.io/allow-prune``, and with it ``io.jsops.allow-data-loss``
    for ``jsops.io/allow-data-loss``."""
    marks: dict[str, str] = {}
    if annotation_true(annotations, PREVENT_DELETE):
        marks[PREVENT_DELETE_MARK] = "true"
    if annotation_true(annotations, ALLOW_PRUNE):
        marks[PRUNE_MARK] = "true"
        if annotation_true(annotations, ALLOW_DATA_LOSS):
            marks[DATA_LOSS_MARK] = "true"
    return marks


def _marked(config: dict[str, Any], r: Resource) -> dict[str, Any]:
    marks = prune_marks(r.annotations)
    if not marks:
        return config
    out = dict(config)
    out["metadata"] = {**(out.get("metadata") or {}), **marks}
    return out


def _consumer(r: Resource, stream: dict[str, Any] | None, target: LintTarget | None = None) -> dict[str, Any]:
    cfg = r.config
    durable = getattr(cfg, "durable_name", None)
    cname = getattr(cfg, "name", None)
    if not durable and not cname:
        durable = r.name
    return effective_consumer(cfg, stream, durable_name=durable, name=cname, target=target)  # type: ignore[arg-type]


def stamp(config: dict[str, Any], source: str, context: str | None = None, estate: str | None = None) -> dict[str, Any]:
    """``config`` with jsops ownership metadata (owner, manifest path, a non-default context and
    the estate when there is one)."""
    out = dict(config)
    meta = dict(out.get("metadata") or {})
    meta[MANAGED_BY] = OWNER
    if estate:
        meta[ESTATE] = estate
    if source:
        meta[SOURCE] = source
    if context and context != "default":
        meta[CONTEXT] = context
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
        config = estate_mark(stamp(d.config, d.file, d.context, opt.estate), live.streams.get(name), opt)
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
        changes = diff_configs("Stream", cur.config, d.config) + _bookkeeping(cur.config, d, opt)
        act = _owned_action("Stream", name, None, cur.config, changes, opt, keep_intents(config, cur.config))
        if act is None:
            continue
        if _protected(act, d, cur.config):
            plan.actions.append(act)
            continue
        if act.action == "recreate":
            holds = cur.messages
            act.consequence = (
                f"the stream is deleted and created again: {holds} stored message{'s' if holds != 1 else ''} "
                f"{'are' if holds != 1 else 'is'} lost"
                + (f", and its {cur.consumer_count} consumer{'s are' if cur.consumer_count != 1 else ' is'} deleted (those in the manifests are created again)" if cur.consumer_count else "")
            )
            needs = [f for f, ok in (("--allow-recreate", opt.allow_recreate), ("--allow-data-loss", holds == 0 or opt.allow_data_loss)) if not ok]
            if needs:  # every flag it needs, at once
                held = f"the stream holds {holds} message{'s' if holds != 1 else ''}; " if holds > 0 else ""
                _block(act, f"{held}needs {' and '.join(needs)}")
            else:
                recreated.add(name)
            act.data_loss = holds or None
        elif act.action in ("update", "adopt"):
            limit_loss(act, cur, d.config, live, opt)
        if act.action in ("update", "adopt"):
            paths = {c.path for c in act.changes}
            if {"placement", "num_replicas"} <= paths:
                note = "applied in two steps: replicas first, then the move"
                act.consequence = f"{act.consequence}; {note}" if act.consequence else note
        plan.actions.append(act)

    for d in consumers:
        key = (d.stream or "", d.name)
        cur = live.consumers.get(key)
        config = estate_mark(stamp(d.config, d.file, d.context, opt.estate), cur, opt)
        if d.stream in live.unknown:
            continue
        if d.stream in recreated:
            plan.actions.append(Action("create", "Consumer", d.name, d.stream, [], "created again with its recreated stream", config))
            continue
        if cur is None:
            intent = recreate_intents(live.streams[d.stream].config).get(d.name) if d.stream in live.streams else None
            if intent is not None and opt.keep_position:
                plan.actions.append(resume_action(d, config, intent))
            else:
                plan.actions.append(Action("create", "Consumer", d.name, d.stream, [], None, config))
            continue
        changes = diff_configs("Consumer", cur.config, d.config) + _bookkeeping(cur.config, d, opt)
        if cur.config.get("deliver_policy") == "by_start_sequence" and RESUME in (cur.config.get("metadata") or {}) \
                and isinstance(cur.config.get("opt_start_seq"), int):
            # recreated at its old position: an update keeps that start (the server cannot change it)
            from .apply import resume_config

            config = resume_config(config, cur.config["opt_start_seq"])
        leftover = recreate_intents(live.streams[d.stream].config).get(d.name) if d.stream in live.streams else None
        if leftover is not None and owned(cur.config):  # a recreate finished, but its record was not cleared
            changes.append(Change(f"stream.metadata.{RECREATE_PREFIX}{d.name}", leftover, None, "in-place",
                                  "jsops clears the record of a finished recreate from the stream"))
        act = _owned_action("Consumer", d.name, d.stream, cur.config, changes, opt, config)
        if act is None:
            continue
        if _protected(act, d, cur.config):
            plan.actions.append(act)
            continue
        if act.action == "recreate":
            if opt.keep_position and (cur.ack_floor > 0 or cur.config.get("deliver_policy") == "new"):
                act.consequence = (
                    f"the consumer is deleted and created again at its position (from stream sequence {cur.ack_floor + 1}, "
                    "after its ack floor); unacknowledged messages are delivered again"
                )
            else:
                act.consequence = "consumer position and pending acks are lost"
            if not opt.allow_recreate:
                _block(act, "needs --allow-recreate")
            else:
                interest_action(act, live, cur, opt)
        plan.actions.append(act)

    if opt.prune:
        wanted_streams = set(streams)
        wanted_consumers = {(d.stream, d.name) for d in consumers}
        deleting: set[str] = set()
        stream_deletes: list[Action] = []
        live_order = stream_order({n: s.config for n, s in live.streams.items()})
        for name in reversed(live_order):
            s = live.streams[name]
            if name in wanted_streams or not opt.prunable(s.config):
                continue
            holds = s.messages
            act = Action("delete", "Stream", name, None, [], f"the stream and its {holds} stored message{'s' if holds != 1 else ''} are deleted"
                         + (f", with its {s.consumer_count} consumer{'s' if s.consumer_count != 1 else ''}" if s.consumer_count else ""))
            act.data_loss = holds or None
            if _delete_prevented(s.config):
                _block(act, _PREVENTED_DELETE)
            elif holds > 0 and not opt.allow_data_loss:
                _block(act, f"the stream holds {holds} message{'s' if holds != 1 else ''}; needs --allow-data-loss")
            else:
                deleting.add(name)
            stream_deletes.append(act)
        for key in sorted(live.consumers):
            c = live.consumers[key]
            if key in wanted_consumers or key[0] in deleting or not opt.prunable(c.config):
                continue
            act = Action("delete", "Consumer", key[1], key[0], [], "the consumer and its position are deleted")
            if _delete_prevented(c.config):
                _block(act, _PREVENTED_DELETE)
            else:
                interest_action(act, live, c, opt)
            plan.actions.append(act)
        plan.actions.extend(stream_deletes)
    return plan


def _bookkeeping(live_cfg: dict[str, Any], d: Desired, opt: PlanOptions) -> list[Change]:
    """Changes recording the manifest's new path (when the recorded one is stale), its context and
    the estate on an owned object, so that a later scoped ``--prune`` of the old place does not
    delete it."""
    if not owned(live_cfg):
        return []
    meta = live_cfg.get("metadata") or {}
    out = []
    if opt.estates and opt.estate and meta.get(ESTATE) != opt.estate and not opt.foreign(live_cfg):
        out.append(Change(f"metadata.{ESTATE}", meta.get(ESTATE), opt.estate, "in-place",
                          "jsops records the estate that owns the object (it scopes --prune and takeovers)"))
    if opt.stale_source is None:
        return out
    recorded = meta.get(SOURCE)
    if d.file and recorded != d.file and not (isinstance(recorded, str) and not opt.stale_source(recorded)):
        out.append(Change(f"metadata.{SOURCE}", recorded, d.file, "in-place",
                          "jsops records where the manifest now is (it scopes --prune)"))
    ctx = meta.get(CONTEXT, "default")
    if ctx != d.context:
        out.append(Change(f"metadata.{CONTEXT}", None if ctx == "default" else ctx, None if d.context == "default" else d.context,
                          "in-place", "jsops records the manifest's context (it scopes --prune)"))
    return out


_PREVENTED_DELETE = ("preventDelete is set on it (io.jsops.prevent-delete): jsops never deletes it; "
                     "delete it by hand if you mean to")


def _delete_prevented(live_cfg: dict[str, Any]) -> bool:
    return str((live_cfg.get("metadata") or {}).get(PREVENT_DELETE_MARK, "")).lower() == "true"


def _protected(act: Action, d: Desired, live_cfg: dict[str, Any]) -> bool:
    """Block what NACK's protection fields forbid: any change under preventUpdate, and a recreate
    (a delete) under preventDelete, as recorded on the server or asked by the manifest."""
    if act.action == "blocked":
        return False
    if d.prevent_update and act.action in ("update", "recreate", "adopt") and act.changes:
        _block(act, "preventUpdate is set (jsops.io/prevent-update): the object is created from the manifest, never changed")
        return True
    if act.action == "recreate" and (_delete_prevented(live_cfg) or _delete_prevented(d.config)):
        _block(act, "a recreate deletes the object, and preventDelete is set on it (jsops.io/prevent-delete)")
        return True
    return False


def _block(act: Action, reason: str) -> None:
    act.wanted, act.action, act.reason = act.action, "blocked", reason


def _owned_action(kind: str, name: str, stream: str | None, live_cfg: dict[str, Any], changes: list[Change],
                  opt: PlanOptions, config: dict[str, Any]) -> Action | None:
    label = f"{stream}/{name}" if kind == "Consumer" else name
    other = opt.foreign(live_cfg)
    if other is not None:
        return takeover_action(kind, name, stream, label, other, changes, opt, config)
    is_owned = owned(live_cfg)
    adopting = not is_owned and opt.adopts(kind, name, stream)
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
