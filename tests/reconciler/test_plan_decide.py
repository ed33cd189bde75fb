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
    Blocked,
    Choice,
    Draft,
    Dropped,
    Intent,
    Pick,
    Plan,
    PlanItem,
    PlanOptions,
    Run,
    Verdict,
    authorize,
    decide,
    plan_changes,
    predicted_refusals,
    refusals,
)
from jsops.reconciler.plan.closure import close, dependants
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
            "S": live_stream(
                {"name": "S", "subjects": ["s.>"], "storage": "file", "metadata": OWN}, messages=12, consumer_count=1
            ),
            "HAND": live_stream({"name": "HAND", "subjects": ["hand.>"]}),
            "GONE": live_stream(
                {"name": "GONE", "subjects": ["gone.>"], "metadata": OWN}, messages=2, consumer_count=1
            ),
            "WQ": live_stream({"name": "WQ", "subjects": ["wq.>"], "retention": "workqueue", "metadata": OWN}),
            "TAKEN": live_stream({"name": "TAKEN", "subjects": ["new.>"]}),
        }
    )
    live.consumers[("S", "c")] = live_consumer(
        "S", {"durable_name": "c", "ack_policy": "explicit", "metadata": OWN}, ack_floor=3
    )
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


@pytest.mark.parametrize(
    "grants",
    [Grants.flags(), Grants.flags(prune=True, allow_recreate=True, allow_data_loss=True, migrate=True, adopt=["HAND"])],
)
def test_no_pass_changes_its_inputs(grants: Grants) -> None:
    desired, live = _estate()
    opt = PlanOptions(server_version="2.15.1")
    before = copy.deepcopy((desired, live, opt))
    draft = plan_changes(desired, live, opt)
    assert _same(before, (desired, live, opt))
    assert all(c.intent.action != ActionKind.BLOCKED for c in draft.choices)  # a block is a verdict, never an intent
    on_draft = [
        lambda d: refusals(d),
        lambda d: authorize(d, grants, live),
        lambda d: decide(d, refusals(d), authorize(d, grants, live)),
    ]
    for judge in on_draft:
        given = copy.deepcopy((draft, live))
        judge(draft)
        assert _same(given, (draft, live))
    plan = decide(draft, authorize(draft, grants, live))
    on_plan = [
        lambda p: dependants(p.actions, live),
        lambda p: predicted_refusals(p, live, AccountUsage(max_consumers=10)),
        lambda p: decide(p, predicted_refusals(p, live, AccountUsage(max_consumers=10))),
        lambda p: close(p, live),
    ]
    for judge in on_plan:
        given = copy.deepcopy((plan, live))
        judge(plan)
        assert _same(given, (plan, live))
    # the estate exercises what the passes judge: a choice or a missing grant, a prediction, a dependant
    picks = authorize(draft, grants, live).values()
    assert (
        any(
            isinstance(p.verdict, Blocked) or p.choice is not draft.choices[i]
            for i, p in authorize(draft, grants, live).items()
        )
        and picks
    )
    assert refusals(draft) == {} or all(isinstance(v, Blocked) for v in refusals(draft).values())
    assert predicted_refusals(plan, live)  # the workqueue conflict, the subjects NEW takes from TAKEN
    new = next(i for i, a in enumerate(plan.actions) if a.name == "NEW")
    assert dependants(decide(plan, {new: Blocked(Refusal(Blocker.SERVER_REFUSAL, "refused"))}).actions, live)


def test_planning_returns_its_refusals_beside_the_intent() -> None:
    """An unknown state is planning's own refusal: a map by choice index, the intent left as it would be."""
    live = LiveState(streams={"S": live_stream({"name": "S", "subjects": ["s.>"], "metadata": OWN})}, unknown={"S"})
    draft = plan_changes(
        [desired_of("Stream", "S", None, {"name": "S", "subjects": ["s.>"]}, "m/s.yaml")], live, PlanOptions()
    )
    (choice,) = draft.choices
    assert choice.intent.action == ActionKind.UPDATE and list(refusals(draft)) == [0]
    assert refusals(draft)[0].refusal == choice.refused.refusal if choice.refused is not None else False
    (a,) = decide(
        draft, authorize(draft, Grants.flags(prune=True, allow_recreate=True, allow_data_loss=True), live)
    ).actions
    assert a.refusal is not None and a.refusal.blocker == Blocker.UNKNOWN and a.intent is choice.intent


def test_plan_types_are_frozen() -> None:
    for cls in (Intent, Choice, Draft, Plan, Run, Blocked, Dropped):
        params = getattr(cls, "__dataclass_params__", None)
        assert params is not None and params.frozen, cls
    assert issubclass(PlanItem, tuple) and issubclass(Pick, tuple)  # NamedTuples: immutable


def _item(blocker: Blocker | None = None) -> PlanItem:
    a = Intent(ActionKind.UPDATE, "Stream", "S", None, [], None, stream_record({"name": "S"}))
    return PlanItem(a, Blocked(Refusal(blocker, f"planned: {blocker}")) if blocker is not None else Run())


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
    (None, [_blocked(Blocker.UNKNOWN), _blocked(Blocker.PROTECTION)], Blocker.PROTECTION),
    (None, [_blocked(Blocker.DEPENDENCY), _blocked(Blocker.UNKNOWN)], Blocker.UNKNOWN),
    (None, [_blocked(b) for b in reversed(PRECEDENCE)], Blocker.SERVER_REFUSAL),
    (Blocker.PROTECTION, [], Blocker.PROTECTION),
    (Blocker.PROTECTION, [Run()], Blocker.PROTECTION),
    (Blocker.PROTECTION, [Run(accept_loss=True)], Blocker.PROTECTION),
    (Blocker.PROTECTION, [Dropped()], "dropped"),  # authorize's drop: another intent does what it would
    (Blocker.PROTECTION, [_blocked(Blocker.PERMISSION)], Blocker.PROTECTION),
    (Blocker.PROTECTION, [_blocked(Blocker.DEPENDENCY)], Blocker.PROTECTION),
    (Blocker.PROTECTION, [_blocked(Blocker.SERVER_REFUSAL)], Blocker.SERVER_REFUSAL),
    (Blocker.PROTECTION, [_blocked(Blocker.PROTECTION)], Blocker.PROTECTION),  # held first among equals
    (Blocker.UNKNOWN, [_blocked(Blocker.PERMISSION)], Blocker.UNKNOWN),
    (Blocker.PERMISSION, [_blocked(Blocker.PROTECTION)], Blocker.PROTECTION),
    (Blocker.DEPENDENCY, [_blocked(Blocker.PERMISSION)], Blocker.PERMISSION),
    (Blocker.SERVER_REFUSAL, [_blocked(Blocker.PROTECTION)], Blocker.SERVER_REFUSAL),
]


@pytest.mark.parametrize(("held", "verdicts", "stands"), _TABLE)
def test_decide_applies_the_written_precedence(
    held: Blocker | None, verdicts: list[Verdict], stands: Blocker | str | None
) -> None:
    plan = Plan("t", "f", [_item(held)])
    given = copy.deepcopy(plan)
    out = decide(plan, *({0: v} for v in verdicts))
    assert _same(plan, given)  # decide makes a new plan
    if stands == "dropped":
        assert out.actions == ()
        return
    (a,) = out.actions
    if stands is None:
        assert a.action == ActionKind.UPDATE and a.refusal is None
        return
    assert (a.action, a.wanted) == (ActionKind.BLOCKED, ActionKind.UPDATE)
    assert a.refusal is not None and a.refusal.blocker == stands
    assert a.err_code == (10065 if stands == Blocker.SERVER_REFUSAL and held != Blocker.SERVER_REFUSAL else None)


@pytest.mark.parametrize(("held", "verdicts", "stands"), _TABLE)
def test_a_draft_ranks_planning_refusals_the_same_way(
    held: Blocker | None, verdicts: list[Verdict], stands: Blocker | str | None
) -> None:
    """Planning's own refusal (beside the intent in its Choice) is ranked like a held block."""
    (item,) = [_item(held)]
    refused = item.verdict if isinstance(item.verdict, Blocked) else None
    draft = Draft("t", "f", (Choice(item.intent, refused),))
    out = decide(draft, *({0: v} for v in verdicts))
    assert out.actions == decide(Plan("t", "f", [item]), *({0: v} for v in verdicts)).actions


def test_a_saved_plans_text_reason_is_not_judged_again() -> None:
    saved = PlanItem(Intent(ActionKind.UPDATE, "Stream", "S"), Blocked("as the file says"))
    (a,) = decide(Plan("t", "f", [saved]), {0: _blocked(Blocker.SERVER_REFUSAL)}).actions
    assert a.verdict == Blocked("as the file says") and a.refusal is None and a.wanted == ActionKind.UPDATE


def test_the_precedence_is_the_one_the_issue_writes() -> None:
    assert PRECEDENCE[0] == Blocker.SERVER_REFUSAL and PRECEDENCE[-1] == Blocker.DEPENDENCY
    assert PRECEDENCE.index(Blocker.PROTECTION) < PRECEDENCE.index(Blocker.PERMISSION)


def test_plan_items_are_frozen() -> None:
    a = _item()
    with pytest.raises(AttributeError):
        a.verdict = Dropped()  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.intent.action = ActionKind.DELETE  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        PlanOptions().prune = True  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        Plan("t", "f").target = "u"  # type: ignore[misc]
    b = PlanItem(a.intent, Blocked(Refusal(Blocker.PROTECTION, "no")))
    assert (a.action, b.action, b.wanted) == (ActionKind.UPDATE, ActionKind.BLOCKED, ActionKind.UPDATE)


def test_a_pick_runs_the_alternative_and_accepts_its_loss() -> None:
    primary = Choice(_item().intent)
    alt = Choice(Intent(ActionKind.MIGRATE, "Stream", "S", None, [], None, stream_record({"name": "S"}), data_loss=3))
    draft = Draft("t", "f", (primary,))
    (a,) = decide(draft, {0: Pick(alt, Run(accept_loss=True))}).actions
    assert (a.action, a.accept_loss, a.intent is alt.intent) == (ActionKind.MIGRATE, True, True)
    (b,) = decide(draft, {0: Pick(alt, Blocked(Refusal(Blocker.PERMISSION, "no; ", (Permission.ADOPT,))))}).actions
    assert (b.action, b.wanted, alt.intent.action) == (ActionKind.BLOCKED, ActionKind.MIGRATE, ActionKind.MIGRATE)
    refused = Choice(alt.intent, Blocked(Refusal(Blocker.PROTECTION, "unsafe")))
    (c,) = decide(draft, {0: Pick(refused)}).actions  # an alternative planning refused stays refused
    assert c.refusal is not None and c.refusal.blocker == Blocker.PROTECTION
