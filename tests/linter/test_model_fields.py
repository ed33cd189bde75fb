"""The model covers every field nats-server 2.15 accepts (JSON tags of StreamConfig/ConsumerConfig),
and rejects unknown ones with a suggestion."""

import pytest
from pydantic import ValidationError

from jsops.linter.model.config import ConsumerConfig, StreamConfig, StreamSource

# JSON names of nats-server 2.15's StreamConfig and ConsumerConfig (server/stream.go, consumer.go).
SERVER_STREAM_FIELDS = {
    "name",
    "description",
    "subjects",
    "retention",
    "max_consumers",
    "max_msgs",
    "max_bytes",
    "max_age",
    "max_msgs_per_subject",
    "max_msg_size",
    "discard",
    "storage",
    "num_replicas",
    "no_ack",
    "duplicate_window",
    "placement",
    "mirror",
    "sources",
    "compression",
    "first_seq",
    "subject_transform",
    "republish",
    "allow_direct",
    "mirror_direct",
    "discard_new_per_subject",
    "sealed",
    "deny_delete",
    "deny_purge",
    "allow_rollup_hdrs",
    "consumer_limits",
    "allow_msg_ttl",
    "subject_delete_marker_ttl",
    "allow_msg_counter",
    "allow_atomic",
    "allow_msg_schedules",
    "persist_mode",
    "allow_batched",
    "metadata",
}
SERVER_CONSUMER_FIELDS = {
    "durable_name",
    "name",
    "description",
    "deliver_policy",
    "opt_start_seq",
    "opt_start_time",
    "ack_policy",
    "ack_wait",
    "max_deliver",
    "backoff",
    "filter_subject",
    "filter_subjects",
    "replay_policy",
    "rate_limit_bps",
    "sample_freq",
    "max_waiting",
    "max_ack_pending",
    "flow_control",
    "headers_only",
    "max_batch",
    "max_expires",
    "max_bytes",
    "deliver_subject",
    "deliver_group",
    "idle_heartbeat",
    "inactive_threshold",
    "num_replicas",
    "mem_storage",
    "direct",
    "sourcing",
    "metadata",
    "pause_until",
    "priority_groups",
    "priority_policy",
    "priority_timeout",
}
SERVER_SOURCE_FIELDS = {
    "name",
    "opt_start_seq",
    "opt_start_time",
    "filter_subject",
    "subject_transforms",
    "external",
    "consumer",
}


# Fields of older releases' StreamConfig that 2.15 no longer has (the model reads them for the releases
# that decode them; the catalog dates their last release: tests/integration/test_field_releases.py).
SERVER_STREAM_FIELDS_REMOVED = {"template_owner"}  # stream templates, gone from 2.14


def test_stream_fields_match_server():
    assert set(StreamConfig.model_fields) == SERVER_STREAM_FIELDS | SERVER_STREAM_FIELDS_REMOVED


def test_consumer_fields_match_server():
    assert set(ConsumerConfig.model_fields) == SERVER_CONSUMER_FIELDS


def test_source_fields_match_server():
    assert set(StreamSource.model_fields) == SERVER_SOURCE_FIELDS


def test_unknown_field_rejected():
    with pytest.raises(ValidationError) as exc:
        StreamConfig.model_validate({"name": "A", "max_agee": "1h"})
    assert exc.value.errors()[0]["type"] == "extra_forbidden"


@pytest.mark.parametrize(
    "field,value,expected",
    [
        ("max_age", "7d", 7 * 86400 * 10**9),
        ("max_age", 10**9, 10**9),
        ("max_bytes", "10GiB", 10 << 30),
        ("duplicate_window", "1h30m", 5400 * 10**9),
    ],
)
def test_units_in_model(field, value, expected):
    assert getattr(StreamConfig.model_validate({field: value}), field) == expected


@pytest.mark.parametrize(
    "field,value",
    [
        ("retention", "work_queue"),
        ("storage", "disk"),
        ("num_replicas", "3"),
        ("no_ack", "yes"),
        ("max_age", "forever"),
        ("metadata", {"a": 1}),
        ("subjects", "a.b"),
    ],
)
def test_wrong_types_rejected(field, value):
    with pytest.raises(ValidationError):
        StreamConfig.model_validate({field: value})


def test_consumer_enums_and_times():
    c = ConsumerConfig.model_validate(
        {
            "ack_policy": "flow_control",
            "deliver_policy": "by_start_time",
            "opt_start_time": "2026-01-02T03:04:05Z",
            "priority_policy": "prioritized",
            "sample_freq": 100,
        }
    )
    assert c.sample_freq == "100" and c.opt_start_time.year == 2026
    with pytest.raises(ValidationError):
        ConsumerConfig.model_validate({"opt_start_time": "2026-01-02 03:04:05"})  # no time zone: not RFC 3339


def test_declaration_is_built_by_keyword() -> None:
    """A declaration has 13 fields, several of one type: building one by position is refused."""
    from jsops.linter.model.resource import Declaration

    with pytest.raises(TypeError):
        Declaration("Stream", "ORDERS", None, "a.yaml")  # type: ignore[misc]  # positional on purpose
    d = Declaration(kind="Stream", name="ORDERS", stream=None, file="a.yaml")
    assert (d.key, d.dialect, d.spec_path) == (("default", "Stream", "ORDERS", None), "native", ("spec",))
