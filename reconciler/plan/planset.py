"""A target's :class:`Plan`, the :class:`PlanSet` of a run, their JSON (contracts §5; read and
written with :mod:`jsops.reconciler.plan.codec`) and the seal of a saved plan."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .codec import PLAN_VERSION, decode, digest, encode_action
from .model import Choice, PlanError, PlanItem

__all__ = ["Draft", "Plan", "PlanSet", "seal", "seal_intact"]


@dataclass(frozen=True)
class Draft:
    """What planning says would change on a target, before any judging: a :class:`Choice` per
    object, in apply order (:func:`jsops.reconciler.plan.decide.decide` makes it a :class:`Plan`)."""

    target: str
    fingerprint: str
    choices: tuple[Choice, ...] = ()


@dataclass(frozen=True)
class Plan:
    """A target's plan: its items (an intent and the verdict on it), in the order apply runs them."""

    target: str
    fingerprint: str
    actions: Sequence[PlanItem] = ()  # held as a tuple
    version: int = PLAN_VERSION
    context: str = "default"  # the name the target goes by (the manifests' metadata.context)
    contexts: tuple[str, ...] = ()  # every manifest context routed to this target

    def __post_init__(self) -> None:
        object.__setattr__(self, "actions", tuple(self.actions))

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
    def from_json(cls, data: object) -> Plan:
        """A one-target plan (a saved plan with several targets is a :class:`PlanSet`)."""
        plans = PlanSet.from_json(data).plans
        if len(plans) != 1:
            raise PlanError(f"the plan covers {len(plans)} targets; read it as a PlanSet")
        return plans[0]


@dataclass(frozen=True)
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
        out = {
            "version": PLAN_VERSION,
            "target": first.target,
            "fingerprint": first.fingerprint,
            "actions": [{**encode_action(a), "context": p.context} for p in self.plans for a in p.actions],
            "summary": self.summary(),
            "targets": [p.header() for p in self.plans],
        }
        if self.binding is not None:
            out["binding"] = self.binding
        return out

    @classmethod
    def from_json(cls, data: object) -> PlanSet:
        """The plans of a plan's JSON, read through :func:`jsops.reconciler.plan.codec.decode`."""
        doc = decode(data)
        items: dict[str, list[PlanItem]] = {h.context: [] for h in doc.targets}
        for ctx, item in doc.actions:
            items[ctx].append(item)
        plans = [
            Plan(
                h.target, h.fingerprint, items[h.context], context=h.context, contexts=tuple(h.contexts or (h.context,))
            )
            for h in doc.targets
        ]
        return cls(plans, doc.binding)


def seal(plans: PlanSet, binding: dict[str, Any]) -> dict[str, Any]:
    """The JSON of a saved plan: ``plans`` with ``binding`` (what it was made from: PATHs,
    environment, manifest digest) and a digest over everything, live fingerprints and targets
    included, so that ``apply --plan`` can tell an edited or misplaced plan."""
    data = PlanSet(plans.plans, {k: v for k, v in binding.items() if k != "digest"}).to_json()
    data["binding"]["digest"] = digest(data)
    return data


def seal_intact(data: dict[str, Any]) -> bool:
    """Whether a saved plan's JSON still matches the digest :func:`seal` gave it."""
    binding = data.get("binding")
    return isinstance(binding, dict) and binding.get("digest") == digest(data)


# the order of the counts in a summary (JSON key order); the server-API kinds (pause, resume,
# reset) follow only when the plan has some
_SUMMARY = ("create", "update", "recreate", "delete", "blocked", "adopt")
