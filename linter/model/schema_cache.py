"""Pydantic models completed from an on-disk cache of their core schemas.

Generating a pydantic core schema is pure Python, and for the manifest models it costs more than
linting a small file: ``jsops lint`` runs on every commit (pre-commit), so the schemas are generated
once and pickled. A model declared with ``defer_build=True`` is then completed by
:func:`complete_models`: its validator and serializer are rebuilt (in Rust, in well under a
millisecond) from the cached core schema when the cache is current, else pydantic builds them as
usual and the cache is written for the next run.

The cache file holds, per group of models (the models one call completes), a digest of what the
schemas were generated from: this module's format, the jsops, pydantic, pydantic-core and Python
versions, the models' names, the source of every ``.py`` file in the models' own directories and of
every module the schemas refer to (validator functions, nested models, enums). Anything else (a
missing, stale, corrupt or unreadable file, a file owned by another user, a cache directory that
cannot be written) means building as pydantic would: never a wrong validator, never a traceback.

Where: ``$JSOPS_CACHE_DIR``, else ``$XDG_CACHE_HOME/jsops``, else ``~/.cache/jsops``;
``JSOPS_NO_CACHE=1`` turns it off. Models completed from the cache are validated without pydantic
plugins (finding plugins means scanning every installed distribution's entry points, which is what
the cache saves); models pydantic builds get them as usual.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterable, Sequence
from enum import Enum
from typing import Any, Literal

import pydantic_core
from pydantic import BaseModel
from pydantic.version import VERSION as _PYDANTIC_VERSION

from .._version import __version__ as _JSOPS_VERSION
from .cache_dir import cache_dir
from .private_dir import read_private, write_private

__all__ = ["Outcome", "cache_dir", "complete_models", "outcomes"]

Outcome = Literal["cached", "stored", "built"]
"""``cached``: completed from the cache; ``stored``: built, and the cache written; ``built``: built
(or already complete), the cache neither read nor written (off, not applicable, or not writable)."""

_MAGIC = b"jsops-model-cache 1"
_MAX_FILE_BYTES = 64 * 1024 * 1024  # the manifest models' schemas take well under 1 MiB
_VERSIONED = ("pydantic", "pydantic_core")  # their sources are keyed by version, not read
_lock = threading.Lock()
_outcomes: dict[str, Outcome] = {}


def outcomes() -> dict[str, Outcome]:
    """What each :func:`complete_models` call of this process did, by group."""
    return dict(_outcomes)


def complete_models(
    *models: type[BaseModel], group: str | None = None, cache: str | None | Literal["default"] = "default"
) -> Outcome:
    """Complete ``models`` (declared with ``defer_build=True``, nested models before the models
    using them): from the cache file of ``group`` (default: the first model's module) in ``cache``
    (default: :func:`cache_dir`, None: no cache) when it is current, else by building them (and
    then writing the cache). Models already complete are left alone."""
    if not models:
        return "built"
    name = group or models[0].__module__
    with _lock:
        pending = [m for m in models if not m.__pydantic_complete__]
        outcome = _complete(name, pending, cache_dir() if cache == "default" else cache)
        _outcomes[name] = outcome
        return outcome


def _complete(group: str, models: list[type[BaseModel]], directory: str | None) -> Outcome:
    if not models:
        return "built"
    path = _cache_path(group, models, directory) if directory is not None and all(map(_cacheable, models)) else None
    if path is None:
        _build(models)
        return "built"
    try:
        if _load(models, path):
            return "cached"
    except Exception:  # noqa: BLE001 - a cache that cannot be used is rebuilt, whatever is wrong with it
        pass
    _build(models)
    try:
        return "stored" if _store(models, path) else "built"
    except Exception:  # noqa: BLE001 - a cache that cannot be written only costs the next run the build
        return "built"


def _build(models: Iterable[type[BaseModel]]) -> None:
    for model in models:
        # force: a half-installed cached validator (a load that failed part way) is replaced too;
        # an empty types namespace: annotations resolve in the model's module, not in our frame.
        model.model_rebuild(force=True, _types_namespace={})


def _cacheable(model: type[BaseModel]) -> bool:
    """Models whose completion is the core schema and nothing else (what :func:`_install` does)."""
    return (
        bool(model.model_config.get("defer_build"))
        and model.__pydantic_fields_complete__
        and "<locals>" not in model.__qualname__
        and not model.__pydantic_generic_metadata__["parameters"]
        and not model.__pydantic_generic_metadata__["origin"]
        and not model.__pydantic_decorators__.computed_fields
        and all(f.deprecation_message is None for f in model.__pydantic_fields__.values())
    )


def _module_file(name: str) -> str | None:
    module = sys.modules.get(name)
    file = getattr(module, "__file__", None)
    return file if isinstance(file, str) and file.endswith(".py") else None


def _cache_path(group: str, models: Sequence[type[BaseModel]], directory: str) -> str | None:
    """One file per group and per installed location (two checkouts do not overwrite each other)."""
    import hashlib

    file = _module_file(models[0].__module__)
    if file is None or not group.replace(".", "").replace("-", "").replace("_", "").isalnum():
        return None
    where = hashlib.sha256(os.path.dirname(os.path.abspath(file)).encode()).hexdigest()[:12]
    return os.path.join(directory, f"{group}-{where}.pickle")


def _key(model: type[BaseModel]) -> str:
    return f"{model.__module__}.{model.__qualname__}"


def _digest(models: Sequence[type[BaseModel]], modules: Iterable[str]) -> str | None:
    """What the schemas were generated from: versions, the models' names, the source of the models'
    modules and of the modules their schemas refer to (by content), and every ``.py`` file of
    their directories (by size and modification time, like Python's bytecode cache: a type alias
    imported from a sibling module leaves no trace in a schema). None when a module is missing."""
    import hashlib

    h = hashlib.sha256()
    for part in (_MAGIC.decode(), _JSOPS_VERSION, _PYDANTIC_VERSION, pydantic_core.__version__, sys.version):
        h.update(part.encode() + b"\0")
    h.update("\0".join(sorted(map(_key, models))).encode())
    sources: set[str] = set()
    for name in {m.__module__ for m in models}.union(modules):
        if name.split(".")[0] in _VERSIONED:
            continue
        if name not in sys.modules:
            return None  # the cached schema refers to a module that is not imported: stale
        file = _module_file(name)
        if file is not None:
            sources.add(file)
    for file in sorted(sources):
        h.update(_source_digest(file))
    for folder in sorted({os.path.dirname(f) for f in sources}):
        h.update(_folder_stamp(folder))
    return h.hexdigest()


# A process reads each source and lists each directory once, however many groups share them.
_sources: dict[str, bytes] = {}
_folders: dict[str, bytes] = {}


def _source_digest(file: str) -> bytes:
    if file not in _sources:
        import hashlib

        with open(file, "rb") as fh:
            _sources[file] = f"\0{file}\0".encode() + hashlib.sha256(fh.read()).digest()
    return _sources[file]


def _folder_stamp(folder: str) -> bytes:
    if folder not in _folders:
        stamps = []
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.name.endswith(".py"):
                    st = entry.stat()
                    stamps.append(f"{entry.name}\0{st.st_size}\0{st.st_mtime_ns}")
        _folders[folder] = f"\0{folder}\0".encode() + "\0".join(sorted(stamps)).encode()
    return _folders[folder]


def _load(models: Sequence[type[BaseModel]], path: str) -> bool:
    # Only the user's own regular file is unpickled: no link, FIFO or device, nothing another user
    # wrote, nothing larger than the bound (linter.model.private_dir).
    data = read_private(path, _MAX_FILE_BYTES)
    if data is None or data.count(b"\n", 0, 4096) < 3:
        return False
    magic, digest, modules, payload = data.split(b"\n", 3)
    if magic != _MAGIC or digest.decode() != _digest(models, modules.decode().split()):
        return False
    try:
        from _pickle import loads  # pickle's C unpickler, without importing pickle's Python half
    except ImportError:  # pragma: no cover - Pythons without it
        from pickle import loads

    schemas = loads(payload)
    if not isinstance(schemas, dict) or sorted(schemas) != sorted(map(_key, models)):
        return False
    for model in models:
        schema, config = schemas[_key(model)]
        if _model_class(schema) is not model:
            raise ValueError(f"the cached schema of {_key(model)} is another class's")
    for model in models:
        _install(model, *schemas[_key(model)])
    return True


def _model_class(schema: Any) -> Any:
    """The class of a model's schema: its model node may be wrapped (definitions, model validators)."""
    while isinstance(schema, dict) and schema.get("type") != "model":
        schema = schema.get("schema")
    return schema.get("cls") if isinstance(schema, dict) else None


def _install(model: type[BaseModel], schema: Any, config: Any) -> None:
    """What pydantic's ``complete_model_class`` does once it has the core schema (for the models
    :func:`_cacheable` admits: no computed or deprecated fields, not generic)."""
    from functools import partial

    from pydantic._internal._config import ConfigWrapper
    from pydantic._internal._signature import generate_pydantic_signature
    from pydantic._internal._utils import LazyClassAttribute

    wrapper = ConfigWrapper(model.model_config, check=False)
    model.__pydantic_core_schema__ = schema
    model.__pydantic_validator__ = pydantic_core.SchemaValidator(schema, config)
    model.__pydantic_serializer__ = pydantic_core.SchemaSerializer(schema, config)
    signature = partial(
        generate_pydantic_signature,
        init=model.__init__,
        fields=model.__pydantic_fields__,
        validate_by_alias=wrapper.validate_by_alias,
        extra=wrapper.extra,
    )
    setattr(model, "__signature__", LazyClassAttribute("__signature__", signature))  # noqa: B010 - typed as Signature
    model.__pydantic_complete__ = True
    model.__pydantic_on_complete__()


class _Ref:
    """A core-schema ``ref`` naming a class by its ``id()``: pickled as the class, so that the
    unpickled schema names it with this process's id, as pydantic would have."""

    __slots__ = ("cls",)

    def __init__(self, cls: type) -> None:
        self.cls = cls

    def __reduce__(self) -> tuple[Any, tuple[type]]:
        return (_type_ref, (self.cls,))


def _type_ref(cls: type) -> str:
    """pydantic's ``get_type_ref`` of a non-generic class."""
    return f"{cls.__module__}.{cls.__qualname__}:{id(cls)}"


def _classes(schema: Any, found: set[type]) -> None:
    """Every class in ``schema`` (``cls`` of model, dataclass, enum... nodes)."""
    if isinstance(schema, dict):
        cls = schema.get("cls")
        if isinstance(cls, type):
            found.add(cls)
        for value in schema.values():
            _classes(value, found)
    elif isinstance(schema, list | tuple):
        for value in schema:
            _classes(value, found)


class _EnumMetadata:
    """The metadata of an enum's node: its JSON-schema hook is a local function of pydantic's, which
    pickle cannot store, so it is pickled as the enum and regenerated by pydantic when loaded."""

    __slots__ = ("cls",)

    def __init__(self, cls: type) -> None:
        self.cls = cls

    def __reduce__(self) -> tuple[Any, tuple[type]]:
        return (_enum_metadata, (self.cls,))


def _pydantic_of(record: type) -> Any:
    """The pydantic model of a record class (declared before its schema is loaded)."""
    return record.__dict__["_pydantic"]


def _enum_metadata(cls: type[Enum]) -> Any:
    from pydantic._internal._config import ConfigWrapper
    from pydantic._internal._generate_schema import GenerateSchema

    return GenerateSchema(ConfigWrapper({}, check=False), None)._enum_schema(cls).get("metadata")


def _portable(schema: Any, refs: dict[str, _Ref]) -> Any:
    """``schema`` with every ``ref`` and ``schema_ref`` replaced by its :class:`_Ref`, and the
    metadata of enums by :class:`_EnumMetadata`."""
    if isinstance(schema, dict):
        out: dict[str, Any] = {}
        enum = schema.get("type") == "enum" and isinstance(schema.get("cls"), type)
        for key, value in schema.items():
            if key in ("ref", "schema_ref") and isinstance(value, str):
                out[key] = refs[value]  # a ref of no class (KeyError): not cacheable
            elif key == "metadata" and enum:
                out[key] = _EnumMetadata(schema["cls"])
            else:
                out[key] = _portable(value, refs)
        return out
    if isinstance(schema, list):
        return [_portable(v, refs) for v in schema]
    if isinstance(schema, tuple):
        return tuple(_portable(v, refs) for v in schema)
    return schema


def _store(models: Sequence[type[BaseModel]], path: str) -> bool:
    import pickle

    from pydantic._internal._config import ConfigWrapper

    classes: set[type] = set(models)
    for model in models:
        _classes(model.__pydantic_core_schema__, classes)
    refs = {_type_ref(c): _Ref(c) for c in classes}
    schemas = {
        _key(m): (
            _portable(m.__pydantic_core_schema__, refs),
            ConfigWrapper(m.model_config, check=False).core_config(title=m.__name__),
        )
        for m in models
    }
    modules = {__name__} | {m.__module__ for m in models}

    class _Pickler(pickle.Pickler):
        def reducer_override(self, obj: Any) -> Any:
            record = obj.__dict__.get("__record__") if isinstance(obj, type) else None
            if record is not None:  # the pydantic model of a record (linter.model.records): named through it
                modules.add(record.__module__)
                return (_pydantic_of, (record,))
            module = getattr(obj, "__module__", None) if callable(obj) else None
            if isinstance(module, str):
                modules.add(module)
            owner = getattr(obj, "__self__", None)  # a bound method: its class's module too
            if isinstance(owner, type):
                modules.add(owner.__module__)
            return NotImplemented

    import io

    buffer = io.BytesIO()
    _Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(schemas)
    digest = _digest(models, sorted(modules))
    if digest is None:
        return False
    header = b"\n".join((_MAGIC, digest.encode(), " ".join(sorted(modules)).encode())) + b"\n"
    # Private (0600, 0700 when it makes the directory), through an exclusively created temporary
    # file renamed into place: readers see the old file or the new one, never a part.
    return write_private(path, header + buffer.getvalue())
