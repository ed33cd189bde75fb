"""jsops.reconciler.dr_roles (pure): after a failover the plan holds the roles the servers record
(io.jsops.dr.active) instead of the manifests' (the controller plans through the same hold, so it never
undoes a failover); before a failover and after a failback nothing is held."""

from __future__ import annotations

import json

from jsops.reconciler.dr_roles import failed_over, fence_subject, follow
from jsops.reconciler.drift import hold
from jsops.reconciler.live import LiveState
from jsops.reconciler.plan import PlanOptions, build_plan

from .records import desired_of, live_consumer, live_stream

OWN = {"io.jsops.managed-by": "jsops", "io.jsops.source": "m/orders.yaml"}
DESIRED = [
    desired_of("Stream", "ORDERS", None, {"name": "ORDERS", "subjects": ["orders.>"]}),
    desired_of("Stream", "ORDERS_WEST", None, {"name": "ORDERS_WEST", "mirror": {"name": "ORDERS"}}),
    desired_of("Consumer", "W", "ORDERS", {"durable_name": "W", "ack_policy": "explicit"}),
]


def _rec(**rec: object) -> dict[str, str]:
    return {**OWN, "io.jsops.dr.active": json.dumps(rec)}


def _failed_over() -> LiveState:
    live = LiveState(read_at=10_000.0)
    done = _rec(active="ORDERS_WEST", standby="ORDERS")
    live.streams["ORDERS"] = live_stream({"name": "ORDERS", "subjects": [fence_subject("ORDERS")], "metadata": done})
    live.streams["ORDERS_WEST"] = live_stream(
        {"name": "ORDERS_WEST", "subjects": ["orders.>"], "duplicate_window": 120_000_000_000, "metadata": done}
    )
    for stream in ("ORDERS", "ORDERS_WEST"):
        live.consumers[(stream, "W")] = live_consumer(
            stream, {"durable_name": "W", "ack_policy": "explicit", "metadata": OWN}
        )
    return live


def test_a_failover_is_held_and_its_consumers_followed() -> None:
    live = _failed_over()
    wanted = follow(DESIRED, live)
    assert [(d.kind, d.stream, d.name) for d in wanted][-1] == ("Consumer", "ORDERS_WEST", "W")
    fields = failed_over(wanted, live)
    assert set(fields) == {("Stream", None, "ORDERS"), ("Stream", None, "ORDERS_WEST")}
    assert fields[("Stream", None, "ORDERS")]["subjects"].startswith("failed over: ORDERS_WEST is the active side")
    kept, held = hold(wanted, live, fields)
    assert {(k[0][2], k[1]) for k in held} == {
        ("ORDERS", "subjects"),
        ("ORDERS_WEST", "subjects"),
        ("ORDERS_WEST", "mirror"),
        ("ORDERS_WEST", "duplicate_window"),
    }
    plan = build_plan(kept, live, PlanOptions(prune=True), target="nats://nats.example:4222")
    # nothing turns the roles back, and the consumer on the active side is not pruned
    assert plan.actions == [] or all(not a.changes for a in plan.actions), plan.actions
    unheld = build_plan(follow(DESIRED, live), live, PlanOptions(prune=True), target="nats://nats.example:4222")
    assert unheld.actions  # without the hold, the plan would turn the roles back


def test_nothing_is_held_before_a_failover_or_after_a_failback() -> None:
    live = LiveState(read_at=10_000.0)
    back = _rec(active="ORDERS", standby="ORDERS_WEST", subjects=["orders.>"])
    live.streams["ORDERS"] = live_stream({"name": "ORDERS", "subjects": ["orders.>"], "metadata": back})
    live.streams["ORDERS_WEST"] = live_stream({"name": "ORDERS_WEST", "mirror": {"name": "ORDERS"}, "metadata": back})
    assert follow(DESIRED, live) == DESIRED
    assert failed_over(DESIRED, live) == {}
    live.streams["ORDERS"] = live_stream({"name": "ORDERS", "subjects": ["orders.>"], "metadata": OWN})
    assert failed_over(DESIRED, live) == {}


def test_a_source_re_pointed_to_the_active_side_is_held() -> None:
    live = _failed_over()
    audit = desired_of("Stream", "AUDIT", None, {"name": "AUDIT", "sources": [{"name": "ORDERS"}]})
    live.streams["AUDIT"] = live_stream(
        {"name": "AUDIT", "sources": [{"name": "ORDERS_WEST", "opt_start_seq": 11}], "metadata": OWN}
    )
    fields = failed_over([*DESIRED, audit], live)
    assert fields[("Stream", None, "AUDIT")] == {
        "sources": "its source ORDERS failed over to ORDERS_WEST, which it reads now; jsops failback returns it"
    }
    live.streams["AUDIT"] = live_stream({"name": "AUDIT", "sources": [{"name": "ORDERS"}], "metadata": OWN})
    assert ("Stream", None, "AUDIT") not in failed_over([*DESIRED, audit], live)  # not re-pointed: not held
