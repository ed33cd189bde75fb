"""The vocabulary of permission: what may be granted, how a refusal is typed, and the grants.

``jsops plan``/``apply`` grant permissions with flags (``--prune``, ``--allow-recreate``,
``--allow-data-loss``, ``--migrate``, ``--adopt NAME``), the controller with annotations on an
object's manifest (``jsops.io/allow-recreate: "true"``, ...); an object that left the manifests is
judged by the marks its last apply recorded on the server (:func:`prune_marks`). Both are mapped to
one :class:`Grants`. Planning says what an action needs (:class:`Need`: a fact, no grant named);
:func:`jsops.reconciler.plan.authorize.authorize`, the one decision point, judges it against the
grants and blocks what is not granted with a typed :class:`Refusal` (:class:`Blocker`); the
renderer (:mod:`jsops.reconciler.render_refusal`) names the grants in the caller's
:class:`Vocabulary`.

NACK's protections (``preventUpdate``, ``preventDelete``) forbid what no permission allows:
:func:`protection`.

Pure: nothing here imports the plan, the client or nats.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum

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
    "Blocker",
    "Grants",
    "Key",
    "Need",
    "Permission",
    "Refusal",
    "Vocabulary",
    "annotation_true",
    "delete_prevented",
    "marked",
    "protection",
    "prune_marks",
]

ALLOW_PRUNE = "jsops.io/allow-prune"
ALLOW_DATA_LOSS = "jsops.io/allow-data-loss"
ALLOW_RECREATE = "jsops.io/allow-recreate"
ADOPT = "jsops.io/adopt"
# Recreate-class stream changes and renames (jsops.io/renamed-from) run as migrations that keep
# every message (jsops.reconciler.plan.migration) instead of delete-and-create.
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


Key = tuple[str, str | None, str]  # (kind, stream of a consumer, name)


class Blocker(StrEnum):
    """Why an action is blocked: the typed reason of a :class:`Refusal`."""

    PERMISSION = "permission"  # a grant would allow it (Refusal.missing names which)
    SERVER_REFUSAL = "server-refusal"  # the server cannot make it, or would refuse it (an err_code)
    PROTECTION = "protection"  # forbidden whatever is granted: NACK's protections, jsops's safety rules
    UNKNOWN = "unknown"  # the object's live state is unknown (it did not answer)
    DEPENDENCY = "dependency"  # kept because another action it belongs with is blocked


class Vocabulary(StrEnum):
    """How the caller names a grant: the renderer names a missing one so."""

    FLAGS = "flags"  # jsops plan/apply: --allow-recreate, ...
    ANNOTATIONS = "annotations"  # the controller: jsops.io/allow-recreate: "true" on the object's manifest
    MARKS = "marks"  # the controller, an object that left the manifests: what its last apply recorded


@dataclass(frozen=True)
class Need:
    """A permission an action needs, as planning finds it (a fact: no grant is consulted)."""

    permission: Permission
    said: str = ""  # the fact a refusal says when this permission is missing ("left the manifests; ")
    always: bool = False  # said whenever the action is refused, this permission granted or not
    tier: int = 0  # a later tier is judged only once every need of the earlier ones is granted


@dataclass(frozen=True)
class Refusal:
    """Why an action is blocked: its kind, the facts (no grant named), and for a permission the
    grants that would allow it, to be named in ``via`` (:mod:`jsops.reconciler.render_refusal`)."""

    blocker: Blocker
    said: str
    missing: tuple[Permission, ...] = ()
    via: Vocabulary = Vocabulary.FLAGS
    lossless: bool = False  # a migration would make the change without loss (its grant is named too)


@dataclass(frozen=True)
class Grants:
    """What one run (flags) or the manifests (annotations, per object) grant; objects that left
    the manifests are judged by their marks when ``via`` is annotations."""

    via: Vocabulary = Vocabulary.FLAGS
    run: frozenset[Permission] = frozenset()  # granted to every object
    objects: Mapping[Key, frozenset[Permission]] = field(default_factory=dict)  # granted per object
    adopt: frozenset[str] = frozenset()  # objects to take over: a stream (and its consumers), STREAM/CONSUMER, CONSUMER

    @classmethod
    def flags(
        cls,
        *,
        prune: bool = False,
        allow_recreate: bool = False,
        allow_data_loss: bool = False,
        migrate: bool = False,
        adopt: Iterable[str] = (),
    ) -> Grants:
        given = {
            Permission.PRUNE: prune,
            Permission.RECREATE: allow_recreate,
            Permission.DATA_LOSS: allow_data_loss,
            Permission.MIGRATE: migrate,
        }
        return cls(Vocabulary.FLAGS, frozenset(p for p, on in given.items() if on), adopt=frozenset(adopt))

    @classmethod
    def annotations(cls, by_object: Mapping[Key, Mapping[str, str]]) -> Grants:
        """The grants of each object's manifest annotations (``jsops.io/adopt`` on a stream adopts
        its consumers too)."""
        objects = {
            k: frozenset(p for p in Permission if annotation_true(ann, p.annotation)) for k, ann in by_object.items()
        }
        adopt = frozenset(
            name if kind == "Stream" else f"{stream}/{name}"
            for (kind, stream, name), perms in objects.items()
            if Permission.ADOPT in perms
        )
        return cls(Vocabulary.ANNOTATIONS, objects=objects, adopt=adopt)

    def adopts(self, kind: str, name: str, stream: str | None) -> bool:
        if kind == "Stream":
            return name in self.adopt
        return f"{stream}/{name}" in self.adopt or stream in self.adopt or name in self.adopt

    def of(self, kind: str, name: str, stream: str | None) -> frozenset[Permission]:
        """What is granted for the object ``kind``/``stream``/``name`` (one in the manifests)."""
        given = self.run | self.objects.get((kind, stream if kind == "Consumer" else None, name), frozenset())
        return given | {Permission.ADOPT} if self.adopts(kind, name, stream) else given


def marked(meta: Mapping[str, str]) -> frozenset[Permission]:
    """The prune permissions the last apply recorded on a live object, from its metadata (:func:`prune_marks`)."""
    out = {Permission.PRUNE} if meta.get(PRUNE_MARK) == "true" else set()
    return frozenset(out | ({Permission.DATA_LOSS} if meta.get(DATA_LOSS_MARK) == "true" else set()))


PREVENTED_DELETE = (
    "preventDelete is set on it (io.jsops.prevent-delete): jsops never deletes it; delete it by hand if you mean to"
)


def delete_prevented(meta: Mapping[str, str]) -> bool:
    """Whether a config's metadata (live, or desired with its marks) records NACK's ``preventDelete``."""
    return str(meta.get(PREVENT_DELETE_MARK, "")).lower() == "true"


def protection(
    action: str, changed: bool, *, prevent_update: bool, live: Mapping[str, str], desired: Mapping[str, str]
) -> str | None:
    """What NACK's protections forbid, whatever is granted: any change under ``preventUpdate``,
    and a recreate (a delete) under ``preventDelete``, as recorded on the server or asked by the
    manifest (``live``, ``desired``: the metadata). None when they forbid nothing."""
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
