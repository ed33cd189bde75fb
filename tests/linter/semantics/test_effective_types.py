"""The typed effective configs (jsops.linter.semantics.effective_types) against the field catalog and the
model records: one field per catalog field, in the catalog's (the server's JSON) order, immutable, and
read by attribute."""

from __future__ import annotations

import typing

import pytest

from jsops.linter import api
from jsops.linter.model import config as model
from jsops.linter.semantics import catalog
from jsops.linter.semantics.effective import effective_consumer, effective_stream
from jsops.linter.semantics.effective_types import EFFECTIVE_RECORDS, EffectiveConsumer, EffectiveStream, api_json

S = 1_000_000_000


@pytest.mark.parametrize("name", sorted(EFFECTIVE_RECORDS))
def test_fields_are_the_catalog_records_in_order(name: str) -> None:
    cls = EFFECTIVE_RECORDS[name]
    assert cls._fields == catalog.RECORDS[name].names()


@pytest.mark.parametrize(
    ("effective", "record"), [(EffectiveStream, model.StreamConfig), (EffectiveConsumer, model.ConsumerConfig)]
)
def test_enum_fields_take_the_models_literals(effective: type, record: type) -> None:
    """An enum the server always stores (retention, ack_policy, ...) has the model's Literal, without None."""
    from jsops.linter.semantics import effective_types

    hints = typing.get_type_hints(effective, {**vars(effective_types), **vars(model)})
    for name, hint in typing.get_type_hints(record).items():
        literals = [a for a in typing.get_args(hint) if typing.get_origin(a) is typing.Literal]
        if literals and typing.get_origin(hints[name]) is typing.Literal:
            assert hints[name] == literals[0], name


def test_records_are_immutable() -> None:
    eff = effective_stream(model.StreamConfig(name="S"))
    with pytest.raises(AttributeError):
        eff.max_age = 1  # type: ignore[misc]
    with pytest.raises(TypeError):
        eff.metadata["k"] = "v"  # type: ignore[index]


def test_attributes_hold_what_the_server_stores() -> None:
    s = effective_stream(
        model.StreamConfig.model_validate({"name": "S", "max_age": "1h", "consumer_limits": {"max_ack_pending": 9}})
    )
    assert (s.subjects, s.max_age, s.duplicate_window, s.max_bytes, s.retention) == (
        ("S",),
        3600 * S,
        120 * S,
        -1,
        "limits",
    )
    assert s.consumer_limits.max_ack_pending == 9
    c = effective_consumer(
        model.ConsumerConfig.model_validate({"durable_name": "d", "ack_policy": "explicit", "backoff": ["2s", "5s"]}), s
    )
    assert (c.ack_wait, c.backoff, c.max_ack_pending, c.name) == (2 * S, (2 * S, 5 * S), 9, "d")


def test_api_json_writes_catalog_order_and_leaves_out_omitempty_zeros() -> None:
    out = api_json(
        effective_stream(model.StreamConfig(name="S", placement={"tags": []}, sources=[{"name": "O", "consumer": {}}]))
    )
    assert list(out) == [n for n in catalog.STREAM.names() if n in out]
    assert out["placement"] == {} and out["sources"] == [
        {"name": "O", "consumer": {}}
    ]  # present records kept even when empty
    assert out["consumer_limits"] == {} and "no_ack" not in out and out["sealed"] is False


def test_rule_api_exports_the_types() -> None:
    for name in (
        "EffectiveStream",
        "EffectiveConsumer",
        "EffectiveSource",
        "EffectiveConsumerLimits",
        "EffectiveRepublish",
    ):
        assert name in api.__all__ and getattr(api, name) in EFFECTIVE_RECORDS.values()
