"""The fields of a server's config the catalog does not know (a newer nats-server's), kept where they were.

:func:`~jsops.linter.semantics.effective_json.from_api_json` reads what the catalog knows into an effective record
and returns the rest as :class:`UnknownFields`: the record's own unknown fields, and those of each nested
record (``placement``, ``republish``, ``consumer_limits``, ``mirror``, a source's ``external``, ...) and of
each element of a list of records (``sources``, a source's ``subject_transforms``), by position.
:meth:`UnknownFields.put_into` puts them back into the JSON of a record (an update request), so that an update
erases none of them. They are not compared (the catalog does not know what they mean), only carried.

A nested record is found again by its field; an element of a list by its **identity**, not its index (a
manifest may reorder, add or remove sources): a source is the one the server counts as the same source
(nats-server's ``StreamSource.composeIName``: its stream name, the API prefix of its ``external``, and its
filter and transforms, an empty subject read as ``>``; so a source whose filter changed is another source
to the server, and its unknown fields are not carried over to it); any other record by its known fields. Among
elements of the same identity, by order. What the new JSON no longer has (a dropped source, a removed
``placement``) takes its unknown fields with it: that is what the manifest asks for.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Final, TypeAlias

__all__ = ["ServerJson", "UnknownFields", "NO_UNKNOWN_FIELDS", "element_identity"]

ServerJson: TypeAlias = "str | int | float | bool | None | list[ServerJson] | dict[str, ServerJson]"
"""A JSON value as the server writes it."""


@dataclass(frozen=True, slots=True)
class UnknownFields:
    """What one record's JSON holds that the catalog does not know, by position.

    ``fields``: the record's own unknown fields, as sent; ``inner``: per nested record field, its unknown
    fields; ``items``: per list-of-records field, (element identity, its unknown fields), in the list's order.
    Only what leads to an unknown field is held; an empty one is false."""

    fields: Mapping[str, ServerJson] = field(default_factory=dict)
    inner: Mapping[str, UnknownFields] = field(default_factory=dict)
    items: Mapping[str, tuple[tuple[str, UnknownFields], ...]] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.fields or self.inner or self.items)

    def put_into(self, out: dict[str, ServerJson]) -> dict[str, ServerJson]:
        """``out`` (a record's JSON, known fields only) with these unknown fields put back where they were;
        a nested record or list element ``out`` no longer has gets none. ``out`` is changed and returned; the
        values put are copies (a request may be changed without changing what was read)."""
        if self.fields:
            out.update(copy.deepcopy(dict(self.fields)))
        for name, unknown in self.inner.items():
            nested = out.get(name)
            if isinstance(nested, dict):
                unknown.put_into(nested)
        for name, pairs in self.items.items():
            elements = out.get(name)
            if not isinstance(elements, list):
                continue
            waiting: dict[str, list[UnknownFields]] = {}
            for identity, unknown in pairs:
                waiting.setdefault(identity, []).append(unknown)
            # every identity first: an element's identity is of its known fields, before anything is put into it
            keyed = [(element, element_identity(name, element)) for element in elements if isinstance(element, dict)]
            for element, identity in keyed:
                queue = waiting.get(identity)
                if queue:
                    queue.pop(0).put_into(element)
        return out

    def paths(self) -> list[str]:
        """Where the unknown fields are, as dotted paths (in an element of a list: ``sources[].x``), sorted;
        for a plan's text."""
        out = list(self.fields)
        out += [f"{name}.{p}" for name, unknown in self.inner.items() for p in unknown.paths()]
        out += [f"{name}[].{p}" for name, pairs in self.items.items() for _, unknown in pairs for p in unknown.paths()]
        return sorted(set(out))


NO_UNKNOWN_FIELDS: Final = UnknownFields()


def _subject(value: object) -> str:
    return value if isinstance(value, str) and value else ">"


def _source(element: Mapping[str, ServerJson]) -> list[object]:
    """A source's identity as nats-server keys it (``composeIName``)."""
    external = element.get("external")
    api = external.get("api") if isinstance(external, dict) else None
    transforms = element.get("subject_transforms")
    if isinstance(transforms, list) and transforms:
        pairs = [[_subject(t.get("src")), _subject(t.get("dest"))] for t in transforms if isinstance(t, dict)]
    else:
        pairs = [[_subject(element.get("filter_subject")), ">"]]
    return [element.get("name"), api, pairs]


# list-of-records field -> the identity of one element (not listed: all its known fields)
_IDENTITIES: Final[Mapping[str, Callable[[Mapping[str, ServerJson]], list[object]]]] = MappingProxyType({"sources": _source})


def element_identity(field_name: str, element: Mapping[str, ServerJson]) -> str:
    """The identity of ``element`` (its known fields' JSON) of the list ``field_name`` (see the module)."""
    of = _IDENTITIES.get(field_name)
    key: object = of(element) if of is not None else element
    return json.dumps(key, sort_keys=True, separators=(",", ":"))
