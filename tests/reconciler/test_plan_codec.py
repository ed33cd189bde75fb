"""The plan's JSON codec (jsops.reconciler.plan.codec): every golden plan reads back and writes out byte
for byte; what is not a plan is a PlanError, read by the record validator (no hand-written from_json)."""

from __future__ import annotations

import ast
import json
from dataclasses import replace
from pathlib import Path

import pytest

from jsops.reconciler.plan import PlanError, PlanSet
from jsops.reconciler.plan.codec import decode, decode_action

GOLDEN = Path(__file__).parent / "golden"
PLANS = sorted(p for p in GOLDEN.glob("*.json") if '"fingerprint"' in p.read_text())


def test_there_are_golden_plans() -> None:
    assert {p.name for p in PLANS} >= {"plan.json", "plan_dataloss.json", "plans_multi.json", "saved_plan.json"}


@pytest.mark.parametrize("path", PLANS, ids=lambda p: p.name)
def test_every_golden_plan_round_trips_byte_for_byte(path: Path) -> None:
    text = path.read_text()
    again = PlanSet.from_json(json.loads(text))
    assert json.dumps(again.to_json(), indent=2) + "\n" == text


_ACTION = {"action": "create", "object": {"kind": "Stream", "name": "S"}, "config": {"name": "S"}}


@pytest.mark.parametrize(
    "bad",
    [
        {**_ACTION, "object": {"kind": "Bucket", "name": "S"}},
        {**_ACTION, "object": {"kind": "Stream", "name": ""}},
        {**_ACTION, "object": {"kind": "Consumer", "name": "c"}},  # no stream
        {**_ACTION, "action": "explode"},
        {**_ACTION, "config": None},  # a create sends a config
        {**_ACTION, "action": "pause"},  # only consumers are paused
        {**_ACTION, "reset_seq": 3},  # only a reset has one
        {**_ACTION, "resume_seq": 0},
        {**_ACTION, "data_loss": -1},
        {**_ACTION, "data_loss": True},
        {**_ACTION, "err_code": "10065"},
        {**_ACTION, "changes": [{"path": "x", "class": "sideways"}]},
        {**_ACTION, "migration": {"from": 1}},
        {**_ACTION, "surprise": 1},  # a key no plan writes
        [],
    ],
)
def test_what_is_not_an_action_is_a_plan_error(bad: object) -> None:
    with pytest.raises(PlanError):
        decode_action(bad)


@pytest.mark.parametrize(
    "bad",
    [
        {"version": 2, "fingerprint": "f", "actions": []},
        {"version": 1, "actions": []},
        {"version": 1, "fingerprint": "f", "actions": {}},
        {"version": 1, "fingerprint": "f", "actions": [], "targets": []},
        {"version": 1, "fingerprint": "f", "actions": [], "targets": [{"context": "a", "fingerprint": "f"}] * 2},
        {
            "version": 1,
            "fingerprint": "f",
            "actions": [{**_ACTION, "context": "b"}],
            "targets": [{"context": "a", "fingerprint": "f"}],
        },
        {"version": 1, "fingerprint": "f", "actions": [], "binding": []},
        "plan",
    ],
)
def test_what_is_not_a_plan_is_a_plan_error(bad: object) -> None:
    with pytest.raises(PlanError):
        decode(bad)


def test_a_plan_written_before_targets_is_one_default_target() -> None:
    (plan,) = PlanSet.from_json({"version": 1, "target": "nats://x:1", "fingerprint": "f", "actions": [_ACTION]}).plans
    assert (plan.context, plan.target, [a.name for a in plan.actions]) == ("default", "nats://x:1", ["S"])


def test_the_plan_model_imports_no_renderer() -> None:
    root = Path(__file__).parents[2] / "reconciler" / "plan"
    for name in ("model.py", "planset.py", "../verdict.py"):
        tree = ast.parse((root / name).read_text())
        mods = {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        assert not any("render" in m for m in mods), (name, mods)


def test_a_bad_plan_says_which_field() -> None:
    bad = {"version": 1, "fingerprint": "f", "actions": [{**_ACTION, "object": {"kind": "Bucket", "name": "S"}}]}
    with pytest.raises(PlanError, match=r"^not a plan: actions\.0\.object\.kind: "):
        decode(bad)


def test_a_migration_round_trips_through_the_records() -> None:
    """No golden plan holds a migration: a rename's (its consumers' configs as records) and a
    rollback's read back as they were written."""
    from jsops.reconciler.live import LiveState, LiveStream
    from jsops.reconciler.plan import Desired, PlanOptions, build_plan, stamp
    from jsops.reconciler.plan.codec import encode_action
    from jsops.reconciler.plan.migration_spec import MigrationSpec

    from .records import consumer_record, stream_record

    old = stamp(stream_record({"name": "ORDERS", "subjects": ["orders.>"], "storage": "file"}), "m/orders.yaml")
    live = LiveState(streams={"ORDERS": LiveStream(old, messages=10, bytes=400, first_seq=1, last_seq=10)})
    desired = [
        Desired(
            "Stream",
            "ORDERS_V2",
            None,
            stream_record({"name": "ORDERS_V2", "subjects": ["orders.>"]}),
            "m/o.yaml",
            renamed_from="ORDERS",
        ),
        Desired(
            "Consumer", "c", "ORDERS_V2", consumer_record({"durable_name": "c", "ack_policy": "explicit"}), "m/o.yaml"
        ),
    ]
    (a,) = build_plan(desired, live, PlanOptions(migrate=True, server_version="2.15.1")).actions
    assert a.migration is not None and set(a.migration.consumers) == {"c"}
    again = decode_action(json.loads(json.dumps(encode_action(a))))
    assert again.migration == a.migration and encode_action(again) == encode_action(a)
    rollback = a._replace(intent=replace(a.intent, migration=MigrationSpec("ORDERS", "ORDERS_V2", rollback=True)))
    assert decode_action(encode_action(rollback)).migration == rollback.migration
