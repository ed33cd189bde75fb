"""The field catalog (jsops.linter.semantics.catalog) is the one home of each field's facts: every field of every
config record has its entry (and nothing else does), its unit is the model's, and the tables derived from
it equal the ones jsops kept by hand before the catalog (tests/linter/semantics/data/catalog_before.json,
taken from main d2d6375: the NACK tables, the release field tables, the server defaults, the bucket names)."""

from __future__ import annotations

import json
import typing
from pathlib import Path
from typing import Any

import pytest

from jsops.linter.load import _nack_tables as nack
from jsops.linter.model import buckets, config
from jsops.linter.model.records.record import Record, is_record_class
from jsops.linter.semantics import catalog, effective, releases, updates
from jsops.linter.semantics.catalog import ABSENT, Unit

BEFORE = json.loads((Path(__file__).parent / "data" / "catalog_before.json").read_text())

# Fields the catalog declared after the hand-kept tables were taken (each measured on the binaries:
# tests/integration/test_field_releases.py).
ADDED_SINCE_THE_SNAPSHOT = frozenset({("Stream", "template_owner")})

MODELS: dict[str, type[Record]] = {
    "Stream": config.StreamConfig,
    "Consumer": config.ConsumerConfig,
    "StreamSource": config.StreamSource,
    "Placement": config.Placement,
    "Republish": config.Republish,
    "KeyValueRepublish": config.Republish,
    "SubjectTransform": config.SubjectTransform,
    "ExternalStream": config.ExternalStream,
    "StreamConsumerSource": config.StreamConsumerSource,
    "StreamConsumerLimits": config.StreamConsumerLimits,
    "KeyValue": buckets.KeyValueConfig,
    "ObjectStore": buckets.ObjectStoreConfig,
}


def _json(x: Any) -> Any:
    if isinstance(x, dict):
        return {str(k): _json(v) for k, v in x.items()}
    if isinstance(x, (tuple, list)):
        return [_json(v) for v in x]
    return x


def _hooks(ann: Any) -> set[str]:
    """The unit hooks (Duration, Size) and time types an annotation is built on."""
    found: set[str] = set()
    for meta in getattr(ann, "__metadata__", ()):
        func = getattr(meta, "func", None)
        if func is config._duration:
            found.add("duration")
        elif func is config._size:
            found.add("size")
    if ann is config.Timestamp:
        found.add("time")
    for arg in typing.get_args(ann):
        found |= _hooks(arg)
    return found


def _is_list(ann: Any) -> bool:
    return typing.get_origin(ann) is list or any(_is_list(a) for a in typing.get_args(ann) if a is not type(None))


def test_every_record_of_the_model_is_in_the_catalog() -> None:
    assert set(MODELS) == set(catalog.RECORDS)


def _reached(ann: Any) -> set[type[Record]]:
    """The records an annotation names, and every record their fields name in turn."""
    found: set[type[Record]] = set()
    todo = [ann]
    while todo:
        t = todo.pop()
        if is_record_class(t):
            if t not in found:
                found.add(t)
                todo.extend(f.annotation for f in t.model_fields.values())
        todo.extend(typing.get_args(t))
    return found


def test_the_records_reached_from_the_configs_are_the_catalogs() -> None:
    """Walks the config records (streams, consumers, buckets) through every field, so a record nested in a new
    field cannot be missing from the catalog (and from MODELS, which the other tests check field by field)."""
    roots = (config.StreamConfig, config.ConsumerConfig, buckets.KeyValueConfig, buckets.ObjectStoreConfig)
    reached = set().union(*(_reached(r) for r in roots))
    assert reached == set(MODELS.values())


@pytest.mark.parametrize("name", sorted(MODELS))
def test_every_field_has_its_entry_and_its_unit(name: str) -> None:
    model, rec = MODELS[name], catalog.record(name)
    assert set(model.model_fields) == set(rec.names()), f"{name}: the model and the catalog name different fields"
    for f in rec.fields:
        ann = model.model_fields[f.name].annotation
        hooks = _hooks(ann)
        want = {
            Unit.DURATION: {"duration"},
            Unit.DURATIONS: {"duration"},
            Unit.SIZE: {"size"},
            Unit.TIME: {"time"},
        }.get(f.unit, set())
        assert hooks == want, (
            f"{name}.{f.name}: the model reads it as {hooks or 'plain'}, the catalog says {f.unit.value}"
        )
        if f.many or f.unit is Unit.DURATIONS:
            assert _is_list(ann), f"{name}.{f.name}: the catalog says a list"
        if f.record is not None:
            assert f.record in catalog.RECORDS, f"{name}.{f.name}: no record {f.record}"


def test_the_derived_nack_tables_are_the_hand_kept_ones() -> None:
    derived = {
        "Stream": nack.STREAM,
        "Consumer": nack.CONSUMER,
        "KeyValue": nack.KEY_VALUE,
        "ObjectStore": nack.OBJECT_STORE,
    }
    for kind, table in derived.items():
        assert _json(table) == BEFORE["nack"][kind], kind


def test_the_derived_release_tables_are_the_hand_kept_ones() -> None:
    derived = {
        "Stream": releases.STREAM_FIELDS,
        "Consumer": releases.CONSUMER_FIELDS,
        "StreamSource": releases.STREAM_SOURCE_FIELDS,
        "Placement": releases.PLACEMENT_FIELDS,
    }
    for kind, table in derived.items():
        kept = {name: v for name, v in table.items() if (kind, name) not in ADDED_SINCE_THE_SNAPSHOT}
        assert _json(kept) == BEFORE["since"][kind], kind
    assert sorted(_json([[list(k), list(v)] for k, v in releases.ENUM_VALUES.items()])) == sorted(BEFORE["enum_since"])


def test_the_derived_defaults_and_bucket_names_are_the_hand_kept_ones() -> None:
    assert {k: dict(v) for k, v in effective.SERVER_DEFAULTS.items()} == BEFORE["defaults"]
    assert buckets.BUCKET_FIELDS == BEFORE["bucket_fields"]


def test_every_enum_value_with_a_release_is_one_the_model_accepts() -> None:
    for (kind, field, value), _ in releases.ENUM_VALUES.items():
        ann = MODELS[kind].model_fields[field].annotation
        literals = {a for arg in typing.get_args(ann) for a in typing.get_args(arg)} | set(typing.get_args(ann))
        assert value in literals, (kind, field, value)


def test_every_field_of_a_kind_has_an_update_class_and_a_sentence() -> None:
    for kind, rec in (("Stream", catalog.STREAM), ("Consumer", catalog.CONSUMER)):
        for f in rec.fields:
            got = updates.classify(kind, f.name, None, None)
            assert got.cls in updates.CLASS_ORDER and got.consequence, (kind, f.name)
            if f.update.change in ("recreate", "forbidden"):
                assert got.cls == f.update.change and got.consequence == f.update.sentence


def test_defaults_are_values_of_the_field() -> None:
    for kind in ("Stream", "Consumer"):
        model = MODELS[kind]
        for f in catalog.record(kind).fields:
            if f.default is ABSENT or f.record is not None:
                continue
            model.model_validate({f.name: f.default})  # the default is a value the model accepts


def test_units_by_leaf_name_are_unambiguous() -> None:
    leaves = catalog.leaf_units()
    assert leaves["max_bytes"] is Unit.SIZE and leaves["ack_wait"] is Unit.DURATION
    assert "max_request_max_bytes" not in leaves  # a key the server never sends
    for rec in catalog.RECORDS.values():
        for f in rec.fields:
            if f.name in leaves:
                assert f.unit is leaves[f.name], (rec.name, f.name)
