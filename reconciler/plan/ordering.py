"""The one dependency order of streams: origins before the mirrors and sources that read them.

The plan lists stream actions in this order (:func:`stream_order`) and apply runs them level by
level (:func:`levels`: each level depends only on earlier ones; its actions run concurrently;
deletes run the levels in reverse). Both use :func:`levels`, Kahn's algorithm in
O(V + E) plus sorting each level back into the input order; a cycle (which the server refuses
anyway) is broken at the first node, in input order, that is left.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from typing import TypeVar

from jsops.linter import EffectiveStream

__all__ = ["deps", "levels", "stream_order"]

K = TypeVar("K", bound=Hashable)


def deps(config: EffectiveStream) -> set[str]:
    """The streams a stream config reads from (its mirror and sources, external ones left out)."""
    names = set()
    for src in (config.mirror, *config.sources):
        if src is not None and src.name and src.external is None:
            names.add(src.name)
    return names


def levels(nodes: Sequence[K], depends_on: Callable[[K], Iterable[K]]) -> list[list[K]]:
    """``nodes`` grouped so that each group depends only on earlier groups, each group in the
    order of ``nodes``. Dependencies outside ``nodes`` (and on itself) are ignored."""
    index = {n: i for i, n in enumerate(nodes)}
    waiting = dict.fromkeys(nodes, 0)  # unplaced dependencies per node
    dependents: dict[K, list[K]] = {n: [] for n in nodes}
    for n in nodes:
        for d in set(depends_on(n)):
            if d in index and d != n:
                waiting[n] += 1
                dependents[d].append(n)
    placed: set[K] = set()
    out: list[list[K]] = []
    level = [n for n in nodes if waiting[n] == 0]
    first = 0  # nodes before this index are placed (where a cycle is broken)
    while len(placed) < len(nodes):
        if not level:  # a cycle: the first node left goes alone
            while nodes[first] in placed:
                first += 1
            level = [nodes[first]]
        out.append(level)
        placed.update(level)
        ready: list[K] = []
        for n in level:
            for m in dependents[n]:
                waiting[m] -= 1
                if waiting[m] == 0 and m not in placed:
                    ready.append(m)
        level = sorted(ready, key=index.__getitem__)
    return out


def stream_order(configs: Mapping[str, EffectiveStream]) -> list[str]:
    """Stream names with origins before the mirrors and sources that read them (by name within a
    level; cycles broken by name)."""
    return [n for level in levels(sorted(configs), lambda n: deps(configs[n])) for n in level]
