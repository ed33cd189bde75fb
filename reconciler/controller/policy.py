"""What the controller may do on its own: destructive actions are allowed per object by annotations.

In-place changes (and creates) are always applied. Everything that loses data or state needs an
annotation on the object's manifest (``metadata.annotations``, value ``"true"``):

- ``jsops.io/allow-recreate``: delete and create again a stream or consumer whose change the server
  cannot make in place (a consumer keeps its position, as ``jsops apply`` does by default);
- ``jsops.io/allow-data-loss``: together with ``allow-recreate``, recreate a stream that holds
  messages; together with ``allow-prune``, prune a stream that holds messages;
- ``jsops.io/allow-prune``: once the object leaves the manifests, delete it. An object that left the
  manifests has no manifest to read, so the permission is recorded on the server whenever the object
  is applied, by the controller or by ``jsops apply`` (metadata ``io.jsops.allow-prune`` /
  ``io.jsops.allow-data-loss``, see :func:`jsops.reconciler.permissions.prune_marks`), and read back from the live
  object when deciding;
- ``jsops.io/adopt``: take over an existing object jsops does not own (on a stream: its consumers too);
- ``jsops.io/allow-migrate``: on a stream, run a rename (``jsops.io/renamed-from``) or a change the
  server cannot make in place as a migration that keeps every message (:mod:`jsops.reconciler.plan.migration`).

:class:`Policy` maps the manifests' annotations to :class:`~jsops.reconciler.permissions.Grants`
(objects that left the manifests: their marks); :func:`jsops.reconciler.plan.authorize.authorize`,
the one decision ``jsops plan``/``apply`` use too, judges the round's one plan by them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..permissions import ADOPT, Blocker, Grants, annotation_true
from ..plan import Desired, PlanItem

__all__ = ["Policy", "policy_from_estate", "blocked_need"]

Key = tuple[str, str | None, str]  # (kind, stream, name)


@dataclass
class Policy:
    """The manifests' permissions, by object key."""

    annotations: dict[Key, dict[str, str]]

    def grants(self) -> Grants:
        """What the manifests grant (:mod:`jsops.reconciler.permissions`), object by object."""
        return Grants.annotations(self.annotations)

    def adopt(self) -> frozenset[str]:
        names = set()
        for (kind, stream, name), ann in self.annotations.items():
            if annotation_true(ann, ADOPT):
                names.add(name if kind == "Stream" else f"{stream}/{name}")
        return frozenset(names)


def policy_from_estate(estate: Any, desired: list[Desired], contexts: Iterable[str]) -> tuple[list[Desired], Policy]:
    """The desired objects and the policy of the manifests routed to ``contexts``. The prune marks
    are already in the desired metadata (:func:`jsops.reconciler.plan.desired_from_estate` records them,
    for ``jsops apply`` as for the controller)."""
    annotations: dict[Key, dict[str, str]] = {}
    wanted = set(contexts)
    for r in estate.resources:
        if r.context in wanted:
            annotations[(r.kind, r.stream if r.kind == "Consumer" else None, r.name)] = dict(r.annotations or {})
    return list(desired), Policy(annotations)


_LABELS = {Blocker.SERVER_REFUSAL: "forbidden", Blocker.UNKNOWN: "unavailable", Blocker.PROTECTION: "protected"}


def blocked_need(a: PlanItem) -> str:
    """What a blocked action needs, as a short metric label: the first grant its refusal names,
    else the kind of refusal (``forbidden``: the server cannot make it, ``unavailable``: its state
    is unknown, ``protected``: a protection forbids it); ``other`` for the rest (a dependency, or
    an action without a typed refusal)."""
    r = a.refusal
    if r is None:
        return "other"
    if r.missing:
        return r.missing[0].value
    return _LABELS.get(r.blocker, "other")
