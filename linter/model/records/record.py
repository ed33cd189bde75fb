"""Light records for the config models, and pydantic only for what they cannot judge.

``jsops lint`` runs on every commit (pre-commit), and importing pydantic and completing the model
classes costs more than linting a file. So each config model is declared once, as a
:class:`Record` subclass (annotations and defaults, like a pydantic model), and from that one
declaration come two things:

- the record class itself: frozen, with equality, hashing, pickling and the pydantic methods the
  code uses (``model_validate``, ``model_construct``, ``model_copy``, ``model_dump``,
  ``model_fields``, ``model_fields_set``);
- lazily, :func:`pydantic_model`: the pydantic model with the same name, fields, constraints,
  validators and messages (built by pydantic when first needed, through its public API).

``model_validate`` first runs a pure-Python validator that accepts only what it judges exactly as
pydantic would (exact ``str``/``int``/``bool``/``float`` values, ``Literal`` choices, enum values,
lists, tuples, dicts, nested records, the ``Before`` hooks such as Go durations and sizes, known
keys, field constraints); anything else (an error, a ``str`` subclass, a time stamp, ...) goes to
the pydantic model, imported only then, whose result is turned back into records, and whose
``ValidationError`` propagates unchanged. ``JSOPS_RECORDS_FAST=0`` sends everything to pydantic
(the differential tests compare both ways).

Annotations: plain ``str``/``int``/``bool``/``float`` are pydantic's lax types; :data:`StrictStr`,
:data:`StrictInt` and :data:`StrictBool` its strict ones; ``Annotated[T, Before(func)]`` is
``BeforeValidator(func)``; :data:`AwareDatetime` is pydantic's. :func:`option` is ``Field``.
"""

from __future__ import annotations

import enum
import os
import sys
from collections.abc import Iterator, Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal, Self, TypeGuard

from typing_extensions import dataclass_transform

from .checks import _fast
from .declaration import (
    _MODULES,
    AwareDatetime,
    Before,
    FieldSpec,
    RecordBase,
    StrictBool,
    StrictInt,
    StrictStr,
    _make,
    _plan,
    _Unsure,
    option,
)

if TYPE_CHECKING:
    from pydantic import BaseModel
    from pydantic_core import ErrorDetails

__all__ = [
    "Record",
    "FieldSpec",
    "Before",
    "option",
    "StrictStr",
    "StrictInt",
    "StrictBool",
    "AwareDatetime",
    "pydantic_model",
    "validation_errors",
    "is_record_class",
    "declared_records",
]


@dataclass_transform(kw_only_default=True, frozen_default=True, field_specifiers=(option,))
class Record(RecordBase):
    """Base of the light records (see the module's docstring): a declaration
    (:class:`~jsops.linter.model.records.declaration.RecordBase`) with pydantic's methods."""

    __slots__ = ()

    def __init__(self, **data: object) -> None:
        values, fields_set = _validated(type(self), data)
        object.__setattr__(self, "__dict__", values)
        object.__setattr__(self, "_fields_set", fields_set)

    # --- pydantic's methods ----------------------------------------------------------------------

    @classmethod
    def model_validate(cls, obj: object) -> Self:
        if isinstance(obj, cls):
            return obj
        values, fields_set = _validated(cls, obj)
        return _make(cls, values, fields_set)

    @classmethod
    def model_construct(cls, _fields_set: set[str] | None = None, **values: object) -> Self:
        fields = _plan(cls).fields
        out = {n: values[n] if n in values else f.get_default(call_default_factory=True) for n, f in fields.items()}
        return _make(cls, out, set(_fields_set) if _fields_set is not None else {n for n in values if n in fields})

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        values = dict(self.__dict__)
        fields_set = set(self._fields_set)
        if update:
            values.update(update)
            fields_set.update(update)
        if deep:
            import copy

            values = copy.deepcopy(values)
        return _make(type(self), values, fields_set)

    def model_dump(
        self,
        *,
        mode: Literal["python", "json"] = "python",
        exclude_none: bool = False,
        exclude_defaults: bool = False,
        by_alias: bool = False,
    ) -> dict[str, Any]:
        return _dump(self, mode == "json", exclude_none, exclude_defaults, by_alias)

    @property
    def model_fields_set(self) -> set[str]:
        return self._fields_set

    # --- object protocol ---------------------------------------------------------------------------

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is frozen: cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is frozen: cannot delete {name!r}")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Record):
            return NotImplemented
        return type(self) is type(other) and self.__dict__ == other.__dict__

    def __hash__(self) -> int:
        return hash((type(self), *self.__dict__.values()))

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self.__dict__.items())
        return f"{type(self).__name__}({inner})"

    def __str__(self) -> str:
        return " ".join(f"{k}={v!r}" for k, v in self.__dict__.items())

    def __iter__(self) -> Iterator[tuple[str, Any]]:
        """(name, value) pairs, like a pydantic model's."""
        return iter(self.__dict__.items())

    def __reduce__(self) -> tuple[Any, ...]:
        return (_make, (type(self), dict(self.__dict__), set(self._fields_set)))


def is_record_class(t: object) -> TypeGuard[type[Record]]:
    return isinstance(t, type) and issubclass(t, Record)


# JSOPS_RECORDS_FAST=0: every validation by pydantic (to compare, or to rule the fast path out).
_FAST = os.environ.get("JSOPS_RECORDS_FAST", "1") != "0"


def _validated(cls: type[Record], data: object) -> tuple[dict[str, Any], set[str]]:
    """The values and set fields of ``cls`` validated from ``data`` (fast when it can, else pydantic)."""
    if _FAST and type(data) is dict:
        try:
            return _fast(cls, data)
        except _Unsure:
            pass
    from .to_pydantic import _from_pydantic, _to_pydantic

    done = pydantic_model(cls).model_validate(_to_pydantic(data))
    record = _from_pydantic(done)
    return record.__dict__, record._fields_set


def _dump(rec: Record, json: bool, exclude_none: bool, exclude_defaults: bool, by_alias: bool) -> dict[str, Any]:
    fields = _plan(type(rec)).fields
    out: dict[str, Any] = {}
    for name, value in rec.__dict__.items():
        spec = fields[name]
        if spec.exclude or (exclude_none and value is None):
            continue
        if exclude_defaults and not spec.is_required() and value == spec.get_default(call_default_factory=True):
            continue
        key = spec.alias if by_alias and spec.alias else name
        out[key] = _dump_value(value, json, exclude_none, exclude_defaults, by_alias)
    return out


def _dump_value(value: object, json: bool, exclude_none: bool, exclude_defaults: bool, by_alias: bool) -> object:
    if isinstance(value, Record):
        return _dump(value, json, exclude_none, exclude_defaults, by_alias)
    if isinstance(value, list) or (json and isinstance(value, tuple)):
        return [_dump_value(v, json, exclude_none, exclude_defaults, by_alias) for v in value]
    if isinstance(value, tuple):
        return tuple(_dump_value(v, json, exclude_none, exclude_defaults, by_alias) for v in value)
    if isinstance(value, dict):
        return {k: _dump_value(v, json, exclude_none, exclude_defaults, by_alias) for k, v in value.items()}
    if json and isinstance(value, enum.Enum):
        return value.value
    if json and isinstance(value, datetime):
        text = value.isoformat()
        return text[:-6] + "Z" if text.endswith("+00:00") else text
    return value


# --- the pydantic side ----------------------------------------------------------------------------------


def validation_errors(exc: BaseException) -> list[ErrorDetails] | None:
    """The errors of a pydantic ``ValidationError`` (what a record's validation raises for bad
    input), or None for any other exception; pydantic is not imported for this."""
    core = sys.modules.get("pydantic_core")
    if core is not None and isinstance(exc, core.ValidationError):
        errors: list[ErrorDetails] = exc.errors(include_url=False)
        return errors
    return None


def pydantic_model(cls: type[Record]) -> type[BaseModel]:
    """The pydantic model of a record class: same name, fields, constraints, validators and
    messages; made on first use (with those of its module, completed together from the schema
    cache, group = the module's name; the records they refer to in other modules first)."""
    from .to_pydantic import complete

    return complete(cls)


def declared_records() -> tuple[type[Record], ...]:
    """Every public record class declared so far (by module, in declaration order)."""
    return tuple(r for records in _MODULES.values() for r in records if issubclass(r, Record))
