"""One permissions policy: may an action run, and if not, which permissions does it lack.

``jsops plan``/``apply`` grant permissions with flags (``--prune``, ``--allow-recreate``,
``--allow-data-loss``), the controller with annotations on an object's manifest
(``jsops.io/allow-recreate: "true"``, ...); an object that left the manifests is judged by the marks
its last apply recorded on the server (:func:`prune_marks`). The plan (when it builds actions),
apply (:func:`refusal`, checked again right before it runs them, also for saved plans) and the
controller (``jsops.reconciler._controller_policy``) all ask here: :func:`required` says what an action
needs, :meth:`Grants.missing` what of it is not granted, :meth:`Grants.needs` says so, naming every
missing permission at once.

NACK's protections (``preventUpdate``, ``preventDelete``) forbid what no permission allows:
:func:`protection`.

Pure: nothing here imports the plan, the client or nats.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Literal

from jsops.linter import PREVENT_DELETE

from .live import DATA_LOSS_MARK, PREVENT_DELETE_MARK, PRUNE_MARK
from .vocabulary import ActionKind

__all__ = [
    "ADOPT",
    "ALLOW_DATA_LOSS",
    "ALLOW_MIGRATE",
    "ALLOW_PRUNE",
    "ALLOW_RECREATE",
    "PREVENTED_DELETE",
    "RENAMED_FROM",
    "Grants",
    "Permission",
    "annotation_true",
    "delete_prevented",
    "protection",
    "prune_marks",
    "prune_refusal",
    "refusal",
    "required",
]

ALLOW_PRUNE = "jsops.io/allow-prune"
ALLOW_DATA_LOSS = "jsops.io/allow-data-loss"
ALLOW_RECREATE = "jsops.io/allow-recreate"
ADOPT = "jsops.io/adopt"
# Recreate-class stream changes and renames (jsops.io/renamed-from) run as migrations that keep
# every message (jsops.reconciler.migrate) instead of delete-and-create.
ALLOW_MIGRATE = "jsops.io/allow-migrate"
# On a stream's manifest: the stream was renamed from this one (as terraform's ``moved`` block);
# with the migrate permission, its messages and consumers are moved over without loss.
RENAMED_FROM = "jsops.io/renamed-from"


class Permission(StrEnum):
    """What a destructive action needs; the value is the controller's metric label."""

    PRUNE = "allow-prune"
    RECREATE = "allow-recreate"
    DATA_LOSS = "allow-data-loss"
    ADOPT = "adopt"
    MIGRATE = "allow-migrate"

    @property
    def flag(self) -> str:
        """How ``jsops plan``/``apply`` grant it."""
        return _FLAGS[self]

    @property
    def annotation(self) -> str:
        """How a manifest grants it to the controller."""
        return _ANNOTATIONS[self]


_FLAGS = {
    Permission.PRUNE: "--prune",
    Permission.RECREATE: "--allow-recreate",
    Permission.DATA_LOSS: "--allow-data-loss",
    Permission.ADOPT: "--adopt",
    Permission.MIGRATE: "--migrate",
}
_ANNOTATIONS = {
    Permission.PRUNE: ALLOW_PRUNE,
    Permission.RECREATE: ALLOW_RECREATE,
    Permission.DATA_LOSS: ALLOW_DATA_LOSS,
    Permission.ADOPT: ADOPT,
    Permission.MIGRATE: ALLOW_MIGRATE,
}


def annotation_true(annotations: Mapping[str, str] | None, name: str) -> bool:
    """Whether the manifest annotation ``name`` is set to true (``"true"``, ``"yes"`` or ``"1"``)."""
    if not annotations:
        return False  # most manifests have none
    return str(annotations.get(name, "")).strip().lower() in ("true", "yes", "1")


@dataclass(frozen=True)
class Grants:
    """The permissions granted for one run (flags) or one object (annotations)."""

    granted: frozenset[Permission]
    via: Literal["flags", "annotations"] = "flags"

    @classmethod
    def flags(cls, *, prune: bool = False, allow_recreate: bool = False, allow_data_loss: bool = False, migrate: bool = False) -> Grants:
        given = {Permission.PRUNE: prune, Permission.RECREATE: allow_recreate, Permission.DATA_LOSS: allow_data_loss, Permission.MIGRATE: migrate}
        return cls(frozenset(p for p, on in given.items() if on), "flags")

    @classmethod
    def annotations(cls, annotations: Mapping[str, str] | None) -> Grants:
        return cls(frozenset(p for p in Permission if annotation_true(annotations, p.annotation)), "annotations")

    def allows(self, permission: Permission) -> bool:
        return permission in self.granted

    def missing(self, needed: Iterable[Permission]) -> list[Permission]:
        """The permissions of ``needed`` (in its order) not granted."""
        return [p for p in needed if p not in self.granted]

    def needs(self, missing: Iterable[Permission]) -> str:
        """``needs --allow-recreate and --allow-data-loss``, or with annotations
        ``needs the annotation jsops.io/allow-recreate: "true" on its manifest``."""
        names = list(missing)
        if self.via == "flags":
            return "needs " + " and ".join(p.flag for p in names)
        quoted = " and ".join(f'{p.annotation}: "true"' for p in names)
        return f"needs the annotation{'s' if len(names) > 1 else ''} {quoted} on its manifest"


def required(action: str, kind: str, *, holds: int = 0, data_loss: int | None = None) -> list[Permission]:
    """What ``action`` on an object of ``kind`` needs: a recreate the recreate permission, a delete
    the prune permission, and either one the data-loss permission when a stream holds messages
    (``holds``); any action that removes messages otherwise (``data_loss``: tightened limits, the
    unacknowledged messages of an interest stream) the data-loss permission; a migration the
    migrate permission (it loses nothing)."""
    needed: list[Permission] = []
    if action == ActionKind.MIGRATE:
        return [Permission.MIGRATE]
    if action == ActionKind.RECREATE:
        needed.append(Permission.RECREATE)
    elif action == ActionKind.DELETE:
        needed.append(Permission.PRUNE)
    if (kind == "Stream" and action in (ActionKind.RECREATE, ActionKind.DELETE) and holds > 0) or data_loss:
        needed.append(Permission.DATA_LOSS)
    return needed


def refusal(action: str, kind: str, grants: Grants, *, holds: int = 0, data_loss: int | None = None) -> str | None:
    """Why apply may not run ``action`` with ``grants`` (None when it may); ``holds``: the messages
    its stream holds now, ``data_loss``: the loss the plan counted."""
    if action == ActionKind.MIGRATE:
        missing = grants.missing(required(action, kind))
        return grants.needs(missing) if missing else None
    if action not in (ActionKind.RECREATE, ActionKind.DELETE, ActionKind.UPDATE, ActionKind.ADOPT):
        if not (kind == "Consumer" and data_loss):
            return None
    stream_loss = kind == "Stream" and action in (ActionKind.RECREATE, ActionKind.DELETE)
    loss = holds if stream_loss else (data_loss or 0)
    missing = grants.missing(required(action, kind, holds=holds if stream_loss else 0, data_loss=None if stream_loss else data_loss))
    if not missing:
        return None
    needs = grants.needs(missing)
    if Permission.DATA_LOSS not in missing:
        return needs
    if stream_loss:
        return f"the stream holds {loss} messages; {needs}"
    if action in (ActionKind.UPDATE, ActionKind.ADOPT) and kind == "Consumer":
        return f"the update removes up to {loss} stored messages of an interest stream; {needs}"
    if action in (ActionKind.UPDATE, ActionKind.ADOPT):
        return f"tightened limits remove up to {loss} stored messages; {needs}"
    return f"deleting the consumer removes up to {loss} messages of an interest stream; {needs}"


PREVENTED_DELETE = "preventDelete is set on it (io.jsops.prevent-delete): jsops never deletes it; delete it by hand if you mean to"


def delete_prevented(config: Mapping[str, Any]) -> bool:
    """Whether a config (live, or desired with its marks) records NACK's ``preventDelete``."""
    return str((config.get("metadata") or {}).get(PREVENT_DELETE_MARK, "")).lower() == "true"


def protection(action: str, changed: bool, *, prevent_update: bool, live: Mapping[str, Any], desired: Mapping[str, Any]) -> str | None:
    """What NACK's protections forbid, whatever is granted: any change under ``preventUpdate``,
    and a recreate (a delete) under ``preventDelete``, as recorded on the server or asked by the
    manifest. None when they forbid nothing."""
    if prevent_update and action in (ActionKind.UPDATE, ActionKind.RECREATE, ActionKind.ADOPT) and changed:
        return "preventUpdate is set (jsops.io/prevent-update): the object is created from the manifest, never changed"
    if action == ActionKind.RECREATE and (delete_prevented(live) or delete_prevented(desired)):
        return "a recreate deletes the object, and preventDelete is set on it (jsops.io/prevent-delete)"
    return None


def prune_marks(annotations: Mapping[str, str] | None) -> dict[str, str]:
    """The metadata that records a manifest's prune permissions on the server: an object that
    left the manifests has no annotations left to read, so the controller reads these back.
    ``io.jsops.allow-prune`` for ``jsops.io/allow-prune``, and with it ``io.jsops.allow-data-loss``
    for ``jsops.io/allow-data-loss``; ``io.jsops.prevent-delete`` for ``preventDelete``."""
    marks: dict[str, str] = {}
    if annotation_true(annotations, PREVENT_DELETE):
        marks[PREVENT_DELETE_MARK] = "true"
    if annotation_true(annotations, ALLOW_PRUNE):
        marks[PRUNE_MARK] = "true"
        if annotation_true(annotations, ALLOW_DATA_LOSS):
            marks[DATA_LOSS_MARK] = "true"
    return marks


def prune_refusal(live: Mapping[str, Any], holds: int) -> str | None:
    """Why the controller may not prune an object that left the manifests, judged by the marks its
    last apply recorded (``live``: its live config; ``holds``: the messages the prune removes)."""
    meta = live.get("metadata") or {}
    if meta.get(PRUNE_MARK) != "true":
        return f'left the manifests; it is pruned only if its manifest had {ALLOW_PRUNE}: "true" when it was last applied'
    if holds > 0 and meta.get(DATA_LOSS_MARK) != "true":
        return f'left the manifests holding {holds} message{"s" if holds != 1 else ""}; pruning it needs {ALLOW_DATA_LOSS}: "true" as well'
    return None
