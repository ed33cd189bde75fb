"""Checksummed pack files of a private cache directory: the one way the parse cache and the results
cache keep their marshalled entries.

A pack is ``magic + blake2b(body) + body``, ``body`` a marshalled value. It is written atomically into
a directory only the user can write (:class:`~jsops.linter.model.private_dir.PrivateDir`), and read
back only when its magic and checksum hold and marshal can load it: anything else is a miss, never an
error. A directory of packs is kept under a size bound by removing the oldest packs (and stale
temporary files) first, never the one just written.
"""

from __future__ import annotations

import hashlib
import marshal
import os
from collections.abc import Iterable
from typing import Any, TypeAlias

from ..model.private_dir import TMP_SUFFIX, PrivateDir

__all__ = ["PACK_SUFFIX", "Marshalled", "files_stamp", "prune_packs", "read_pack", "write_pack"]

PACK_SUFFIX = ".pack"

Marshalled: TypeAlias = "None | bool | int | float | str | bytes | tuple[Marshalled, ...] | list[Any] | dict[Any, Any]"
"""What a pack can hold: what marshal writes (containers of any marshal value; marshal itself
refuses anything else, and a refused value is not cached)."""
_SUM_BYTES = 16


def _checksum(body: bytes) -> bytes:
    return hashlib.blake2b(body, digest_size=_SUM_BYTES).digest()


def read_pack(directory: str, name: str, magic: bytes, max_bytes: int) -> object | None:
    """The value held by pack ``name`` of ``directory``; ``None`` when it is missing, larger than
    ``max_bytes``, unsafe, not the user's, of another magic, damaged, or not loadable."""
    private = PrivateDir.open(directory, create=False)
    if private is None:
        return None
    with private:
        blob = private.read(name, max_bytes)
    if blob is None:
        return None
    head, body = len(magic), len(magic) + _SUM_BYTES
    if not blob.startswith(magic) or _checksum(blob[body:]) != blob[head:body]:
        return None
    try:
        value: object = marshal.loads(blob[body:])
    except Exception:  # anything a damaged pack makes marshal raise
        return None
    return value


def write_pack(directory: str, name: str, magic: bytes, value: Marshalled, max_bytes: int) -> None:
    """Write ``value`` as pack ``name`` of ``directory`` atomically, then prune the directory to
    ``max_bytes``; a value marshal cannot hold, a pack larger than ``max_bytes`` or a directory that
    cannot be written leaves the cache as it was."""
    try:
        body = marshal.dumps(value)
    except ValueError:  # a value marshal cannot hold: not cached
        return
    data = magic + _checksum(body) + body
    if len(data) > max_bytes:
        return
    private = PrivateDir.open(directory)
    if private is None:
        return
    with private:
        if private.write(name, data):
            prune_packs(private, name, max_bytes)


def prune_packs(private: PrivateDir, keep: str, max_bytes: int) -> None:
    """While the packs and temporary files of ``private`` take more than ``max_bytes``, remove the
    oldest (down to 3/4 of it), never ``keep``; only these names, unlinked in the open directory:
    never a directory, never through a link, never anything outside it."""
    entries: list[tuple[int, int, str]] = []
    total = 0
    for name, st in private.entries():
        if name.endswith((PACK_SUFFIX, TMP_SUFFIX)):
            entries.append((st.st_mtime_ns, st.st_size, name))
            total += st.st_size
    if total <= max_bytes:
        return
    entries.sort()
    for _, size, name in entries:
        if total <= max_bytes * 3 // 4:
            break
        if name != keep:
            private.remove(name)
            total -= size


_ROOTS: dict[str, list[tuple[str, int, int]]] = {}


def _root_files(root: str) -> list[tuple[str, int, int]]:
    """(path, size, mtime) of every file under ``root`` but ``__pycache__``, walked once per process."""
    known = _ROOTS.get(root)
    if known is None:
        known = []
        for folder, dirs, names in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for n in sorted(names):
                path = os.path.join(folder, n)
                st = os.stat(path)
                known.append((path, st.st_size, st.st_mtime_ns))
        _ROOTS[root] = known
    return known


def files_stamp(roots: Iterable[str], files: Iterable[str] = (), libraries: Iterable[str] = ("pydantic", "pydantic_core")) -> str | None:
    """The identity of a build a pack was written by: a digest of the path, size and modification time
    of every file under ``roots`` (each tree walked once per process, whoever asks), of ``files`` and of
    each of ``libraries``' package file; None when one cannot be read (then there is no cache)."""
    import importlib.util

    h = hashlib.sha256()
    try:
        entries = [e for root in sorted(set(roots)) for e in _root_files(root)]
        singles = set(files)
        for lib in libraries:
            spec = importlib.util.find_spec(lib)
            if spec is not None and spec.origin:
                singles.add(spec.origin)
        for path in sorted(singles):
            st = os.stat(path)
            entries.append((path, st.st_size, st.st_mtime_ns))
    except (OSError, ImportError, ValueError):
        return None
    for path, size, mtime in entries:
        h.update(f"{path}\0{size}\0{mtime}\0".encode())
    return h.hexdigest()
