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
  server cannot make in place as a migration that keeps every message (:mod:`jsops.reconciler.migrate`).

:func:`policy_plan` is pure: it builds the plan twice (with every flag on and with every flag off)
and, object by object, keeps the permissive action only where the annotations allow it, as
:mod:`jsops.reconciler.permissions` judges them (the policy ``jsops plan``/``apply`` judge flags by).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from .live import PRUNE_MARK, LiveState
from .permissions import (
    ADOPT,
    ALLOW_DATA_LOSS,
    ALLOW_PRUNE,
    ALLOW_RECREATE,
    Grants,
    Permission,
    annotation_true,
    prune_refusal,
    required,
)
from .plan import Action, Desired, Plan, PlanOptions, build_plan
from .vocabulary import ActionKind

__all__ = ["Policy", "policy_from_estate", "policy_plan", "PERMISSIVE", "blocked_need"]

# The options apply runs with: every gate is decided here, object by object, before apply.
PERMISSIVE = PlanOptions(prune=True, allow_recreate=True, allow_data_loss=True, keep_position=True)

Key = tuple[str, str | None, str]  # (kind, stream, name)


@dataclass
class Policy:
    """The manifests' permissions, by object key."""

    annotations: dict[Key, dict[str, str]]

    def grants(self, key: Key) -> Grants:
        """What the manifest of ``key`` grants (:mod:`jsops.reconciler.permissions`)."""
        return Grants.annotations(self.annotations.get(key, {}))

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


def _key(a: Action) -> Key:
    return (a.kind, a.stream if a.kind == "Consumer" else None, a.name)


def _block(a: Action, reason: str, needs: list[Permission] | tuple[str, ...] = ()) -> Action:
    b = replace(a)
    b.block(reason, tuple(str(n) for n in needs))
    return b


def _plural(n: int) -> str:
    return f"{n} message{'s' if n != 1 else ''}"


def policy_plan(desired: list[Desired], live: LiveState, policy: Policy, *, target: str = "", base: PlanOptions | None = None) -> Plan:
    """The plan the controller may carry out with ``base`` (default :data:`PERMISSIVE`) options:
    every action that the annotations do not allow is turned into a ``blocked`` one that says which
    annotations it needs. ``base`` carries the prune scope; its safety flags are set here."""
    adopt = policy.adopt()
    base = base or PERMISSIVE
    perm = build_plan(desired, live, replace(base, prune=True, allow_recreate=True, allow_data_loss=True, adopt=adopt), target=target)
    strict = build_plan(desired, live, replace(base, prune=False, allow_recreate=False, allow_data_loss=False, adopt=adopt), target=target)
    p = {_key(a): a for a in perm.actions}
    s = {_key(a): a for a in strict.actions}
    migrating = _migrations(desired, live, policy, replace(base, adopt=adopt), target)
    p.update(migrating)
    recreated = {
        a.name
        for a in perm.actions
        if a.kind == "Stream"
        and a.action == ActionKind.RECREATE
        and not policy.grants(_key(a)).missing(required(ActionKind.RECREATE, "Stream", holds=_held(live, a.name)))
    }
    keys = [_key(a) for a in perm.actions] + [k for k in (_key(a) for a in strict.actions) if k not in p]
    actions: list[Action] = []
    for k in keys:
        pa, sa = p.get(k), s.get(k)
        chosen: Action | None
        if pa is not None and pa.action == ActionKind.DELETE:
            chosen = _prune(pa, live)
        elif k[0] == "Consumer" and k[1] in {m[2] for m in migrating}:
            chosen = None  # the migration creates it at its position
        elif k[0] == "Stream" and (pa is not None and pa.migration is not None):
            chosen = _migration_choice(pa, policy.grants(k))
        elif k[0] == "Stream":
            chosen = _stream_choice(k, pa, pa if k[2] in recreated else sa, live, policy.grants(k))
        elif k[1] in recreated:
            chosen = pa
        else:
            chosen = _consumer_choice(pa, sa, policy.grants(k))
        if chosen is not None:
            actions.append(chosen)
    return Plan(perm.target, perm.fingerprint, actions)


def _migrations(desired: list[Desired], live: LiveState, policy: Policy, base: PlanOptions, target: str) -> dict[Key, Action]:
    """The migrations of the streams whose manifests allow them (``jsops.io/allow-migrate``)."""
    allowed = {k[2] for k in policy.annotations if k[0] == "Stream" and policy.grants(k).allows(Permission.MIGRATE)}
    if not allowed:
        return {}
    mig = build_plan(desired, live, replace(base, prune=False, allow_recreate=True, allow_data_loss=False, migrate=True), target=target)
    return {_key(a): a for a in mig.actions if a.kind == "Stream" and a.name in allowed and a.migration is not None}


def _migration_choice(a: Action, grants: Grants) -> Action:
    """A migration (or one the flags block): say which annotation it needs, in the controller's words."""
    if a.action == ActionKind.BLOCKED and Permission.MIGRATE.value in a.needs:
        return _block(a, (a.reason or "").replace(Permission.MIGRATE.flag, grants.needs([Permission.MIGRATE]).removeprefix("needs ")), [Permission.MIGRATE])
    return a


def _held(live: LiveState, stream: str) -> int:
    return live.streams[stream].messages if stream in live.streams else 0


def _stream_choice(k: Key, pa: Action | None, chosen: Action | None, live: LiveState, grants: Grants) -> Action | None:
    """A stream's action: the permissive one where the annotations allow it, else the strict one
    saying which annotations it needs."""
    if (
        chosen is not None
        and chosen.action == ActionKind.BLOCKED
        and chosen.data_loss
        and chosen.wanted in (ActionKind.UPDATE, ActionKind.ADOPT)
        and pa is not None
        and pa.action == chosen.wanted
    ):
        # tightened limits that remove stored messages (jsops.reconciler.dataloss)
        missing = grants.missing([Permission.DATA_LOSS])
        chosen = pa if not missing else _block(chosen, f"tightened limits remove up to {_plural(chosen.data_loss)}; {grants.needs(missing)}", missing)
    if (
        chosen is not None
        and chosen.action == ActionKind.BLOCKED
        and chosen.wanted == ActionKind.RECREATE
        and pa is not None
        and pa.action == ActionKind.RECREATE
    ):
        held = _held(live, k[2])
        missing = grants.missing(required(ActionKind.RECREATE, "Stream", holds=held))
        if missing:  # every annotation it needs, at once
            prefix = f"the stream holds {_plural(held)}; " if Permission.DATA_LOSS in missing else ""
            chosen = _block(chosen, prefix + grants.needs(missing), missing)
    return chosen


def _consumer_choice(pa: Action | None, sa: Action | None, grants: Grants) -> Action | None:
    """A consumer's action (its stream is not recreated): a recreate where the annotations allow
    it (and the loss of an interest stream's messages), else the strict action."""
    if pa is None or pa.action != ActionKind.RECREATE:
        return sa
    missing = grants.missing(required(ActionKind.RECREATE, "Consumer", data_loss=pa.data_loss))
    if not missing:
        return pa
    loss = f"deleting the consumer removes up to {_plural(pa.data_loss or 0)} of an interest stream; " if Permission.DATA_LOSS in missing else ""
    if Permission.RECREATE not in missing:
        return _block(pa, loss + grants.needs(missing), missing)
    if sa is None or not (sa.action == ActionKind.BLOCKED and sa.wanted == ActionKind.RECREATE):
        return sa
    return _block(sa, loss + grants.needs(missing), missing)  # every annotation it needs, at once


def _prune(a: Action, live: LiveState) -> Action:
    if a.kind == "Stream":
        cfg = live.streams[a.name].config if a.name in live.streams else {}
        held = live.streams[a.name].messages if a.name in live.streams else 0
    else:
        c = live.consumers.get((a.stream or "", a.name))
        cfg, held = (c.config if c else {}), (a.data_loss or 0)
    why = prune_refusal(cfg, held)
    if why is None:
        return a
    meta = cfg.get("metadata") or {}
    return _block(a, why, [Permission.PRUNE] if meta.get(PRUNE_MARK) != "true" else [Permission.DATA_LOSS])


def blocked_need(a: Action) -> str:
    """What a blocked action needs, as a short metric label: the first permission a permission
    check found missing, else read from the reason (a saved or hand-made action)."""
    if a.needs:
        return a.needs[0]
    reason = a.reason or ""
    for name, label in ((ALLOW_DATA_LOSS, "allow-data-loss"), (ALLOW_RECREATE, "allow-recreate"), (ALLOW_PRUNE, "allow-prune")):
        if name in reason:
            return label
    if "--adopt" in reason:
        return "adopt"
    if "cannot make this change" in reason:
        return "forbidden"
    if "did not answer" in reason or "unknown" in reason:
        return "unavailable"
    if "--allow-data-loss" in reason:
        return "allow-data-loss"
    if "--allow-recreate" in reason:
        return "allow-recreate"
    return "other"
