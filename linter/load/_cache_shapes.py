"""What a parse cache entry may hold: checked before an entry is used, so that an entry of the
wrong shape (a checksummed pack written by something else, a bug) is a cache miss, never a crash
later in the loader.

An entry is :func:`jsops.linter.load.parse_cache.pack_parsed`'s tuple: documents (value, packed
positions, line, problems), problems, two booleans. A value is plain data as the YAML/JSON reader
makes it (mappings with scalar keys, lists, strings that are valid Unicode, numbers, booleans,
null) no deeper and no larger than the parse limits allow; positions are ``(line, column)``
pairs in the tree :func:`jsops.linter.model.positions.pack_positions` makes. Every walk is iterative.
"""

from __future__ import annotations

from typing import Any

__all__ = ["valid_entry"]

_SCALARS = (str, int, float, bool, type(None))


def valid_entry(packed: Any, max_depth: int, max_nodes: int) -> bool:
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
        value, positions, line, doc_problems = doc
        if type(line) is not int or type(doc_problems) is not list or not all(map(_problem, doc_problems)):
            return False
        if not _plain(value, max_depth, budget) or not _positions(positions, max_depth, budget):
            return False
    return all(map(_problem, problems))


def _text(s: Any) -> bool:
    if type(s) is not str:
        return False
    if s.isascii():
        return True
    try:
        s.encode("utf-8")  # a lone surrogate does not encode: no output format could print it
    except UnicodeEncodeError:
        return False
    return True


def _problem(p: Any) -> bool:
    return type(p) is tuple and len(p) == 4 and _text(p[0]) and _text(p[1]) and type(p[2]) is int and type(p[3]) is int


def _pos(p: Any) -> bool:
    return type(p) is tuple and len(p) == 2 and type(p[0]) is int and type(p[1]) is int


def _scalar(v: Any) -> bool:
    return _text(v) if type(v) is str else type(v) in (int, float, bool, type(None))


def _plain(value: Any, max_depth: int, budget: list[int]) -> bool:
    stack = [(value, 0)]
    while stack:
        v, depth = stack.pop()
        budget[0] -= 1
        if budget[0] < 0 or depth > max_depth:
            return False
        t = type(v)
        if t is dict:
            for k, child in v.items():
                if not _scalar(k):
                    return False
                stack.append((child, depth + 1))
        elif t is list:
            stack.extend((child, depth + 1) for child in v)
        elif not _scalar(v):
            return False
    return True


def _positions(packed: Any, max_depth: int, budget: list[int]) -> bool:
    stack = [(packed, 0)]
    while stack:
        p, depth = stack.pop()
        budget[0] -= 1
        if budget[0] < 0 or depth > max_depth:
            return False
        if p is None or _pos(p):
            continue
        if type(p) is not list or len(p) != 2 or not _pos(p[0]):
            return False
        body = p[1]
        if type(body) is dict:
            for k, item in body.items():
                if not _scalar(k) or type(item) is not tuple or len(item) != 2 or not _pos(item[0]):
                    return False
                stack.append((item[1], depth + 1))
        elif type(body) is list:
            stack.extend((child, depth + 1) for child in body)
        else:
            return False
    return True
