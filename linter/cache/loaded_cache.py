"""Loaded objects kept beside the parse cache, so a warm lint does not validate unchanged files again.

A file's *loaded entry* is what :func:`jsops.linter.load.files.process` made of its parse: the
objects it declared, each with its validated config as plain data (records as their class's name,
their values and the fields set; lists, tuples, mappings, strings, numbers, booleans, null). It is
kept only for a file whose every document became a valid object of the native dialect and that
gave no finding, skipped nothing and changed nothing else in the estate: any other file is processed
in full on every run. Configs are rebuilt without validation (:func:`_make`, as ``model_construct``
does), positions and raw documents come from the parse entry, as the loader takes them.

The key is the file's content key (:meth:`jsops.linter.cache.parse_cache.ParseCache.key`), the name
it is shown under and :func:`loader_salt`: this format, the Python version, the content
(:func:`~jsops.linter.cache.packs.files_stamp`) of every file of the ``jsops.linter`` package (the
loader, the records and their checks all live there) and of pydantic and its core, ``JSOPS_RECORDS_FAST``, and the estate's
consumer streams and NACK release. Entries are plain data (marshal) and name record classes only
among those already declared: an entry holds no code. An entry that cannot be decoded whole, or
names a class that is not a declared record, or whose shape or config class is wrong, is a miss
(the file is processed as usual). A config's field values are not validated again: like the
results cache's findings (:mod:`jsops.linter.cache.results_cache`), they are what the private pack
holds, authenticated by the user's cache key, and only ``jsops lint`` reads it (never plan, apply or
the controller).
"""

from __future__ import annotations

import hashlib
import marshal
import os
import sys
from collections.abc import Callable
from dataclasses import fields
from typing import Any, TypeAlias

from ..load.parsed import Parsed, ParsedDocument
from ..model.config import ConsumerConfig, StreamConfig
from ..model.positions import PosEntry
from ..model.records.declaration import _make, _plan
from ..model.records.record import Record, declared_records
from ..model.resource import Estate, Resource
from .packs import Marshalled, files_stamp

__all__ = ["LazyParse", "loader_salt", "loaded_key", "pack_loaded", "replay_loaded", "Snapshot", "snapshot"]

_FORMAT = "jsops-loaded 1"
_SCALARS = frozenset({str, int, float, bool, type(None)})
_SALT: dict[tuple[Any, ...], str] = {}


_Loaded: TypeAlias = (
    "str | int | float | bool | None | Record | list[_Loaded] | tuple[_Loaded, ...] | dict[str, _Loaded]"
)
"""A config's field value as this format holds it."""


class _NotPlain(Exception):
    """A value this format does not hold."""


Snapshot = tuple[int, int, int, int, int, int, int, int, int]
"""The sizes of every part of an estate :func:`jsops.linter.load.files.process` may change."""


def snapshot(estate: Estate) -> Snapshot:
    return (
        len(estate.resources),
        len(estate.findings),
        len(estate.skipped),
        len(estate.not_jetstream),
        len(estate.invalid),
        len(estate.lenient),
        len(estate.accounts),
        len(estate.named_from_path),
        len(estate.opaque),
    )


def loader_salt(estate: Estate) -> str | None:
    """A digest of everything but the file that a loaded entry depends on (see the module); None
    when the build cannot be read (then there are no loaded entries)."""
    args = (tuple(map(tuple, estate.consumer_streams)), estate.nack_version)
    known = _SALT.get(args)
    if known is not None:
        return known
    build = files_stamp([os.path.dirname(os.path.dirname(os.path.abspath(__file__)))])
    if build is None:
        return None
    h = hashlib.sha256(
        f"{_FORMAT}\0{sys.version}\0{marshal.version}\0{os.environ.get('JSOPS_RECORDS_FAST', '1')}\0{args!r}\0{build}\0".encode()
    )
    out = _SALT[args] = h.hexdigest()
    return out


def loaded_key(salt: str, content_key: str, shown: str) -> str:
    return hashlib.sha256(f"{salt}\0{content_key}\0{shown}".encode()).hexdigest()


def pack_loaded(estate: Estate, before: Snapshot, manifest: bool) -> bytes | None:
    """The loaded entry of the file just processed (``before``: the estate's sizes before it), or
    None when the file is not one this cache keeps (see the module)."""
    now = snapshot(estate)
    if now[1:] != before[1:] or now[0] == before[0]:
        return None
    objects = []
    classes = _classes()
    try:
        for r in estate.resources[before[0] :]:
            if (
                r.dialect != "native"
                or r.bucket is not None
                or r.bucket_config is not None
                or type(r.config) not in classes
            ):
                return None
            objects.append(
                (
                    r.kind,
                    r.name,
                    r.stream,
                    r.context,
                    r.annotations,
                    r.document,
                    r.doc_line,
                    r.spec_path,
                    r.key_map,
                    _encode(r.config),
                )
            )
        return marshal.dumps((manifest, objects))
    except (_NotPlain, ValueError):
        return None


class LazyParse:
    """A file's parse, made (from its parse entry, else by parsing its bytes) when first asked for."""

    __slots__ = ("_make", "_docs")

    def __init__(self, make: Callable[[], Parsed]) -> None:
        self._make = make
        self._docs: list[ParsedDocument] | None = None

    def doc(self, index: int) -> ParsedDocument | None:
        docs = self._docs
        if docs is None:
            docs = self._docs = self._make()[0]
        return docs[index] if 0 <= index < len(docs) else None


class _Unset:
    pass


_UNSET: Any = _Unset()


class _RebuiltResource(Resource[Any]):
    """A resource rebuilt from a loaded entry: its positions and raw document come from the file's
    parse, decoded on first use (most runs ask for none of them). Equal to the loaded one."""

    _parse: LazyParse

    def _document(self) -> ParsedDocument | None:
        return self._parse.doc(self.document)

    @property
    def positions(self) -> PosEntry | None:
        v: PosEntry | None = self.__dict__.get("_positions", _UNSET)
        if v is _UNSET:
            doc = self._document()
            v = self.__dict__["_positions"] = doc.positions if doc is not None else None
        return v

    @positions.setter
    def positions(self, value: PosEntry | None) -> None:
        self.__dict__["_positions"] = value

    @property
    def raw(self) -> object:
        v = self.__dict__.get("_raw", _UNSET)
        if v is _UNSET:
            doc = self._document()
            v = self.__dict__["_raw"] = doc.value if doc is not None else None
        return v

    @raw.setter
    def raw(self, value: object) -> None:
        self.__dict__["_raw"] = value

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Resource):
            return NotImplemented
        return all(getattr(self, f.name) == getattr(other, f.name) for f in fields(Resource))

    __hash__ = None  # type: ignore[assignment]  # as a dataclass's with eq


# The fields a rebuilt resource's ``__dict__`` holds itself (positions and raw are read lazily); a
# Resource with other fields is rebuilt through its constructor.
_OWN_FIELDS = frozenset(
    {
        "kind",
        "name",
        "stream",
        "file",
        "context",
        "annotations",
        "dialect",
        "document",
        "doc_line",
        "spec_path",
        "key_map",
        "config",
        "bucket",
        "bucket_config",
    }
)
_DIRECT = {f.name for f in fields(Resource)} == _OWN_FIELDS | {"positions", "raw"}


def _rebuilt(values: dict[str, Any]) -> Resource[Any]:
    """A :class:`_RebuiltResource` of ``values`` (its fields but positions and raw, and ``_parse``)."""
    if _DIRECT:
        r = _RebuiltResource.__new__(_RebuiltResource)
        r.__dict__.update(values)
        return r
    parse = values.pop("_parse")
    config = values.pop("config")
    r = _RebuiltResource(**values, positions=_UNSET, raw=_UNSET, config=config)
    r._parse = parse
    return r


def replay_loaded(blob: object, parse: LazyParse, shown: str, estate: Estate) -> bool | None:
    """Add the objects of a loaded entry to ``estate``; the file's ``manifest`` flag, or None (and
    nothing added) when the entry is not usable. Their positions and raw documents are taken from
    ``parse`` when first asked for."""
    if type(blob) is not bytes:
        return None
    try:
        manifest, objects = marshal.loads(blob)
        out = []
        for kind, name, stream, context, annotations, document, doc_line, spec_path, key_map, config in objects:
            if (
                kind not in ("Stream", "Consumer")
                or type(name) is not str
                or type(document) is not int
                or type(doc_line) is not int
            ):
                return None
            if (
                type(annotations) is not dict
                or type(key_map) is not dict
                or type(context) is not str
                or stream is not None
                and type(stream) is not str
            ):
                return None
            rebuilt = _decode(config)
            if type(rebuilt) is not (StreamConfig if kind == "Stream" else ConsumerConfig):
                return None
            out.append(
                _rebuilt(
                    {
                        "kind": kind,
                        "name": name,
                        "stream": stream,
                        "file": shown,
                        "context": context,
                        "annotations": annotations,
                        "dialect": "native",
                        "document": document,
                        "doc_line": doc_line,
                        "spec_path": tuple(spec_path),
                        "key_map": key_map,
                        "config": rebuilt,
                        "bucket": None,
                        "bucket_config": None,
                        "_parse": parse,
                    }
                )
            )
    except Exception:  # a damaged or foreign entry: a miss
        return None
    for r in out:
        estate.add(r)
    return bool(manifest)


_BY_NAME: dict[str, type[Record]] = {}
_BY_CLASS: dict[type[Record], str] = {}


def _classes() -> dict[type[Record], str]:
    """The declared record classes by their names (and back), refreshed when more were declared."""
    declared = declared_records()
    if len(_BY_NAME) != len(declared):
        _BY_NAME.clear()
        _BY_NAME.update((f"{c.__module__}.{c.__qualname__}", c) for c in declared)
        _BY_CLASS.clear()
        _BY_CLASS.update((c, n) for n, c in _BY_NAME.items())
    return _BY_CLASS


def _encode(v: _Loaded) -> Marshalled:
    """Plain data of a config value: tuples are tags (``("t", items)`` a tuple, ``("r", class,
    values, fields set)`` a record)."""
    if v is None or isinstance(v, (str, int, float)) and type(v) in _SCALARS:  # exact types: a str enum is not plain
        return v
    if type(v) is list:
        return [_encode(x) for x in v]
    if type(v) is tuple:
        return ("t", [_encode(x) for x in v])
    if type(v) is dict:
        if any(type(k) is not str for k in v):
            raise _NotPlain
        return {k: _encode(x) for k, x in v.items()}
    if not isinstance(v, Record):
        raise _NotPlain
    return _encode_record(v)


def _encode_record(v: Record) -> Marshalled:
    t = type(v)
    name = _BY_CLASS.get(t)
    if name is None or tuple(v.__dict__) != _names(t):
        raise _NotPlain
    values = list(v.__dict__.values())
    nested = [i for i, x in enumerate(values) if type(x) not in _SCALARS]
    for i in nested:
        values[i] = _encode(values[i])
    return ("r", name, values, nested, sorted(v._fields_set))


def _decode(v: object) -> _Loaded:
    """The config value of :func:`_encode`'s plain data (read from a pack: of any shape until here)."""
    if v is None or isinstance(v, (str, int, float)) and type(v) in _SCALARS:
        return v
    if type(v) is list:
        return [_decode(x) for x in v]
    if type(v) is dict:
        return {k: _decode(x) for k, x in v.items()}
    if type(v) is tuple and v[0] == "t":
        return tuple(_decode(x) for x in v[1])
    if type(v) is tuple and v[0] == "r":
        _, name, values, nested, fields_set = v
        cls = _BY_NAME.get(name) or _lookup(name)
        names = _names(cls)
        if type(values) is not list or len(values) != len(names):
            raise ValueError("not the record's fields")
        for i in nested:
            values[i] = _decode(values[i])
        return _make(cls, dict(zip(names, values)), set(fields_set))
    raise ValueError("not a loaded value")


_NAMES: dict[type[Record], tuple[str, ...]] = {}


def _names(cls: type[Record]) -> tuple[str, ...]:
    """A record class's field names, in the order its values are kept."""
    names = _NAMES.get(cls)
    if names is None:
        names = _NAMES[cls] = tuple(_plan(cls).fields)
    return names


def _lookup(name: str) -> type[Record]:
    _classes()
    cls = _BY_NAME.get(name)
    if cls is None:
        raise ValueError(f"not a declared record: {name}")
    return cls
