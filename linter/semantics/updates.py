"""What nats-server lets an update change, in one place (server-rules.md §3).

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
from typing import Any, Literal

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

ChangeClass = Literal["in-place", "one-way", "reset", "recreate", "forbidden"]
CLASS_ORDER: dict[str, int] = {"in-place": 0, "one-way": 1, "reset": 2, "recreate": 3, "forbidden": 4}
# A consumer's start: refused as an update by every release (checkNewConsumerConfig), changed
# without a recreate by $JS.API.CONSUMER.RESET (2.14+): the ``reset`` class.
RESET_FIELDS = ("deliver_policy", "opt_start_seq", "opt_start_time")


@dataclass(frozen=True)
class Classification:
    cls: ChangeClass
    consequence: str


_CLASSES: dict[str, ChangeClass] = {"in-place": "in-place", "one-way": "one-way", "reset": "reset", "recreate": "recreate", "forbidden": "forbidden"}


def worst(classes: list[str]) -> ChangeClass:
    """The most severe of ``classes`` (``in-place`` for an empty list; unknown names count as in-place)."""
    best: ChangeClass = "in-place"
    for name in classes:
        cls = _CLASSES.get(name)
        if cls is not None and CLASS_ORDER[cls] > CLASS_ORDER[best]:
            best = cls
    return best


_STREAM_LOST = "the stream is deleted and created again: its messages and consumers are lost"
_CONSUMER_LOST = "the consumer must be deleted and created again, losing its position and pending acks unless it is recreated at its ack floor"

# Stream fields nats-server refuses to change at all (configUpdateCheck): every change is a recreate.
_STREAM_RECREATE: dict[str, str] = {
    "storage": "storage type can not be changed in place",
    "allow_msg_counter": "the message counter setting can not be changed in place",
    "persist_mode": "persist mode can not be changed in place",
}
# Boolean stream fields that can be switched on but never off (one-way).
_STREAM_ONE_WAY: dict[str, str] = {
    "sealed": "a sealed stream accepts no more messages and can never be unsealed; the server also sets max_age 0, discard new, deny_delete and deny_purge",
    "deny_delete": "message deletes stay denied for the life of the stream",
    "deny_purge": "purges stay denied for the life of the stream",
    "allow_msg_ttl": "per-message TTLs can never be disabled again",
    "allow_msg_schedules": "message schedules can never be disabled again",
}
_STREAM_IN_PLACE_NOTES: dict[str, str] = {
    "num_replicas": "replicas are added or removed; the stream's leader may change",
    "placement": "the stream moves to other servers; its data is copied to the new peers",
    "retention": "retention switches between limits and interest; with interest, messages every consumer acked are removed",
    "sources": "sourcing starts or stops for the changed sources",
    "mirror_direct": "direct gets are served by the mirror or stop being served",
}

# Consumer fields refused by checkNewConsumerConfig: every change is a recreate.
_CONSUMER_RECREATE: dict[str, str] = {
    "deliver_policy": "deliver policy can not be updated",
    "opt_start_seq": "start sequence can not be updated",
    "opt_start_time": "start time can not be updated",
    "ack_policy": "ack policy can not be updated",
    "replay_policy": "replay policy can not be updated",
    "idle_heartbeat": "heartbeats can not be updated",
    "flow_control": "flow control can not be updated",
    "max_waiting": "max waiting can not be updated",
    "mem_storage": "storage type can not be updated",
    "direct": "direct can not be updated",
    "sourcing": "sourcing can not be updated",
}
_CONSUMER_IN_PLACE_NOTES: dict[str, str] = {
    "filter_subject": "messages outside the new filter are no longer delivered",
    "filter_subjects": "messages outside the new filters are no longer delivered",
    "ack_wait": "in-flight messages are redelivered after the new ack wait",
    "backoff": "redeliveries follow the new backoff",
    "max_deliver": "messages are redelivered up to the new limit",
    "deliver_subject": "the push consumer delivers to a new subject (refused while the old one has subscribers)",
    "num_replicas": "consumer replicas are added or removed",
}


def _truthy(v: Any) -> bool:
    return bool(v)


def classify_stream_change(field: str, old: Any, new: Any) -> Classification:
    """Classify a change of the stream config field ``field`` from ``old`` to ``new``."""
    if field == "name":
        return Classification("forbidden", "a stream is identified by its name; a new name is a different stream")
    if field in _STREAM_RECREATE:
        return Classification("recreate", f"{_STREAM_RECREATE[field]}; {_STREAM_LOST}")
    if field == "retention":
        if (old or "limits") != (new or "limits") and "workqueue" in (old or "limits", new or "limits"):
            return Classification("recreate", f"retention can not change to or from workqueue in place; {_STREAM_LOST}")
        return Classification("in-place", _STREAM_IN_PLACE_NOTES["retention"])
    if field in _STREAM_ONE_WAY:
        if _truthy(new) and not _truthy(old):
            return Classification("one-way", _STREAM_ONE_WAY[field])
        if _truthy(old) and not _truthy(new):
            return Classification("recreate", f"{field} can not be switched off once on; {_STREAM_LOST}")
        return Classification("in-place", "no effect")
    if field == "mirror":
        if old is not None and new is None:
            return Classification("one-way", "the mirror is promoted to a normal stream and stops following its origin; it can not become a mirror again")
        return Classification("recreate", f"a mirror can not be added or changed in place; {_STREAM_LOST}")
    if field in _STREAM_LIMITS and _tighter(old, new):
        return Classification("in-place", _STREAM_LIMITS[field])
    if field == "subjects" and set(old or []) - set(new or []):
        return Classification("in-place", "publishers to removed subjects get no stream acknowledgement; stored messages stay")
    return Classification("in-place", _STREAM_IN_PLACE_NOTES.get(field, "applied in place"))


_STREAM_LIMITS: dict[str, str] = {
    "max_msgs": "a lower limit removes the oldest messages at once",
    "max_bytes": "a lower limit removes the oldest messages at once",
    "max_age": "a shorter age removes older messages at once",
    "max_msgs_per_subject": "a lower limit removes older messages of each subject at once",
}


def _tighter(old: Any, new: Any) -> bool:
    """Whether limit ``new`` is stricter than ``old`` (0, -1 and absent mean unlimited)."""
    def value(v: Any) -> float:
        return float("inf") if not isinstance(v, int) or v <= 0 else float(v)

    return value(new) < value(old)


def classify_consumer_change(field: str, old: Any, new: Any) -> Classification:
    """Classify a change of the consumer config field ``field`` from ``old`` to ``new``."""
    if field in ("durable_name", "name"):
        return Classification("forbidden", "a consumer is identified by its name; a new name is a different consumer")
    if field == "pause_until":
        return Classification("forbidden", "pause_until is ignored by config updates; pause or resume the consumer with the pause API")
    if field in _CONSUMER_RECREATE:
        return Classification("recreate", f"{_CONSUMER_RECREATE[field]}; {_CONSUMER_LOST}")
    if field == "deliver_subject" and bool(old) != bool(new):
        return Classification("recreate", f"a consumer can not switch between pull and push in place; {_CONSUMER_LOST}")
    return Classification("in-place", _CONSUMER_IN_PLACE_NOTES.get(field, "applied in place"))


def classify(kind: str, field: str, old: Any, new: Any) -> Classification:
    """Classify a change for ``kind`` ``"Stream"`` or ``"Consumer"``."""
    if kind == "Stream":
        return classify_stream_change(field, old, new)
    if kind == "Consumer":
        return classify_consumer_change(field, old, new)
    raise ValueError(f"unknown kind {kind!r}")
