"""Authenticated pack files of a private cache directory: the one way the parse cache and the results
cache keep their marshalled entries.

A pack is ``magic + mac + body``, ``body`` a marshalled value and ``mac`` its keyed BLAKE2b under the
user's cache key (:func:`~jsops.linter.model.cache_dir.cache_key`, kept outside the cache directory).
It is written atomically into a directory only the user can write
(:class:`~jsops.linter.model.private_dir.PrivateDir`), and read back only when its magic and MAC hold
and marshal can load it: anything else is a miss, never an error. A checksum anyone can recompute
would not do: a pack forged into a shared or restored cache (an entry that says a file holding two
objects holds one) would pass it. A directory of packs is kept under a size bound by removing the
oldest packs (and stale temporary files) first, never the one just written.

:func:`files_stamp` identifies a build by the *content* of its files (never by their size and
modification time, which a same-length edit with its time put back keeps).
"""

from __future__ import annotations

import hashlib
import hmac
import marshal
import os
from collections.abc import Iterable
from typing import Any, TypeAlias

from ..model.cache_dir import MAC_BYTES, cache_dir, cache_key, cache_mac
from ..model.private_dir import TMP_SUFFIX, PrivateDir

__all__ = ["PACK_SUFFIX", "Marshalled", "files_stamp", "prune_packs", "read_pack", "write_pack"]

PACK_SUFFIX = ".pack"

Marshalled: TypeAlias = "None | bool | int | float | str | bytes | tuple[Marshalled, ...] | list[Any] | dict[Any, Any]"
"""What a pack can hold: what marshal writes (containers of any marshal value; marshal itself
refuses anything else, and a refused value is not cached)."""


def read_pack(directory: str, name: str, magic: bytes, max_bytes: int) -> object | None:
    """The value held by pack ``name`` of ``directory``; ``None`` when it is missing, larger than
    ``max_bytes``, unsafe, not the user's, of another magic, not vouched for by the user's cache key
    (damaged, forged, or written with another key), or not loadable."""
    key = cache_key()
    if key is None:
        return None
    private = PrivateDir.open(directory, create=False)
    if private is None:
        return None
    with private:
        blob = private.read(name, max_bytes)
    if blob is None:
        return None
    head, body = len(magic), len(magic) + MAC_BYTES
    if not blob.startswith(magic) or not hmac.compare_digest(cache_mac(blob[body:], key), blob[head:body]):
        return None
    try:
        value: object = marshal.loads(blob[body:])
    except Exception:  # anything a damaged pack makes marshal raise
        return None
    return value


def write_pack(directory: str, name: str, magic: bytes, value: Marshalled, max_bytes: int) -> None:
    """Write ``value`` as pack ``name`` of ``directory`` atomically, then prune the directory to
    ``max_bytes``; a value marshal cannot hold, a pack larger than ``max_bytes`` or a directory that
    cannot be written (or no cache key) leaves the cache as it was."""
    key = cache_key()
    if key is None:
        return
    try:
        body = marshal.dumps(value)
    except ValueError:  # a value marshal cannot hold: not cached
        return
    data = magic + cache_mac(body, key) + body
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


_Stat = tuple[str, int, int, int, int, int]
_ROOTS: dict[str, list[_Stat]] = {}
_STAMPS: dict[str, str] = {}
_STAMP_PACK = "build-stamps" + PACK_SUFFIX
_STAMP_MAGIC = b"jsops-build-stamps 1\n"
_STAMP_BYTES = 1024 * 1024


def _stat(path: str) -> _Stat:
    st = os.stat(path)
    return (path, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev)


def _root_files(root: str) -> list[_Stat]:
    """The :func:`_stat` of every file under ``root`` but ``__pycache__``, walked once per process."""
    known = _ROOTS.get(root)
    if known is None:
        known = []
        for folder, dirs, names in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for n in sorted(names):
                known.append(_stat(os.path.join(folder, n)))
        _ROOTS[root] = known
    return known


def files_stamp(
    roots: Iterable[str], files: Iterable[str] = (), libraries: Iterable[str] = ("pydantic", "pydantic_core")
) -> str | None:
    """The identity of a build a pack was written by: a digest of the path and *content* of every
    file under ``roots`` (each tree walked once per process, whoever asks), of ``files`` and of each
    of ``libraries``' package file; None when one cannot be read (then there is no cache).

    Hashing a few megabytes of sources on every run would cost a pre-commit lint more than it saves,
    so the content digest is computed once per build: it is remembered (per process, and in an
    authenticated pack of the cache directory) under a digest of every file's path, size,
    modification *and change* time, inode and device. A write to a file, or putting its modification
    time back with ``os.utime``, changes its change time (which no call sets): a new build is hashed
    again, and its old digest is never taken for it.
    """
    import importlib.util

    try:
        entries = [e for root in sorted(set(roots)) for e in _root_files(root)]
        singles = set(files)
        for lib in libraries:
            spec = importlib.util.find_spec(lib)
            if spec is not None and spec.origin:
                singles.add(spec.origin)
        entries.extend(_stat(path) for path in sorted(singles))
    except (OSError, ImportError, ValueError):
        return None
    stats = hashlib.sha256(marshal.dumps(entries)).hexdigest()
    known = _STAMPS.get(stats)
    if known is None:
        known = _remembered(stats)
        if known is None:
            known = _content_digest(entries)
            if known is None:
                return None
            _remember(stats, known)
        _STAMPS[stats] = known
    return known


def _content_digest(entries: list[_Stat]) -> str | None:
    h = hashlib.sha256()
    try:
        for path, *_ in entries:
            with open(path, "rb") as fh:
                data = fh.read()
            h.update(f"{path}\0{len(data)}\0".encode())
            h.update(data)
    except OSError:
        return None
    return h.hexdigest()


def _stamps_dir() -> str | None:
    base = cache_dir()
    return os.path.join(base, "builds") if base else None


def _remembered(stats: str) -> str | None:
    directory = _stamps_dir()
    if directory is None:
        return None
    known = read_pack(directory, _STAMP_PACK, _STAMP_MAGIC, _STAMP_BYTES)
    value = known.get(stats) if type(known) is dict else None
    return value if type(value) is str else None


def _remember(stats: str, digest: str) -> None:
    directory = _stamps_dir()
    if directory is None:
        return
    known = read_pack(directory, _STAMP_PACK, _STAMP_MAGIC, _STAMP_BYTES)
    table = dict(known) if type(known) is dict and len(known) < 64 else {}  # a few builds: a developer's edits
    table[stats] = digest
    write_pack(directory, _STAMP_PACK, _STAMP_MAGIC, table, _STAMP_BYTES)
