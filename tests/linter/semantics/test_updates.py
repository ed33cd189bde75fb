"""Unit tests for jsops.linter.semantics.updates: the server's update rules (server-rules.md §3)."""

import pytest

from jsops.linter.semantics.updates import classify, classify_consumer_change, classify_stream_change, worst


@pytest.mark.parametrize(
    "field,old,new,cls",
    [
        ("storage", "file", "memory", "recreate"),
        ("retention", "limits", "workqueue", "recreate"),
        ("retention", "workqueue", "interest", "recreate"),
        ("retention", "limits", "interest", "in-place"),
        ("retention", "interest", "limits", "in-place"),
        ("sealed", False, True, "one-way"),
        ("sealed", True, False, "recreate"),
        ("deny_delete", False, True, "one-way"),
        ("deny_delete", True, False, "recreate"),
        ("deny_purge", None, True, "one-way"),
        ("deny_purge", True, None, "recreate"),
        ("allow_msg_ttl", False, True, "one-way"),
        ("allow_msg_ttl", True, False, "recreate"),
        ("allow_msg_schedules", None, True, "one-way"),
        ("allow_msg_schedules", True, None, "recreate"),
        ("allow_msg_counter", None, True, "recreate"),
        ("allow_msg_counter", True, None, "recreate"),
        ("persist_mode", None, "async", "recreate"),
        ("mirror", None, {"name": "A"}, "recreate"),
        ("mirror", {"name": "A"}, {"name": "B"}, "recreate"),
        ("mirror", {"name": "A"}, None, "one-way"),
        ("name", "A", "B", "forbidden"),
        ("subjects", ["a"], ["a", "b"], "in-place"),
        ("max_age", 1, 2, "in-place"),
        ("num_replicas", 1, 3, "in-place"),
        ("placement", None, {"tags": ["az:1"]}, "in-place"),
        ("sources", None, [{"name": "A"}], "in-place"),
        ("compression", "none", "s2", "in-place"),
        ("allow_rollup_hdrs", True, False, "in-place"),
        ("allow_atomic", None, True, "in-place"),
        ("metadata", {"a": "1"}, {"a": "2"}, "in-place"),
        ("first_seq", None, 10, "in-place"),
    ],
)
def test_stream_fields(field, old, new, cls):
    c = classify_stream_change(field, old, new)
    assert c.cls == cls
    assert c.consequence
    if cls == "recreate":
        assert "messages" in c.consequence and "lost" in c.consequence


@pytest.mark.parametrize(
    "field,old,new,cls",
    [
        ("deliver_policy", "all", "new", "recreate"),
        ("opt_start_seq", None, 5, "recreate"),
        ("opt_start_time", None, "2020-01-01T00:00:00Z", "recreate"),
        ("ack_policy", "explicit", "none", "recreate"),
        ("replay_policy", "instant", "original", "recreate"),
        ("idle_heartbeat", 0, 5_000_000_000, "recreate"),
        ("flow_control", None, True, "recreate"),
        ("max_waiting", 512, 64, "recreate"),
        ("mem_storage", None, True, "recreate"),
        ("deliver_subject", None, "d.x", "recreate"),
        ("deliver_subject", "d.x", None, "recreate"),
        ("deliver_subject", "d.x", "d.y", "in-place"),
        ("durable_name", "a", "b", "forbidden"),
        ("pause_until", None, "2030-01-01T00:00:00Z", "forbidden"),
        ("filter_subject", "a", "b", "in-place"),
        ("filter_subjects", ["a"], ["a", "b"], "in-place"),
        ("max_ack_pending", 1000, 10, "in-place"),
        ("ack_wait", 1, 2, "in-place"),
        ("backoff", None, [1, 2], "in-place"),
        ("max_deliver", -1, 5, "in-place"),
        ("num_replicas", 0, 1, "in-place"),
        ("rate_limit_bps", None, 100, "in-place"),
        ("deliver_group", None, "g", "in-place"),
        ("priority_policy", None, "overflow", "in-place"),
        ("inactive_threshold", 0, 10, "in-place"),
    ],
)
def test_consumer_fields(field, old, new, cls):
    c = classify_consumer_change(field, old, new)
    assert c.cls == cls
    assert c.consequence
    if cls == "recreate":
        assert "position" in c.consequence


def test_in_place_notes_follow_direction():
    assert "removes" in classify_stream_change("max_age", 7200, 3600).consequence
    assert "removes" not in classify_stream_change("max_age", 3600, 7200).consequence
    assert "removes" in classify_stream_change("max_msgs", -1, 10).consequence
    assert "removes" not in classify_stream_change("max_msgs", 10, -1).consequence
    assert "removed subjects" in classify_stream_change("subjects", ["a", "b"], ["a"]).consequence
    assert "removed subjects" not in classify_stream_change("subjects", ["a"], ["a", "b"]).consequence


def test_dispatch_and_worst():
    assert classify("Stream", "storage", "file", "memory").cls == "recreate"
    assert classify("Consumer", "ack_wait", 1, 2).cls == "in-place"
    with pytest.raises(ValueError):
        classify("KeyValue", "x", 1, 2)
    assert worst([]) == "in-place"
    assert worst(["in-place", "one-way"]) == "one-way"
    assert worst(["one-way", "recreate", "in-place"]) == "recreate"
    assert worst(["recreate", "forbidden"]) == "forbidden"


def test_one_change_class() -> None:
    """The linter's classifications, the catalog's update facts and the plan's changes share one enum."""
    from jsops.linter.semantics import catalog
    from jsops.linter.semantics.change_class import ChangeClass
    from jsops.reconciler.vocabulary import ChangeClass as PlanChangeClass

    assert PlanChangeClass is ChangeClass
    assert type(classify("Stream", "retention", "limits", "workqueue").cls) is ChangeClass
    assert type(worst(["one-way", "recreate"])) is ChangeClass
    assert all(type(f.update.change) is ChangeClass for rec in catalog.RECORDS.values() for f in rec.fields)
    assert [c for c in ChangeClass if c.rank] == ["one-way", "reset", "recreate", "forbidden"]
    assert ChangeClass.DATA_LOSS.rank == ChangeClass.IN_PLACE.rank == 0
