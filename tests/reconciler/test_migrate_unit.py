"""Planning migrations (no server): --migrate, the controller's annotation, releases that cannot."""

from __future__ import annotations

from jsops.reconciler.controller.policy import Policy
from jsops.reconciler.live import LiveState, LiveStream
from jsops.reconciler.plan import Desired, PlanOptions, build_plan, stamp
from jsops.reconciler.render_refusal import reason_of

from .records import consumer_record, stream_record

OLD = stamp(stream_record({"name": "ORDERS", "subjects": ["orders.>"], "storage": "file"}), "m/orders.yaml")
NEW = stream_record({"name": "ORDERS_V2", "subjects": ["orders.>"], "storage": "file"})


def _live() -> LiveState:
    return LiveState(streams={"ORDERS": LiveStream(OLD, messages=10, bytes=400, first_seq=1, last_seq=10)})


def _desired() -> list[Desired]:
    return [
        Desired("Stream", "ORDERS_V2", None, NEW, "m/orders.yaml", renamed_from="ORDERS"),
        Desired(
            "Consumer",
            "c",
            "ORDERS_V2",
            consumer_record({"durable_name": "c", "ack_policy": "explicit"}),
            "m/orders.yaml",
        ),
    ]


def test_rename_needs_migrate_and_folds_its_consumers_and_keeps_the_old_stream_from_prune() -> None:
    plan = build_plan(_desired(), _live(), PlanOptions(prune=True, allow_data_loss=True))
    assert [(a.action, a.name) for a in plan.actions] == [("blocked", "ORDERS_V2")]
    assert reason_of(plan.actions[0]) == "renamed from ORDERS; needs --migrate"
    plan = build_plan(_desired(), _live(), PlanOptions(migrate=True, server_version="2.15.1"))
    (a,) = plan.actions
    assert a.action == "migrate" and a.migration is not None
    assert a.migration.source == "ORDERS" and set(a.migration.consumers) == {"c"}
    assert plan.summary()["migrate"] == 1


def test_a_release_that_cannot_promote_a_mirror_is_refused_with_the_reason() -> None:
    (a,) = build_plan(_desired(), _live(), PlanOptions(migrate=True, server_version="2.11.11")).actions
    assert (
        a.action == "blocked" and "cannot promote a mirror" in (reason_of(a) or "") and "10055" in (reason_of(a) or "")
    )


def test_the_controller_migrates_with_the_annotation_and_names_it_otherwise() -> None:
    key = ("Stream", None, "ORDERS_V2")
    plan = build_plan(_desired(), _live(), grants=Policy({key: {"jsops.io/allow-migrate": "true"}}).grants())
    assert [a.action for a in plan.actions] == ["migrate"]
    plan = build_plan(_desired(), _live(), grants=Policy({}).grants())
    (a,) = plan.actions
    assert a.action == "blocked" and 'jsops.io/allow-migrate: "true"' in (reason_of(a) or ""), reason_of(a)
