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
import typing
from collections.abc import Callable, Iterator, Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal, Self, TypeGuard, TypeVar, get_args, get_origin

from typing_extensions import dataclass_transform

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

_R = TypeVar("_R", bound="Record")


class _Marker:
    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


_STRICT = _Marker("Strict")
_AWARE = _Marker("Aware")


class Before:
    """A hook run on the input before the type's own validation (pydantic's ``BeforeValidator``)."""

    __slots__ = ("func",)

    def __init__(self, func: Callable[[Any], Any]) -> None:
        self.func = func

    def __repr__(self) -> str:
        return f"Before({self.func.__name__})"

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> Any:
        """In a model of pydantic's own (a plugin's, a test's): what ``BeforeValidator`` does."""
        from pydantic import BeforeValidator

        return BeforeValidator(self.func).__get_pydantic_core_schema__(source, handler)


StrictStr = Annotated[str, _STRICT]
StrictInt = Annotated[int, _STRICT]
StrictBool = Annotated[bool, _STRICT]
AwareDatetime = Annotated[datetime, _AWARE]

_MISSING: Any = type("_MissingType", (), {"__repr__": lambda self: "MISSING"})()
_CONSTRAINTS = ("ge", "gt", "le", "lt", "min_length", "max_length", "pattern")


class _Decl:
    """What :func:`option` returns: a field's default and settings, read when the class is made."""

    __slots__ = ("default", "default_factory", "alias", "description", "validate_default", "exclude", "constraints", "field_info")

    def __init__(
        self,
        default: Any,
        default_factory: Callable[[], Any] | None,
        alias: str | None,
        description: str | None,
        validate_default: bool,
        exclude: bool,
        constraints: dict[str, Any],
    ) -> None:
        self.field_info: Any = None  # a pydantic FieldInfo it was read from
        self.default = default
        self.default_factory = default_factory
        self.alias = alias
        self.description = description
        self.validate_default = validate_default
        self.exclude = exclude
        self.constraints = constraints


def option(
    default: Any = _MISSING,
    *,
    default_factory: Callable[[], Any] | None = None,
    alias: str | None = None,
    description: str | None = None,
    validate_default: bool = False,
    exclude: bool = False,
    ge: float | None = None,
    gt: float | None = None,
    le: float | None = None,
    lt: float | None = None,
    min_length: int | None = None,
    max_length: int | None = None,
    pattern: str | None = None,
) -> Any:
    """A field's settings (pydantic's ``Field`` with the same names)."""
    given = {"ge": ge, "gt": gt, "le": le, "lt": lt, "min_length": min_length, "max_length": max_length, "pattern": pattern}
    return _Decl(default, default_factory, alias, description, validate_default, exclude, {k: v for k, v in given.items() if v is not None})


def _is_field_info(value: Any) -> bool:
    """A pydantic ``Field(...)`` (what rule plugins written for pydantic options declare)."""
    return type(value).__name__ == "FieldInfo" and type(value).__module__ == "pydantic.fields"


def _from_field_info(info: Any) -> _Decl:
    """The declaration of a pydantic ``Field``: kept whole for the pydantic model; the fast
    validator judges it only when all its constraints are ones it knows."""
    from pydantic_core import PydanticUndefined

    constraints: dict[str, Any] = {}
    for meta in info.metadata:
        known = {k: getattr(meta, k) for k in _CONSTRAINTS if getattr(meta, k, None) is not None}
        if not known or set(vars(meta) if hasattr(meta, "__dict__") else known) - set(known):
            constraints["unknown"] = meta  # judged by pydantic only
        constraints.update(known)
    default = _MISSING if info.default is PydanticUndefined else info.default
    decl = _Decl(default, info.default_factory, info.alias, info.description, bool(info.validate_default), bool(info.exclude), constraints)
    decl.field_info = info
    return decl


class FieldSpec:
    """One field of a record (the parts of pydantic's ``FieldInfo`` the code reads)."""

    __slots__ = (
        "name",
        "annotation",
        "declared",
        "default",
        "default_factory",
        "alias",
        "description",
        "validate_default",
        "exclude",
        "constraints",
        "field_info",
    )

    def __init__(self, name: str, declared: Any, decl: _Decl) -> None:
        self.name = name
        self.declared = declared  # the annotation as written (Annotated kept)
        # like FieldInfo.annotation: an outer Annotated is unwrapped into the field's settings
        self.annotation = get_args(declared)[0] if get_origin(declared) is Annotated else declared
        self.default = decl.default
        self.default_factory = decl.default_factory
        self.alias = decl.alias
        self.description = decl.description
        self.validate_default = decl.validate_default
        self.exclude = decl.exclude
        self.constraints = decl.constraints
        self.field_info = decl.field_info

    def is_required(self) -> bool:
        return self.default is _MISSING and self.default_factory is None

    def get_default(self, *, call_default_factory: bool = False) -> Any:
        if self.default_factory is not None:
            return self.default_factory() if call_default_factory else None
        return None if self.default is _MISSING else self.default

    def __repr__(self) -> str:
        return f"FieldSpec({self.name}: {self.declared!r})"


class _Unsure(Exception):
    """The fast validator cannot judge this input exactly: pydantic decides."""


class _RecordMeta(type):
    """Takes the fields' defaults out of the class body (they live in :class:`FieldSpec`)."""

    def __new__(mcls, name: str, bases: tuple[type, ...], ns: dict[str, Any], **kwargs: Any) -> _RecordMeta:
        raw = ns.get("__annotations__", {})
        decls: dict[str, tuple[Any, _Decl]] = {}
        for base in reversed(bases):
            decls.update(getattr(base, "_decls", {}))
        for field_name, ann in raw.items():
            if field_name.startswith("_") or (isinstance(ann, str) and ann.startswith(("ClassVar", "typing.ClassVar"))) or get_origin(ann) is ClassVar:
                continue
            value = ns.pop(field_name, _MISSING)
            if isinstance(value, _Decl):
                decl = value
            elif _is_field_info(value):
                decl = _from_field_info(value)
            else:
                decl = _Decl(value, None, None, None, False, False, {})
            decls[field_name] = (ann, decl)
        ns["_decls"] = decls
        ns.setdefault("__slots__", ())
        cls = super().__new__(mcls, name, bases, ns, **kwargs)
        if not name.startswith("_") and name != "Record":
            _MODULES.setdefault(cls.__module__, []).append(cls)  # type: ignore[arg-type]  # every class made here is a Record
        return cls

    @property
    def model_fields(cls) -> dict[str, FieldSpec]:
        """The fields, in declaration order (parents' first), annotations evaluated."""
        return _plan(cls).fields  # type: ignore[arg-type]  # every class made here is a Record


_MODULES: dict[str, list[type[Record]]] = {}


@dataclass_transform(kw_only_default=True, frozen_default=True, field_specifiers=(option,))
class Record(metaclass=_RecordMeta):
    """Base of the light records (see the module's docstring)."""

    __slots__ = ("__dict__", "_fields_set")
    _decls: ClassVar[dict[str, tuple[Any, _Decl]]]
    # Settings of the pydantic model beyond extra="forbid", frozen=True (alias_generator, populate_by_name...).
    _pydantic_config: ClassVar[dict[str, Any]] = {}
    _fields_set: set[str]

    def __init__(self, **data: Any) -> None:
        values, fields_set = _validated(type(self), data)
        object.__setattr__(self, "__dict__", values)
        object.__setattr__(self, "_fields_set", fields_set)

    @classmethod
    def _pydantic_namespace(cls) -> dict[str, Any]:
        """Validators for the pydantic model (a record with validators overrides this, importing
        pydantic inside, and :meth:`_fast_check` for what its validators would refuse)."""
        return {}

    def _fast_check(self) -> bool:
        """False when the record's pydantic validators would refuse it (then pydantic decides)."""
        return True

    # --- pydantic's methods ----------------------------------------------------------------------

    @classmethod
    def model_validate(cls, obj: Any) -> Self:
        if isinstance(obj, cls):
            return obj
        values, fields_set = _validated(cls, obj)
        return _make(cls, values, fields_set)

    @classmethod
    def model_construct(cls, _fields_set: set[str] | None = None, **values: Any) -> Self:
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
        self, *, mode: Literal["python", "json"] = "python", exclude_none: bool = False, exclude_defaults: bool = False, by_alias: bool = False
    ) -> dict[str, Any]:
        return _dump(self, mode == "json", exclude_none, exclude_defaults, by_alias)

    @property
    def model_fields_set(self) -> set[str]:
        return self._fields_set

    # --- object protocol ---------------------------------------------------------------------------

    def __setattr__(self, name: str, value: Any) -> None:
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


def _make(cls: type[_R], values: dict[str, Any], fields_set: set[str]) -> _R:
    obj = cls.__new__(cls)
    object.__setattr__(obj, "__dict__", values)
    object.__setattr__(obj, "_fields_set", fields_set)
    return obj


def is_record_class(t: Any) -> TypeGuard[type[Record]]:
    return isinstance(t, type) and issubclass(t, Record)


# --- the fast validator ------------------------------------------------------------------------------

_Check = Callable[[Any], Any]


class _Plan:
    """A record class's evaluated fields, the keys its input may use and each field's check."""

    __slots__ = ("fields", "by_key", "keyed", "checks", "plain", "special", "has_validators")

    def __init__(self, cls: type[Record]) -> None:
        hints = typing.get_type_hints(cls, include_extras=True)
        self.fields = {n: FieldSpec(n, hints.get(n, ann), decl) for n, (ann, decl) in cls._decls.items()}
        config = cls._pydantic_config
        gen = config.get("alias_generator")
        self.by_key: dict[str, str] = {}
        for n, f in self.fields.items():
            if f.alias is None and gen is not None:
                f.alias = gen(n)
            if f.alias is not None and f.alias != n:
                self.by_key[f.alias] = n
                if config.get("populate_by_name"):
                    self.by_key[n] = n
            else:
                self.by_key[n] = n
        self.keyed: dict[str, tuple[str, _Check]] | None = None  # compiled on first use
        self.checks: dict[str, _Check] = {}
        # Defaults taken as they are, in field order; the fields needing more (a factory, a
        # validated default, no default) apart.
        self.plain = {n: f.default for n, f in self.fields.items() if f.default is not _MISSING and f.default_factory is None and not f.validate_default}
        self.special = [f for n, f in self.fields.items() if n not in self.plain]
        self.has_validators = any("_fast_check" in c.__dict__ for c in cls.__mro__ if c is not Record)

    def compile(self) -> dict[str, tuple[str, _Check]]:
        from .checks import _compile, _constrained

        checks: dict[str, _Check] = {}
        for name, spec in self.fields.items():
            check = _compile(spec.declared, strict=False)
            checks[name] = _constrained(check, spec.constraints) if spec.constraints else check
        self.checks = checks
        self.keyed = {key: (name, checks[name]) for key, name in self.by_key.items()}
        return self.keyed


_plans: dict[type[Record], _Plan] = {}


def _plan(cls: type[Record]) -> _Plan:
    plan = _plans.get(cls)
    if plan is None:
        plan = _plans[cls] = _Plan(cls)
    return plan


# JSOPS_RECORDS_FAST=0: every validation by pydantic (to compare, or to rule the fast path out).
_FAST = os.environ.get("JSOPS_RECORDS_FAST", "1") != "0"


def _validated(cls: type[Record], data: Any) -> tuple[dict[str, Any], set[str]]:
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


def _fast(cls: type[Record], data: dict[Any, Any]) -> tuple[dict[str, Any], set[str]]:
    plan = _plans.get(cls) or _plan(cls)
    keyed = plan.keyed or plan.compile()
    given: dict[str, Any] = {}
    for key, value in data.items():
        hit = keyed.get(key) if type(key) is str else None
        if hit is None or hit[0] in given:
            raise _Unsure
        given[hit[0]] = hit[1](value)
    if plan.special:
        return _fast_special(cls, plan, given)
    values = plan.plain.copy()
    values.update(given)
    if plan.has_validators and not _make(cls, values, set(given))._fast_check():
        raise _Unsure
    return values, set(given)


def _fast_special(cls: type[Record], plan: _Plan, given: dict[str, Any]) -> tuple[dict[str, Any], set[str]]:
    """:func:`_fast` for records with default factories, validated defaults or required fields."""
    values: dict[str, Any] = {}
    for name, spec in plan.fields.items():
        if name in given:
            values[name] = given[name]
        elif name in plan.plain:
            values[name] = spec.default
        elif spec.default_factory is not None:
            values[name] = spec.default_factory()
        elif spec.default is _MISSING:
            raise _Unsure
        else:
            values[name] = plan.checks[name](spec.default)
    if plan.has_validators and not _make(cls, values, set(given))._fast_check():
        raise _Unsure
    return values, set(given)


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


def _dump_value(value: Any, json: bool, exclude_none: bool, exclude_defaults: bool, by_alias: bool) -> Any:
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
    return tuple(r for records in _MODULES.values() for r in records)
