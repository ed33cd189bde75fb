"""The server's JSON back into effective records: the inverse of
:func:`~jsops.linter.semantics.effective_types.api_json`.

A config the server returns (``STREAM.INFO``'s ``config``, a consumer's, a saved plan's) is read once,
at the edge, into the record of its kind, field by field from the catalog: a field the JSON leaves out
(``omitempty``) gets its zero value (``None`` where the record's field is optional, else 0, false,
empty), a nested record its record, a list a tuple. What the catalog does not know (a field of a newer
server release), at the top or inside a nested record or a list's element, is returned beside the record
as :class:`~jsops.linter.semantics.unknown_fields.UnknownFields`, untouched and where it was, so an update can
send it back (:func:`from_api_json`); ``unknown.put_into(api_json(record))`` is the JSON again.

No validation: the server wrote it. A value of the wrong JSON type is kept as it came.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Final

from . import catalog
from .effective_types import (
    EFFECTIVE_RECORDS,
    EMPTY_METADATA,
    EffectiveConsumer,
    EffectiveRecord,
    EffectiveStream,
    api_json,
)
from .unknown_fields import NO_UNKNOWN_FIELDS, ServerJson, UnknownFields, identity

__all__ = ["KNOWN_FIELDS", "ServerJson", "from_api_json", "stream_from_api_json", "consumer_from_api_json"]


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


EFFECTIVE_CLASS_NAMES: Final[Mapping[str, type[EffectiveRecord]]] = MappingProxyType(
    {cls.__name__: cls for cls in EFFECTIVE_RECORDS.values()}
)


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
KNOWN_FIELDS: Final[dict[str, frozenset[str]]] = {
    name: frozenset(f.name for f in catalog.RECORDS[name].fields) for name in EFFECTIVE_RECORDS
}
"""Per record, the fields this reader knows (the catalog's); the rest is returned as unknown. A test narrows
one record's set to read as a jsops whose catalog did not know a field yet (the record then holds its zero
value): what a server of a newer release sends to this one."""


def _value(
    nested: str | None, many: bool, zero: object, raw: object
) -> tuple[object, tuple[tuple[str, UnknownFields], ...] | None]:
    """A field's value from its JSON ``raw``, and the unknown fields inside it (per nested record, or per
    element of a list of records: (its identity, its unknown fields)), None when there are none."""
    if raw is None:
        return zero, None
    if nested is not None:
        if many:
            if not isinstance(raw, list):
                return zero, None
            read = [_record(nested, v) for v in raw]
            pairs = tuple((identity(nested, api_json(r)), u) for r, u in read if u)
            return tuple(r for r, _ in read), pairs or None
        if not isinstance(raw, dict):
            return zero, None
        record, unknown = _record(nested, raw)
        return record, ((identity(nested, api_json(record)), unknown),) if unknown else None
    if many or isinstance(raw, list):
        return (tuple(raw) if isinstance(raw, list) else zero), None
    if isinstance(raw, dict):
        return (MappingProxyType(dict(raw)) if raw else EMPTY_METADATA), None
    return raw, None


_SCALARS: Final = frozenset({str, int, float, bool})


def _record(name: str, data: object) -> tuple[EffectiveRecord, UnknownFields]:
    src: Mapping[str, ServerJson] = data if isinstance(data, dict) else {}
    known = KNOWN_FIELDS[name]
    values = []
    inner: dict[str, tuple[str, UnknownFields]] = {}
    items: dict[str, tuple[tuple[str, UnknownFields], ...]] = {}
    for field, nested, many, zero in _LAYOUTS[name]:
        raw = src.get(field)
        if raw is None or field not in known:
            values.append(zero)
            continue
        if nested is None and not many and type(raw) in _SCALARS:  # most fields: the value as it came
            values.append(raw)
            continue
        value, within = _value(nested, many, zero, raw)
        values.append(value)
        if within is not None and many:
            items[field] = within
        elif within is not None:
            inner[field] = within[0]
    fields: dict[str, ServerJson] = {k: v for k, v in src.items() if k not in known}
    make: Callable[..., EffectiveRecord] = EFFECTIVE_RECORDS[name]  # the fields in the record's order
    unknown = UnknownFields(fields, inner, items, name) if fields or inner or items else NO_UNKNOWN_FIELDS
    return make(*values), unknown


def from_api_json(kind: str, data: Mapping[str, object]) -> tuple[EffectiveStream | EffectiveConsumer, UnknownFields]:
    """The effective record of a ``kind`` (``"Stream"``/``"Consumer"``) config in the server's JSON,
    and the fields the catalog does not know (a newer release's), at any depth, where they were."""
    record, extra = _record(kind, dict(data))
    if not isinstance(record, (EffectiveStream, EffectiveConsumer)):
        raise TypeError(f"{kind} is not a config kind")
    return record, extra


def stream_from_api_json(data: Mapping[str, object]) -> tuple[EffectiveStream, UnknownFields]:
    """:func:`from_api_json` of a stream config."""
    record, extra = _record("Stream", dict(data))
    assert isinstance(record, EffectiveStream)
    return record, extra


def consumer_from_api_json(data: Mapping[str, object]) -> tuple[EffectiveConsumer, UnknownFields]:
    """:func:`from_api_json` of a consumer config."""
    record, extra = _record("Consumer", dict(data))
    assert isinstance(record, EffectiveConsumer)
    return record, extra
