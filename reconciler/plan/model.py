"""Plans as data: the :class:`Action` s a plan holds, the :class:`Plan` of one target, the
:class:`PlanSet` of a run, their JSON (contracts §5) and the seal of a saved plan; the
:class:`PlanOptions` a plan is built with."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from jsops.linter import from_api_json

from ..configs import NO_EXTRA, Config, Extra, config_json
from ..diff import Change, JsonValue
from ..errors import PermanentError
from ..live import CONTEXT, ESTATE, REPO, SOURCE, owned
from ..permissions import Grants, Need, Refusal
from ..render_refusal import reason_of
from ..vocabulary import ActionKind, ChangeClass
from .migration_spec import MigrationSpec
from .scope import in_scope

__all__ = ["ACTIONS", "PLAN_VERSION", "Action", "Plan", "PlanError", "PlanOptions", "PlanSet", "seal", "seal_intact"]

PLAN_VERSION = 1
ACTIONS = tuple(ActionKind)


class PlanError(PermanentError):
    """A saved plan that cannot be read."""


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
    # Without an estate (jsops plan/apply): the repository identity (scope.repo_identity) objects are
    # stamped with; --prune considers only owned objects that record it. None: not checked.
    repo: str | None = None
    # ``--migrate``: recreate-class stream changes and renames run as migrations that keep every
    # message (jsops.reconciler.plan.migration); ``server_version``: the target's release (which migrations it can do).
    migrate: bool = False
    server_version: str | None = None

    def foreign(self, config: Config) -> str | None:
        """The other estate an owned object is recorded for (None: this one, or no estate rules)."""
        if not self.estates or not owned(config):
            return None
        mark = config.metadata.get(ESTATE)
        return str(mark) if mark and mark != self.estate else None

    def prunable(self, config: Config) -> bool:
        """Whether ``--prune`` may delete this live object (when the manifests no longer declare it)."""
        if not owned(config):
            return False
        meta = config.metadata
        if self.estates and meta.get(ESTATE) != self.estate:
            return False
        if self.estates and self.estate is None and self.repo is not None and meta.get(REPO) != self.repo:
            return False  # not shown to come from this repository
        if self.prune_contexts is not None and meta.get(CONTEXT, "default") not in self.prune_contexts:
            return False
        if self.prune_paths is not None:
            src = meta.get(SOURCE)
            return isinstance(src, str) and in_scope(src, self.prune_paths)
        return True

    def grants(self) -> Grants:
        """The permissions the flags grant (:mod:`jsops.reconciler.permissions`): planning never
        reads them; :func:`jsops.reconciler.plan.authorize.authorize` judges a plan by them."""
        return Grants.flags(prune=self.prune, allow_recreate=self.allow_recreate, allow_data_loss=self.allow_data_loss, migrate=self.migrate, adopt=self.adopt)

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
    config: Config | None = None  # what apply sends (creates, updates, recreates, adopts)
    reason: str | None = None  # why a blocked action of a saved plan is blocked, as its JSON says (see refusal)
    wanted: ActionKind | None = None  # the action a blocked one would be
    # A consumer create that resumes an interrupted recreate at this stream sequence (the
    # intent recorded on its stream; apply clears the record after the create).
    resume_seq: int | None = None
    # A consumer reset (ActionKind.RESET): the stream sequence it starts again at, 0 for "after its
    # ack floor" (the server's own, read when the request is made).
    reset_seq: int | None = None
    # Stored messages this action removes (upper bound): a stream delete or recreate of a stream
    # holding messages, or tightened limits (jsops.reconciler.dataloss). None: none.
    data_loss: int | None = None
    # Set by authorize: the plan counted a loss and the data-loss permission is granted. Otherwise
    # the request functions re-check the live state right before a destructive request and refuse
    # it when it would now lose data (a safety check, not a permission decision; not serialised).
    accept_loss: bool = field(default=False, compare=False)
    # The JetStream err_code the server would answer: set on an action blocked because the plan
    # predicted the server's refusal against the live estate (jsops.reconciler.plan.predict).
    err_code: int | None = None
    # A migration's steps: from, to, via, consumers (their configs as records).
    migration: MigrationSpec | None = None
    # Why it is blocked, typed (a plan made here; rendered by jsops.reconciler.render_refusal).
    refusal: Refusal | None = field(default=None, compare=False)
    # What planning found the action needs (jsops.reconciler.plan.authorize judges it; not serialised).
    needs: tuple[Need, ...] = field(default=(), compare=False)
    # The alternatives planning leaves to authorize (not serialised):
    # - ``adopting``: the object is not jsops's (the fact to say); without the adopt grant the plan
    #   holds ``unadopted`` for it instead (None: nothing);
    # - ``lossless``: a stream recreate's migration, taken instead where migrate is granted;
    # - ``recreated_with``: a consumer created again with its recreated stream; ``kept`` is its action
    #   (None: none) when the stream is not recreated, and it is dropped when the stream migrates;
    # - ``deleted_with``: a consumer delete that is part of its stream's delete.
    adopting: str | None = field(default=None, compare=False)
    unadopted: Action | None = field(default=None, compare=False, repr=False)
    lossless: Action | None = field(default=None, compare=False, repr=False)
    recreated_with: str | None = field(default=None, compare=False)
    kept: Action | None = field(default=None, compare=False, repr=False)
    deleted_with: str | None = field(default=None, compare=False)
    # The fields of the live config the catalog does not know (a newer release's): sent back with an
    # update so that it loses none of them; written in the plan's JSON with the config.
    extra: Extra = field(default=NO_EXTRA, compare=False)

    def __post_init__(self) -> None:
        self.action = ActionKind(self.action)
        if self.wanted is not None:
            self.wanted = ActionKind(self.wanted)

    def block(self, refusal: Refusal) -> None:
        """Turn this action into a ``blocked`` one that says why."""
        if self.action != ActionKind.BLOCKED:
            self.wanted = ActionKind(self.action)
            self.action = ActionKind.BLOCKED
        self.refusal, self.reason = refusal, None

    @property
    def label(self) -> str:
        return f"{self.kind} {self.stream}/{self.name}" if self.kind == "Consumer" else f"{self.kind} {self.name}"

    def request(self) -> dict[str, JsonValue]:
        """The config as apply sends it, in the server's JSON (the extra fields with it)."""
        if self.config is None:
            raise ValueError(f"{self.label}: a {self.action} action has no config")
        return config_json(self.config, self.extra)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "action": self.action,
            "object": {"kind": self.kind, "name": self.name, "stream": self.stream},
            "changes": [c.to_json() for c in self.changes],
            "consequence": self.consequence,
        }
        reason = reason_of(self)
        if reason is not None:
            out["reason"] = reason
        if self.wanted is not None:
            out["wanted"] = self.wanted
        if self.config is not None:
            out["config"] = self.request()
        if self.resume_seq is not None:
            out["resume_seq"] = self.resume_seq
        if self.reset_seq is not None:
            out["reset_seq"] = self.reset_seq
        if self.data_loss is not None:
            out["data_loss"] = self.data_loss
        if self.err_code is not None:
            out["err_code"] = self.err_code
        if self.migration is not None:
            out["migration"] = self.migration.to_json()
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
        if ActionKind(act).server_api and kind != "Consumer":
            raise PlanError(f"{act} action for {name!r}: only consumers are paused, resumed or reset")
        raw = data.get("config")
        if ActionKind(act).writes and not isinstance(raw, dict):
            raise PlanError(f"{act} action for {name!r} has no config")
        if raw is not None and not isinstance(raw, dict):
            raise PlanError(f"action for {name!r} has a bad 'config'")
        config, extra = from_api_json(kind, raw) if raw is not None else (None, NO_EXTRA)
        changes = []
        for c in data.get("changes") or []:
            if not isinstance(c, dict) or str(c.get("class")) not in tuple(ChangeClass):
                raise PlanError("a change is not an object with a known 'class'")
            changes.append(Change.of(kind, str(c.get("path")), c.get("from"), c.get("to"), ChangeClass(str(c.get("class"))), str(c.get("consequence") or "")))
        resume = data.get("resume_seq")
        if resume is not None and (not isinstance(resume, int) or isinstance(resume, bool) or resume < 1):
            raise PlanError(f"action for {name!r} has a bad resume_seq")
        reset = data.get("reset_seq")
        if reset is not None and (not isinstance(reset, int) or isinstance(reset, bool) or reset < 0):
            raise PlanError(f"action for {name!r} has a bad reset_seq")
        if (act == ActionKind.RESET) != (reset is not None):
            raise PlanError(f"action for {name!r}: a reset (and only a reset) has a reset_seq")
        loss = data.get("data_loss")
        if loss is not None and (not isinstance(loss, int) or isinstance(loss, bool) or loss < 0):
            raise PlanError(f"action for {name!r} has a bad data_loss")
        wanted = data.get("wanted")
        if wanted is not None and wanted not in ACTIONS:
            raise PlanError(f"action for {name!r} has a bad 'wanted'")
        code = data.get("err_code")
        if code is not None and (not isinstance(code, int) or isinstance(code, bool)):
            raise PlanError(f"action for {name!r} has a bad err_code")
        raw_migration = data.get("migration")
        try:
            migration = MigrationSpec.from_json(raw_migration) if raw_migration is not None else None
        except ValueError as exc:
            raise PlanError(f"action for {name!r} has a bad 'migration': {exc}") from None
        return cls(
            ActionKind(act),
            kind,
            name,
            stream,
            changes,
            data.get("consequence"),
            config,
            data.get("reason"),
            wanted,
            resume,
            reset,
            loss,
            err_code=code,
            migration=migration,
            extra=extra,
        )


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
        out = {a: 0 for a in _SUMMARY}
        lost = 0
        for a in self.actions:
            out[a.action] = out.get(a.action, 0) + 1  # migrate, pause, resume, reset: only when there are some
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
        out = {a: 0 for a in _SUMMARY}
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


# the order of the counts in a summary (JSON key order); the server-API kinds (pause, resume,
# reset) follow only when the plan has some
_SUMMARY = ("create", "update", "recreate", "delete", "blocked", "adopt")
