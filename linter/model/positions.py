"""Source maps: where each value of a parsed manifest document is (1-based line and column).

A document's positions form a tree parallel to its value: a mapping's :class:`MapPos` holds, per
key, the key's position and the value's entry; a sequence's :class:`SeqPos` one entry per item; a
scalar is a plain ``(line, column)``. :func:`resolve_position` finds the position of a path.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Pos", "MapPos", "SeqPos", "PosEntry", "resolve_position", "pack_positions", "unpack_positions", "start_of"]

Pos = tuple[int, int]  # 1-based (line, column)


class MapPos:
    """Positions of a mapping: its own start and, per key, the key's and the value's entries."""

    __slots__ = ("start", "keys")

    def __init__(self, start: Pos) -> None:
        self.start = start
        self.keys: dict[Any, tuple[Pos, Any]] = {}


class SeqPos:
    """Positions of a sequence: its own start and one entry per item."""

    __slots__ = ("start", "items")

    def __init__(self, start: Pos) -> None:
        self.start = start
        self.items: list[Any] = []


PosEntry = Pos | MapPos | SeqPos


def pack_positions(entry: PosEntry | None) -> Any:
    """Positions as plain lists/dicts/tuples (for marshal); :func:`unpack_positions` reverses it."""
    if entry is None or isinstance(entry, tuple):
        return entry
    if isinstance(entry, MapPos):
        return [entry.start, {k: (kpos, pack_positions(child)) for k, (kpos, child) in entry.keys.items()}]
    return [entry.start, [pack_positions(child) for child in entry.items]]


def unpack_positions(packed: Any) -> PosEntry | None:
    if packed is None or isinstance(packed, tuple):
        return packed
    start, body = packed
    if isinstance(body, dict):
        m = MapPos(start)
        m.keys = {k: (kpos, unpack_positions(child)) for k, (kpos, child) in body.items()}
        return m
    sq = SeqPos(start)
    sq.items = [unpack_positions(child) for child in body]
    return sq


def start_of(entry: PosEntry) -> Pos:
    return entry if isinstance(entry, tuple) else entry.start


def resolve_position(entry: PosEntry | None, path: tuple[Any, ...], *, key: bool = False) -> Pos | None:
    """Where ``path`` is in the document: the value's position, or the key's with ``key=True``.

    A path that leaves the document (a field the manifest does not write) resolves to the deepest
    position that exists, so a finding about a missing field points at its parent mapping.
    """
    if entry is None:
        return None
    current: PosEntry = entry
    for i, step in enumerate(path):
        last = i == len(path) - 1
        if isinstance(current, MapPos):
            hit = current.keys.get(step)
            if hit is None:
                return current.start
            kpos, child = hit
            if last and key:
                return kpos
            current = child
        elif isinstance(current, SeqPos) and isinstance(step, int) and 0 <= step < len(current.items):
            current = current.items[step]
        else:
            return start_of(current)
    return start_of(current)
