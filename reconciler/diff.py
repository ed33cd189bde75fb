"""Normalisation and field-level diff of desired versus live configs (pure functions).

Both sides are typed records (:mod:`jsops.reconciler.configs`): the desired side the linter's effective
config, the live side what the server returned, read at the edge. They are compared field by field in the
catalog's order; ``_nats.*`` metadata and jsops's own bookkeeping keys are left out, set-valued fields
(subject lists) are compared as sets, and a zero value equals an absent one (the server omits them). The
fields of a newer release the catalog does not know are not compared: jsops cannot declare them, and an
update sends them back as the server holds them.

A :class:`Change` knows the catalog field it changes (:attr:`Change.field`: its unit, its update
class); its values are JSON values as the server writes them.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeAlias

from jsops.linter import RESET_FIELDS, EffectiveConsumer, ServerJson, api_json, classify_change
from jsops.linter.semantics import catalog

from .configs import Config
from .live import CONTEXT, ESTATE, MANAGED_BY, REPO, RESUME, SOURCE, is_bookkeeping
from .server_apis import canonical_time
from .vocabulary import ChangeClass

__all__ = [
    "Change",
    "JsonValue",
    "catalog_field",
    "normalise",
    "diff_configs",
    "restore_start",
    "BOOKKEEPING_KEYS",
    "SET_FIELDS",
    "START_FIELDS",
]

BOOKKEEPING_KEYS = (MANAGED_BY, SOURCE, RESUME, CONTEXT, ESTATE, REPO)
# lists whose order does not matter: the field catalog's; a consumer's start (refused as an update; the
# reset API changes it)
SET_FIELDS = tuple(dict.fromkeys((*catalog.set_valued("Stream"), *catalog.set_valued("Consumer"))))
START_FIELDS = RESET_FIELDS


JsonValue: TypeAlias = ServerJson
"""A value of a config in the server's JSON shape (nanoseconds, bytes, RFC 3339 times as strings)."""


def catalog_field(kind: str, path: str) -> catalog.Field | None:
    """The catalog field a change path of ``kind`` is in: ``max_age`` -> Stream's ``max_age``,
    ``metadata.io.jsops.source`` -> ``metadata``; None for a path outside the kind's record (such as
    ``stream.metadata...``, the stream's bookkeeping changed with a consumer)."""
    record = catalog.RECORDS.get(kind)
    top = path.split(".", 1)[0]
    return record[top] if record is not None and top in record else None


@dataclass(frozen=True)
class Change:
    """One field of one object, from ``old`` (live) to ``new`` (desired); ``field`` is its catalog
    entry (:func:`catalog_field`), None for a path outside the object's record."""

    path: str
    old: JsonValue
    new: JsonValue
    cls: ChangeClass
    consequence: str
    field: catalog.Field | None

    def __post_init__(self) -> None:
        object.__setattr__(self, "cls", ChangeClass(self.cls))

    @classmethod
    def of(cls, kind: str, path: str, old: JsonValue, new: JsonValue, change: ChangeClass, consequence: str) -> Change:
        """The change of ``path`` of a ``kind`` object, with its catalog field."""
        return cls(path, old, new, change, consequence, catalog_field(kind, path))

    @property
    def unit(self) -> catalog.Unit | None:
        """How the values are measured (the catalog field's unit); None outside the catalog."""
        return self.field.unit if self.field is not None else None

    def to_json(self) -> dict[str, JsonValue]:
        return {
            "path": self.path,
            "from": self.old,
            "to": self.new,
            "class": self.cls.value,
            "consequence": self.consequence,
        }


def normalise(kind: str, config: Config) -> dict[str, JsonValue]:
    """The comparable form of a config (either side), field by field in the catalog's order, each in the
    server's JSON shape: a zero value left out, jsops's bookkeeping and the server's ``_nats.*`` metadata
    left out, a set-valued field sorted."""
    # The record's fields as JSON values in the catalog's order, a zero omitempty field left out: a field
    # it leaves out is empty here too (an empty metadata as well).
    sent = api_json(config)
    sets = _set_valued(kind)
    out: dict[str, JsonValue] = {}
    for name, value in sent.items():
        if name == "metadata":
            value = {
                k: v
                for k, v in config.metadata.items()
                if not k.startswith("_nats.") and k not in BOOKKEEPING_KEYS and not is_bookkeeping(k)
            }
        if not value and _empty(value):  # a true value is never empty: most fields stop there
            continue
        if name in sets and isinstance(value, list):
            value = sorted({str(v) for v in value})
        out[name] = value
    if isinstance(config, EffectiveConsumer):
        resume = config.metadata.get(RESUME)
        if resume:
            # Recreated at its old position, or reset (2.14+): compare with the start the manifest asked for.
            restore_start(out, resume, keep=lambda v: not _empty(v))
        if config.pause_until:
            out["pause_until"] = canonical_time(config.pause_until)  # the pause API stores UTC
    return out


@functools.cache
def _set_valued(kind: str) -> frozenset[str]:
    return frozenset(f.name for f in catalog.RECORDS[kind].fields if f.set_valued)


def restore_start(cfg: dict[str, JsonValue], resume: object, keep: Callable[[object], bool]) -> None:
    """Put back into ``cfg`` the start options the manifest asked for, saved as JSON in the
    ``RESUME`` metadata when jsops recreated or reset the consumer at its old position; the
    start fields whose saved value ``keep`` rejects are left out. Nothing changes when the
    saved value is not a JSON object."""
    try:
        start = json.loads(resume) if isinstance(resume, str) else None
    except ValueError:
        start = None
    if isinstance(start, dict):
        for f in START_FIELDS:
            cfg.pop(f, None)
            if keep(start.get(f)):
                cfg[f] = start[f]


def _empty(v: object) -> bool:
    """The zero values the server leaves out of its JSON (``omitempty``)."""
    if v is None or v is False:
        return True
    t = type(v)  # the plain JSON types first: this runs for every field of every object of a plan
    if t is str or t is list or t is dict:
        return not v
    if t is int:
        return bool(v == 0)
    return False


def diff_configs(kind: str, live: Config, desired: Config) -> list[Change]:
    """Field changes that turn ``live`` into ``desired``, each classified."""
    a, b = normalise(kind, live), normalise(kind, desired)
    changes: list[Change] = []
    if a == b:  # in sync (most objects of most plans)
        return changes
    shown_live, shown_desired = api_json(live), api_json(desired)
    for key in sorted(set(a) | set(b)):
        old, new = a.get(key), b.get(key)
        if old == new:
            continue
        c = classify_change(kind, key, old, new)
        # Show the compared value; a zero value the normalisation dropped is shown as the server writes it.
        shown_old = old if key in a else shown_live.get(key)
        shown_new = new if key in b else shown_desired.get(key)
        changes.append(Change.of(kind, key, shown_old, shown_new, ChangeClass(c.cls), c.consequence))
    return changes
