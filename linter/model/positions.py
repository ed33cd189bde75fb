"""Source maps: where each value of a parsed manifest document is (1-based line and column).

A document's positions form a tree parallel to its value: a mapping's :class:`MapPos` holds, per
key, the key's position and the value's entry; a sequence's :class:`SeqPos` one entry per item; a
scalar is a plain ``(line, column)``. :func:`resolve_position` finds the position of a path.

The same tree packed as plain lists, dicts and tuples (:func:`pack_positions`: what the parse cache
stores) is a position tree too: ``[start, {key: (key_pos, child)}]`` for a mapping, ``[start,
[child, ...]]`` for a sequence. A tree read from the cache stays packed (most of its positions are
never asked for: a healthy estate has few findings) and :func:`resolve_position` reads it where it
is, defensively: a packed tree of the wrong shape resolves to None (the caller's fallback), never
raises, and only ever yields ``(int, int)`` pairs. :func:`compact_positions` keeps a tree's body
marshalled, ``[start, bytes]``: the start of a document is all a clean one is asked for, and the
body is unmarshalled (in place) the first time a path below it is.
"""

from __future__ import annotations

import marshal
from typing import Any

__all__ = [
    "Pos",
    "MapPos",
    "SeqPos",
    "PackedPos",
    "PosEntry",
    "resolve_position",
    "pack_positions",
    "unpack_positions",
    "compact_positions",
    "packed_body",
    "start_of",
]

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


PackedPos = list[Any]
"""A mapping's or a sequence's positions as :func:`pack_positions` writes them."""

PosEntry = Pos | MapPos | SeqPos | PackedPos


def pack_positions(entry: PosEntry | None) -> Pos | PackedPos | None:
    """Positions as plain lists/dicts/tuples (for marshal); a packed tree is returned as it is."""
    if entry is None or isinstance(entry, (tuple, list)):
        return entry
    if isinstance(entry, MapPos):
        return [entry.start, {k: (kpos, pack_positions(child)) for k, (kpos, child) in entry.keys.items()}]
    return [entry.start, [pack_positions(child) for child in entry.items]]


def compact_positions(packed: Pos | PackedPos | None) -> Pos | PackedPos | None:
    """A packed tree with its body marshalled (``[start, bytes]``), for the parse cache."""
    if type(packed) is list and len(packed) == 2 and type(packed[1]) in (dict, list):
        return [packed[0], marshal.dumps(packed[1])]
    return packed


def packed_body(entry: PackedPos) -> dict[Any, Any] | list[Any] | None:
    """The body of a packed tree (a dict or a list), unmarshalled in place when it is still bytes;
    None when it is of the wrong shape."""
    if len(entry) != 2:
        return None
    body = entry[1]
    if type(body) is bytes:
        try:
            body = marshal.loads(body)
        except Exception:  # anything damaged bytes make marshal raise: no positions
            body = None
        entry[1] = body = body if type(body) in (dict, list) else None
    return body if type(body) is dict or type(body) is list else None


def unpack_positions(packed: object) -> PosEntry | None:
    """A packed tree as a position tree: itself (it is read where it is, see the module's docstring)."""
    return packed if packed is None or type(packed) is tuple or type(packed) is list else None


def start_of(entry: PosEntry) -> Pos:
    if isinstance(entry, tuple):
        return entry
    return entry[0] if isinstance(entry, list) else entry.start


def _pair(p: object) -> Pos | None:
    """``p`` when it is a ``(line, column)`` pair of ints (a packed tree is checked as it is read)."""
    return p if type(p) is tuple and len(p) == 2 and type(p[0]) is int and type(p[1]) is int else None


def _start(entry: object) -> Pos | None:
    if type(entry) is list:
        return _pair(entry[0]) if len(entry) == 2 else None
    if isinstance(entry, (MapPos, SeqPos)):
        return entry.start
    return _pair(entry)


def resolve_position(entry: PosEntry | None, path: tuple[Any, ...], *, key: bool = False) -> Pos | None:
    """Where ``path`` is in the document: the value's position, or the key's with ``key=True``.

    A path that leaves the document (a field the manifest does not write) resolves to the deepest
    position that exists, so a finding about a missing field points at its parent mapping. A packed
    tree of the wrong shape resolves to None.
    """
    current: Any = entry
    last = len(path) - 1
    try:
        for i, step in enumerate(path):
            if type(current) is list:  # packed: [start, {key: (key_pos, child)}] or [start, [child, ...]]
                body = packed_body(current)
                if type(body) is dict:
                    hit = body.get(step)
                elif type(body) is list and isinstance(step, int) and 0 <= step < len(body):
                    current = body[step]
                    continue
                else:
                    return _pair(current[0])
                if hit is None:
                    return _pair(current[0])
                kpos, child = hit
                if i == last and key:
                    return _pair(kpos)
                current = child
            elif isinstance(current, MapPos):
                mhit = current.keys.get(step)
                if mhit is None:
                    return current.start
                if i == last and key:
                    return mhit[0]
                current = mhit[1]
            elif isinstance(current, SeqPos) and isinstance(step, int) and 0 <= step < len(current.items):
                current = current.items[step]
            else:
                return _start(current)
    except (TypeError, ValueError):  # an unhashable step, a packed entry that is no pair
        return None
    return _start(current)
