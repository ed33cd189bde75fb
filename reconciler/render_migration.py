"""A migration in words: each consumer's story in the plan (:func:`consumer_lines`, from the moves
:mod:`jsops.reconciler.plan.migration` plans) and what a migration did (computed by
:mod:`jsops.reconciler.migration_steps`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .plan.migration_spec import ConsumerMove

__all__ = ["consumer_lines", "migration_line"]


def _now(move: ConsumerMove, source: str) -> str:
    """Where a consumer is now (at plan time)."""
    if move.ack_floor is None:
        return f"not on {source}" if move.fate == "new" else "where the migration under way left it"
    where = f"after ack floor {move.ack_floor}" if move.ack_floor else "nothing acked"
    return f"on {source} {where}, {move.pending} pending"


def _fate(move: ConsumerMove, source: str, on: str) -> str:
    """What the migration does with it."""
    if move.fate == "deleted":
        return f"not declared on the new stream: deleted with {source}, its position is lost"
    if move.fate == "new":
        return f"created {on} where its manifest says"
    if move.fate == "reset":
        return f"re-created {on} where its manifest says (--reset-position): its position is not kept"
    if move.fate == "first":
        return (
            f"re-created {on} at the first message (a work queue holds only what is not acknowledged, so that is its "
            "position; the server allows no other start)"
        )
    return f"re-created {on} at its position (after its ack floor, pending kept: the sequences are the same)"


def consumer_lines(source: str, target: str, via: str | None, moves: list[ConsumerMove], interest: bool) -> list[str]:
    """One line per consumer of a migration from ``source`` to ``target`` (through ``via``): where it is now and
    what happens to it; then what holds for every consumer moved. ``interest``: the old stream keeps messages
    for its consumers only (its copy keeps every message until it is promoted)."""
    on = f"on {via}, then on {target}" if via is not None else f"on {target}"
    lines = []
    for m in moves:
        line = f"consumer {m.name} ({_now(m, source)}): {_fate(m, source, on)}"
        if m.unknown:
            line += f"; the fields of it this jsops does not know are carried as the server has them: {', '.join(m.unknown)}"
        lines.append(line)
    if not any(m.fate != "deleted" for m in moves):
        return lines + [f"no consumer to move: none is declared on {target}"]
    every = (
        "every consumer moved is created before its stream takes the subjects, so no publish is acknowledged while "
        "no consumer holds it; messages delivered but not acked, and acks sent to the old consumers after the "
        "cut-over, are delivered again"
    )
    if interest:
        every += "; the copy keeps every message with limits retention until it is promoted to interest"
    return lines + [every]


def migration_line(
    source: str, via: str | None, compared: list[int], placed: int, reset_to: int, windows: list[float]
) -> str:
    """What a migration did, in one line. Each copy compares every message it takes, so a migration
    through a temporary stream compares the same messages twice: counted per copy, not added up.
    ``placed``/``reset_to``: the consumers of the stream it ends with, created at their positions or where
    their manifest says (--reset-position); ``windows``: each cut-over's, in seconds."""
    if len(set(compared)) == 1:
        counted = f"{compared[0]} messages compared (SHA-256)" + (
            f" in each of its {len(compared)} copies" if len(compared) > 1 else ""
        )
    else:
        counted = f"{' + '.join(map(str, compared))} messages compared (SHA-256) in its {len(compared)} copies"
    consumers = f"{placed} consumer{'' if placed == 1 else 's'} at their positions"
    if reset_to:
        consumers += f", {reset_to} where the manifest says (--reset-position)"
    shown = [f"{w * 1000:.1f} ms" for w in windows]
    return (
        f"migrated from {source}"
        + (f" through {via}" if via else "")
        + f": {counted}, {consumers}"
        + (f", cut-over window {' + '.join(shown)}" if shown else "")
    )
