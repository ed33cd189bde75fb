"""The reconciler's typed vocabulary and its one dependency order (the permission decision: test_authorize_unit)."""

from __future__ import annotations

import json
import random

import pytest

from jsops.linter import stream_from_api_json
from jsops.reconciler.client import ConnectError, JsApiError, TargetError, URLError
from jsops.reconciler.errors import ErrCode, PermanentError, ReconcilerError, TemporaryError
from jsops.reconciler.plan import Intent, PlanError, PlanItem, levels, stream_order
from jsops.reconciler.plan.codec import decode_action, encode_action
from jsops.reconciler.vocabulary import ActionKind, ChangeClass, Outcome


def test_action_kinds_know_their_symbol_and_serialise_as_strings() -> None:
    assert {k.value: k.symbol for k in ActionKind} == {
        "create": "+",
        "update": "~",
        "recreate": "-/+",
        "delete": "-",
        "adopt": "~",
        "blocked": "!",
        "migrate": "=>",
        "pause": "||",
        "resume": "|>",
        "reset": "<<",
    }
    assert ActionKind.RECREATE.past == "deleted and created again"
    a = PlanItem(Intent("create", "Stream", "S", config=stream_from_api_json({"name": "S"})[0]))
    assert a.action is ActionKind.CREATE and json.dumps(encode_action(a)["action"]) == '"create"'
    assert f"{ActionKind.DELETE}" == "delete" and Outcome("done") is Outcome.DONE
    assert ChangeClass("data-loss").rank == 0 and ChangeClass.FORBIDDEN.rank == 4
    assert ChangeClass.ONE_WAY.rank < ChangeClass.RESET.rank < ChangeClass.RECREATE.rank


def test_a_bad_change_class_or_wanted_in_a_saved_plan_is_a_plan_error() -> None:
    base = {"action": "blocked", "object": {"kind": "Stream", "name": "S"}}
    with pytest.raises(PlanError):
        decode_action({**base, "changes": [{"path": "x", "class": "sideways"}]})
    with pytest.raises(PlanError):
        decode_action({**base, "wanted": "explode"})


def _quadratic_order(deps: dict[str, set[str]]) -> list[str]:
    """The order the plan used before it was linear: ready names by level, cycles broken by name."""
    done: list[str] = []
    placed: set[str] = set()
    remaining = sorted(deps)
    while remaining:
        ready = [n for n in remaining if deps[n] - {n} <= placed] or remaining[:1]
        done += ready
        placed |= set(ready)
        remaining = [n for n in remaining if n not in placed]
    return done


def test_levels_is_the_old_order_and_breaks_cycles_at_the_first_node() -> None:
    configs = {
        "M": {"mirror": {"name": "O"}},
        "O": {},
        "S": {"sources": [{"name": "M"}, {"name": "X", "external": {}}]},
        "A": {"sources": [{"name": "B"}]},
        "B": {"sources": [{"name": "A"}]},
    }
    assert stream_order({n: stream_from_api_json({"name": n, **c})[0] for n, c in configs.items()}) == [
        "O",
        "M",
        "S",
        "A",
        "B",
    ]
    rng = random.Random(11)
    for _ in range(300):
        names = [f"S{i}" for i in range(rng.randrange(1, 12))]
        graph = {n: {rng.choice(names) for _ in range(rng.randrange(0, 3))} for n in names}
        cfgs = {
            n: stream_from_api_json({"name": n, "sources": [{"name": d} for d in sorted(ds)]})[0]
            for n, ds in graph.items()
        }
        assert stream_order(cfgs) == _quadratic_order(graph)
    chain = [f"s{i:05d}" for i in range(20000)]  # linear: a long chain is quick
    assert levels(chain, lambda n: [chain[int(n[1:]) - 1]] if n != chain[0] else []) == [[n] for n in chain]


def test_errors_derive_from_the_base_and_say_whether_to_retry() -> None:
    assert ErrCode.STREAM_NOT_FOUND == 10059 and str(int(ErrCode.STREAM_SUBJECT_OVERLAP)) == "10065"
    for cls in (ConnectError, JsApiError, TargetError, URLError, PlanError):
        assert issubclass(cls, ReconcilerError)
    assert issubclass(URLError, ValueError) and issubclass(TargetError, PermanentError)
    assert ConnectError("x").temporary and issubclass(ConnectError, TemporaryError)
    assert JsApiError("no answer to stream request").temporary
    assert not JsApiError("stream not found", 10059, 404).temporary
