"""Helpers shared by the estate-wide (``estate_*``), target (``target_*``) and silent-rewrite
(``rewrite_*``) rules. Not a rule module: skipped by discovery.

Estate-wide rules replay what nats-server sees when the estate is applied in order (streams in
declaration order, then consumers): a stream or consumer the server would refuse is not created,
so it does not count against the ones declared after it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any, Generic, TypeVar

from linter.api import RuleContext
from linter.loader import Resource
from linter.subjects import subjects_collide

__all__ = ["SubjectTrie", "effective", "cached", "streams_by_context", "stream_index", "consumers_by_stream", "filters_of", "where"]

T = TypeVar("T")


def cached(ctx: RuleContext, key: str, build: Callable[[], T]) -> T:
    """A value computed once per lint run and shared by the rules (kept on the context)."""
    store: dict[str, Any] = ctx.__dict__.setdefault("_jsops_estate_cache", {})
    if key not in store:
        store[key] = build()
    return store[key]  # type: ignore[no-any-return]


def effective(resource: Resource, ctx: RuleContext) -> dict[str, Any]:
    hit = ctx._effective.get(id(resource))
    return hit if hit is not None else ctx.effective(resource)


def streams_by_context(ctx: RuleContext) -> dict[str, list[Resource]]:
    """Streams per context, in declaration order."""

    def build() -> dict[str, list[Resource]]:
        out: dict[str, list[Resource]] = {}
        for r in ctx.estate.resources:
            if r.kind == "Stream":
                out.setdefault(r.context, []).append(r)
        return out

    return cached(ctx, "streams_by_context", build)


def stream_index(ctx: RuleContext) -> dict[tuple[str, str], Resource]:
    """(context, name) -> the stream's resource."""
    return cached(ctx, "stream_index", lambda: {(r.context, r.name): r for r in ctx.estate.resources if r.kind == "Stream"})


def consumers_by_stream(ctx: RuleContext) -> dict[tuple[str, str | None], list[Resource]]:
    """(context, stream name) -> its consumers, in declaration order."""

    def build() -> dict[tuple[str, str | None], list[Resource]]:
        out: dict[tuple[str, str | None], list[Resource]] = {}
        for r in ctx.estate.resources:
            if r.kind == "Consumer":
                out.setdefault((r.context, r.stream), []).append(r)
        return out

    return cached(ctx, "consumers_by_stream", build)


def filters_of(cfg: dict[str, Any]) -> list[str]:
    """A consumer's filters as the server gathers them (``gatherSubjectFilters``)."""
    out = list(cfg.get("filter_subjects") or [])
    if cfg.get("filter_subject"):
        out.append(cfg["filter_subject"])
    return out


def where(resource: Resource, path: tuple[Any, ...] = ()) -> str:
    """``file:line`` of a resource's field, for messages that point at another object."""
    line, _ = resource.locate(path)
    return f"{resource.file}:{line}"


class _TrieNode(Generic[T]):
    __slots__ = ("literal", "wild", "items", "fwc_items")

    def __init__(self) -> None:
        self.literal: dict[str, _TrieNode[T]] = {}  # children by literal token
        self.wild: dict[str, _TrieNode[T]] = {}  # children whose token starts with '*' or '>'
        self.items: list[tuple[str, T]] = []  # subjects ending here
        self.fwc_items: list[tuple[str, T]] = []  # subjects ending with '>' here


class SubjectTrie(Generic[T]):
    """A token trie of subjects with payloads: ``colliding(q)`` yields the indexed subjects that
    collide with ``q`` (``subjects_collide``, the server's semantics, applied to every candidate).

    Unlike :class:`linter.subjects.SubjectIndex`, a literal query token is looked up in a dict and
    only the wildcard children are scanned, so a level with many literal siblings (``s.1``,
    ``s.2``, ... ``s.10000``) costs O(1) per lookup rather than O(siblings).
    """

    def __init__(self, entries: Iterable[tuple[str, T]] = ()) -> None:
        self._root: _TrieNode[T] = _TrieNode()
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
                child = table[tok] = _TrieNode()
            node = child
        node.items.append((subject, payload))

    def colliding(self, subject: str) -> Iterator[tuple[str, T]]:
        seen: set[int] = set()
        for cand in self._candidates(subject.split(".")):
            if id(cand) in seen:
                continue
            seen.add(id(cand))
            if subjects_collide(subject, cand[0]):
                yield cand

    def _candidates(self, tokens: list[str]) -> Iterator[tuple[str, T]]:
        n = len(tokens)
        stack: list[tuple[_TrieNode[T], int]] = [(self._root, 0)]
        while stack:
            node, i = stack.pop()
            if i == n:
                yield from node.items
                continue
            yield from node.fwc_items
            tok = tokens[i]
            if tok[:1] == ">":
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
    def _subtree(node: _TrieNode[T]) -> Iterator[tuple[str, T]]:
        stack = [*node.literal.values(), *node.wild.values()]
        while stack:
            n = stack.pop()
            yield from n.items
            yield from n.fwc_items
            stack.extend(n.literal.values())
            stack.extend(n.wild.values())
