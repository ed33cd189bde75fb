"""A content-addressed cache of parsed manifest files, so a lint of an unchanged tree skips the YAML
composer.

Only manifests are kept (a file that holds none, a key or a token saved as ``*.yaml``, is parsed
every time). An entry is what :func:`jsops.linter.load.files.read_text` makes of a file's bytes (its documents with
values, positions and read problems, the file's problems, whether it ends in a bare separator and
whether it looks like a manifest). Its key is the sha256 of the bytes together with everything else
the result depends on: the build of the parser (a digest of the source of every module the parse
runs, and the identity of the libyaml extension: not the version string, which a change between
releases keeps), this format, the Python version and marshal format (the entry is marshalled), the
parse :class:`~jsops.linter.load.documents.Limits`, and whether the file is read as JSON. The bytes are
always read and hashed: there is no stat-based shortcut, the content is the truth. Templates are not
cached (their text depends on the environment's values).

Entries live in ``parse/`` under the cache directory of :func:`jsops.linter.model.cache_dir.cache_dir`
(``$JSOPS_CACHE_DIR``, else ``$XDG_CACHE_HOME/jsops``, else ``~/.cache/jsops``), in one pack file
per set of paths loaded (a tree), read once and written once per run: for a tree of a thousand
files, one file per entry cost more to create (cold) than the parse it saves, and a pack is read
faster than a thousand small files. A pack holds the entries of the files its last run read, so it
follows its tree; it is written only when that set changed. In the pack each entry is kept
marshalled on its own (a dict of bytes): reading the pack builds no entry, an entry is built when
a file asks for it, and a run that parsed one edited file writes the others back as the bytes it
read (no entry is marshalled again). An entry's positions stay packed, their bodies marshalled
(:func:`jsops.linter.model.positions.compact_positions`): most are never asked for.

The cache is private (:mod:`jsops.linter.model.private_dir`): ``parse/`` is 0700 and the effective
uid's, packs are 0600, written to an exclusively created temporary file renamed into place, read
only when they are regular files of this user within :data:`MAX_BYTES` (a link, a FIFO, a device
planted at a pack's name is skipped), and cleanup unlinks only this directory's own entries. A
missing, corrupt, truncated, foreign, unsafe or unreadable pack, or an entry of the wrong shape
(:mod:`jsops.linter.cache._cache_shapes`), is ignored and the files parsed again; a cache that cannot be
written is simply not written. After a write, the oldest packs beyond :data:`MAX_BYTES` are
removed. ``JSOPS_NO_CACHE=1`` or ``--no-cache`` turns it off.

A pack also holds the *loaded entries* of :mod:`jsops.linter.cache.loaded_cache` (a file's objects
with their validated configs, as plain data), each marshalled on its own like the parse entries: a
file rebuilt from its loaded entry keeps its parse entry undecoded (:meth:`ParseCache.keep`).

Only ``jsops lint`` (and what only reads, like the report) uses it: plan, apply and the controller
always parse (:func:`jsops.linter.load.load_paths` defaults to no cache). Whoever can write the cache as
the user (a CI cache shared between jobs, a volume shared by root containers) could otherwise
decide what is applied; a key to authenticate entries would have to live where that same writer
cannot read it, and the parse is a small part of a plan (the server round trips are the rest).
"""

from __future__ import annotations

import functools
import hashlib
import marshal
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..load.parsed import Limits, Parsed, pack_parsed, unpack_parsed
from ._cache_shapes import valid_entry
from .packs import PACK_SUFFIX, read_pack, write_pack

if TYPE_CHECKING:
    from ..load import Estate

__all__ = ["MAX_BYTES", "ParseCache", "build_digest", "content_key", "open_cache"]

MAX_BYTES = 64 * 1024 * 1024
"""The most the packs may take together; beyond it the oldest are removed (down to 3/4 of it)."""

_MAGIC = b"jsops-parse-cache 5\n"  # 5: loaded entries (cache.loaded_cache); 4: entries marshalled one by one, positions' bodies too; 3: the looks flag (load.recognise); 2: private packs


class ParseCache:
    """Parsed files by content, kept for one set of paths in one pack file (see the module's docstring).

    The loader meets it only as its :class:`~jsops.linter.load.files.FileCache` (:meth:`parse`,
    :meth:`load`, :meth:`size`, :meth:`shipment`, :meth:`merge`). :meth:`get` and :meth:`put` work
    in memory; :meth:`save` writes the entries this run used (and only those, so a pack follows its
    tree) when they differ from what was read.
    """

    def __init__(
        self,
        directory: str,
        limits: Limits,
        tree: Sequence[str] = (),
        max_bytes: int = MAX_BYTES,
        build: str | None = None,
    ) -> None:
        self.directory = directory
        self.max_bytes = max_bytes
        self.limits = limits
        build = build if build is not None else build_digest()
        self._salt = _salt(build, limits)
        paths = "\0".join(sorted(os.path.abspath(p) for p in tree)).encode()
        self.name = hashlib.sha256(self._salt + paths).hexdigest()[:40] + PACK_SUFFIX
        self.path = os.path.join(directory, self.name)
        self._old: dict[str, Any] = {}
        self._loaded_old: dict[str, Any] = {}
        self._read()
        self.used: dict[str, Any] = {}
        # Loaded entries (jsops.linter.cache.loaded_cache) the run used or made, by their key.
        self.loaded_used: dict[str, bytes] = {}
        # The key of every file read through this cache, by the name it is shown under: what the
        # results cache (jsops.linter.cache.results_cache) knows a file's content by.
        self.digests: dict[str, str] = {}

    def parse(self, data: bytes, shown: str, limits: Limits | None, key: str | None = None) -> Parsed:
        """:func:`~jsops.linter.load.files.read_text` of ``data``, from the pack when it holds them
        (``key``: their key, when known)."""
        if key is None:
            key = self.key(data, shown.endswith(".json"))
            self.digests[shown] = key
        parsed = self.get(key)
        if parsed is None:
            from ..load import files

            parsed = files.read_text(data, shown, limits)
            if files.holds_manifest(parsed):  # the cache holds only manifests: a key or a token file is never kept
                self.put(key, parsed)
        return parsed

    def load(self, data: bytes, shown: str, estate: Estate, limits: Limits | None) -> None:
        """Load one file's ``data`` into ``estate``: its objects rebuilt from its loaded entry
        (:mod:`jsops.linter.cache.loaded_cache`; its parse decoded only when one of them asks for a
        position or its document), or parsed (from its parse entry when there is one), processed and
        their loaded entry kept."""
        from ..load import files  # the loader and its entries: imported once a file is loaded
        from . import loaded_cache

        content = self.key(data, shown.endswith(".json"))
        self.digests[shown] = content
        estate.files.append(shown)
        first = len(estate.findings)
        salt = loaded_cache.loader_salt(estate)
        key = loaded_cache.loaded_key(salt, content, shown) if salt is not None else None
        if key is not None:
            parse = loaded_cache.LazyParse(lambda: self.parse(data, shown, limits, content))
            blob, entry = self._loaded_old.get(key), self._old.get(content)
            if type(blob) is bytes:
                self.loaded_used[key] = blob
            manifest = loaded_cache.replay_loaded(blob, parse, shown, estate)
            if manifest is not None:
                if type(entry) is bytes:  # the parse entry is kept for the next run, undecoded
                    self.used.setdefault(content, entry)
                files.finish_file(estate, first, shown, manifest)
                return
        docs, problems, trailing, looks = self.parse(data, shown, limits, content)
        before = loaded_cache.snapshot(estate)
        manifest = files.process(docs, problems, trailing, shown, estate, looks) or looks
        blob = loaded_cache.pack_loaded(estate, before, manifest) if key is not None else None
        if key is not None and blob is not None:
            self.loaded_used[key] = blob
        files.finish_file(estate, first, shown, manifest)

    def shipment(self) -> tuple[dict[str, Any], dict[str, str]]:
        """The entries this process used and the keys of the files it read (what the forked child of
        a parallel load sends back to :meth:`merge`)."""
        return self.used, self.digests

    def size(self) -> int:
        """How many entries the pack held when it was read."""
        return len(self._old)

    def key(self, data: bytes, json_file: bool) -> str:
        """The entry's name: the content digest salted with everything else the parse depends on."""
        return _key(self._salt, data, json_file)

    def get(self, key: str) -> Parsed | None:
        """The entry, or None when there is none usable (never raises)."""
        blob = self._old.get(key)
        if type(blob) is not bytes:
            return None
        try:
            packed = marshal.loads(blob)
        except Exception:  # anything a damaged entry makes marshal raise
            return None
        depth = self.limits.max_depth + 2
        if not valid_entry(packed, depth, 2 * self.limits.max_file_nodes + 16):
            return None
        try:
            parsed = unpack_parsed(packed)
        except Exception:  # a shape valid_entry let through by mistake: still only a miss
            return None
        self.used[key] = blob
        return parsed

    def put(self, key: str, parsed: Parsed) -> None:
        try:
            self.used[key] = marshal.dumps(pack_parsed(parsed))
        except ValueError:  # a value marshal cannot hold: not cached
            pass

    def merge(self, used: dict[str, Any], digests: dict[str, str] | None = None) -> None:
        """Entries another process (the forked child of a parallel load) used, and the keys of the
        files it read."""
        self.used.update(used)
        if digests:
            self.digests.update(digests)

    def save(self) -> None:
        """Write the pack atomically if this run used other entries than it read, then prune; a cache
        that cannot be written is left alone."""
        if self.used.keys() == self._old.keys() and self.loaded_used.keys() == self._loaded_old.keys():
            return
        write_pack(self.directory, self.name, _MAGIC, (self._salt, self.used, self.loaded_used), self.max_bytes)

    def _read(self) -> None:
        """The pack's entries; none when it is missing, damaged, foreign, unsafe or not the user's."""
        value = read_pack(self.directory, self.name, _MAGIC, self.max_bytes)
        if type(value) is not tuple or len(value) != 3:
            return
        salt, entries, loaded = value
        if salt == self._salt and type(entries) is dict and type(loaded) is dict:
            self._old, self._loaded_old = entries, loaded


@functools.lru_cache(maxsize=8)  # one per run in practice: a results-cache run keys every file with it
def _salt(build: str, limits: Limits) -> bytes:
    return f"{_MAGIC!r}\0{build}\0{sys.version_info[:3]}\0{marshal.version}\0{limits!r}\0".encode()


def _key(salt: bytes, data: bytes, json_file: bool) -> str:
    h = hashlib.sha256(salt)
    h.update(b"json\0" if json_file else b"yaml\0")
    h.update(data)
    return h.hexdigest()


def content_key(data: bytes, json_file: bool, limits: Limits | None = None) -> str | None:
    """:meth:`ParseCache.key` of a file's bytes without opening a pack (None when the parser's
    build cannot be identified: then there is no cache)."""
    build = build_digest()
    return _key(_salt(build, limits or Limits()), data, json_file) if build else None


def open_cache(limits: Limits | None, enabled: bool = True, tree: Sequence[str] = ()) -> ParseCache | None:
    """The cache for ``limits`` and the paths ``tree`` in the jsops cache directory, or None when it
    is off (or the parser's build cannot be identified)."""
    if not enabled:
        return None
    from ..model.cache_dir import cache_dir

    base = cache_dir()
    build = build_digest()
    return ParseCache(os.path.join(base, "parse"), limits or Limits(), tree, build=build) if base and build else None


# The modules whose code makes a parse result (read_text and everything it runs), and this one
# (the entry format). A change to any of them is a new build: no entry made before is used.
_PARSER_MODULES = (
    "load/documents.py",
    "load/parsed.py",
    "load/_yaml.py",
    "load/_yaml_errors.py",
    "load/files.py",
    "load/messages.py",
    "cache/parse_cache.py",
    "cache/_cache_shapes.py",
    "model/positions.py",
)
_BUILD: list[str] = []


def build_digest() -> str:
    """A digest of the parser's build: the source bytes of :data:`_PARSER_MODULES` and the identity
    (path, size, modification time) of the libyaml extension; "" when they cannot be read."""
    if _BUILD:
        return _BUILD[0]
    import importlib.util

    h = hashlib.sha256()
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        for rel in _PARSER_MODULES:
            with open(os.path.join(package, rel), "rb") as fh:
                source = fh.read()
            h.update(f"{rel}\0{len(source)}\0".encode())
            h.update(source)
        spec = importlib.util.find_spec("_ruamel_yaml")
        origin = spec.origin if spec is not None else None
        if origin:
            st = os.stat(origin)
            h.update(f"{origin}\0{st.st_size}\0{st.st_mtime_ns}\0".encode())
    except (OSError, ImportError, ValueError):
        return ""
    _BUILD.append(h.hexdigest())
    return _BUILD[0]
