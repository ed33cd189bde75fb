"""The plan's passes return verdicts and edit nothing; one ``decide`` applies them by the written
precedence (jsops.reconciler.plan.decide). Pure: live states built by hand."""

from __future__ import annotations

import copy
import copyreg
import dataclasses
from collections.abc import Iterator
from types import MappingProxyType
from typing import Any

import pytest

from jsops.reconciler.live import LiveState
from jsops.reconciler.permissions import Blocker, Grants, Permission, Refusal
from jsops.reconciler.plan import (
    PRECEDENCE,
    AccountUsage,
    Action,
    Blocked,
    Dropped,
    Plan,
    PlanOptions,
    Run,
    Verdict,
    authorize,
    decide,
    plan_changes,
    predicted_refusals,
)
from jsops.reconciler.plan.closure import dependants
from jsops.reconciler.vocabulary import ActionKind

from .records import desired_of, live_consumer, live_stream, stream_record

OWN = {"io.jsops.managed-by": "jsops", "io.jsops.source": "m/s.yaml"}


@pytest.fixture(autouse=True)
def _copyable_metadata() -> Iterator[None]:
    """Configs hold their metadata read-only (a mappingproxy): deep-copied as one (copyreg, for this module's tests)."""
    copyreg.pickle(MappingProxyType, lambda m: (MappingProxyType, (dict(m),)))
    yield
    del copyreg.dispatch_table[MappingProxyType]


def _same(a: Any, b: Any) -> bool:
    """Equal in every field, those a dataclass leaves out of ``==`` included."""
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        return type(a) is type(b) and all(_same(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return bool(a == b)


def _estate() -> tuple[list[Any], LiveState]:
    """A recreate holding messages (with its consumer), a takeover, a prune with a consumer, a
    workqueue conflict the server would refuse, and a new stream whose consumer depends on it."""
    live = LiveState(
        streams={
            "S": live_stream({"name": "S", "subjects": ["s.>"], "storage": "file", "metadata": OWN}, messages=12, consumer_count=1),
            "HAND": live_stream({"name": "HAND", "subjects": ["hand.>"]}),
            "GONE": live_stream({"name": "GONE", "subjects": ["gone.>"], "metadata": OWN}, messages=2, consumer_count=1),
            "WQ": live_stream({"name": "WQ", "subjects": ["wq.>"], "retention": "workqueue", "metadata": OWN}),
            "TAKEN": live_stream({"name": "TAKEN", "subjects": ["new.>"]}),
        }
    )
    live.consumers[("S", "c")] = live_consumer("S", {"durable_name": "c", "ack_policy": "explicit", "metadata": OWN}, ack_floor=3)
    live.consumers[("GONE", "g")] = live_consumer("GONE", {"durable_name": "g", "metadata": OWN})
    live.consumers[("WQ", "a")] = live_consumer("WQ", {"durable_name": "a", "ack_policy": "explicit", "metadata": OWN})
    desired = [
        desired_of("Stream", "S", None, {"name": "S", "subjects": ["s.>"], "storage": "memory"}, "m/s.yaml"),
        desired_of("Consumer", "c", "S", {"durable_name": "c", "ack_policy": "explicit"}, "m/s.yaml"),
        desired_of("Stream", "HAND", None, {"name": "HAND", "subjects": ["hand.>"], "max_age": 10**12}, "m/s.yaml"),
        desired_of("Stream", "WQ", None, {"name": "WQ", "subjects": ["wq.>"], "retention": "workqueue"}, "m/s.yaml"),
        desired_of("Consumer", "a", "WQ", {"durable_name": "a", "ack_policy": "explicit"}, "m/s.yaml"),
        desired_of("Consumer", "b", "WQ", {"durable_name": "b", "ack_policy": "explicit"}, "m/s.yaml"),
        desired_of("Stream", "NEW", None, {"name": "NEW", "subjects": ["new.>"]}, "m/s.yaml"),
        desired_of("Consumer", "n", "NEW", {"durable_name": "n"}, "m/s.yaml"),
    ]
    return desired, live


@pytest.mark.parametrize("grants", [Grants.flags(), Grants.flags(prune=True, allow_recreate=True, allow_data_loss=True, migrate=True, adopt=["HAND"])])
def test_no_pass_changes_its_inputs(grants: Grants) -> None:
    desired, live = _estate()
    opt = PlanOptions(server_version="2.15.1")
    before = copy.deepcopy((desired, live, opt))
    plan = plan_changes(desired, live, opt)
    assert _same(before, (desired, live, opt))
    passes = [
        lambda p: authorize(p, grants, live),
        lambda p: dependants(p.actions, live),
        lambda p: predicted_refusals(p, live, AccountUsage(max_consumers=10)),
        lambda p: decide(p, authorize(p, grants, live)),
    ]
    for judge in passes:
        given = copy.deepcopy((plan, live))
        judge(plan)
        assert _same(given, (plan, live))
    decided = decide(plan, authorize(plan, grants, live))
    assert decided is not plan
    # the estate exercises what the passes judge: a choice or a missing grant, a prediction, a dependant
    assert any(isinstance(v, Blocked) or (isinstance(v, Run) and v.instead is not None) for v in authorize(plan, grants, live).values())
    assert predicted_refusals(decided, live)  # the workqueue conflict, the subjects NEW takes from TAKEN
    new = next(i for i, a in enumerate(decided.actions) if a.name == "NEW")
    assert dependants(decide(decided, {new: Blocked(Refusal(Blocker.SERVER_REFUSAL, "refused"))}).actions, live)


def _action(blocker: Blocker | None = None) -> Action:
    a = Action(ActionKind.UPDATE, "Stream", "S", None, [], None, stream_record({"name": "S"}))
    return a.blocked(Refusal(blocker, f"planned: {blocker}")) if blocker is not None else a


def _blocked(blocker: Blocker) -> Blocked:
    return Blocked(Refusal(blocker, f"judged: {blocker}"), 10065 if blocker == Blocker.SERVER_REFUSAL else None)


# (what planning held, the verdicts of the passes) -> the refusal's blocker that stands (None: runs; "dropped")
_TABLE: list[tuple[Blocker | None, list[Verdict], Blocker | str | None]] = [
    (None, [], None),
    (None, [Run()], None),
    (None, [Dropped()], "dropped"),
    (None, [Run(), Dropped()], "dropped"),
    (None, [Dropped(), _blocked(Blocker.DEPENDENCY)], Blocker.DEPENDENCY),
    (None, [_blocked(Blocker.DEPENDENCY), _blocked(Blocker.PERMISSION)], Blocker.PERMISSION),
    (None, [_blocked(Blocker.PERMISSION), _blocked(Blocker.PROTECTION)], Blocker.PROTECTION),
    (None, [_blocked(Blocker.PROTECTION), _blocked(Blocker.SERVER_REFUSAL)], Blocker.SERVER_REFUSAL),
    (None, [_blocked(Blocker.UNKNOWN), _blocked(Blocker.PERMISSION)], Blocker.UNKNOWN),
    (None, [_blocked(b) for b in reversed(PRECEDENCE)], Blocker.SERVER_REFUSAL),
    (Blocker.PROTECTION, [], Blocker.PROTECTION),
    (Blocker.PROTECTION, [Run()], Blocker.PROTECTION),
    (Blocker.PROTECTION, [_blocked(Blocker.PERMISSION)], Blocker.PROTECTION),
    (Blocker.PROTECTION, [_blocked(Blocker.DEPENDENCY)], Blocker.PROTECTION),
    (Blocker.PROTECTION, [_blocked(Blocker.SERVER_REFUSAL)], Blocker.SERVER_REFUSAL),
    (Blocker.PERMISSION, [_blocked(Blocker.PROTECTION)], Blocker.PROTECTION),
    (Blocker.DEPENDENCY, [_blocked(Blocker.PERMISSION)], Blocker.PERMISSION),
    (Blocker.SERVER_REFUSAL, [_blocked(Blocker.PROTECTION)], Blocker.SERVER_REFUSAL),
]


@pytest.mark.parametrize(("held", "verdicts", "stands"), _TABLE)
def test_decide_applies_the_written_precedence(held: Blocker | None, verdicts: list[Verdict], stands: Blocker | str | None) -> None:
    plan = Plan("t", "f", [_action(held)])
    given = copy.deepcopy(plan)
    out = decide(plan, *({0: v} for v in verdicts))
    assert _same(plan, given)  # decide makes a new plan
    if stands == "dropped":
        assert out.actions == []
        return
    (a,) = out.actions
    if stands is None:
        assert a.action == ActionKind.UPDATE and a.refusal is None
        return
    assert (a.action, a.wanted) == (ActionKind.BLOCKED, ActionKind.UPDATE)
    assert a.refusal is not None and a.refusal.blocker == stands
    assert a.err_code == (10065 if stands == Blocker.SERVER_REFUSAL and held != Blocker.SERVER_REFUSAL else None)


def test_the_precedence_is_the_one_the_issue_writes() -> None:
    assert PRECEDENCE[0] == Blocker.SERVER_REFUSAL and PRECEDENCE[-1] == Blocker.DEPENDENCY
    assert PRECEDENCE.index(Blocker.PROTECTION) < PRECEDENCE.index(Blocker.PERMISSION)


def test_plan_items_are_frozen() -> None:
    a = _action()
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.action = ActionKind.DELETE  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        PlanOptions().prune = True  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        Plan("t", "f").target = "u"  # type: ignore[misc]
    b = a.blocked(Refusal(Blocker.PROTECTION, "no"))
    assert (a.action, b.action, b.wanted) == (ActionKind.UPDATE, ActionKind.BLOCKED, ActionKind.UPDATE)


def test_a_choice_runs_the_alternative_and_accepts_its_loss() -> None:
    plan = Plan("t", "f", [_action()])
    alt = Action(ActionKind.MIGRATE, "Stream", "S", None, [], None, stream_record({"name": "S"}), data_loss=3)
    (a,) = decide(plan, {0: Run(alt, accept_loss=True)}).actions
    assert (a.action, a.accept_loss, alt.accept_loss) == (ActionKind.MIGRATE, True, False)
    (b,) = decide(plan, {0: Blocked(Refusal(Blocker.PERMISSION, "no; ", (Permission.ADOPT,)), instead=alt)}).actions
    assert (b.action, b.wanted, alt.action) == (ActionKind.BLOCKED, ActionKind.MIGRATE, ActionKind.MIGRATE)
