"""The fields of a server's config the catalog does not know (a newer nats-server's), kept where they were.

:func:`~jsops.linter.semantics.effective_json.from_api_json` reads what the catalog knows into an effective record
and returns the rest as :class:`UnknownFields`: the record's own unknown fields, and those of each nested
record (``placement``, ``republish``, ``consumer_limits``, ``mirror``, a source's ``external``, ...) and of
each element of a list of records (``sources``, a source's ``subject_transforms``), by position.
:meth:`UnknownFields.put_into` puts them back into the JSON of a record (an update request), so that an update
erases none of them. They are not compared (the catalog does not know what they mean), only carried.

A nested record, alone or in a list, gets its unknown fields back only while it is the **same** record: one
rule per record type, :data:`IDENTITIES`, applied to every nested record alike. A ``StreamSource`` (a source
or the mirror) is the one the server counts as the same (nats-server's ``StreamSource.composeIName``: its
stream name, the API prefix of its ``external``, and its filter and transforms, an empty subject read as
``>``); a ``Placement`` is its cluster; an ``ExternalStream`` its API prefix; a transform or a republish its
subjects; a ``StreamConsumerSource`` its consumer; ``consumer_limits`` is one per stream whatever its values.
So a mirror whose origin changed, a placement whose cluster changed, a source whose filter changed, is
another record: the unknown fields of the old one are not sent with it. In a list, an element is found by
its identity, not its index (a manifest may reorder, add or remove sources); among elements of the same
identity, by order. What the new JSON no longer has (a dropped source, a removed ``placement``) takes its
unknown fields with it: that is what the manifest asks for.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Final, TypeAlias

__all__ = ["ServerJson", "UnknownFields", "NO_UNKNOWN_FIELDS", "IDENTITIES", "identity"]

ServerJson: TypeAlias = "str | int | float | bool | None | list[ServerJson] | dict[str, ServerJson]"
"""A JSON value as the server writes it."""


@dataclass(frozen=True, slots=True)
class UnknownFields:
    """What one record's JSON holds that the catalog does not know, by position.

    ``fields``: the record's own unknown fields, as sent; ``inner``: per nested record field, (that record's
    identity as read, its unknown fields); ``items``: per list-of-records field, (element identity, its
    unknown fields), in the list's order; ``record``: the catalog name of the record these were read from
    (what its identity is taken by). Only what leads to an unknown field is held; an empty one is false."""

    fields: Mapping[str, ServerJson] = field(default_factory=dict)
    inner: Mapping[str, tuple[str, UnknownFields]] = field(default_factory=dict)
    items: Mapping[str, tuple[tuple[str, UnknownFields], ...]] = field(default_factory=dict)
    record: str = ""

    def __bool__(self) -> bool:
        return bool(self.fields or self.inner or self.items)

    def put_into(self, out: dict[str, ServerJson]) -> dict[str, ServerJson]:
        """``out`` (a record's JSON, known fields only) with these unknown fields put back where they were;
        a nested record or list element ``out`` no longer has, or has as another record (another identity),
        gets none. ``out`` is changed and returned; the values put are copies (a request may be changed
        without changing what was read)."""
        if self.fields:
            out.update(copy.deepcopy(dict(self.fields)))
        for name, pair in self.inner.items():
            _put_by_identity((pair,), [out.get(name)])
        for name, pairs in self.items.items():
            elements = out.get(name)
            if isinstance(elements, list):
                _put_by_identity(pairs, elements)
        return out

    def paths(self) -> list[str]:
        """Where the unknown fields are, as dotted paths (in an element of a list: ``sources[].x``), sorted;
        for a plan's text."""
        out = list(self.fields)
        out += [f"{name}.{p}" for name, (_, unknown) in self.inner.items() for p in unknown.paths()]
        out += [f"{name}[].{p}" for name, pairs in self.items.items() for _, unknown in pairs for p in unknown.paths()]
        return sorted(set(out))


NO_UNKNOWN_FIELDS: Final = UnknownFields()


def _put_by_identity(pairs: tuple[tuple[str, UnknownFields], ...], elements: list[ServerJson]) -> None:
    """Each (identity, unknown fields) of ``pairs`` into the first element of ``elements`` (records' JSON, known
    fields only) of that identity not yet given any; one of no element's identity is dropped."""
    if not pairs:
        return
    record = pairs[0][1].record  # one list (or one field) holds records of one type
    waiting: dict[str, list[UnknownFields]] = {}
    for key, unknown in pairs:
        waiting.setdefault(key, []).append(unknown)
    # every identity first: an element's identity is of its known fields, before anything is put into it
    keyed = [(element, identity(record, element)) for element in elements if isinstance(element, dict)]
    for element, key in keyed:
        queue = waiting.get(key)
        if queue:
            queue.pop(0).put_into(element)


def _subject(value: object) -> str:
    return value if isinstance(value, str) and value else ">"


def _stream_source(element: Mapping[str, ServerJson]) -> list[object]:
    """A source's or a mirror's identity as nats-server keys a source (``composeIName``)."""
    external = element.get("external")
    api = external.get("api") if isinstance(external, dict) else None
    transforms = element.get("subject_transforms")
    if isinstance(transforms, list) and transforms:
        pairs = [[_subject(t.get("src")), _subject(t.get("dest"))] for t in transforms if isinstance(t, dict)]
    else:
        pairs = [[_subject(element.get("filter_subject")), ">"]]
    return [element.get("name"), api, pairs]


def _of(*names: str) -> Callable[[Mapping[str, ServerJson]], list[object]]:
    """The identity made of the known fields ``names`` (none: one such record per place, whatever its values)."""

    def key(element: Mapping[str, ServerJson]) -> list[object]:
        return [element.get(n) for n in names]

    return key


IDENTITIES: Final[Mapping[str, Callable[[Mapping[str, ServerJson]], list[object]]]] = MappingProxyType(
    {
        "StreamSource": _stream_source,
        "Placement": _of("cluster"),
        "ExternalStream": _of("api"),
        "SubjectTransform": _of("src", "dest"),
        "Republish": _of("src", "dest"),
        "KeyValueRepublish": _of("src", "dest"),
        "StreamConsumerSource": _of("name"),
        "StreamConsumerLimits": _of(),
    }
)
"""Per nested record type of the catalog, its identity from its known fields' JSON: what makes a record the
same one, so that it gets the unknown fields it was read with (see the module). Every nested record type has
one (a test holds this to the catalog)."""


def identity(record: str, element: Mapping[str, ServerJson]) -> str:
    """The identity of ``element`` (its known fields' JSON), a record of catalog type ``record`` (see the module)."""
    return json.dumps(IDENTITIES[record](element), sort_keys=True, separators=(",", ":"))
