"""Defaulting rules of jsops.linter.semantics.effective that need no server (the integration suite checks them
all against a real nats-server; these pin the rules down and run everywhere)."""

from __future__ import annotations

from typing import Any

from jsops.linter.model.config import ConsumerConfig, StreamConfig
from jsops.linter.model.target import AccountLimits, ServerLimits, Target
from jsops.linter.semantics.effective import (
    CONSUMER_DEFAULT_ACK_WAIT,
    CONSUMER_DEFAULT_MAX_ACK_PENDING,
    CONSUMER_DEFAULT_MAX_WAITING,
    EPHEMERAL_INACTIVE_THRESHOLD,
    PINNED_TTL_DEFAULT,
    STREAM_DEFAULT_DUPLICATE_WINDOW,
    effective_consumer,
    effective_stream,
    strip_server_metadata,
)
from jsops.linter.semantics.effective_types import EffectiveStream, api_json

S = 1_000_000_000


def parent_stream(**kw: Any) -> EffectiveStream:
    return effective_stream(StreamConfig.model_validate({"name": "S", **kw}))


def stream(**kw: Any) -> dict[str, Any]:
    """The effective stream in the server's JSON shape (what these tests pin down, omitempty included)."""
    return api_json(parent_stream(**kw))


def consumer(
    cfg: dict[str, Any], parent: EffectiveStream | None = None, target: Target | None = None
) -> dict[str, Any]:
    return api_json(effective_consumer(ConsumerConfig.model_validate(cfg), parent, target=target))


def test_stream_defaults() -> None:
    out = stream()
    assert out["subjects"] == ["S"]
    assert out["duplicate_window"] == STREAM_DEFAULT_DUPLICATE_WINDOW == 120 * S
    assert (out["retention"], out["discard"], out["storage"], out["compression"]) == ("limits", "old", "file", "none")
    assert out["num_replicas"] == 1
    assert out["consumer_limits"] == {}


def test_duplicate_window_capped_to_max_age() -> None:
    assert stream(max_age=30 * S)["duplicate_window"] == 30 * S
    assert stream(max_age=2 * 60 * S)["duplicate_window"] == 120 * S
    assert stream(max_age=3600 * S)["duplicate_window"] == 120 * S
    assert stream(max_age=3600 * S, duplicate_window=10 * S)["duplicate_window"] == 10 * S


def test_duplicate_window_capped_to_server_limit() -> None:
    target = Target(limits=ServerLimits(duplicate_window="1m"))
    assert effective_stream(StreamConfig(name="S"), target=target).duplicate_window == 60 * S
    assert effective_stream(StreamConfig(name="S", max_age=30 * S), target=target).duplicate_window == 30 * S


def test_no_default_duplicate_window_for_mirrors_and_sources() -> None:
    assert "duplicate_window" not in stream(mirror={"name": "O"})
    assert "duplicate_window" not in stream(sources=[{"name": "O"}])
    assert "subjects" not in stream(sources=[{"name": "O"}])


def test_a_sourcing_stream_gets_the_default_window_before_2_14() -> None:
    """2.10, 2.11 and 2.12 give a stream with sources (with or without its own subjects) the 2-minute
    window, capped by max_age; 2.14 and later give it none, as a mirror (measured on the five releases:
    tests/reconciler/test_sourced_window_server.py)."""

    def window(version: str, **kw: Any) -> int:
        config = StreamConfig.model_validate({"name": "S", "sources": [{"name": "O"}], **kw})
        return effective_stream(config, target=Target(server_version=version)).duplicate_window

    for version in ("2.10.26", "2.11.11", "2.12.8"):
        assert window(version) == window(version, subjects=["s.>"]) == 120 * S, version
        assert window(version, max_age=30 * S) == 30 * S, version
        assert window(version, duplicate_window=5 * S) == 5 * S, version
        mirror = StreamConfig.model_validate({"name": "S", "mirror": {"name": "O"}})
        assert effective_stream(mirror, target=Target(server_version=version)).duplicate_window == 0, version
    for version in ("2.14.6", "2.15.1"):
        assert window(version) == window(version, subjects=["s.>"]) == window(version, max_age=30 * S) == 0, version
    assert (
        effective_stream(StreamConfig.model_validate({"name": "S", "sources": [{"name": "O"}]})).duplicate_window == 0
    )  # newest


def test_limits_normalised_to_minus_one() -> None:
    out = stream(max_msgs=0, max_bytes=-5, max_consumers=-2, max_msg_size=0, max_msgs_per_subject=7)
    assert (out["max_msgs"], out["max_bytes"], out["max_consumers"], out["max_msg_size"]) == (-1, -1, -1, -1)
    assert out["max_msgs_per_subject"] == 7


def test_subject_delete_marker_forces_ttl_and_rollups() -> None:
    out = stream(subject_delete_marker_ttl=5 * S, deny_purge=True)
    assert (out["allow_msg_ttl"], out["allow_rollup_hdrs"], out["deny_purge"]) == (True, True, False)


def test_placement_kept_only_when_not_zero() -> None:
    assert "placement" not in stream(placement={})
    assert "placement" not in stream(placement={"cluster": ""})
    assert stream(placement={"tags": []})["placement"] == {}
    assert stream(placement={"cluster": "east"})["placement"] == {"cluster": "east"}


def test_mirror_direct_from_origin() -> None:
    origin = StreamConfig(name="O", allow_direct=True)
    out = effective_stream(StreamConfig(name="M", mirror={"name": "O"}), origins={"O": origin})
    assert out.mirror_direct is True
    assert effective_stream(StreamConfig(name="M", mirror={"name": "O"})).mirror_direct is False


def test_republish_empty_source_means_everything() -> None:
    assert stream(subjects=["a.>"], republish={"dest": "b.>"})["republish"] == {"src": ">", "dest": "b.>"}


def test_backoff_first_value_overrides_ack_wait() -> None:
    out = consumer({"durable_name": "d", "ack_policy": "explicit", "ack_wait": 10 * S, "backoff": [S, 5 * S]})
    assert out["ack_wait"] == S
    assert out["backoff"] == [S, 5 * S]


def test_ack_wait_default_only_for_acking_policies() -> None:
    assert consumer({"durable_name": "d", "ack_policy": "explicit"})["ack_wait"] == CONSUMER_DEFAULT_ACK_WAIT
    assert consumer({"durable_name": "d", "ack_policy": "all"})["ack_wait"] == 30 * S
    assert "ack_wait" not in consumer({"durable_name": "d"})


def test_ack_none_has_no_max_ack_pending() -> None:
    out = consumer({"durable_name": "d"})
    assert out["ack_policy"] == "none"
    assert "max_ack_pending" not in out
    assert (
        consumer({"durable_name": "d", "ack_policy": "explicit"})["max_ack_pending"] == CONSUMER_DEFAULT_MAX_ACK_PENDING
    )


def test_max_ack_pending_from_stream_limits_even_for_ack_none() -> None:
    parent = parent_stream(consumer_limits={"max_ack_pending": 40})
    assert consumer({"durable_name": "d"}, parent)["max_ack_pending"] == 40
    assert (
        consumer({"durable_name": "d", "ack_policy": "explicit", "max_ack_pending": 10}, parent)["max_ack_pending"]
        == 10
    )


def test_max_ack_pending_capped_by_server_and_account_limits() -> None:
    explicit = {"durable_name": "d", "ack_policy": "explicit"}
    assert consumer(explicit, target=Target(limits=ServerLimits(max_ack_pending=100)))["max_ack_pending"] == 100
    target = Target(limits=ServerLimits(max_ack_pending=100), account=AccountLimits(max_ack_pending=20))
    assert consumer(explicit, target=target)["max_ack_pending"] == 20


def test_max_batch_from_server_limit_for_pull_only() -> None:
    target = Target(limits=ServerLimits(max_request_batch=50))
    assert consumer({"durable_name": "d"}, target=target)["max_batch"] == 50
    assert "max_batch" not in consumer({"durable_name": "d", "deliver_subject": "x"}, target=target)


def test_max_waiting_default_for_pull_only() -> None:
    assert consumer({"durable_name": "d"})["max_waiting"] == CONSUMER_DEFAULT_MAX_WAITING == 512
    assert consumer({"durable_name": "d", "max_waiting": -3})["max_waiting"] == 512
    assert "max_waiting" not in consumer({"durable_name": "d", "deliver_subject": "x"})


def test_ephemeral_inactive_threshold() -> None:
    assert consumer({"name": "e"})["inactive_threshold"] == EPHEMERAL_INACTIVE_THRESHOLD == 5 * S
    assert consumer({"name": "e", "inactive_threshold": -S})["inactive_threshold"] == 5 * S
    assert consumer({"name": "e", "inactive_threshold": 30 * S})["inactive_threshold"] == 30 * S
    assert "inactive_threshold" not in consumer({"durable_name": "d"})
    parent = parent_stream(consumer_limits={"inactive_threshold": 20 * S})
    assert consumer({"name": "e"}, parent)["inactive_threshold"] == 20 * S
    assert consumer({"durable_name": "d"}, parent)["inactive_threshold"] == 20 * S


def test_durable_name_copied_into_name() -> None:
    out = consumer({"durable_name": "d"})
    assert (out["durable_name"], out["name"]) == ("d", "d")
    assert "name" not in consumer({"deliver_subject": "x"})  # a legacy ephemeral's config has no name


def test_pinned_client_default_timeout() -> None:
    cfg = {"durable_name": "d", "priority_policy": "pinned_client", "priority_groups": ["g"]}
    assert consumer(cfg)["priority_timeout"] == PINNED_TTL_DEFAULT == 120 * S
    assert "priority_timeout" not in consumer({**cfg, "priority_policy": "overflow"})


def test_flow_control_ack_policy_sets_heartbeat() -> None:
    out = consumer({"durable_name": "d", "ack_policy": "flow_control", "deliver_subject": "x"})
    assert (out["flow_control"], out["idle_heartbeat"]) == (True, S)


def test_negative_consumer_values_normalised() -> None:
    out = consumer(
        {
            "durable_name": "d",
            "max_deliver": -5,
            "max_ack_pending": -7,
            "max_batch": -1,
            "max_expires": -S,
            "max_bytes": -10,
        }
    )
    assert (out["max_deliver"], out["max_ack_pending"]) == (-1, -1)
    assert not {"max_batch", "max_expires", "max_bytes"} & set(out)


def test_timestamps_keep_offset_and_pad_year() -> None:
    out = consumer({"durable_name": "d", "pause_until": "2099-01-02T03:04:05.25-03:00"})
    assert out["pause_until"] == "2099-01-02T03:04:05.25-03:00"
    assert (
        consumer({"durable_name": "d", "pause_until": "0001-01-01T00:00:00Z"})["pause_until"] == "0001-01-01T00:00:00Z"
    )


def test_strip_server_metadata() -> None:
    cfg = {"name": "S", "metadata": {"_nats.req.level": "1", "_nats.ver": "2.15.1", "owner": "a"}}
    assert strip_server_metadata(cfg) == {"name": "S", "metadata": {"owner": "a"}}
    assert strip_server_metadata({"name": "S", "metadata": {"_nats.level": "5"}}) == {"name": "S"}


def test_server_defaults_agree_with_effective_configs() -> None:
    from jsops.linter.semantics.effective import SERVER_DEFAULTS

    s = api_json(effective_stream(StreamConfig()))
    defaults = SERVER_DEFAULTS["Stream"]
    assert {k: v for k, v in s.items() if k in defaults} == {k: v for k, v in defaults.items() if k in s}
    assert set(defaults) - set(s) == {
        "discard_new_per_subject",
        "allow_msg_counter",
        "allow_atomic",
        "allow_msg_schedules",
    }
    assert all(defaults[k] is False for k in set(defaults) - set(s))  # omitempty: absent means false
    c = consumer({"durable_name": "d", "ack_policy": "explicit"})
    assert {k: c[k] for k in SERVER_DEFAULTS["Consumer"] if k != "ack_policy"} == {
        k: v for k, v in SERVER_DEFAULTS["Consumer"].items() if k != "ack_policy"
    }
    assert consumer({"durable_name": "d"})["ack_policy"] == SERVER_DEFAULTS["Consumer"]["ack_policy"]
    # the table reconciler/render_text.py kept by hand until the merge
    assert dict(SERVER_DEFAULTS["Stream"]) == {
        "retention": "limits",
        "max_consumers": -1,
        "max_msgs": -1,
        "max_bytes": -1,
        "max_age": 0,
        "max_msgs_per_subject": -1,
        "max_msg_size": -1,
        "discard": "old",
        "storage": "file",
        "num_replicas": 1,
        "duplicate_window": 120_000_000_000,
        "compression": "none",
        "allow_direct": False,
        "mirror_direct": False,
        "sealed": False,
        "deny_delete": False,
        "deny_purge": False,
        "allow_rollup_hdrs": False,
        "consumer_limits": {},
        "allow_msg_ttl": False,
        "discard_new_per_subject": False,
        "allow_msg_counter": False,
        "allow_atomic": False,
        "allow_msg_schedules": False,
    }
