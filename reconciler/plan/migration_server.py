"""What nats-server refuses in a migration by mirror, said in the plan before anything is sent (pure).

A migration builds each copy as a mirror and promotes it (:mod:`jsops.reconciler.plan.migration`). The
server's facts about mirrors live in :mod:`jsops.linter.semantics.mirrors`; from them:

- a setting a mirror cannot have but its promotion can set (``allow_atomic``, ``allow_batched``,
  ``allow_msg_schedules``, ``subject_delete_marker_ttl``): the copy is created without it and gets it at
  the promotion (:func:`withheld`; :mod:`jsops.reconciler.migration_steps` builds the copy so);
- ``allow_msg_counter`` on a copy: the mirror is refused (10173) and the promotion cannot turn counters on
  (10052): a counter stream cannot be made by a migration (:func:`server_refusal`);
- ``consumer_limits.max_ack_pending`` on a stream a copy mirrors: the mirror's consumer is refused (10082)
  and the copy would never catch up (:func:`server_refusal`).
"""

from __future__ import annotations

from typing import NamedTuple

from jsops.linter import COUNTER_CHANGE, ORIGIN_MAX_ACK_PENDING, EffectiveStream, MirrorRefusal, mirror_refusals

__all__ = ["MirrorBlock", "server_refusal", "withheld"]

Version = tuple[int, int, int]


class MirrorBlock(NamedTuple):
    """Why the server would refuse a migration: the sentence (the field named, what the user can do) and
    the ``err_code`` it would answer."""

    said: str
    err_code: int


def withheld(config: EffectiveStream) -> list[MirrorRefusal]:
    """The settings of ``config`` a copy is created without (a mirror cannot have them) and gets at its
    promotion (on every release: one that does not refuse them on a mirror cannot promote it either)."""
    return [r for r in mirror_refusals(config) if r.promoted]


def _counter(
    copies: list[tuple[str, EffectiveStream]], old: str, via: str | None, release: Version | None
) -> MirrorBlock | None:
    for name, config in copies:
        for r in mirror_refusals(config, release):
            if r.promoted:
                continue
            if via is not None:
                other = "recreate it (--allow-recreate --allow-data-loss: its messages are lost)"
            else:
                other = f"declare {name} as a new stream (without jsops.io/renamed-from) and delete {old} with --prune (its messages are lost)"
            return MirrorBlock(
                f"{name} would be built as a mirror with {r.field}, which the server refuses (err_code {int(r.err_code)}), "
                f"and the update that promotes a mirror cannot turn {r.field} on (err_code {int(COUNTER_CHANGE)}): "
                f"a stream with {r.field} cannot be migrated; keep {old} as it is, or {other}",
                int(r.err_code),
            )
    return None


def server_refusal(
    old: EffectiveStream, new: EffectiveStream, via: str | None, release: Version | None
) -> MirrorBlock | None:
    """Why ``release`` (None: the newest) would refuse the migration of a stream configured ``old`` to
    ``new`` (through the temporary stream ``via`` when the name is kept, whose first copy has the old
    config): None when it would not."""
    copies = ([(via, old)] if via is not None else []) + [(new.name, new)]
    if (found := _counter(copies, old.name, via, release)) is not None:
        return found
    limit = old.consumer_limits.max_ack_pending
    if limit > 0:
        return MirrorBlock(
            f"{old.name} has consumer_limits.max_ack_pending {limit}: the server refuses a mirror of it the consumer it reads with "
            f"(err_code {int(ORIGIN_MAX_ACK_PENDING)}: that consumer acknowledges nothing, and the limit needs acks), so the copy "
            f"would never catch up; first apply {old.name} without consumer_limits.max_ack_pending (an update in place: its "
            "manifest as it was, without that limit), then migrate; the new stream may declare the limit",
            int(ORIGIN_MAX_ACK_PENDING),
        )
    return None
