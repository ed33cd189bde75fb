"""NATS subject semantics as nats-server applies them to stream and consumer configs.

Behaviour follows the server's subject functions (validity, collision, subset matching), quirks
included: only a token that is exactly ``*`` or ``>`` counts as a wildcard when deciding whether a
subject is literal, but when two wildcard subjects are compared token by token, any token that
*starts* with ``*`` or ``>`` is treated as matching anything (as the server does).

:class:`SubjectIndex` is a token trie, so estate-wide overlap checks are not quadratic.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Generic, TypeVar

__all__ = [
    "is_valid_subject",
    "is_literal",
    "is_valid_publish_subject",
    "subjects_collide",
    "is_subset_match",
    "is_valid_asset_name",
    "SubjectIndex",
]

_WS = set(" \t\n\r\f")
_ASSET_BAD = set(" \t\r\n\f.*>\\/")

T = TypeVar("T")


def is_valid_subject(subject: str) -> bool:
    """A subject a stream or filter may use: non-empty tokens, ``>`` only last, no whitespace."""
    if not subject:
        return False
    full_wildcard_seen = False
    for token in subject.split("."):
        if not token or full_wildcard_seen:
            return False
        if len(token) > 1:
            if _WS.intersection(token):
                return False
            continue
        if token == ">":
            full_wildcard_seen = True
        elif token in _WS:
            return False
    return True


def is_literal(subject: str) -> bool:
    """True when no token is exactly ``*`` or ``>``."""
    return not any(t in ("*", ">") for t in subject.split("."))


def is_valid_publish_subject(subject: str) -> bool:
    return is_valid_subject(subject) and is_literal(subject)


def is_valid_asset_name(name: str) -> bool:
    """Stream and consumer names: non-empty, no ``. * > \\ /`` and no whitespace."""
    return bool(name) and not _ASSET_BAD.intersection(name)


def _token_can_match(a: str, b: str) -> bool:
    if not a or not b:
        return False
    if a[0] in "*>" or b[0] in "*>":
        return True
    return a == b


def is_subset_match(subject: str, test: str) -> bool:
    """True when every subject matched by ``subject`` is also matched by ``test``."""
    return _subset_tokens(subject.split("."), test.split("."))


def _subset_tokens(tokens: list[str], test: list[str]) -> bool:
    for i, t2 in enumerate(test):
        if i >= len(tokens):
            return False
        if not t2:
            return False
        if t2 == ">":
            return True
        t1 = tokens[i]
        if not t1 or t1 == ">":
            return False
        if t1 == "*":
            if t2 != "*":
                return False
            continue
        if t2 != "*" and t1 != t2:
            return False
    return len(tokens) == len(test)


def subjects_collide(a: str, b: str) -> bool:
    """True when some literal subject would match both ``a`` and ``b``."""
    if a == b:
        return True
    ta, tb = a.split("."), b.split(".")
    pwc_a, fwc_a = "*" in ta, ">" in ta
    pwc_b, fwc_b = "*" in tb, ">" in tb
    lit_a, lit_b = not (pwc_a or fwc_a), not (pwc_b or fwc_b)
    if lit_a and lit_b:
        return False
    if lit_a:
        return _subset_tokens(ta, tb)
    if lit_b:
        return _subset_tokens(tb, ta)
    if not fwc_a and not fwc_b and len(ta) != len(tb):
        return False
    if len(ta) != len(tb) and ((len(ta) < len(tb) and not fwc_a) or (len(tb) < len(ta) and not fwc_b)):
        return False
    return all(_token_can_match(x, y) for x, y in zip(ta, tb))


class _Node(Generic[T]):
    __slots__ = ("literal", "wild", "items", "fwc_items")

    def __init__(self) -> None:
        self.literal: dict[str, _Node[T]] = {}  # children by literal token
        self.wild: dict[str, _Node[T]] = {}  # children whose token starts with '*' or '>'
        self.items: list[tuple[str, T]] = []  # subjects ending exactly here
        self.fwc_items: list[tuple[str, T]] = []  # subjects ending with '>' at this level


class SubjectIndex(Generic[T]):
    """A token trie of subjects with payloads; finds every indexed subject that collides with a query.

    A literal query token is a dict lookup and only wildcard children are scanned, so a level with
    many literal siblings (``s.1`` ... ``s.10000``) costs O(1) per lookup: checking n subjects
    against each other is about n x depth, not n squared. Candidates are confirmed with
    :func:`subjects_collide`, so results follow the server's semantics exactly.
    """

    def __init__(self, entries: Iterable[tuple[str, T]] = ()) -> None:
        self._root: _Node[T] = _Node()
        for subject, payload in entries:
            self.add(subject, payload)

    def add(self, subject: str, payload: T) -> None:
        node = self._root
        tokens = subject.split(".")
        last = len(tokens) - 1
        for i, tok in enumerate(tokens):
            if tok == ">" and i == last:
                node.fwc_items.append((subject, payload))
                return
            table = node.wild if tok[:1] in ("*", ">") else node.literal
            child = table.get(tok)
            if child is None:
                child = table[tok] = _Node()
            node = child
        node.items.append((subject, payload))

    def colliding(self, subject: str) -> Iterator[tuple[str, T]]:
        """Indexed (subject, payload) pairs that collide with ``subject``."""
        seen: set[int] = set()
        for cand in self._candidates(subject.split(".")):
            if id(cand) in seen:
                continue
            seen.add(id(cand))
            if subjects_collide(subject, cand[0]):
                yield cand

    def _candidates(self, tokens: list[str]) -> Iterator[tuple[str, T]]:
        n = len(tokens)
        stack: list[tuple[_Node[T], int]] = [(self._root, 0)]
        while stack:
            node, i = stack.pop()
            if i == n:
                yield from node.items
                continue
            yield from node.fwc_items  # an indexed 'x.>' matches anything longer
            tok = tokens[i]
            if tok[:1] == ">":  # the query's '>' matches every deeper subject
                yield from self._subtree(node)
                continue
            if tok[:1] == "*":
                stack.extend((c, i + 1) for c in node.literal.values())
            else:
                child = node.literal.get(tok)
                if child is not None:
                    stack.append((child, i + 1))
            stack.extend((c, i + 1) for c in node.wild.values())

    @staticmethod
    def _subtree(node: _Node[T]) -> Iterator[tuple[str, T]]:
        stack = [*node.literal.values(), *node.wild.values()]
        while stack:
            n = stack.pop()
            yield from n.items
            yield from n.fwc_items
            stack.extend(n.literal.values())
            stack.extend(n.wild.values())
