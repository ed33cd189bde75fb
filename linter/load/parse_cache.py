"""A content-addressed cache of parsed manifest files, so a plan or lint of an unchanged tree skips
the YAML composer.

An entry is what :func:`linter.load.files.read_text` makes of a file's bytes (its documents with
values, positions and read problems, the file's problems, whether it ends in a bare separator and
whether it looks like a manifest). Its key is the sha256 of the bytes together with everything else
the result depends on: this format, the jsops and Python versions (the entry is marshalled), the
parse :class:`~linter.load.documents.Limits`, and whether the file is read as JSON. The bytes are
always read and hashed: there is no stat-based shortcut, the content is the truth. Templates are not
cached (their text depends on the environment's values).

Entries live in ``parse/`` under the cache directory of :func:`linter.model.schema_cache.cache_dir`
(``$JSOPS_CACHE_DIR``, else ``$XDG_CACHE_HOME/jsops``, else ``~/.cache/jsops``), in one pack file
per set of paths loaded (a tree), read once and written once per run: for a tree of a thousand
files, one file per entry cost more to create (cold) than the parse it saves, and a pack is read
faster than a thousand small files. A pack holds the entries of the files its last run read, so it
follows its tree; it is written atomically (a temporary file renamed into place) and only when that
set changed. A missing, corrupt, truncated, foreign or unreadable pack, or one owned by another user,
is ignored and the files parsed again; a cache that cannot be written is simply not written. After a
write, the oldest packs beyond :data:`MAX_BYTES` are removed. ``JSOPS_NO_CACHE=1`` or ``--no-cache``
turns it off.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import sys
from collections.abc import Sequence
from typing import Any

from .._version import __version__ as _JSOPS_VERSION
from ..model.positions import pack_positions, unpack_positions
from .documents import Limits, ParsedDocument, ReadProblem

__all__ = ["MAX_BYTES", "ParseCache", "Parsed", "open_cache", "pack_parsed", "unpack_parsed"]

MAX_BYTES = 64 * 1024 * 1024
"""The most the packs may take together; beyond it the oldest are removed (down to 3/4 of it)."""

Parsed = tuple[list[ParsedDocument], list[ReadProblem], bool, bool]
"""Documents, file problems, trailing separator, looks like a manifest (see ``read_text``)."""

_MAGIC = b"jsops-parse-cache 2\n"  # 2: the looks flag is "names something of JetStream" (load.recognise)
_SUM_BYTES = 16


class ParseCache:
    """Parsed files by content, kept for one set of paths in one pack file (see the module's docstring).

    :meth:`get` and :meth:`put` work in memory; :meth:`save` writes the entries this run used (and
    only those, so a pack follows its tree) when they differ from what was read.
    """

    def __init__(self, directory: str, limits: Limits, tree: Sequence[str] = (), max_bytes: int = MAX_BYTES) -> None:
        self.directory = directory
        self.max_bytes = max_bytes
        self._salt = f"{_MAGIC!r}\0{_JSOPS_VERSION}\0{sys.version_info[:3]}\0{limits!r}\0".encode()
        paths = "\0".join(sorted(os.path.abspath(p) for p in tree)).encode()
        self.path = os.path.join(directory, hashlib.sha256(self._salt + paths).hexdigest()[:40] + ".pack")
        self._old: dict[str, Any] = self._read()
        self.used: dict[str, Any] = {}
        self.hits = 0

    def key(self, data: bytes, json_file: bool) -> str:
        """The entry's name: the content digest salted with everything else the parse depends on."""
        h = hashlib.sha256(self._salt)
        h.update(b"json\0" if json_file else b"yaml\0")
        h.update(data)
        return h.hexdigest()

    def get(self, key: str) -> Parsed | None:
        """The entry, or None when there is none usable (never raises)."""
        packed = self._old.get(key)
        if packed is None:
            return None
        try:
            parsed = unpack_parsed(packed)
        except Exception:  # anything a damaged entry makes the unpacking raise
            return None
        self.used[key] = packed
        self.hits += 1
        return parsed

    def put(self, key: str, parsed: Parsed) -> None:
        self.used[key] = pack_parsed(parsed)

    def merge(self, used: dict[str, Any]) -> None:
        """Entries another process (the forked child of a parallel load) used."""
        self.used.update(used)

    def save(self) -> None:
        """Write the pack atomically if this run used other entries than it read, then prune; a cache
        that cannot be written is left alone."""
        if self.used.keys() == self._old.keys():
            return
        try:
            blob = marshal.dumps((self._salt, self.used))
        except ValueError:  # a value marshal cannot hold: not cached
            return
        tmp = f"{self.path}.{os.getpid()}.tmp"
        try:
            os.makedirs(self.directory, exist_ok=True)
            with open(tmp, "wb") as fh:
                fh.write(_MAGIC + _checksum(blob) + blob)
            os.replace(tmp, self.path)
        except OSError:
            _remove(tmp)
            return
        self.prune()

    def _read(self) -> dict[str, Any]:
        """The pack's entries; none when it is missing, damaged, foreign or not the user's."""
        try:
            with open(self.path, "rb") as fh:
                if os.fstat(fh.fileno()).st_uid != _uid():
                    return {}
                blob = fh.read()
            head, body = len(_MAGIC), len(_MAGIC) + _SUM_BYTES
            if not blob.startswith(_MAGIC) or _checksum(blob[body:]) != blob[head:body]:
                return {}
            salt, entries = marshal.loads(blob[body:])
        except Exception:  # OSError, and anything a damaged pack makes marshal raise
            return {}
        return entries if salt == self._salt and isinstance(entries, dict) else {}

    def prune(self) -> None:
        """Remove the oldest packs (and stale temporary files) while they take more than ``max_bytes``."""
        entries: list[tuple[int, int, str]] = []
        total = 0
        try:
            with os.scandir(self.directory) as it:
                for e in it:
                    st = e.stat(follow_symlinks=False)
                    entries.append((st.st_mtime_ns, st.st_size, e.path))
                    total += st.st_size
        except OSError:
            return
        if total <= self.max_bytes:
            return
        entries.sort()
        for _, size, path in entries:
            if total <= self.max_bytes * 3 // 4:
                break
            if path == self.path:
                continue
            _remove(path)
            total -= size


def open_cache(limits: Limits | None, enabled: bool = True, tree: Sequence[str] = ()) -> ParseCache | None:
    """The cache for ``limits`` and the paths ``tree`` in the jsops cache directory, or None when it is off."""
    if not enabled:
        return None
    from ..model.cache_dir import cache_dir

    base = cache_dir()
    return ParseCache(os.path.join(base, "parse"), limits or Limits(), tree) if base else None


def pack_parsed(parsed: Parsed) -> tuple[Any, ...]:
    """A parse result as plain values (for marshal: the cache, and the forked child of a parallel load)."""
    docs, problems, trailing, looks = parsed
    return (
        [(d.value, pack_positions(d.positions), d.line, [_pack(p) for p in d.problems]) for d in docs],
        [_pack(p) for p in problems],
        trailing,
        looks,
    )


def unpack_parsed(packed: Any) -> Parsed:
    """The reverse of :func:`pack_parsed`."""
    docs, problems, trailing, looks = packed
    return (
        [ParsedDocument(v, unpack_positions(pos), line, [ReadProblem(*p) for p in probs]) for v, pos, line, probs in docs],
        [ReadProblem(*p) for p in problems],
        bool(trailing),
        bool(looks),
    )


def _checksum(blob: bytes) -> bytes:
    return hashlib.blake2b(blob, digest_size=_SUM_BYTES).digest()


def _pack(p: ReadProblem) -> tuple[str, str, int, int]:
    return (p.code, p.message, p.line, p.column)


def _uid() -> int:
    getuid = getattr(os, "getuid", None)
    return int(getuid()) if getuid is not None else 0


def _remove(path: str) -> None:
    try:
        os.remove(path)
    except OSError:
        pass
