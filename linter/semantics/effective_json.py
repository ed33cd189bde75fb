"""The server's JSON back into effective records: the inverse of
:func:`~jsops.linter.semantics.effective_types.api_json`.

A config the server returns (``STREAM.INFO``'s ``config``, a consumer's, a saved plan's) is read once,
at the edge, into the record of its kind, field by field from the catalog: a field the JSON leaves out
(``omitempty``) gets its zero value (``None`` where the record's field is optional, else 0, false,
empty), a nested record its record, a list a tuple. What the catalog does not know (a field of a newer
server release) is returned beside the record, untouched, so an update can send it back
(:func:`from_api_json`); ``api_json(record) | extra`` is the JSON again.

No validation: the server wrote it. A value of the wrong JSON type is kept as it came.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Final, TypeAlias

from . import catalog
from .effective_types import EFFECTIVE_RECORDS, EMPTY_METADATA, EffectiveConsumer, EffectiveRecord, EffectiveStream

__all__ = ["ServerJson", "from_api_json", "stream_from_api_json", "consumer_from_api_json"]

ServerJson: TypeAlias = "str | int | float | bool | None | list[ServerJson] | dict[str, ServerJson]"
"""A JSON value as the server writes it."""


def _zero(annotation: str) -> object:
    """The value of a field its JSON leaves out, from the effective class's annotation."""
    if annotation.endswith("| None"):
        return None
    if annotation == "int":
        return 0
    if annotation == "bool":
        return False
    if annotation == "str":
        return ""
    if annotation.startswith("tuple["):
        return ()
    if annotation.startswith("Mapping["):
        return EMPTY_METADATA
    if annotation in EFFECTIVE_CLASS_NAMES:
        make: Callable[[], EffectiveRecord] = EFFECTIVE_CLASS_NAMES[annotation]
        return make()
    return None  # an enum: its default below


EFFECTIVE_CLASS_NAMES: Final[Mapping[str, type[EffectiveRecord]]] = MappingProxyType({cls.__name__: cls for cls in EFFECTIVE_RECORDS.values()})


def _layout(name: str) -> tuple[tuple[str, str | None, bool, object], ...]:
    """Per field of catalog record ``name``: (field, nested record, many, zero value)."""
    cls = EFFECTIVE_RECORDS[name]
    out = []
    for f in catalog.RECORDS[name].fields:
        note = cls.__annotations__[f.name]
        text = str(getattr(note, "__forward_arg__", note))
        zero = _zero(text)
        if zero is None and not text.endswith("| None"):
            zero = f.default  # an enum the JSON leaves out: the catalog's default (Go's zero value)
        out.append((f.name, f.record, f.many, zero))
    return tuple(out)


_LAYOUTS: Final = {name: _layout(name) for name in EFFECTIVE_RECORDS}
_NAMES: Final = {name: frozenset(f.name for f in catalog.RECORDS[name].fields) for name in EFFECTIVE_RECORDS}


def _value(nested: str | None, many: bool, zero: object, raw: object) -> object:
    if raw is None:
        return zero
    if nested is not None:
        if many:
            return tuple(_record(nested, v)[0] for v in raw) if isinstance(raw, list) else zero
        return _record(nested, raw)[0] if isinstance(raw, dict) else zero
    if many or isinstance(raw, list):
        return tuple(raw) if isinstance(raw, list) else zero
    if isinstance(raw, dict):
        return MappingProxyType(dict(raw)) if raw else EMPTY_METADATA
    return raw


def _record(name: str, data: object) -> tuple[EffectiveRecord, dict[str, ServerJson]]:
    src: Mapping[str, ServerJson] = data if isinstance(data, dict) else {}
    values = [_value(nested, many, zero, src.get(field)) for field, nested, many, zero in _LAYOUTS[name]]
    known = _NAMES[name]
    extra: dict[str, ServerJson] = {k: v for k, v in src.items() if k not in known}
    make: Callable[..., EffectiveRecord] = EFFECTIVE_RECORDS[name]  # the fields in the record's order
    return make(*values), extra


def from_api_json(kind: str, data: Mapping[str, object]) -> tuple[EffectiveStream | EffectiveConsumer, dict[str, ServerJson]]:
    """The effective record of a ``kind`` (``"Stream"``/``"Consumer"``) config in the server's JSON,
    and the top-level fields the catalog does not know (a newer release's), as sent."""
    record, extra = _record(kind, dict(data))
    if not isinstance(record, (EffectiveStream, EffectiveConsumer)):
        raise TypeError(f"{kind} is not a config kind")
    return record, extra


def stream_from_api_json(data: Mapping[str, object]) -> tuple[EffectiveStream, dict[str, ServerJson]]:
    """:func:`from_api_json` of a stream config."""
    record, extra = _record("Stream", dict(data))
    assert isinstance(record, EffectiveStream)
    return record, extra


def consumer_from_api_json(data: Mapping[str, object]) -> tuple[EffectiveConsumer, dict[str, ServerJson]]:
    """:func:`from_api_json` of a consumer config."""
    record, extra = _record("Consumer", dict(data))
    assert isinstance(record, EffectiveConsumer)
    return record, extra
