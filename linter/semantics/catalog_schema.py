"""What a field catalog entry is: the record types of :mod:`jsops.linter.semantics.catalog`.

A :class:`Field` holds every fact about one config field (its unit, its releases, its server default, how an
update of it behaves, its NACK and bucket names, ...); a :class:`Record` the fields of one config record in
the order of the server's JSON. The entries themselves (the field table) are in
:mod:`jsops.linter.semantics.catalog_table`; the queries over them in :mod:`jsops.linter.semantics.catalog`, which
is where every name is imported from.

This module imports only :mod:`.change_class` of jsops: bottom-layer data.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Final

from .change_class import ChangeClass

__all__ = ["Version", "Unit", "ABSENT", "Update", "Field", "Record"]

Version = tuple[int, int, int]


class Unit(str, Enum):
    """How a field's number is read and written."""

    PLAIN = "plain"  # a string, a bool, a count, an enum, a nested record
    DURATION = "duration"  # nanoseconds; Go duration strings accepted ("30s", "1h30m")
    DURATIONS = "durations"  # a list of durations (backoff)
    SIZE = "size"  # bytes; "64MiB" accepted, -1 unlimited
    TIME = "time"  # an RFC 3339 timestamp


class _Absent:
    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: Final = _Absent()
"""The server stores nothing (or an omitempty zero) for an absent field."""


@dataclass(frozen=True, slots=True)
class Update:
    """How the server treats a change of the field in an update request.

    ``change`` is the class of any change; ``sentence`` what it costs. ``tighter`` (limits only) is the
    sentence for a stricter limit; ``one_way`` booleans can be switched on (``change`` one-way) but never
    off (recreate)."""

    change: ChangeClass = ChangeClass.IN_PLACE  # in-place, one-way, recreate or forbidden
    sentence: str = "applied in place"
    tighter: str | None = None
    reset_api: bool = False  # refused as an update, but $JS.API.CONSUMER.RESET (2.14+) changes it in place


@dataclass(frozen=True, slots=True)
class Field:
    """One config field of one record."""

    name: str
    since: Version  # the first release whose server decodes the field
    unit: Unit = Unit.PLAIN
    default: Any = ABSENT
    update: Update = Update()  # applied in place
    nack: str | None = None  # the NACK CRD field name (None: not in NACK's CRD)
    bucket: Mapping[str, str] = field(default_factory=dict)  # bucket kind -> the bucket config's name for it
    set_valued: bool = False
    enum_since: Mapping[str, Version] = field(default_factory=dict)  # enum value -> first release decoding it
    record: str | None = None  # the nested record's catalog name
    many: bool = False  # a list (of records, or of values in ``unit``)
    omitempty: bool = True  # the server's JSON leaves a zero value out (a record: only when absent)
    removed: Version | None = None  # the first release that no longer decodes the field (None: every release since)

    def decoded_by(self, release: Version) -> bool:
        """Whether ``release``'s server decodes the field: from :attr:`since`, before :attr:`removed`."""
        return self.since <= release and (self.removed is None or release < self.removed)


@dataclass(frozen=True)
class Record:
    """The fields of one config record (StreamConfig, ConsumerConfig, a nested record, a bucket config)."""

    name: str
    fields: tuple[Field, ...]

    def __post_init__(self) -> None:
        names = [f.name for f in self.fields]
        if len(names) != len(set(names)):
            raise ValueError(f"catalog {self.name}: a field is declared twice")

    def __getitem__(self, name: str) -> Field:
        for f in self.fields:
            if f.name == name:
                return f
        raise KeyError(f"{self.name}.{name}")

    def __contains__(self, name: object) -> bool:
        return any(f.name == name for f in self.fields)

    def names(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.fields)
