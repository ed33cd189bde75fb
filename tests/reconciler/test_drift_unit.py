"""Drift attribution, pure (issue 37): which API subjects are writes, the api_audit advisory as the
servers write it, who produced a drifted field's live value, and the plan's text and JSON with
the authors (golden)."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from jsops.reconciler.drift import (
    NO_ATTRIBUTION,
    Advisory,
    Attribution,
    AuthorUnknown,
    ChangedBy,
    Drifted,
    DriftKey,
    Heard,
    Held,
    Verb,
    attribute,
    attribute_drift,
    classify,
    hold,
    ignore_drift_fields,
    is_write,
    parse_advisory,
    record_stream,
    settled,
    unknown_fields,
)
from jsops.reconciler.drift.attribution import same
from jsops.reconciler.live import LiveState
from jsops.reconciler.plan import PlanOptions, PlanSet, build_plan
from jsops.reconciler.render_json import render_json
from jsops.reconciler.render_text import render_plans

from .records import desired_of, live_consumer, live_stream

GOLDEN = (
    Path(__file__).parent / "golden"
)  # drift/: a shown plan with authors is not a saved plan (the codec reads only those)
T0 = datetime(2026, 12, 2, 10, 0, 0, tzinfo=UTC)
HOUR = 3_600_000_000_000
OWN = {"io.jsops.managed-by": "jsops", "io.jsops.source": "m/orders.yaml"}


def _golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("UPDATE_GOLDEN"):
        path.write_text(text)
    assert text == path.read_text()


# -- which requests are writes --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("subject", "verb", "kind", "stream", "name"),
    [
        ("$JS.API.STREAM.CREATE.ORDERS", Verb.CREATE, "Stream", "ORDERS", "ORDERS"),
        ("$JS.API.STREAM.UPDATE.ORDERS", Verb.UPDATE, "Stream", "ORDERS", "ORDERS"),
        ("$JS.API.STREAM.DELETE.ORDERS", Verb.DELETE, "Stream", "ORDERS", "ORDERS"),
        ("$JS.API.STREAM.PURGE.ORDERS", Verb.PURGE, "Stream", "ORDERS", "ORDERS"),
        ("$JS.API.STREAM.MSG.DELETE.ORDERS", Verb.PURGE, "Stream", "ORDERS", "ORDERS"),
        ("$JS.API.STREAM.LEADER.STEPDOWN.ORDERS", Verb.OTHER, "Stream", "ORDERS", "ORDERS"),
        ("$JS.API.CONSUMER.CREATE.ORDERS.C1", Verb.CREATE, "Consumer", "ORDERS", "C1"),
        ("$JS.API.CONSUMER.CREATE.ORDERS.C1.orders.eu.>", Verb.CREATE, "Consumer", "ORDERS", "C1"),
        ("$JS.API.CONSUMER.CREATE.ORDERS", Verb.CREATE, "Consumer", "ORDERS", None),
        ("$JS.API.CONSUMER.DURABLE.CREATE.ORDERS.C2", Verb.CREATE, "Consumer", "ORDERS", "C2"),
        ("$JS.API.CONSUMER.DELETE.ORDERS.C2", Verb.DELETE, "Consumer", "ORDERS", "C2"),
        ("$JS.API.CONSUMER.PAUSE.ORDERS.C2", Verb.PAUSE, "Consumer", "ORDERS", "C2"),
        ("$JS.API.CONSUMER.RESET.ORDERS.C2", Verb.RESET, "Consumer", "ORDERS", "C2"),
        ("$JS.hub.API.STREAM.UPDATE.ORDERS", Verb.UPDATE, "Stream", "ORDERS", "ORDERS"),
        ("$JS.API.ACCOUNT.PURGE.A", Verb.DELETE, None, None, None),
    ],
)
def test_writes_are_classified(
    subject: str, verb: Verb, kind: str | None, stream: str | None, name: str | None
) -> None:
    call = classify(subject)
    assert call is not None and (call.verb, call.kind, call.stream, call.name) == (verb, kind, stream, name)
    assert is_write(subject)


@pytest.mark.parametrize(
    "subject",
    [
        "$JS.API.INFO",
        "$JS.API.STREAM.INFO.ORDERS",
        "$JS.API.STREAM.NAMES",
        "$JS.API.STREAM.LIST",
        "$JS.API.STREAM.MSG.GET.ORDERS",
        "$JS.API.DIRECT.GET.ORDERS",
        "$JS.API.CONSUMER.INFO.ORDERS.C1",
        "$JS.API.CONSUMER.LIST.ORDERS",
        "$JS.API.CONSUMER.NAMES.ORDERS",
        "$JS.API.STREAM.CREATE",  # no stream named
        "orders.created",
        "$KV.cfg.key",
    ],
)
def test_reads_are_not_writes(subject: str) -> None:
    assert classify(subject) is None and not is_write(subject)


# -- the advisory -------------------------------------------------------------------------------


def _wire(
    subject: str,
    at: datetime,
    *,
    user: str = "app",
    name: str = "orders-svc",
    request: Any = None,
    response: Any = None,
) -> bytes:
    """An api_audit advisory as nats-server 2.10-2.15 write it (checked on the real binaries)."""
    doc: dict[str, Any] = {
        "type": "io.nats.jetstream.advisory.v1.api_audit",
        "id": "s1GF4v0ybffCsQWwTHADE6",
        "timestamp": at.isoformat().replace("+00:00", "Z"),
        "server": "NC63VMP2",
        "client": {
            "start": "2026-12-02T09:00:00.061843418Z",
            "host": "10.0.0.7",
            "id": 8,
            "acc": "A",
            "user": user,
            "name": name,
            "lang": "go",
            "ver": "1.41.0",
            "rtt": 1013451,
            "server": "NC63VMP2",
            "kind": "Client",
            "client_type": "nats",
        },
        "subject": subject,
        "response": json.dumps(
            response if response is not None else {"type": "io.nats.jetstream.api.v1.stream_info_response"}
        ),
    }
    if request is not None:
        doc["request"] = json.dumps(request)
    return json.dumps(doc).encode()


def _adv(subject: str, minutes: float, **kw: Any) -> Advisory:
    adv = parse_advisory(_wire(subject, T0 + timedelta(minutes=minutes), **kw))
    assert adv is not None
    return adv


def _stream_write(
    verb: str, minutes: float, max_age: int, *, user: str = "app", name: str = "orders-svc", error: bool = False
) -> Advisory:
    config = {"name": "ORDERS", "subjects": ["orders.>"], "max_age": max_age}
    response: dict[str, Any] = {
        "type": f"io.nats.jetstream.api.v1.stream_{verb.lower()}_response",
        "config": {**config, "max_msgs": -1},
    }
    if error:
        response = {"type": response["type"], "error": {"code": 500, "err_code": 10074, "description": "refused"}}
    return _adv(f"$JS.API.STREAM.{verb}.ORDERS", minutes, user=user, name=name, request=config, response=response)


def test_parse_advisory_reads_who_when_and_what() -> None:
    at = datetime(2026, 12, 2, 10, 57, 11, 758606, tzinfo=UTC)
    raw = _wire("$JS.API.STREAM.UPDATE.ORDERS", at, request={"name": "ORDERS"}).replace(
        b".758606Z", b".75860668Z"
    )  # Go's nanoseconds
    adv = parse_advisory(raw)
    assert adv is not None
    assert (adv.user, adv.account, adv.client_name, adv.host, adv.at) == ("app", "A", "orders-svc", "10.0.0.7", at)
    assert adv.request == {"name": "ORDERS"} and not adv.refused
    assert parse_advisory(b'{"type": "io.nats.jetstream.advisory.v1.consumer_action"}') is None
    assert parse_advisory(b"not json") is None


def test_an_unnamed_consumer_create_is_named_by_its_answer() -> None:
    adv = _adv(
        "$JS.API.CONSUMER.CREATE.ORDERS",
        0,
        request={"stream_name": "ORDERS", "config": {}},
        response={"name": "eph1", "config": {}},
    )
    assert adv.call is not None and adv.call.name == "eph1"


# -- attribution --------------------------------------------------------------------------------


def _newest_first(*advs: Advisory) -> list[Advisory]:
    return sorted(advs, key=lambda a: a.at, reverse=True)


def test_the_app_that_changed_the_field_is_named() -> None:
    record = _newest_first(
        _stream_write("CREATE", 0, HOUR, user="controller", name="jsops"),
        _adv("$JS.API.STREAM.INFO.ORDERS", 1),
        _stream_write("UPDATE", 2, HOUR // 2),
        _adv("$JS.API.STREAM.INFO.ORDERS", 3),
    )
    who = attribute(record, "Stream", None, "ORDERS", "max_age", HOUR // 2)
    assert who == ChangedBy(
        "app", "A", "orders-svc", "10.0.0.7", T0 + timedelta(minutes=2), "$JS.API.STREAM.UPDATE.ORDERS"
    )
    assert settled(record, "Stream", None, "ORDERS", "max_age", HOUR // 2)
    assert who.describe(T0 + timedelta(minutes=5)) == "changed by orders-svc (user app, 10.0.0.7) 3m ago"


def test_the_write_that_brought_the_value_in_is_named_not_a_later_one_that_kept_it() -> None:
    record = _newest_first(
        _stream_write("CREATE", 0, HOUR, user="controller", name="jsops"),
        _stream_write("UPDATE", 2, HOUR // 2),
        _stream_write("UPDATE", 4, HOUR // 2, user="bob", name="natscli"),  # edited another field, kept max_age
    )
    who = attribute(record, "Stream", None, "ORDERS", "max_age", HOUR // 2)
    assert isinstance(who, ChangedBy) and who.user == "app"


def test_a_tug_of_war_names_the_latest_change_back() -> None:
    record = _newest_first(
        _stream_write("CREATE", 0, HOUR, user="controller", name="jsops"),
        _stream_write("UPDATE", 1, HOUR // 2),
        _stream_write("UPDATE", 2, HOUR, user="controller", name="jsops"),  # healed
        _stream_write("UPDATE", 3, HOUR // 2, user="app2", name="orders-svc-2"),
    )
    who = attribute(record, "Stream", None, "ORDERS", "max_age", HOUR // 2)
    assert isinstance(who, ChangedBy) and (who.user, who.at) == ("app2", T0 + timedelta(minutes=3))


def test_a_value_jsops_set_itself_is_not_drift() -> None:
    record = _newest_first(_stream_write("CREATE", 0, HOUR, user="controller", name="jsops"))
    assert attribute(record, "Stream", None, "ORDERS", "max_age", HOUR) is None


def test_refused_writes_and_other_objects_are_passed_over() -> None:
    record = _newest_first(
        _stream_write("CREATE", 0, HOUR, user="controller", name="jsops"),
        _stream_write("UPDATE", 1, HOUR // 2),
        _stream_write("UPDATE", 2, HOUR * 3, user="mallory", error=True),
        _adv(
            "$JS.API.STREAM.UPDATE.OTHER",
            3,
            request={"name": "OTHER", "max_age": HOUR // 2},
            response={"config": {"max_age": HOUR // 2}},
        ),
    )
    who = attribute(record, "Stream", None, "ORDERS", "max_age", HOUR // 2)
    assert isinstance(who, ChangedBy) and who.user == "app"


def test_without_a_record_reaching_back_the_author_is_unknown_since_its_start() -> None:
    record = _newest_first(_adv("$JS.API.STREAM.INFO.ORDERS", 5))
    who = attribute(record, "Stream", None, "ORDERS", "max_age", HOUR // 2)
    assert who == AuthorUnknown(T0 + timedelta(minutes=5))
    assert who.describe(T0) == "author unknown (no audit record since 2026-12-02T10:05:00Z)"
    assert not settled(record, "Stream", None, "ORDERS", "max_age", HOUR // 2)
    assert attribute([], "Stream", None, "ORDERS", "max_age", 1, since=T0) == AuthorUnknown(T0)


def test_a_delete_ends_the_history_of_the_object_and_of_its_consumers() -> None:
    consumer = {"stream_name": "ORDERS", "config": {"durable_name": "C1", "max_deliver": 9}}
    record = _newest_first(
        _adv(
            "$JS.API.CONSUMER.CREATE.ORDERS.C1",
            1,
            request=consumer,
            response={"name": "C1", "config": consumer["config"]},
        ),
        _adv("$JS.API.STREAM.DELETE.ORDERS", 3, response={"success": True}),
    )
    who = attribute(record, "Consumer", "ORDERS", "C1", "max_deliver", 9)
    assert isinstance(who, AuthorUnknown) and settled(record, "Consumer", "ORDERS", "C1", "max_deliver", 9)
    assert isinstance(attribute(record[1:], "Consumer", "ORDERS", "C1", "max_deliver", 9), ChangedBy)


def test_a_pause_sets_pause_until() -> None:
    until = "2027-01-01T00:00:00Z"
    record = _newest_first(
        _adv(
            "$JS.API.CONSUMER.PAUSE.ORDERS.C1",
            1,
            request={"pause_until": until},
            response={"paused": True, "pause_until": until},
        )
    )
    who = attribute(record, "Consumer", "ORDERS", "C1", "pause_until", "2027-01-01T00:00:00+00:00")
    assert isinstance(who, ChangedBy) and who.request == "$JS.API.CONSUMER.PAUSE.ORDERS.C1"


def test_values_compare_as_the_server_means_them() -> None:
    assert same("max_msgs", None, 0) and same("subjects", ["b", "a"], ["a", "b"])
    assert same("metadata", {"owner": "x", "_nats.ver": "2.12", "io.jsops.managed-by": "jsops"}, {"owner": "x"})
    assert not same("max_age", HOUR, HOUR // 2) and not same("metadata", {"owner": "x"}, {"owner": "y"})


def test_the_record_stream_is_found_by_its_subjects() -> None:
    live = LiveState()
    live.streams["ORDERS"] = live_stream({"name": "ORDERS", "subjects": ["orders.>"]})
    assert record_stream(live) is None
    live.streams["ALL_EVENTS"] = live_stream({"name": "ALL_EVENTS", "subjects": ["$JS.EVENT.>"]})
    live.streams["AUDIT"] = live_stream({"name": "AUDIT", "subjects": ["$JS.EVENT.ADVISORY.API"]})
    assert record_stream(live) == "AUDIT"
    del live.streams["AUDIT"]
    assert record_stream(live) == "ALL_EVENTS"


# -- the plan shows it (golden) ---------------------------------------------------------------


def _drifted_plan() -> tuple[PlanSet, Attribution]:
    live = LiveState(read_at=10_000.0)
    live.streams["ORDERS"] = live_stream(
        {"name": "ORDERS", "subjects": ["orders.>"], "max_age": HOUR // 2, "metadata": OWN}
    )
    live.consumers[("ORDERS", "C1")] = live_consumer(
        "ORDERS", {"durable_name": "C1", "ack_policy": "explicit", "max_deliver": 9, "metadata": OWN}
    )
    desired = [
        desired_of(
            "Stream",
            "ORDERS",
            None,
            {"name": "ORDERS", "subjects": ["orders.>"], "max_age": "1h", "description": "orders"},
        ),
        desired_of("Consumer", "C1", "ORDERS", {"durable_name": "C1", "ack_policy": "explicit", "max_deliver": 5}),
    ]
    plan = build_plan(desired, live, PlanOptions(), target="nats://nats.example:4222")
    record = _newest_first(
        _stream_write("CREATE", 0, HOUR, user="controller", name="jsops"),
        _stream_write("UPDATE", 2, HOUR // 2),
    )
    authors = {
        DriftKey("default", "Stream", None, "ORDERS", "max_age"): attribute(
            record, "Stream", None, "ORDERS", "max_age", HOUR // 2
        ),
        DriftKey("default", "Consumer", "ORDERS", "C1", "max_deliver"): attribute(
            record, "Consumer", "ORDERS", "C1", "max_deliver", 9
        ),
    }
    assert None not in authors.values()
    return PlanSet([plan]), Attribution({k: v for k, v in authors.items() if v is not None}, T0 + timedelta(minutes=5))


def test_plan_text_names_who_changed_each_drifted_field() -> None:
    plans, drift = _drifted_plan()
    text = render_plans(plans, drift=drift)
    _golden("drift/plan.txt", text)
    assert "max_age: 30m -> 1h  [in-place]  changed by orders-svc (user app, 10.0.0.7) 3m ago" in text
    assert "author unknown (no audit record since 2026-12-02T10:00:00Z)" in text  # the consumer: no write in the record
    assert "description" in text and text.count("changed by") == 1  # the manifest's own change is nobody's drift
    assert render_plans(plans, drift=NO_ATTRIBUTION) == render_plans(plans)


def test_plan_json_carries_changed_by_on_each_drifted_change() -> None:
    plans, drift = _drifted_plan()
    text = render_json(plans, drift)
    _golden("drift/plan.json", text)
    changes = {(a["object"]["name"], c["path"]): c for a in json.loads(text)["actions"] for c in a["changes"]}
    assert changes[("ORDERS", "max_age")]["changed_by"] == {
        "user": "app",
        "account": "A",
        "client_name": "orders-svc",
        "host": "10.0.0.7",
        "at": "2026-12-02T10:02:00Z",
        "request": "$JS.API.STREAM.UPDATE.ORDERS",
    }
    assert changes[("C1", "max_deliver")]["changed_by"] is None
    assert changes[("C1", "max_deliver")]["author_unknown"] == {"since": "2026-12-02T10:00:00Z"}
    assert "changed_by" not in changes[("ORDERS", "description")]
    assert json.loads(render_json(plans)) == json.loads(render_json(plans, NO_ATTRIBUTION))


# -- fields owned elsewhere (jsops.io/ignore-drift) -----------------------------------------------


def test_ignore_drift_names_fields_by_comma_space_or_brackets() -> None:
    assert ignore_drift_fields("num_replicas") == ("num_replicas",)
    assert ignore_drift_fields("[num_replicas, max_age]") == ("num_replicas", "max_age")
    assert ignore_drift_fields("max_age max_age") == ("max_age",)
    assert ignore_drift_fields(None) == () and ignore_drift_fields("") == ()
    assert unknown_fields("Stream", ["max_age", "ack_wait", "name", "metadata"]) == ["ack_wait", "name", "metadata"]


def test_a_held_field_keeps_its_live_value_and_the_rest_is_planned() -> None:
    live = LiveState(read_at=10_000.0)
    live.streams["ORDERS"] = live_stream(
        {"name": "ORDERS", "subjects": ["orders.>"], "max_age": HOUR // 2, "max_msgs": 10, "metadata": OWN}
    )
    desired = [
        desired_of(
            "Stream", "ORDERS", None, {"name": "ORDERS", "subjects": ["orders.>"], "max_age": "1h", "max_msgs": 20}
        )
    ]
    kept, held = hold(
        desired, live, {("Stream", None, "ORDERS"): {"max_age": "owned elsewhere (jsops.io/ignore-drift)"}}
    )
    assert held == {
        (("Stream", None, "ORDERS"), "max_age"): Held(HOUR // 2, HOUR, "owned elsewhere (jsops.io/ignore-drift)")
    }
    plan = build_plan(kept, live, PlanOptions(), target="nats://nats.example:4222")
    assert [c.path for a in plan.actions for c in a.changes] == ["max_msgs"]
    # an object not yet live is created as the manifest says
    assert hold(desired, LiveState(), {("Stream", None, "ORDERS"): {"max_age": "x"}}) == (desired, {})


def test_plan_shows_held_fields_with_their_live_value() -> None:
    live = LiveState(read_at=10_000.0)
    live.streams["ORDERS"] = live_stream(
        {"name": "ORDERS", "subjects": ["orders.>"], "max_age": HOUR // 2, "metadata": OWN}
    )
    desired = [desired_of("Stream", "ORDERS", None, {"name": "ORDERS", "subjects": ["orders.>"], "max_age": "1h"})]
    kept, held = hold(
        desired, live, {("Stream", None, "ORDERS"): {"max_age": "owned elsewhere (jsops.io/ignore-drift)"}}
    )
    plans = PlanSet([build_plan(kept, live, PlanOptions(), target="nats://nats.example:4222")])
    drift = NO_ATTRIBUTION.with_held("default", held)
    text = render_plans(plans, drift=drift)
    _golden("drift/plan_held.txt", text)
    assert (
        text.startswith("No changes.")
        and "= Stream ORDERS max_age: 30m kept, owned elsewhere (jsops.io/ignore-drift); the manifest says 1h" in text
    )
    doc = json.loads(render_json(plans, drift))
    assert doc["actions"] == [] and doc["held"] == [
        {
            "context": "default",
            "object": {"kind": "Stream", "name": "ORDERS", "stream": None},
            "path": "max_age",
            "live": HOUR // 2,
            "manifest": HOUR,
            "reason": "owned elsewhere (jsops.io/ignore-drift)",
        }
    ]


# -- what the controller's own subscription heard ----------------------------------------------------


def test_without_a_record_what_the_controller_heard_names_the_author() -> None:
    from typing import cast

    from jsops.reconciler.client import JsClient

    live = LiveState(read_at=10_000.0)
    live.streams["ORDERS"] = live_stream({"name": "ORDERS", "subjects": ["orders.>"], "max_age": HOUR // 2})
    drifted = [Drifted("Stream", None, "ORDERS", "max_age", HOUR // 2)]
    no_client = cast(JsClient, None)  # no record in the live state: nothing is requested
    assert attribute_drift(no_client, live, "default", drifted) == NO_ATTRIBUTION
    heard = Heard(
        _newest_first(_stream_write("CREATE", 0, HOUR, name="jsops"), _stream_write("UPDATE", 2, HOUR // 2)), T0
    )
    who = attribute_drift(no_client, live, "default", drifted, heard=heard).of(
        "default", "Stream", None, "ORDERS", "max_age"
    )
    assert isinstance(who, ChangedBy) and (who.client_name, who.at) == ("orders-svc", T0 + timedelta(minutes=2))
    since = T0 + timedelta(minutes=5)  # the subscription started after the change: nobody heard it
    who = attribute_drift(no_client, live, "default", drifted, heard=Heard((), since)).of(
        "default", "Stream", None, "ORDERS", "max_age"
    )
    assert who == AuthorUnknown(since)
