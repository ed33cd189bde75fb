"""A record's declaration: the bottom of the record room.

What a :class:`~jsops.linter.model.records.record.Record` class declares and nothing that runs it: the field
settings (:func:`option`, :class:`FieldSpec`, the annotation markers ``Strict``/``Aware`` and :class:`Before`),
the metaclass that reads them from the class body and keeps every record class by module, the
:class:`RecordBase` every record class derives from (its fields and its pydantic settings), and a record
class's evaluated fields (:func:`_plan`). The parts above see a record class through this module only:
:mod:`~jsops.linter.model.records.checks` (the fast validator, which validates a nested record itself),
:mod:`~jsops.linter.model.records.to_pydantic` (the pydantic model of the same declaration), and
:mod:`~jsops.linter.model.records.record` on top (the ``Record`` class, which runs them), so the room
has no import cycle.
"""

from __future__ import annotations

import typing
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, TypeGuard, TypeVar, get_args, get_origin

if TYPE_CHECKING:  # pydantic is imported only when a record falls back to it
    from pydantic import GetCoreSchemaHandler
    from pydantic.fields import FieldInfo
    from pydantic_core import CoreSchema

__all__ = ["Before", "FieldSpec", "RecordBase", "option", "StrictStr", "StrictInt", "StrictBool", "AwareDatetime"]

_R = TypeVar("_R", bound="RecordBase")


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

    def __get_pydantic_core_schema__(self, source: type[Any], handler: GetCoreSchemaHandler) -> CoreSchema:
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

    __slots__ = (
        "default",
        "default_factory",
        "alias",
        "description",
        "validate_default",
        "exclude",
        "constraints",
        "field_info",
    )

    def __init__(
        self,
        default: object,
        default_factory: Callable[[], object] | None,
        alias: str | None,
        description: str | None,
        validate_default: bool,
        exclude: bool,
        constraints: dict[str, Any],
    ) -> None:
        self.field_info: FieldInfo | None = None  # a pydantic FieldInfo it was read from
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
    given = {
        "ge": ge,
        "gt": gt,
        "le": le,
        "lt": lt,
        "min_length": min_length,
        "max_length": max_length,
        "pattern": pattern,
    }
    return _Decl(
        default,
        default_factory,
        alias,
        description,
        validate_default,
        exclude,
        {k: v for k, v in given.items() if v is not None},
    )


def _is_field_info(value: object) -> bool:
    """A pydantic ``Field(...)`` (what rule plugins written for pydantic options declare)."""
    return type(value).__name__ == "FieldInfo" and type(value).__module__ == "pydantic.fields"


def _from_field_info(info: Any) -> _Decl:  # a pydantic FieldInfo
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
    decl = _Decl(
        default,
        info.default_factory,
        info.alias,
        info.description,
        bool(info.validate_default),
        bool(info.exclude),
        constraints,
    )
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

    def __init__(self, name: str, declared: object, decl: _Decl) -> None:
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

    def get_default(self, *, call_default_factory: bool = False) -> object:
        if self.default_factory is not None:
            return self.default_factory() if call_default_factory else None
        return None if self.default is _MISSING else self.default

    def __repr__(self) -> str:
        return f"FieldSpec({self.name}: {self.declared!r})"


class _Unsure(Exception):
    """The fast validator cannot judge this input exactly: pydantic decides."""


class _RecordMeta(type):
    """Takes the fields' defaults out of the class body (they live in :class:`FieldSpec`)."""

    def __new__(mcls, name: str, bases: tuple[type, ...], ns: dict[str, Any], **kwargs: object) -> _RecordMeta:
        raw = ns.get("__annotations__", {})
        decls: dict[str, tuple[Any, _Decl]] = {}
        for base in reversed(bases):
            decls.update(getattr(base, "_decls", {}))
        for field_name, ann in raw.items():
            if (
                field_name.startswith("_")
                or (isinstance(ann, str) and ann.startswith(("ClassVar", "typing.ClassVar")))
                or get_origin(ann) is ClassVar
            ):
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
        if not name.startswith("_") and name not in ("Record", "RecordBase"):
            _MODULES.setdefault(cls.__module__, []).append(cls)  # type: ignore[arg-type]  # every class made here is a RecordBase
        return cls

    @property
    def model_fields(cls) -> dict[str, FieldSpec]:
        """The fields, in declaration order (parents' first), annotations evaluated."""
        return _plan(cls).fields  # type: ignore[arg-type]  # every class made here is a RecordBase


_MODULES: dict[str, list[type[RecordBase]]] = {}


class RecordBase(metaclass=_RecordMeta):
    """What every record class declares: its fields (read by the metaclass), the settings of its
    pydantic model and the hooks of a record with validators. :class:`~jsops.linter.model.records.record.Record`
    adds the pydantic-like methods; every record class derives from it."""

    __slots__ = ("__dict__", "_fields_set")
    _decls: ClassVar[dict[str, tuple[Any, _Decl]]]
    # Settings of the pydantic model beyond extra="forbid", frozen=True (alias_generator, populate_by_name...).
    _pydantic_config: ClassVar[dict[str, Any]] = {}
    _fields_set: set[str]

    @classmethod
    def _pydantic_namespace(cls) -> dict[str, Any]:
        """Validators for the pydantic model (a record with validators overrides this, importing
        pydantic inside, and :meth:`_fast_check` for what its validators would refuse)."""
        return {}

    def _fast_check(self) -> bool:
        """False when the record's pydantic validators would refuse it (then pydantic decides)."""
        return True


def _make(cls: type[_R], values: dict[str, Any], fields_set: set[str]) -> _R:
    obj = cls.__new__(cls)
    object.__setattr__(obj, "__dict__", values)
    object.__setattr__(obj, "_fields_set", fields_set)
    return obj


def _is_declared(t: object) -> TypeGuard[type[RecordBase]]:
    """A record class: one made by the record metaclass."""
    return isinstance(t, _RecordMeta)


_Check = Callable[[object], object]


class _Plan:
    """A record class's evaluated fields, the keys its input may use and each field's check."""

    __slots__ = ("fields", "by_key", "keyed", "checks", "plain", "special", "has_validators")

    def __init__(self, cls: type[RecordBase]) -> None:
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
        self.keyed: dict[str, tuple[str, _Check]] | None = None  # compiled on first use (checks.keyed)
        self.checks: dict[str, _Check] = {}
        # Defaults taken as they are, in field order; the fields needing more (a factory, a
        # validated default, no default) apart.
        self.plain = {
            n: f.default
            for n, f in self.fields.items()
            if f.default is not _MISSING and f.default_factory is None and not f.validate_default
        }
        self.special = [f for n, f in self.fields.items() if n not in self.plain]
        self.has_validators = any("_fast_check" in c.__dict__ for c in cls.__mro__ if c is not RecordBase)


_plans: dict[type[RecordBase], _Plan] = {}


def _plan(cls: type[RecordBase]) -> _Plan:
    plan = _plans.get(cls)
    if plan is None:
        plan = _plans[cls] = _Plan(cls)
    return plan
