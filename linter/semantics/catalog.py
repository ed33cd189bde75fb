"""The JetStream field catalog: every stream, consumer and bucket config field declared once, with what
is known about it (server-rules.md §3-§5, measured on the real binaries in tests/integration/).

A field's entry says: its unit (how a number is read and written: nanoseconds, bytes, a time), the
release that introduced it (and each enum value's) and, for a field the server dropped, the first release
that no longer decodes it, what the server stores when it is absent, how an update of it behaves (the change
class and its sentence), its NACK CRD name (and so its NACK unit spelling), its name in a KeyValue or
ObjectStore bucket config, whether it is a set (order does not matter), and whether the server's JSON writes
it even when zero (``omitempty=False``; a record's fields are in the order of the server's JSON). Everything
else is derived from these tables: the per-release field views (:mod:`jsops.linter.semantics.releases`),
update classes (:mod:`jsops.linter.semantics.updates`), server defaults (:mod:`jsops.linter.semantics.effective`),
the NACK tables (:mod:`jsops.linter.load._nack_tables`), and the units of export, plan rendering and the API
JSON loader. Adding a server field is one declaration in the field table (plus its typed model field in
:mod:`jsops.linter.model.config`, which tests hold against this catalog).

Two modules by concept, every name imported from here: what an entry is (the record types,
:mod:`.catalog_schema`) and the entries (the field table, :mod:`.catalog_table`); this module holds the queries
over them. It imports only :mod:`.change_class` and those two of jsops: bottom-layer data, like
:mod:`jsops.linter.semantics.units`.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from .catalog_schema import ABSENT, Field, Record, Unit, Update, Version
from .catalog_table import (
    CONSUMER,
    EXTERNAL,
    FIRST_RELEASE,
    KEY_VALUE,
    KEY_VALUE_REPUBLISH,
    OBJECT_STORE,
    PLACEMENT,
    RECORDS,
    REPUBLISH,
    SECOND,
    STREAM,
    STREAM_CONSUMER_LIMITS,
    STREAM_CONSUMER_SOURCE,
    STREAM_SOURCE,
    SUBJECT_TRANSFORM,
)
from .change_class import ChangeClass

__all__ = [
    "Version",
    "Unit",
    "ChangeClass",
    "Update",
    "Field",
    "Record",
    "ABSENT",
    "FIRST_RELEASE",
    "SECOND",
    "RECORDS",
    "STREAM",
    "CONSUMER",
    "STREAM_SOURCE",
    "PLACEMENT",
    "REPUBLISH",
    "KEY_VALUE_REPUBLISH",
    "SUBJECT_TRANSFORM",
    "EXTERNAL",
    "STREAM_CONSUMER_SOURCE",
    "STREAM_CONSUMER_LIMITS",
    "KEY_VALUE",
    "OBJECT_STORE",
    "record",
    "fields_with_unit",
    "leaf_units",
    "server_defaults",
    "field_since",
    "field_removed",
    "enum_since",
    "bucket_names",
    "unit_paths",
    "set_valued",
]


def record(name: str) -> Record:
    """The catalog record ``name`` (``"Stream"``, ``"Consumer"``, ``"Placement"``, ...)."""
    return RECORDS[name]


def fields_with_unit(kind: str, *units: Unit) -> frozenset[tuple[str, ...]]:
    """The paths (top-level and into nested records) of ``kind``'s fields measured in one of ``units``."""
    out: set[tuple[str, ...]] = set()

    def walk(rec: Record, prefix: tuple[str, ...], seen: frozenset[str]) -> None:
        for f in rec.fields:
            if f.unit in units:
                out.add((*prefix, f.name))
            if f.record is not None and f.record not in seen:
                walk(RECORDS[f.record], (*prefix, f.name), seen | {f.record})

    walk(RECORDS[kind], (), frozenset({kind}))
    return frozenset(out)


def leaf_units() -> Mapping[str, Unit]:
    """Field name -> unit for every field whose name has one unit in every record (what a renderer that
    sees a leaf name only can rely on); names measured differently in two records are left out."""
    seen: dict[str, set[Unit]] = {}
    for rec in RECORDS.values():
        for f in rec.fields:
            seen.setdefault(f.name, set()).add(f.unit)
    return MappingProxyType(
        {name: next(iter(units)) for name, units in seen.items() if len(units) == 1 and Unit.PLAIN not in units}
    )


def server_defaults(kind: str) -> Mapping[str, Any]:
    """What the server stores for each field of ``kind`` a config leaves out (fields with a default only)."""
    return MappingProxyType({f.name: f.default for f in RECORDS[kind].fields if f.default is not ABSENT})


def field_since(kind: str) -> dict[str, Version]:
    """Field name -> the first release whose server decodes the field, for record ``kind``."""
    return {f.name: f.since for f in RECORDS[kind].fields}


def field_removed(kind: str) -> dict[str, Version]:
    """Field name -> the first release that no longer decodes the field (a field the server dropped), for
    record ``kind``; fields every release since their own decodes are left out."""
    return {f.name: f.removed for f in RECORDS[kind].fields if f.removed is not None}


def enum_since() -> dict[tuple[str, str, str], Version]:
    """(kind, field, value) -> the first release that decodes an enum value newer than its field."""
    return {
        (rec.name, f.name, value): v
        for rec in (STREAM, CONSUMER)
        for f in rec.fields
        for value, v in f.enum_since.items()
    }


def bucket_names(bucket_kind: str) -> dict[str, str]:
    """Stream field -> the bucket config field that sets it, for ``KeyValue`` or ``ObjectStore``."""
    return {f.name: f.bucket[bucket_kind] for f in STREAM.fields if bucket_kind in f.bucket}


def unit_paths(kind: str) -> dict[tuple[str, ...], Unit]:
    """Config paths of ``kind`` whose values carry a unit, into nested records; ``"*"`` stands for a list
    index (``("sources", "*", "opt_start_time")``, ``("backoff", "*")``)."""
    out: dict[tuple[str, ...], Unit] = {}

    def walk(rec: Record, prefix: tuple[str, ...], depth: int) -> None:
        for f in rec.fields:
            here = (*prefix, f.name, "*") if f.many else (*prefix, f.name)
            if f.unit is not Unit.PLAIN:
                out[here] = f.unit
            elif f.record is not None and depth < 4:
                walk(RECORDS[f.record], here, depth + 1)

    walk(RECORDS[kind], (), 0)
    return out


def set_valued(kind: str) -> tuple[str, ...]:
    """``kind``'s top-level fields whose order does not matter (the server keeps them as given)."""
    return tuple(f.name for f in RECORDS[kind].fields if f.set_valued)
