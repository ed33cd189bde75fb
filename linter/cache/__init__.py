"""The speed machinery of ``jsops lint`` (docs/architecture.md, Rooms), above the engine and the loader,
which never import it. The loader meets it in one place, :func:`load_paths` (the parse cache handed in as
its :class:`~jsops.linter.load.files.FileCache`); the engine as the ``memo`` :mod:`.incremental` gives it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Unpack

if TYPE_CHECKING:
    from ..load import Estate
    from ..load.paths import LoadOptions

__all__ = ["load_paths"]


def load_paths(
    paths: Iterable[str], *, cache: bool = False, digests: dict[str, str] | None = None, **options: Unpack[LoadOptions]
) -> Estate:
    """:func:`jsops.linter.load.load_paths`, through the parse cache when ``cache`` (and unless
    ``JSOPS_NO_CACHE`` is set); the pack is saved after the load. ``digests``: filled, when the parse
    cache is on, with the content key of every file read (the key of the bytes the loader parsed:
    :mod:`.results_cache` keys entries by it)."""
    from ..load.paths import load_paths as _load_paths  # the loader: not imported by a warm lint's cache hit
    from .parse_cache import open_cache

    paths = list(paths)
    store = open_cache(options.get("limits"), cache, paths)
    estate = _load_paths(paths, cache=store, **options)
    if store is not None:
        store.save()
        if digests is not None:
            digests.update(store.digests)
    return estate
