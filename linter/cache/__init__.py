"""The speed machinery of ``jsops lint``, in one room: the parse cache (:mod:`.parse_cache`, with the
loaded objects beside it, :mod:`.loaded_cache`, and the shapes an entry may have, :mod:`._cache_shapes`),
the results cache (:mod:`.results_cache`, the per-object memo of the engine, :mod:`.memo`, and the
whole-run answer, :mod:`.incremental`) and the private packs they are stored in (:mod:`.packs`, over
:mod:`jsops.linter.model.private_dir` and :mod:`jsops.linter.model.cache_dir`, which stay in the model:
the plugin list is cached through them too, below this room).

The room sits above the engine and the loader and neither imports it. The loader meets it in one
place: :func:`load_paths` opens the parse cache and hands it to
:func:`jsops.linter.load.load_paths` as its :class:`~jsops.linter.load.files.FileCache`; the engine
meets it as the ``memo`` :func:`jsops.linter.engine.lint_estate` is given
(:class:`~jsops.linter.engine.Memo`), which only :mod:`.incremental` makes.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Unpack

from ..load import Estate
from ..load import load_paths as _load_paths
from ..load.paths import LoadOptions
from .parse_cache import open_cache

__all__ = ["load_paths"]


def load_paths(paths: Iterable[str], *, cache: bool = False, digests: dict[str, str] | None = None, **options: Unpack[LoadOptions]) -> Estate:
    """:func:`jsops.linter.load.load_paths`, through the parse cache when ``cache`` (and unless
    ``JSOPS_NO_CACHE`` is set); the pack is saved after the load. ``digests``: filled, when the parse
    cache is on, with the content key of every file read (the key of the bytes the loader parsed:
    :mod:`.results_cache` keys entries by it)."""
    paths = list(paths)
    store = open_cache(options.get("limits"), cache, paths)
    estate = _load_paths(paths, cache=store, **options)
    if store is not None:
        store.save()
        if digests is not None:
            digests.update(store.digests)
    return estate
