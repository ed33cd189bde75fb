"""Pure parts of issue 14's server APIs: release checks, times, reset sequences, the plan's actions."""

from __future__ import annotations

import json

import pytest

from jsops.reconciler.diff import diff_configs
from jsops.reconciler.live import LiveState
from jsops.reconciler.plan import Plan, PlanError, PlanItem, PlanOptions, build_plan
from jsops.reconciler.plan.codec import encode_action
from jsops.reconciler.server_apis import can_pause, can_reset, canonical_time, reset_allowed, start_sequence
from jsops.reconciler.vocabulary import ActionKind

from .records import consumer_record, desired_of, live_consumer, live_stream

OWN = {"io.jsops.managed-by": "jsops"}


def test_releases_with_the_apis() -> None:
    assert [can_pause(v) for v in ("2.10.26", "2.11.0", "2.15.1", None)] == [False, True, True, None]
    assert [can_reset(v) for v in ("2.12.8", "2.14.0", "2.15.1", None)] == [False, True, True, None]


@pytest.mark.parametrize(
    ("given", "stored"),
    [
        ("2031-06-01T12:00:00+02:00", "2031-06-01T10:00:00Z"),
        ("2031-06-01T10:00:00.500000000Z", "2031-06-01T10:00:00.5Z"),
        ("2031-06-01T10:00:00Z", "2031-06-01T10:00:00Z"),
        ("not a time", "not a time"),
    ],
)
def test_canonical_time_is_what_the_pause_api_stores(given: object, stored: object) -> None:
    assert canonical_time(given) == stored


def test_start_sequences_and_what_the_server_accepts() -> None:
    def c(**start: object):
        return consumer_record({"durable_name": "c", **start})

    assert start_sequence(c(deliver_policy="all"), 3, 10) == 3
    assert start_sequence(c(), 0, 0) == 1
    assert start_sequence(c(deliver_policy="by_start_sequence", opt_start_seq=7), 3, 10) == 7
    assert start_sequence(c(deliver_policy="new"), 3, 10) == 11
    assert start_sequence(c(deliver_policy="last"), 3, 10) == 10
    assert start_sequence(c(deliver_policy="last_per_subject"), 3, 10) is None
    assert start_sequence(c(deliver_policy="by_start_time", opt_start_time="2030-01-01T00:00:00Z"), 3, 10) is None
    assert reset_allowed(c(deliver_policy="all"), 1)
    assert reset_allowed(c(deliver_policy="by_start_sequence", opt_start_seq=5), 5)
    assert not reset_allowed(c(deliver_policy="by_start_sequence", opt_start_seq=5), 4)
    assert not reset_allowed(c(deliver_policy="new"), 4)


def _consumer(**kw: object) -> dict[str, object]:
    return {"durable_name": "c", "deliver_policy": "all", "ack_policy": "explicit", **kw}


def _live(version: str | None, **kw: object) -> LiveState:
    st = LiveState(server_version=version)
    st.streams["S"] = live_stream(
        {"name": "S", "subjects": ["s.>"], "metadata": dict(OWN)},
        messages=10,
        consumer_count=1,
        first_seq=1,
        last_seq=10,
    )
    st.consumers[("S", "c")] = live_consumer("S", _consumer(metadata=dict(OWN), **kw), ack_floor=4)
    return st


def _plan(live: LiveState, opt: PlanOptions | None = None, **kw: object) -> PlanItem:
    desired = [
        desired_of("Stream", "S", None, {"name": "S", "subjects": ["s.>"]}),
        desired_of("Consumer", "c", "S", _consumer(**kw)),
    ]
    plan = build_plan(desired, live, opt)
    assert len(plan.actions) == 1, plan.actions
    return plan.actions[0]


def test_the_pause_time_compares_as_an_instant() -> None:
    live = consumer_record(_consumer(pause_until="2031-06-01T10:00:00Z"))
    assert diff_configs("Consumer", live, consumer_record(_consumer(pause_until="2031-06-01T12:00:00+02:00"))) == []


def test_pause_and_resume_by_release() -> None:
    act = _plan(_live("2.11.11"), pause_until="2031-06-01T10:00:00Z")
    assert act.action == ActionKind.PAUSE and act.changes[0].cls == "in-place"
    act = _plan(_live("2.15.1", pause_until="2031-06-01T10:00:00Z"))
    assert act.action == ActionKind.RESUME
    act = _plan(_live("2.10.26"), pause_until="2031-06-01T10:00:00Z")
    assert act.action == ActionKind.BLOCKED and "has no pause API" in (act.consequence or "")
    act = _plan(_live(None), pause_until="2031-06-01T10:00:00Z")  # release unknown: as before
    assert act.action == ActionKind.BLOCKED and "pause API" in (act.consequence or "")


def test_a_changed_start_is_a_reset_on_2_14_and_a_recreate_before() -> None:
    act = _plan(_live("2.14.6"), deliver_policy="by_start_sequence", opt_start_seq=2)
    assert (act.action, act.reset_seq) == (ActionKind.RESET, 0)
    assert act.config is not None and act.request()["deliver_policy"] == "all"
    assert json.loads(act.config.metadata["io.jsops.resume"]) == {
        "deliver_policy": "by_start_sequence",
        "opt_start_seq": 2,
    }
    act = _plan(_live("2.14.6"), PlanOptions(keep_position=False), deliver_policy="by_start_sequence", opt_start_seq=2)
    assert (act.action, act.reset_seq) == (ActionKind.RESET, 2)
    act = _plan(_live("2.12.8"), deliver_policy="by_start_sequence", opt_start_seq=2)
    assert (act.action, act.wanted) == (ActionKind.BLOCKED, ActionKind.RECREATE)
    # the server refuses a reset below a live start sequence: a recreate, as before
    act = _plan(
        _live("2.15.1", deliver_policy="by_start_sequence", opt_start_seq=5),
        PlanOptions(keep_position=False),
        deliver_policy="all",
    )
    assert (act.action, act.wanted) == (ActionKind.BLOCKED, ActionKind.RECREATE)
    # other recreate-class changes: a recreate
    act = _plan(_live("2.15.1"), deliver_policy="new", ack_policy="all")
    assert (act.action, act.wanted) == (ActionKind.BLOCKED, ActionKind.RECREATE)


def test_a_reset_consumer_plans_empty_against_its_recorded_start() -> None:
    act = _plan(_live("2.15.1"), deliver_policy="by_start_sequence", opt_start_seq=2)
    assert act.config is not None
    after = _live("2.15.1")
    after.consumers[("S", "c")] = live_consumer("S", act.config, ack_floor=4)
    desired = [
        desired_of("Stream", "S", None, {"name": "S", "subjects": ["s.>"]}),
        desired_of("Consumer", "c", "S", _consumer(deliver_policy="by_start_sequence", opt_start_seq=2)),
    ]
    assert build_plan(desired, after).actions == ()


def test_saved_plans_carry_reset_seq() -> None:
    act = _plan(_live("2.15.1"), PlanOptions(keep_position=False), deliver_policy="by_start_sequence", opt_start_seq=2)
    plan = Plan("t", "f", [act])
    data = plan.to_json()
    assert data["actions"][0]["reset_seq"] == 2 and data["summary"]["reset"] == 1
    assert Plan.from_json(json.loads(json.dumps(data))).to_json() == data
    bad = json.loads(json.dumps(data))
    del bad["actions"][0]["reset_seq"]
    with pytest.raises(PlanError):
        Plan.from_json(bad)
    assert "pause" not in Plan("t", "f").summary()  # the server-API counts appear only when there are some


GOLDEN_RESET = __import__("pathlib").Path(__file__).resolve().parents[1] / "golden" / "plan-reset.txt"


def test_a_reset_classes_the_start_as_reset_never_in_place() -> None:
    """The server refuses a start change as an update: the plan never labels it in-place (issue 24).
    JSON and text say ``reset``; the text is a golden (JSOPS_UPDATE_GOLDEN=1 regenerates it)."""
    import os

    from jsops.reconciler.render_text import render_text

    act = _plan(_live("2.14.6"), ack_wait=9_000_000_000, deliver_policy="by_start_sequence", opt_start_seq=2)
    assert act.action == ActionKind.RESET
    classes = {c["path"]: c["class"] for c in encode_action(act)["changes"]}
    assert classes == {"ack_wait": "in-place", "deliver_policy": "reset", "opt_start_seq": "reset"}
    plan = Plan("nats://127.0.0.1:4222", "manifests", [act])
    data = json.loads(json.dumps(plan.to_json()))
    assert {c["class"] for c in data["actions"][0]["changes"] if c["path"] != "ack_wait"} == {"reset"}
    assert Plan.from_json(data).to_json() == plan.to_json()  # a saved plan keeps the class
    text = render_text(plan)
    assert "[reset]" in text and not any(
        "deliver_policy" in line and "[in-place]" in line for line in text.splitlines()
    )
    if os.environ.get("JSOPS_UPDATE_GOLDEN") == "1":
        GOLDEN_RESET.write_text(text)
    assert text == GOLDEN_RESET.read_text()
