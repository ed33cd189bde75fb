"""What nats-server refuses of a mirror, and of a stream being mirrored: one home for these facts (the lint
rule JS118 and the migration's plan both read them).

Measured on 2.10.26, 2.11.11, 2.12.8, 2.14.6 and 2.15.1 (tests/reconciler/test_migrate_refusals_server.py):

- a mirror cannot have the settings of :data:`MIRROR_REFUSES` (each create refused with its own
  ``err_code``; a release that does not know the field drops it instead: 2.10 every one, 2.11 all but
  ``subject_delete_marker_ttl``). All but ``allow_msg_counter`` can be set by the update that promotes
  a mirror (removes ``mirror``, sets subjects: 2.12+); that update refuses to turn counters on
  (10052 "can not change message counter setting"), so a counter stream cannot be made from a mirror;
- a stream whose ``consumer_limits.max_ack_pending`` is set cannot be mirrored on any release: the
  mirror's consumer on it acknowledges nothing, and the server refuses it the stream's limit (10082
  "consumer requires ack policy for max ack pending"); the mirror is created but never copies a
  message. ``consumer_limits.inactive_threshold`` does not stop a mirror.

Bottom-layer data: it imports only the err codes and the release list.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errcodes import ErrCode
from .releases import NEWEST

__all__ = ["MirrorRefusal", "MIRROR_REFUSES", "ORIGIN_MAX_ACK_PENDING", "COUNTER_CHANGE", "mirror_refusals"]

Version = tuple[int, int, int]


@dataclass(frozen=True)
class MirrorRefusal:
    """A setting a mirror cannot have: ``field`` of the stream config, refused on a mirror's create
    with ``err_code`` from release ``since``; ``promoted``: the promotion (an update removing
    ``mirror``) may set it."""

    field: str
    err_code: ErrCode
    what: str  # the setting in words
    since: Version
    promoted: bool


MIRROR_REFUSES: tuple[MirrorRefusal, ...] = (
    MirrorRefusal(
        "allow_msg_counter", ErrCode.MIRROR_WITH_COUNTERS, "counters (allow_msg_counter)", (2, 12, 0), promoted=False
    ),
    MirrorRefusal(
        "allow_atomic",
        ErrCode.MIRROR_WITH_ATOMIC_PUBLISH,
        "atomic batch publishing (allow_atomic)",
        (2, 12, 0),
        promoted=True,
    ),
    MirrorRefusal(
        "allow_batched",
        ErrCode.MIRROR_WITH_BATCH_PUBLISH,
        "batch publishing (allow_batched)",
        (2, 14, 0),
        promoted=True,
    ),
    MirrorRefusal(
        "allow_msg_schedules",
        ErrCode.MIRROR_WITH_MSG_SCHEDULES,
        "message schedules (allow_msg_schedules)",
        (2, 12, 0),
        promoted=True,
    ),
    MirrorRefusal(
        "subject_delete_marker_ttl",
        ErrCode.STREAM_INVALID_CONFIG,
        "subject delete markers (subject_delete_marker_ttl)",
        (2, 11, 0),
        promoted=True,
    ),
)
"""In the order nats-server checks them."""

ORIGIN_MAX_ACK_PENDING = ErrCode.CONSUMER_MAX_PENDING_ACK_POLICY_REQUIRED
"""What a mirror's consumer on a stream with ``consumer_limits.max_ack_pending`` gets (every release)."""

COUNTER_CHANGE = ErrCode.STREAM_INVALID_CONFIG
"""What an update turning ``allow_msg_counter`` on or off gets (the promotion of a mirror included)."""


def mirror_refusals(config: object, release: Version | None = None) -> list[MirrorRefusal]:
    """The settings of ``config`` (a stream config: an ``EffectiveStream`` or a manifest's
    ``StreamConfig``) that ``release`` (None: the newest) refuses on a mirror."""
    release = release or NEWEST
    out = []
    for r in MIRROR_REFUSES:
        value = getattr(config, r.field, None)
        if release >= r.since and (
            value > 0 if isinstance(value, int) and not isinstance(value, bool) else bool(value)
        ):
            out.append(r)
    return out
