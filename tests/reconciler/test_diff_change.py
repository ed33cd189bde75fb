"""A diff's Change knows its catalog field (unit, update class), also after a saved plan is read back."""

from __future__ import annotations

from jsops.linter.semantics import catalog
from jsops.reconciler.diff import Change, catalog_field, diff_configs
from jsops.reconciler.plan import Intent, PlanItem
from jsops.reconciler.plan.codec import decode_action, encode_action
from jsops.reconciler.vocabulary import ActionKind, ChangeClass

from .records import consumer_record, stream_record

S = 1_000_000_000


def test_change_knows_its_catalog_field() -> None:
    (age,) = diff_configs(
        "Stream", stream_record({"name": "S", "max_age": 3600 * S}), stream_record({"name": "S", "max_age": 1800 * S})
    )
    assert age.field is catalog.STREAM["max_age"] and age.unit is catalog.Unit.DURATION
    assert (age.old, age.new, age.cls) == (3600 * S, 1800 * S, ChangeClass.IN_PLACE)
    (wait,) = diff_configs("Consumer", consumer_record({"ack_wait": 30 * S}), consumer_record({"ack_wait": 5 * S}))
    assert wait.field is catalog.CONSUMER["ack_wait"] and wait.field.update.change == "in-place"
    (size,) = diff_configs("Consumer", consumer_record({}), consumer_record({"max_bytes": 1024}))
    assert size.unit is catalog.Unit.SIZE  # the consumer's max_bytes (max_request_max_bytes is no server key)


def test_paths_outside_the_record() -> None:
    assert catalog_field("Stream", "metadata.io.jsops.source") is catalog.STREAM["metadata"]
    assert catalog_field("Consumer", "stream.metadata.io.jsops.recreate.c") is None
    assert Change.of("Consumer", "stream.metadata.x", None, "1", ChangeClass.IN_PLACE, "").unit is None


def test_saved_plan_changes_get_their_field_back() -> None:
    change = Change.of("Consumer", "ack_wait", 30 * S, 5 * S, ChangeClass.IN_PLACE, "applied in place")
    act = PlanItem(
        Intent(ActionKind.UPDATE, "Consumer", "c", "S", [change], None, consumer_record({"durable_name": "c"}))
    )
    (back,) = decode_action(encode_action(act)).changes
    assert back == change and back.field is catalog.CONSUMER["ack_wait"]
