"""Plans as data: the :class:`Intent` s a plan holds (each with its :class:`Choice` s and, in a plan, its verdict: :class:`PlanItem`) and the :class:`PlanOptions` a plan is built with
(a target's plan and its JSON: :mod:`jsops.reconciler.plan.planset`, :mod:`jsops.reconciler.plan.codec`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import NamedTuple

from jsops.linter import Kind, ObjectRef

from ..configs import NO_EXTRA, Config, Extra, config_json
from ..diff import Change, JsonValue
from ..errors import PermanentError
from ..live import CONTEXT, ESTATE, REPO, SOURCE, owned
from ..permissions import Grants, Need, Refusal
from ..verdict import RUN, Blocked, Run, Verdict
from ..vocabulary import ActionKind
from .migration_spec import MigrationSpec
from .scope import in_scope

__all__ = ["ACTIONS", "Choice", "Intent", "PlanError", "PlanItem", "PlanOptions"]

ACTIONS = tuple(ActionKind)


class PlanError(PermanentError):
    """A saved plan that cannot be read."""


@dataclass(frozen=True)
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
        return Grants.flags(
            prune=self.prune,
            allow_recreate=self.allow_recreate,
            allow_data_loss=self.allow_data_loss,
            migrate=self.migrate,
            adopt=self.adopt,
        )

    def adopts(self, kind: str, name: str, stream: str | None) -> bool:
        if kind == Kind.STREAM:
            return name in self.adopt
        return f"{stream}/{name}" in self.adopt or stream in self.adopt or name in self.adopt


@dataclass(frozen=True)
class Intent:
    """What the plan would do to one object (frozen: passes return verdicts about it, never edit it)."""

    action: ActionKind  # never ``blocked`` (a blocked intent's verdict says so), but in a saved plan without ``wanted``
    kind: Kind
    name: str
    stream: str | None = None
    changes: Sequence[Change] = ()  # held as a tuple
    consequence: str | None = None
    config: Config | None = None  # what apply sends (creates, updates, recreates, adopts)
    # A consumer create that resumes an interrupted recreate at this stream sequence (the
    # intent recorded on its stream; apply clears the record after the create).
    resume_seq: int | None = None
    # A consumer reset (ActionKind.RESET): the stream sequence it starts again at, 0 for "after its
    # ack floor" (the server's own, read when the request is made).
    reset_seq: int | None = None
    # Stored messages this intent removes (upper bound): a stream delete or recreate of a stream
    # holding messages, or tightened limits (jsops.reconciler.dataloss). None: none.
    data_loss: int | None = None
    # A migration's steps: from, to, via, consumers (their configs as records).
    migration: MigrationSpec | None = None
    # What planning found the intent needs (jsops.reconciler.plan.authorize judges it; not serialised).
    needs: tuple[Need, ...] = field(default=(), compare=False)
    # The object is not jsops's (the fact to say): the intent takes it over (not serialised).
    adopting: str | None = field(default=None, compare=False)
    # The fields of the live config the catalog does not know (a newer release's): sent back with an
    # update so that it loses none of them; written in the plan's JSON with the config.
    extra: Extra = field(default=NO_EXTRA, compare=False)
    # A consumer delete that a rename's create replaces (jsops.io/renamed-from): the new name, which takes
    # over the position; apply deletes only once that create, when the same apply makes it, succeeded.
    replaced_by: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "action", ActionKind(self.action))
        object.__setattr__(self, "kind", Kind(self.kind))
        object.__setattr__(self, "changes", tuple(self.changes))

    def noted(self, note: str) -> Intent:
        """This intent with ``note`` added to its consequence."""
        return replace(self, consequence=f"{self.consequence}; {note}" if self.consequence else note)

    @property
    def ref(self) -> ObjectRef:
        return ObjectRef(self.kind, self.name, self.stream)

    @property
    def label(self) -> str:
        return f"{self.kind} {self.stream}/{self.name}" if self.kind == Kind.CONSUMER else f"{self.kind} {self.name}"

    def request(self) -> dict[str, JsonValue]:
        """The config as apply sends it, in the server's JSON (the extra fields with it)."""
        if self.config is None:
            raise ValueError(f"{self.label}: a {self.action} action has no config")
        return config_json(self.config, self.extra)


@dataclass(frozen=True)
class Choice:
    """An intent as planning makes it, with what no grant lifts and the alternatives a grant decides
    (:func:`jsops.reconciler.plan.authorize.authorize` is the one place that picks):

    - ``refused``: planning's own block (forbidden, a protection, an unknown state, an unsafe
      migration), beside the intent, never written into it;
    - ``unadopted``: without the adopt grant (``intent.adopting`` set), what the plan holds instead
      (None: nothing);
    - ``lossless``: a stream recreate's migration, taken instead where migrate is granted;
    - ``recreated_with``: a consumer created again with its recreated stream; ``kept`` is its choice
      (None: none) when the stream is not recreated, and it is dropped when the stream migrates;
    - ``deleted_with``: a consumer delete that is part of its stream's delete.
    """

    intent: Intent
    refused: Blocked | None = None
    unadopted: Intent | None = None
    lossless: Choice | None = None
    recreated_with: str | None = None
    kept: Choice | None = None
    deleted_with: str | None = None

    def map(self, fn: Callable[[Intent], Intent]) -> Choice:
        """This choice with ``fn`` applied to its intent (the alternatives left as they are)."""
        return replace(self, intent=fn(self.intent))

    def refuse(self, refusal: Refusal, err_code: int | None = None) -> Choice:
        """This choice refused by planning (for a reason no grant lifts)."""
        return replace(self, refused=Blocked(refusal, err_code))


class PlanItem(NamedTuple):
    """One item of a plan, in apply order: the intent and the verdict on it. Apply, the renderers,
    the controller and saved plans read it; what they read is derived here, never stored twice."""

    intent: Intent
    verdict: Verdict = RUN

    @property
    def blocked(self) -> bool:
        return isinstance(self.verdict, Blocked)

    @property
    def action(self) -> ActionKind:
        """What the plan shows: ``blocked``, or the intent's action."""
        return ActionKind.BLOCKED if self.blocked else self.intent.action

    @property
    def wanted(self) -> ActionKind | None:
        """The action a blocked item would be (None: it is not blocked)."""
        return self.intent.action if self.blocked and self.intent.action != ActionKind.BLOCKED else None

    @property
    def refusal(self) -> Refusal | None:
        """Why it is blocked, typed (None: it is not, or a saved plan's text says why)."""
        v = self.verdict
        return v.refusal if isinstance(v, Blocked) and isinstance(v.refusal, Refusal) else None

    @property
    def err_code(self) -> int | None:
        return self.verdict.err_code if isinstance(self.verdict, Blocked) else None

    @property
    def accept_loss(self) -> bool:
        return isinstance(self.verdict, Run) and self.verdict.accept_loss

    def request(self) -> dict[str, JsonValue]:
        return self.intent.request()

    # the intent's facts, read through the item
    @property
    def kind(self) -> Kind:
        return self.intent.kind

    @property
    def name(self) -> str:
        return self.intent.name

    @property
    def stream(self) -> str | None:
        return self.intent.stream

    @property
    def changes(self) -> Sequence[Change]:
        return self.intent.changes

    @property
    def consequence(self) -> str | None:
        return self.intent.consequence

    @property
    def config(self) -> Config | None:
        return self.intent.config

    @property
    def data_loss(self) -> int | None:
        return self.intent.data_loss

    @property
    def migration(self) -> MigrationSpec | None:
        return self.intent.migration

    @property
    def resume_seq(self) -> int | None:
        return self.intent.resume_seq

    @property
    def reset_seq(self) -> int | None:
        return self.intent.reset_seq

    @property
    def extra(self) -> Extra:
        return self.intent.extra

    @property
    def label(self) -> str:
        return self.intent.label
