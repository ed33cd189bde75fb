"""The fast validator of :mod:`jsops.linter.model.records.record`: one check per annotation, returning the
validated value or raising ``_Unsure`` (then pydantic decides). A check accepts only inputs it
judges exactly as pydantic would. A field that is a record is validated here too (:func:`_fast` on
its declaration), so the recursion stays in this module."""

from __future__ import annotations

import enum
import re
import types
from collections.abc import Callable
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from .declaration import (
    _AWARE,
    _MISSING,
    _STRICT,
    Before,
    RecordBase,
    _Check,
    _is_declared,
    _make,
    _Plan,
    _plan,
    _plans,
    _Unsure,
)

__all__: list[str] = []


def _unsure(value: object) -> object:
    raise _Unsure


def _exact(kind: type) -> _Check:
    def check(value: object) -> object:
        if type(value) is kind:
            return value
        raise _Unsure

    return check


def _keyed(plan: _Plan) -> dict[str, tuple[str, _Check]]:
    """The checks of a record's fields, by the keys its input may use (made once, kept on the plan)."""
    checks: dict[str, _Check] = {}
    for name, spec in plan.fields.items():
        check = _compile(spec.declared, strict=False)
        checks[name] = _constrained(check, spec.constraints) if spec.constraints else check
    plan.checks = checks
    plan.keyed = {key: (name, checks[name]) for key, name in plan.by_key.items()}
    return plan.keyed


def _fast(cls: type[RecordBase], data: dict[Any, Any]) -> tuple[dict[str, Any], set[str]]:
    plan = _plans.get(cls) or _plan(cls)
    keyed = plan.keyed or _keyed(plan)
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


def _fast_special(cls: type[RecordBase], plan: _Plan, given: dict[str, Any]) -> tuple[dict[str, Any], set[str]]:
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


def _compile(t: object, *, strict: bool) -> _Check:
    """The check of one annotation: the validated value, or :class:`_Unsure`."""
    if t is Any:
        return lambda v: v
    if t is type(None):
        return _exact(type(None))
    generic = _GENERICS.get(get_origin(t))
    if generic is not None:
        return generic(t, strict)
    if t in (str, int, bool, float):
        return _exact(t)
    if isinstance(t, type) and issubclass(t, enum.Enum):
        return _enum(t)
    if _is_declared(t):
        return _nested(t)
    return _unsure


def _annotated(t: object, strict: bool) -> _Check:
    """``Annotated[X, ...]``: X's check, strict with :data:`_STRICT`, after its before-validators."""
    base, *meta = get_args(t)
    if _AWARE in meta:
        return _unsure
    inner = _compile(base, strict=strict or _STRICT in meta)
    hooks = [m.func for m in meta if isinstance(m, Before)]
    if not hooks:
        return inner
    return _before(hooks, inner)


def _union_of(t: object, strict: bool) -> _Check:
    """``X | None`` or a union of several."""
    args = get_args(t)
    others = [a for a in args if a is not type(None)]
    if len(others) == 1:
        return _optional(_compile(others[0], strict=strict))
    return _union([_compile(a, strict=strict) for a in args], type(None) in args)


def _literal_of(t: object, strict: bool) -> _Check:
    return _literal(get_args(t))


def _list_of(t: object, strict: bool) -> _Check:
    item = _compile(get_args(t)[0], strict=strict)
    return lambda v: [item(x) for x in v] if type(v) is list else _unsure(v)


def _tuple_of(t: object, strict: bool) -> _Check:
    """``tuple[X, ...]`` (from a list or a tuple); a fixed-length tuple is not checked here."""
    args = get_args(t)
    if len(args) != 2 or args[1] is not Ellipsis:
        return _unsure
    member = _compile(args[0], strict=strict)
    return lambda v: tuple(member(x) for x in v) if type(v) is list or type(v) is tuple else _unsure(v)


def _dict_of(t: object, strict: bool) -> _Check:
    key, val = (_compile(a, strict=strict) for a in get_args(t))
    return lambda v: {key(k): val(x) for k, x in v.items()} if type(v) is dict else _unsure(v)


_GENERICS: dict[object, Callable[[object, bool], _Check]] = {
    Annotated: _annotated,
    Union: _union_of,
    types.UnionType: _union_of,
    Literal: _literal_of,
    list: _list_of,
    tuple: _tuple_of,
    dict: _dict_of,
}
"""The check of a generic annotation, by its origin (:func:`typing.get_origin`)."""


def _before(hooks: list[Callable[[Any], Any]], inner: _Check) -> _Check:
    def check(value: object) -> object:
        for hook in reversed(hooks):  # pydantic runs the last-declared before validator first
            try:
                value = hook(value)
            except Exception:  # pydantic words the error (or lets it through)
                raise _Unsure from None
        return inner(value)

    return check


def _optional(inner: _Check) -> _Check:
    """``X | None``."""

    def check(value: object) -> object:
        return None if value is None else inner(value)

    return check


def _union(members: list[_Check], optional: bool) -> _Check:
    def check(value: object) -> object:
        if value is None and optional:
            return None
        hits = []
        for member in members:
            try:
                hits.append(member(value))
            except _Unsure:
                continue
        if len(hits) != 1:
            raise _Unsure
        return hits[0]

    return check


def _literal(choices: tuple[Any, ...]) -> _Check:
    if all(type(c) is str for c in choices):
        strings = frozenset(choices)

        def check_str(value: object) -> object:
            if type(value) is str and value in strings:
                return value
            raise _Unsure

        return check_str

    def check(value: object) -> object:
        for choice in choices:
            if type(value) is type(choice) and value == choice:
                return choice
        raise _Unsure

    return check


def _enum(kind: type[enum.Enum]) -> _Check:
    by_value = {m.value: m for m in kind}

    def check(value: object) -> object:
        if type(value) is kind:
            return value
        if type(value) is str and value in by_value and all(type(v) is str for v in by_value):
            return by_value[value]
        raise _Unsure

    return check


def _nested(kind: type[RecordBase]) -> _Check:
    def check(value: object) -> object:
        if type(value) is kind:
            return value
        if type(value) is dict:
            return _make(kind, *_fast(kind, value))
        raise _Unsure

    return check


def _constrained(inner: _Check, constraints: dict[str, Any]) -> _Check:
    pattern = re.compile(constraints["pattern"]) if "pattern" in constraints else None

    def check(value: object) -> object:
        value = inner(value)
        if value is None:
            return None
        if not _within(value, constraints, pattern):
            raise _Unsure
        return value

    return check


def _within(value: object, c: dict[str, Any], pattern: re.Pattern[str] | None) -> bool:
    if "unknown" in c:
        return False
    if type(value) is int or type(value) is float:
        return (
            ("ge" not in c or value >= c["ge"])
            and ("gt" not in c or value > c["gt"])
            and ("le" not in c or value <= c["le"])
            and ("lt" not in c or value < c["lt"])
            and not ({"min_length", "max_length", "pattern"} & set(c))
        )
    if type(value) is str:
        return (
            ("min_length" not in c or len(value) >= c["min_length"])
            and ("max_length" not in c or len(value) <= c["max_length"])
            and (pattern is None or ("\n" not in value and pattern.search(value) is not None))
            and not ({"ge", "gt", "le", "lt"} & set(c))
        )
    return False
