"""What a migration cannot carry without loss, judged in the plan from the live state (pure).

Per retention (:mod:`jsops.reconciler.migration_steps` builds the copy):

- ``limits``: mirrored as it is; the consumers are created on the copy at their positions.
- ``interest``: mirrored with ``limits`` retention (an interest stream without consumers keeps
  nothing), the consumers are created on the copy before it takes the subjects, and the promotion
  sets ``interest``. Refused: a consumer of the old stream that the new one does not declare and
  that still has messages to take (the new stream would drop what only it wants), and a change *to*
  interest from another retention while messages are stored (the switch drops what no consumer
  wants: change the retention in place afterwards, where the plan counts it).
- ``workqueue``: mirrored as a work queue; its consumers start at the first message (the server
  allows nothing else, 10101), which is their position, since a work queue holds only what is not
  acknowledged. Refused: a change to or from ``workqueue`` while messages are stored (the server
  refuses the retention change on the promotion, 10052, and positions of a ``limits`` stream's
  consumers cannot be carried into a work queue).

Downstream: a stream that mirrors or sources the migrated stream (in the live state) is refused,
named: after a rename it would name a stream that is gone, and through a migration that keeps the
name its mirror or source would copy every message again.

Capacity: a copy with ``discard: new`` whose limits are below what the old stream holds would stop
short (the mirror cannot store the rest) and never catch up: refused.
"""

from __future__ import annotations

from jsops.linter import EffectiveConsumer, EffectiveStream

from ..diff import START_FIELDS, diff_configs
from ..live import LiveState, LiveStream

__all__ = ["copy_refusal", "downstream", "reset_consumers"]


def _plural(n: int, word: str = "message") -> str:
    return f"{n} {word}{'s' if n != 1 else ''}"


def downstream(name: str, live: LiveState) -> list[str]:
    """The live streams that mirror or source ``name`` (in this account: no ``external``), described."""
    out = []
    for other, s in sorted(live.streams.items()):
        if other == name:
            continue
        mirror = s.config.mirror
        if mirror is not None and mirror.name == name and mirror.external is None:
            out.append(f"{other} (a mirror of it)")
        elif any(src.name == name and src.external is None for src in s.config.sources):
            out.append(f"{other} (sources it)")
    return out


def _retention(config: EffectiveStream) -> str:
    return config.retention or "limits"


def _retention_refusal(src: LiveStream, new: EffectiveStream, declared: set[str], live: LiveState) -> str | None:
    old, want = _retention(src.config), _retention(new)
    held = src.messages
    if held and (old == "workqueue") != (want == "workqueue"):
        return (
            f"{src.name} holds {_plural(held)} and its retention changes from {old} to {want}: the server cannot change "
            "a retention to or from workqueue (10052), and a work-queue consumer must start at the first message (10101), "
            "so the consumers' positions cannot be carried over; let the consumers drain it first (an empty stream migrates)"
        )
    if held and want == "interest" and old != "interest":
        return (
            f"{src.name} holds {_plural(held)} and its retention changes from {old} to interest, which drops the messages "
            "no consumer still wants; migrate with the old retention first, then change the retention in place "
            "(the plan counts what that drops)"
        )
    if old == "interest":
        left = sorted(
            c.name for (s, _), c in live.consumers.items() if s == src.name and c.name not in declared and c.pending > 0
        )
        if left:
            return (
                f"{src.name} is an interest stream and its consumers {', '.join(left)} are not declared on the new stream "
                "while they still have messages to take: the new stream would drop the messages only they want; "
                "declare them on the new stream, or let them catch up first"
            )
    return None


def _capacity_refusal(src: LiveStream, new: EffectiveStream) -> str | None:
    if new.discard != "new":
        return None  # discard old: the limits remove the oldest; counted as data loss (jsops.reconciler.dataloss)
    over = []
    max_msgs, max_bytes = new.max_msgs or -1, new.max_bytes or -1
    if 0 < max_msgs < src.messages:
        over.append(f"max_msgs {max_msgs} < {src.messages} messages")
    if 0 < max_bytes < src.bytes:
        over.append(f"max_bytes {max_bytes} < {src.bytes} bytes")
    if not over:
        return None
    return (
        f"the new stream (discard: new) cannot hold what {src.name} holds ({'; '.join(over)}): the copy would stop short "
        "and never catch up; raise the limits to migrate, then lower them after (in place, puts beyond them are refused)"
    )


def copy_refusal(src: LiveStream, new: EffectiveStream, declared: set[str], live: LiveState) -> str | None:
    """Why ``src`` cannot be carried into a stream configured ``new`` (whose declared consumers are
    ``declared``) without loss; None when it can."""
    readers = downstream(src.name, live)
    if readers:
        return (
            f"{src.name} is read by {', '.join(readers)}: after the migration it would name a stream that is gone "
            "or copy every message again; remove it or point it at the new stream first, then migrate"
        )
    return _retention_refusal(src, new, declared, live) or _capacity_refusal(src, new)


def reset_consumers(src: LiveStream, consumers: dict[str, EffectiveConsumer], live: LiveState) -> tuple[list[str], int]:
    """With ``--reset-position``: the consumers whose manifest changes their start (created there,
    not at their position), and the messages that skips on an interest stream (an upper bound)."""
    names, skipped = [], 0
    for name, cfg in sorted(consumers.items()):
        cur = live.consumers.get((src.name, name))
        if cur is None or not any(c.path in START_FIELDS for c in diff_configs("Consumer", cur.config, cfg)):
            continue
        names.append(name)
        if _retention(src.config) == "interest":
            skipped += cur.pending
    return names, min(skipped, src.messages)
