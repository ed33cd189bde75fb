"""What nats-server lets an update change (server-rules.md §3); each field's facts are the catalog's
(:mod:`jsops.linter.semantics.catalog`).

Pure data and functions, shared by the linter and the reconciler. A change of one top-level config
field from ``old`` to ``new`` (both in the server's JSON shape, ``None`` meaning absent) is one of:

* ``in-place``: the server applies it as an update;
* ``one-way``: the server applies it, and it can never be undone without deleting the object
  (sealing, ``deny_delete``, enabling message TTLs, promoting a mirror, ...);
* ``recreate``: the server refuses it as an update; the object must be deleted and created again
  (messages or consumer position go with it);
* ``forbidden``: no update or recreate gives the change (a different name is a different object;
  ``pause_until`` is only changed through the pause API);
* ``reset``: a consumer's start (:data:`RESET_FIELDS`) that the server refuses as an update, made
  instead through the consumer reset API (2.14+) without deleting the consumer. :func:`classify`
  never returns it (the server's update answer is ``recreate``); the plan gives it when it resets.

Every classification carries a sentence saying what the change costs.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..jsonvalue import JsonValue
from . import catalog
from .catalog import ChangeClass

__all__ = [
    "ChangeClass",
    "Classification",
    "CLASS_ORDER",
    "RESET_FIELDS",
    "classify",
    "classify_stream_change",
    "classify_consumer_change",
    "worst",
]

CLASS_ORDER: dict[str, int] = {c.value: c.rank for c in ChangeClass if c is not ChangeClass.DATA_LOSS}
# A consumer's start: refused as an update by every release (checkNewConsumerConfig), changed
# without a recreate by $JS.API.CONSUMER.RESET (2.14+): the ``reset`` class.
RESET_FIELDS = tuple(f.name for f in catalog.CONSUMER.fields if f.update.reset_api)


@dataclass(frozen=True)
class Classification:
    cls: ChangeClass
    consequence: str


def worst(classes: list[str]) -> ChangeClass:
    """The most severe of ``classes`` (``in-place`` for an empty list; unknown names count as in-place)."""
    known = [ChangeClass(name) for name in classes if name in CLASS_ORDER]
    return max(known, key=lambda c: c.rank, default=ChangeClass.IN_PLACE)


_STREAM_LOST = "the stream is deleted and created again: its messages and consumers are lost"
_CONSUMER_LOST = "the consumer must be deleted and created again, losing its position and pending acks unless it is recreated at its ack floor"
_APPLIED = catalog.Update()


def _facts(rec: catalog.Record, field: str) -> catalog.Update:
    return rec[field].update if field in rec else _APPLIED


def _truthy(v: JsonValue) -> bool:
    return bool(v)


def classify_stream_change(field: str, old: JsonValue, new: JsonValue) -> Classification:
    """Classify a change of the stream config field ``field`` from ``old`` to ``new`` (the field's
    update facts are the catalog's; retention, mirror, limits and subjects depend on the values)."""
    u = _facts(catalog.STREAM, field)
    if u.change in (ChangeClass.FORBIDDEN, ChangeClass.RECREATE):
        return Classification(u.change, u.sentence)
    if field == "retention":
        if (old or "limits") != (new or "limits") and "workqueue" in (old or "limits", new or "limits"):
            return Classification(
                ChangeClass.RECREATE, f"retention can not change to or from workqueue in place; {_STREAM_LOST}"
            )
        return Classification(ChangeClass.IN_PLACE, u.sentence)
    if u.change is ChangeClass.ONE_WAY:
        return _switched(field, u, old, new)
    if field == "mirror":
        if old is not None and new is None:
            return Classification(
                ChangeClass.ONE_WAY,
                "the mirror is promoted to a normal stream and stops following its origin; it can not become a mirror again",
            )
        return Classification(ChangeClass.RECREATE, f"a mirror can not be added or changed in place; {_STREAM_LOST}")
    if u.tighter is not None and _tighter(old, new):
        return Classification(ChangeClass.IN_PLACE, u.tighter)
    if field == "subjects" and _subjects(old) - _subjects(new):
        return Classification(
            ChangeClass.IN_PLACE, "publishers to removed subjects get no stream acknowledgement; stored messages stay"
        )
    return Classification(ChangeClass.IN_PLACE, u.sentence)


def _switched(field: str, u: catalog.Update, old: JsonValue, new: JsonValue) -> Classification:
    """A one-way switch (sealed, deny_delete, allow_msg_ttl, ...): on is one-way, off is a recreate."""
    if _truthy(new) and not _truthy(old):
        return Classification(ChangeClass.ONE_WAY, u.sentence)
    if _truthy(old) and not _truthy(new):
        return Classification(ChangeClass.RECREATE, f"{field} can not be switched off once on; {_STREAM_LOST}")
    return Classification(ChangeClass.IN_PLACE, "no effect")


def _subjects(v: JsonValue) -> set[str]:
    return {s for s in v if isinstance(s, str)} if isinstance(v, list) else set()


def _tighter(old: JsonValue, new: JsonValue) -> bool:
    """Whether limit ``new`` is stricter than ``old`` (0, -1 and absent mean unlimited)."""

    def value(v: JsonValue) -> float:
        return float("inf") if not isinstance(v, int) or v <= 0 else float(v)

    return value(new) < value(old)


def classify_consumer_change(field: str, old: JsonValue, new: JsonValue) -> Classification:
    """Classify a change of the consumer config field ``field`` from ``old`` to ``new``."""
    u = _facts(catalog.CONSUMER, field)
    if u.change in (ChangeClass.FORBIDDEN, ChangeClass.RECREATE):
        return Classification(u.change, u.sentence)
    if field == "deliver_subject" and bool(old) != bool(new):
        return Classification(
            ChangeClass.RECREATE, f"a consumer can not switch between pull and push in place; {_CONSUMER_LOST}"
        )
    return Classification(ChangeClass.IN_PLACE, u.sentence)


def classify(kind: str, field: str, old: JsonValue, new: JsonValue) -> Classification:
    """Classify a change for ``kind`` ``"Stream"`` or ``"Consumer"``."""
    if kind == "Stream":
        return classify_stream_change(field, old, new)
    if kind == "Consumer":
        return classify_consumer_change(field, old, new)
    raise ValueError(f"unknown kind {kind!r}")
