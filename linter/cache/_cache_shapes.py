"""What a parse cache entry may hold: checked before an entry is used, so that an entry of the
wrong shape (a checksummed pack written by something else, a bug) is a cache miss, never a crash
later in the loader.

An entry is :func:`jsops.linter.cache.parse_cache.pack_parsed`'s tuple: documents (value, packed
positions, line, problems), problems, two booleans. A value is plain data as the YAML/JSON reader
makes it (mappings with scalar keys, lists, strings that are valid Unicode, numbers, booleans,
null) no deeper and no larger than the parse limits allow. Packed positions are not walked here:
they stay packed and :func:`jsops.linter.model.positions.resolve_position` reads them defensively
(a tree of the wrong shape resolves to None, only ``(int, int)`` pairs come out), so only the
positions a finding asks for are ever looked at. Every walk is iterative.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["valid_entry"]

_SCALARS = (str, int, float, bool, type(None))


def valid_entry(packed: object, max_depth: int, max_nodes: int) -> bool:
    """Whether ``packed`` has the shape of a packed parse result within the bounds."""
    if type(packed) is not tuple or len(packed) != 4:
        return False
    docs, problems, trailing, looks = packed
    if type(docs) is not list or type(problems) is not list or type(trailing) is not bool or type(looks) is not bool:
        return False
    budget = [max_nodes]
    for doc in docs:
        if type(doc) is not tuple or len(doc) != 4:
            return False
        value, _positions, line, doc_problems = doc
        if type(line) is not int or type(doc_problems) is not list or not all(map(_problem, doc_problems)):
            return False
        if not _plain(value, max_depth, budget):
            return False
    return all(map(_problem, problems))


def _text(s: object) -> bool:
    return type(s) is str and (s.isascii() or _encodes(s))


def _encodes(s: str) -> bool:
    try:
        s.encode("utf-8")  # a lone surrogate does not encode: no output format could print it
    except UnicodeEncodeError:
        return False
    return True


def _problem(p: object) -> bool:
    return type(p) is tuple and len(p) == 4 and _text(p[0]) and _text(p[1]) and type(p[2]) is int and type(p[3]) is int


_NON_TEXT_SCALARS = frozenset({int, float, bool, type(None)})


# The walks below are the hot path of a warm lint (every node of every cached file): they check a
# scalar child where they meet it, and stack only mappings and lists. Each node costs one unit of
# the budget and may be at most ``max_depth`` deep, whether it is stacked or not.


def _plain(value: object, max_depth: int, budget: list[int]) -> bool:
    if type(value) is not dict and type(value) is not list:
        budget[0] -= 1
        return budget[0] >= 0 and max_depth >= 0 and _plain_scalar(value)
    stack: list[tuple[dict[object, object] | list[object], int]] = [(value, 0)]
    push, pop = stack.append, stack.pop
    left = budget[0]
    while stack:
        v, depth = pop()
        left -= 1
        if left < 0 or depth > max_depth:
            return False
        if type(v) is dict:
            if not _plain_keys(v):
                return False
            found = _split_children(v.values())
        else:
            found = _split_children(v)
        if found is None:
            return False
        containers, scalars = found
        depth += 1
        left -= scalars
        if scalars and (left < 0 or depth > max_depth):
            return False
        for child in containers:
            push((child, depth))
    budget[0] = left
    return True


def _split_children(children: Iterable[object]) -> tuple[list[dict[object, object] | list[object]], int] | None:
    """A container's children that are containers, and how many are scalars; None when a child
    is neither (a scalar child is checked where it is met: most nodes are)."""
    containers: list[dict[object, object] | list[object]] = []
    scalars = 0
    for child in children:
        if type(child) is dict or type(child) is list:
            containers.append(child)
            continue
        scalars += 1
        if type(child) is str:
            if not (child.isascii() or _encodes(child)):
                return None
        elif type(child) not in _NON_TEXT_SCALARS:
            return None
    return containers, scalars


def _plain_scalar(v: object) -> bool:
    """Whether a value that is neither a mapping nor a list is a scalar a document may hold."""
    if type(v) is str:
        return v.isascii() or _encodes(v)
    return type(v) in _NON_TEXT_SCALARS


def _plain_keys(mapping: dict[object, object]) -> bool:
    """Whether every key of a mapping is a scalar a document may hold."""
    for k in mapping:
        if type(k) is str:
            if not (k.isascii() or _encodes(k)):
                return False
        elif type(k) not in _NON_TEXT_SCALARS:
            return False
    return True
