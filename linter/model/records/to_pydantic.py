"""The pydantic side of :mod:`jsops.linter.model.records.record`: a record's pydantic model (declared from the
record's fields, built by pydantic through its public API when first needed), and records to and from its instances.
Imported only when pydantic is needed. It sees a record class through its declaration
(:mod:`~jsops.linter.model.records.declaration`); a field that is a record becomes that record's model."""

from __future__ import annotations

import types
from collections.abc import Callable, Iterable
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel

from .declaration import _AWARE, _MISSING, _MODULES, _STRICT, Before, RecordBase, _is_declared, _make, _plan

__all__ = ["complete"]


def complete(cls: type[RecordBase]) -> type[BaseModel]:
    """:func:`jsops.linter.model.records.record.pydantic_model`."""
    built = cls.__dict__.get("_pydantic")
    if built is not None and built.__pydantic_complete__:
        return built  # type: ignore[no-any-return]  # set by _declare
    group = [*_MODULES.get(cls.__module__, ()), cls]
    models = [_declare(c) for c in dict.fromkeys(group)]
    for other in dict.fromkeys(r.__module__ for r in _referenced(group)):
        if other != cls.__module__:
            complete(_MODULES[other][0])
    for model in models:  # nested records first (completed above), then this module's, in declaration order
        if not model.__pydantic_complete__:
            model.model_rebuild(force=True)
    result: type[BaseModel] = cls.__dict__["_pydantic"]
    return result


def _referenced(records: Iterable[type[RecordBase]]) -> list[type[RecordBase]]:
    """The records the fields of ``records`` name (through unions, lists, dicts...)."""
    out: list[type[RecordBase]] = []

    def walk(t: object) -> None:
        if _is_declared(t):
            out.append(t)
        for arg in get_args(t):
            walk(arg)

    for record in records:
        for spec in _plan(record).fields.values():
            walk(spec.declared)
    return [r for r in out if r.__module__ in _MODULES]


def _declare(cls: type[RecordBase]) -> type[BaseModel]:
    """The pydantic model of ``cls``, declared (``defer_build``) but not completed."""
    existing = cls.__dict__.get("_pydantic")
    if existing is not None:
        return existing  # type: ignore[no-any-return]  # set below
    from pydantic import BaseModel, ConfigDict, Field

    plan = _plan(cls)
    annotations: dict[str, Any] = {}
    ns: dict[str, Any] = {"__module__": cls.__module__, "__qualname__": cls.__qualname__, "__doc__": cls.__doc__}
    for name, spec in plan.fields.items():
        annotations[name] = _pydantic_type(spec.declared)
        kwargs: dict[str, Any] = dict(spec.constraints)
        if spec.default_factory is not None:
            factory = spec.default_factory
            kwargs["default_factory"] = _declare(factory) if _is_declared(factory) else factory
        elif spec.default is not _MISSING:
            kwargs["default"] = _to_pydantic(spec.default)
        for key in ("description", "validate_default", "exclude"):
            if getattr(spec, key):
                kwargs[key] = getattr(spec, key)
        if spec.alias is not None and "alias_generator" not in cls._pydantic_config:
            kwargs["alias"] = spec.alias
        ns[name] = spec.field_info if spec.field_info is not None else Field(**kwargs)
    ns["__annotations__"] = annotations
    ns["model_config"] = ConfigDict(extra="forbid", frozen=True, defer_build=True, **cls._pydantic_config)  # type: ignore[typeddict-item]  # settings pass through
    ns.update(cls._pydantic_namespace())
    metaclass: Any = type(BaseModel)
    model: type[BaseModel] = metaclass(cls.__name__, (BaseModel,), ns)
    type.__setattr__(model, "__record__", cls)  # the way back (_from_pydantic)
    type.__setattr__(cls, "_pydantic", model)
    return model


def _pydantic_type(t: object) -> object:
    """An annotation of a record as pydantic reads it (records -> their pydantic models)."""
    origin = get_origin(t)
    args = get_args(t)
    if origin is Annotated:
        import pydantic

        base, *meta = args
        if _AWARE in meta:
            return pydantic.AwareDatetime
        inner = _pydantic_type(base)
        extra: list[Any] = [pydantic.Strict()] if _STRICT in meta else []
        extra += [pydantic.BeforeValidator(m.func) for m in meta if isinstance(m, Before)]
        return Annotated[(inner, *extra)] if extra else inner
    if origin in (Union, types.UnionType):
        return Union[tuple(_pydantic_type(a) for a in args)]  # noqa: UP007 - a runtime tuple of types
    if origin in (list, tuple, dict):
        return origin[tuple(a if a is Ellipsis else _pydantic_type(a) for a in args)]
    if _is_declared(t):
        return _declare(t)
    return t


def _each(value: object, leaf: Callable[[object], object]) -> object:
    """``value`` with ``leaf`` applied to everything inside its lists, tuples and dicts."""
    if type(value) is list:
        return [leaf(v) for v in value]
    if type(value) is tuple:
        return tuple(leaf(v) for v in value)
    if type(value) is dict:
        return {k: leaf(v) for k, v in value.items()}
    return value


def _to_pydantic(value: object) -> object:
    """``value`` with its records replaced by instances of their pydantic models (not validated)."""
    if isinstance(value, RecordBase):
        model = _declare(type(value))
        return model.model_construct(
            _fields_set=set(value._fields_set), **{k: _to_pydantic(v) for k, v in value.__dict__.items()}
        )
    return _each(value, _to_pydantic)


def _from_pydantic(value: Any) -> Any:
    """``value`` with instances of records' pydantic models replaced by records."""
    record = getattr(type(value), "__record__", None)
    if record is not None:
        values = {name: _from_pydantic(getattr(value, name)) for name in _plan(record).fields}
        return _make(record, values, set(value.model_fields_set))
    return _each(value, _from_pydantic)
