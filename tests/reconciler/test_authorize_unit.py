"""Plan, then authorize (issue 23): planning consults no grant; one ``authorize`` pass judges a plan
against grants (flags or annotations) and types each blocked action's reason; apply never decides
again. Pure: live states built by hand."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from jsops.reconciler.apply import ApplyReport, _Run, _runnable
from jsops.reconciler.live import LiveState
from jsops.reconciler.permissions import Blocker, Grants, Permission, Refusal, Vocabulary
from jsops.reconciler.plan import (
    Blocked,
    Desired,
    PlanItem,
    PlanOptions,
    authorize,
    build_plan,
    decide,
    plan_changes,
    stamp,
)
from jsops.reconciler.plan.closure import close
from jsops.reconciler.render_refusal import reason_of
from jsops.reconciler.vocabulary import ActionKind, Outcome

from .records import desired_of, live_consumer, live_stream, stream_record

OWN = {"io.jsops.managed-by": "jsops", "io.jsops.source": "m/s.yaml"}
ALL = Grants.flags(prune=True, allow_recreate=True, allow_data_loss=True, migrate=True)


def _stream(name: str = "S", **extra: Any) -> dict[str, Any]:
    return {"name": name, "subjects": [f"{name.lower()}.>"], "storage": "file", **extra}


def _recreate() -> tuple[list[Desired], LiveState]:
    """A stream holding 12 messages whose storage changes (a recreate), with one consumer."""
    live = LiveState(streams={"S": live_stream({**_stream(), "metadata": OWN}, messages=12, consumer_count=1)})
    live.consumers[("S", "c")] = live_consumer(
        "S", {"durable_name": "c", "ack_policy": "explicit", "metadata": OWN}, ack_floor=3
    )
    desired = [
        desired_of("Stream", "S", None, _stream(storage="memory"), "m/s.yaml"),
        desired_of("Consumer", "c", "S", {"durable_name": "c", "ack_policy": "explicit"}, "m/s.yaml"),
    ]
    return desired, live


def _judged(desired: list[Desired], live: LiveState, grants: Grants, **opt: Any) -> Sequence[PlanItem]:
    plan = plan_changes(desired, live, PlanOptions(**opt))
    return close(decide(plan, authorize(plan, grants, live)), live).actions


def test_planning_consults_no_grant_and_leaves_the_alternatives_to_authorize() -> None:
    desired, live = _recreate()
    plain = plan_changes(desired, live, PlanOptions())
    flagged = plan_changes(
        desired, live, PlanOptions(prune=True, allow_recreate=True, allow_data_loss=True, migrate=True)
    )
    assert plain == flagged  # the flags are grants: planning does not read them
    stream, consumer = plain.choices
    assert (stream.intent.action, [n.permission for n in stream.intent.needs]) == (
        "recreate",
        [Permission.RECREATE, Permission.DATA_LOSS],
    )
    assert stream.lossless is not None and stream.lossless.intent.action == "migrate"
    assert consumer.recreated_with == "S" and consumer.kept is None  # unchanged while the stream stays


def test_permission_refusal_names_every_missing_grant_in_the_callers_vocabulary() -> None:
    desired, live = _recreate()
    (stream,) = _judged(desired, live, Grants.flags())  # the consumer keeps its own action: none
    assert stream.refusal is not None and stream.refusal.blocker == Blocker.PERMISSION
    assert stream.refusal.missing == (Permission.RECREATE, Permission.DATA_LOSS)
    lossless = "; or --migrate, which moves them to the new config without loss"
    assert reason_of(stream) == "the stream holds 12 messages; needs --allow-recreate and --allow-data-loss" + lossless
    # the same plan judged by the controller's annotations: the same refusal, named as annotations
    (stream,) = _judged(desired, live, Grants.annotations({("Stream", None, "S"): {"jsops.io/allow-recreate": "true"}}))
    assert (
        stream.refusal is not None
        and stream.refusal.missing == (Permission.DATA_LOSS,)
        and stream.refusal.via == Vocabulary.ANNOTATIONS
    )
    assert (
        reason_of(stream)
        == 'the stream holds 12 messages; needs the annotation jsops.io/allow-data-loss: "true" on its manifest'
    )
    # granted: the recreate runs, its consumer is created again with it, the loss is accepted
    stream, consumer = _judged(desired, live, Grants.flags(allow_recreate=True, allow_data_loss=True))
    assert (stream.action, stream.accept_loss, consumer.action, consumer.consequence) == (
        "recreate",
        True,
        "create",
        "created again with its recreated stream",
    )
    # migrate granted: the migration instead, which carries the consumer
    (migration,) = _judged(desired, live, ALL, server_version="2.15.1")
    assert (
        migration.action == "migrate"
        and migration.migration is not None
        and set(migration.migration.consumers) == {"c"}
    )


def test_the_controller_prunes_by_the_marks_and_says_so() -> None:
    live = LiveState(streams={"GONE": live_stream({**_stream("GONE"), "metadata": OWN}, messages=2)})
    ann = Grants.annotations({})
    (gone,) = _judged([], live, ann)
    assert gone.refusal is not None and (gone.refusal.blocker, gone.refusal.via, gone.refusal.missing[0]) == (
        Blocker.PERMISSION,
        Vocabulary.MARKS,
        Permission.PRUNE,
    )
    assert (
        reason_of(gone)
        == 'left the manifests; it is pruned only if its manifest had jsops.io/allow-prune: "true" when it was last applied'
    )
    live.streams["GONE"].config = live.streams["GONE"].config._replace(metadata={**OWN, "io.jsops.allow-prune": "true"})
    (gone,) = _judged([], live, ann)
    assert (
        reason_of(gone)
        == 'left the manifests holding 2 messages; pruning it needs jsops.io/allow-data-loss: "true" as well'
    )
    live.streams["GONE"].config = live.streams["GONE"].config._replace(
        metadata={**OWN, "io.jsops.allow-prune": "true", "io.jsops.allow-data-loss": "true"}
    )
    (gone,) = _judged([], live, ann)
    assert (gone.action, gone.accept_loss) == ("delete", True)
    (gone,) = _judged([], live, Grants.flags())  # the flags are the permission for jsops apply, not the marks
    assert reason_of(gone) == "left the manifests; the stream holds 2 messages; needs --prune and --allow-data-loss"


def test_adopt_is_a_grant_too() -> None:
    live = LiveState(streams={"HAND": live_stream(_stream("HAND"))})
    desired = [desired_of("Stream", "HAND", None, _stream("HAND", max_age=10**12), "m/s.yaml")]
    (hand,) = _judged(desired, live, Grants.flags())
    assert hand.refusal is not None and hand.refusal.missing == (Permission.ADOPT,)
    assert reason_of(hand) == "exists and is not managed by jsops; pass --adopt HAND to take it over"
    (hand,) = _judged(desired, live, Grants.annotations({}))
    assert (
        reason_of(hand)
        == 'exists and is not managed by jsops; needs the annotation jsops.io/adopt: "true" on its manifest'
    )
    (hand,) = _judged(desired, live, Grants.flags(adopt=["HAND"]))
    assert hand.action == "adopt"
    assert (
        _judged([desired_of("Stream", "HAND", None, _stream("HAND"), "m/s.yaml")], live, Grants.flags()) == ()
    )  # unchanged, not adopted: nothing


def test_a_server_refusal_is_typed_whatever_is_granted() -> None:
    old = stamp(stream_record({"name": "ORDERS", "subjects": ["orders.>"], "storage": "file"}), "m/orders.yaml")
    live = LiveState(streams={"ORDERS": live_stream(old, messages=10, bytes=400, first_seq=1, last_seq=10)})
    desired = [
        desired_of(
            "Stream",
            "ORDERS_V2",
            None,
            {"name": "ORDERS_V2", "subjects": ["orders.>"], "storage": "file"},
            "m/o.yaml",
            renamed_from="ORDERS",
        )
    ]
    (a,) = _judged(desired, live, ALL, server_version="2.11.11")
    assert a.refusal is not None and a.refusal.blocker == Blocker.SERVER_REFUSAL and not a.refusal.missing
    assert "cannot promote a mirror" in (reason_of(a) or "")


def test_a_protection_is_typed_whatever_is_granted() -> None:
    live = LiveState(streams={"S": live_stream({**_stream(), "metadata": OWN})})
    desired = [desired_of("Stream", "S", None, _stream(max_age=10**12), "m/s.yaml", prevent_update=True)]
    (a,) = _judged(desired, live, ALL)
    assert a.refusal is not None and a.refusal.blocker == Blocker.PROTECTION and "preventUpdate" in (reason_of(a) or "")


def test_an_unknown_state_is_typed_whatever_is_granted() -> None:
    live = LiveState(streams={"S": live_stream({**_stream(), "metadata": OWN})}, unknown={"S"})
    (a,) = _judged([desired_of("Stream", "S", None, _stream(), "m/s.yaml")], live, ALL)
    assert a.refusal is not None and a.refusal.blocker == Blocker.UNKNOWN and "did not answer" in (reason_of(a) or "")


def test_a_dependency_is_typed() -> None:
    """A blocked stream create keeps its consumers' creates (the closure), typed as a dependency."""
    live = LiveState()
    desired = [
        desired_of("Stream", "N", None, _stream("N"), "m/s.yaml"),
        desired_of("Consumer", "c", "N", {"durable_name": "c"}, "m/s.yaml"),
    ]
    plan = build_plan(desired, live, PlanOptions())
    plan = close(
        decide(plan, {0: Blocked(Refusal(Blocker.SERVER_REFUSAL, "the server would refuse it"))}), live
    )  # as the preflight does
    consumer = plan.actions[1]
    assert consumer.refusal is not None and consumer.refusal.blocker == Blocker.DEPENDENCY
    assert reason_of(consumer) == "its stream N is not created (its create is blocked)"


def test_apply_runs_what_authorize_let_through_and_decides_nothing() -> None:
    """Apply's options carry no grant any more: an authorized delete runs with bare options, a
    blocked action is reported blocked with its rendered reason."""
    live = LiveState(streams={"GONE": live_stream({**_stream("GONE"), "metadata": OWN}, messages=2)})
    allowed = build_plan([], live, PlanOptions(prune=True, allow_data_loss=True))
    refused = build_plan([], live, PlanOptions())
    run = _Run(None, None, None, None)  # type: ignore[arg-type]
    assert [a.action for a in _runnable(run, allowed, live, PlanOptions(), False)] == [ActionKind.DELETE]
    assert _runnable(run, refused, live, PlanOptions(prune=True, allow_data_loss=True), False) == []
    assert isinstance(run.report, ApplyReport) and [(r.status, r.detail) for r in run.report.results] == [
        (Outcome.BLOCKED, "left the manifests; the stream holds 2 messages; needs --prune and --allow-data-loss")
    ]
