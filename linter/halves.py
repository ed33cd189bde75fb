"""Checks of a large estate on two cores: a forked child checks the second half of the objects of
every per-object unit while this process checks the first half, the unsplit units are shared in
turn, and the results are put together in the order one process would have made them.

A unit is a function of a list of items (the objects one rule checks, of one kind) and those items,
or ``None`` for a unit that is not split (an estate-wide rule): one of the two processes runs it. The
child is forked once the estate is loaded, so it shares it without copying; it sends back its
results (pickled: findings are small frozen dataclasses, and few on a healthy estate) through a
pipe. When the child fails (or cannot be forked) this process runs its half itself, so the result,
and an exception a rule raises, are those of a serial run.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

__all__ = ["MIN_ITEMS", "Unit", "run_units"]

T = TypeVar("T")
R = TypeVar("R")

Unit = tuple[Callable[[Sequence[T]], list[R]], Sequence[T] | None]
"""``(run, items)``: ``run(items)`` gives the unit's results in order; ``items=None``: ``run(())``, unsplit."""

MIN_ITEMS = 50_000
"""Below this many items in all (an object checked by a rule is one, a few microseconds), one
process does it all: a fork and a pipe cost milliseconds."""


def run_units(units: Sequence[Unit[T, R]], *, parallel: bool = True, work: int | None = None) -> list[R]:
    """Every unit's results, unit after unit (each unit's items in order), as one process makes
    them; with ``parallel``, and enough work to pay for a fork, on two processes. ``work``: the
    caller's measure of it, in items, when it knows better than the count of the split units' items
    (a run whose per-object results mostly come from a cache still runs every estate-wide rule)."""
    if work is None:
        work = sum(len(items) for _, items in units if items is not None)
    if not parallel or work < MIN_ITEMS or not _can_fork():
        return [r for run, items in units for r in run(items if items is not None else ())]
    return _run_forked(units)


def _can_fork() -> bool:
    from .load.parallel import can_fork  # the one switch (JSOPS_NO_PARALLEL, cores, fork)

    return can_fork()


def _run_forked(units: Sequence[Unit[T, R]]) -> list[R]:
    """This process: the first half of each split unit and every unsplit unit; the child: the second
    half of each split unit."""
    import pickle  # only a large estate pays its import

    # Where this process stops in each unit's items (the child starts there); an unsplit unit is
    # run whole by one of the two, in turn, so that the estate-wide rules are shared too.
    halves: list[int | None] = []
    unsplit = 0
    for _, items in units:
        if items is None:
            halves.append(None if unsplit % 2 else 0)  # None: this process runs it; 0: the child
            unsplit += 1
        else:
            halves.append(len(items) // 2)
    from .load.parallel import fork_half

    def child() -> bytes:
        return pickle.dumps(
            [_theirs(run, items, h) for (run, items), h in zip(units, halves, strict=True)],
            protocol=pickle.HIGHEST_PROTOCOL,
        )

    mine, payload = fork_half(
        child, lambda: [_mine(run, items, h) for (run, items), h in zip(units, halves, strict=True)]
    )
    theirs: list[list[R]] | None = None
    if payload is not None:
        try:
            theirs = pickle.loads(payload)  # our own child's results, through our own pipe
        except Exception:  # a child killed mid-write: its half is checked here instead
            theirs = None
    if theirs is None or len(theirs) != len(units):
        theirs = [_theirs(run, items, h) for (run, items), h in zip(units, halves, strict=True)]
    return [r for m, t in zip(mine, theirs, strict=True) for r in (*m, *t)]


def _mine(run: Callable[[Sequence[T]], list[R]], items: Sequence[T] | None, half: int | None) -> list[R]:
    """This process's part of a unit: the items before ``half``; an unsplit unit when ``half`` is None."""
    if items is None:
        return run(()) if half is None else []
    assert half is not None
    return run(items[:half])


def _theirs(run: Callable[[Sequence[T]], list[R]], items: Sequence[T] | None, half: int | None) -> list[R]:
    """The child's part of a unit: the items from ``half`` on; an unsplit unit when ``half`` is 0."""
    if items is None:
        return run(()) if half == 0 else []
    assert half is not None
    return run(items[half:])
