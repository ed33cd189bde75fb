"""One function per server refusal check: the lint rules and the plan's prediction decide each err_code of
:data:`SERVER_CHECKS` with the same function, and neither writes the code itself (only compares it)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from jsops.linter.model.config import StreamConfig
from jsops.linter.semantics import refusals
from jsops.linter.semantics.effective import effective_stream
from jsops.linter.semantics.effective_types import EffectiveStream
from jsops.linter.semantics.errcodes import ErrCode

ROOT = Path(__file__).resolve().parents[3]
PREDICT = ROOT / "reconciler" / "plan" / "predict.py"
E = ErrCode


def _uses(path: Path) -> tuple[set[str], list[str]]:
    """The refusal functions ``path`` calls, and the registered codes it names outside a comparison."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    compared = {id(n) for c in ast.walk(tree) if isinstance(c, ast.Compare) for n in ast.walk(c)}
    called = {n.func.attr for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)}
    names = {c.name for c in refusals.SERVER_CHECKS}
    written = [
        f"{path.name}:{n.lineno} {n.attr}"
        for n in ast.walk(tree)
        if isinstance(n, ast.Attribute) and n.attr in names and id(n) not in compared
    ]
    return called & set(refusals.__all__), written


def test_rules_and_the_plan_decide_each_code_with_the_same_function() -> None:
    rules = [_uses(p) for p in sorted((ROOT / "rules").rglob("*.py"))]
    plan_calls, plan_written = _uses(PREDICT)
    assert plan_written == [] and [w for _, ws in rules for w in ws] == []
    rule_calls = set().union(*(c for c, _ in rules))
    for code, functions in refusals.SERVER_CHECKS.items():
        assert any(f.__name__ in rule_calls for f in functions), f"no rule decides {code!r} with {functions}"
        assert any(f.__name__ in rule_calls and f.__name__ in plan_calls for f in functions), (
            f"the plan does not decide {code!r} with the rules' function"
        )


def _stream(**spec: object) -> EffectiveStream:
    return effective_stream(StreamConfig.model_validate({"name": "S", **spec}))


@pytest.mark.parametrize(
    ("spec", "streams", "max_streams", "reserved", "limit", "code"),
    [
        ({}, 3, 3, 0, None, E.MAXIMUM_STREAMS_LIMIT),
        ({}, 2, 3, 0, None, None),
        ({}, 9, 0, 0, None, None),  # 0: unlimited
        ({"max_bytes": 100, "num_replicas": 3}, 0, None, 0, 299, E.STORAGE_RESOURCES_EXCEEDED),
        ({"max_bytes": 100, "num_replicas": 3, "storage": "memory"}, 0, None, 0, 299, E.MEMORY_RESOURCES_EXCEEDED),
        ({"max_bytes": 100, "num_replicas": 3}, 0, None, 0, 300, None),
        ({}, 0, None, 10, 10, E.STORAGE_RESOURCES_EXCEEDED),  # unlimited asks 1 byte
        ({}, 3, 3, 10, 10, E.MAXIMUM_STREAMS_LIMIT),  # the count first
    ],
)
def test_stream_create(
    spec: dict[str, object], streams: int, max_streams: int | None, reserved: int, limit: int | None, code: E | None
) -> None:
    assert refusals.stream_create_refusal(_stream(**spec), streams, max_streams, reserved, limit) == code


def test_consumer_limits() -> None:
    assert [
        refusals.consumer_limit(_stream(max_consumers=m), a)
        for m, a in [(5, None), (5, 3), (3, 5), (-1, 4), (-1, None)]
    ] == [5, 3, 3, 4, 0]
    assert refusals.consumer_create_refusal(_stream(max_consumers=2), 2, None) == E.MAXIMUM_CONSUMERS_LIMIT
    assert refusals.consumer_create_refusal(_stream(max_consumers=2), 1, 1) == E.MAXIMUM_CONSUMERS_LIMIT
    assert refusals.consumer_create_refusal(_stream(), 100, None) is None
    assert refusals.stream_max_consumers_refusal(_stream(max_consumers=4), 3) == E.MAXIMUM_CONSUMERS_LIMIT
    assert refusals.stream_max_consumers_refusal(_stream(max_consumers=3), 3) is None


def test_overlaps() -> None:
    assert refusals.stream_overlap(["a.>"], [("X", ["b.*"]), ("Y", ["a.b", "a.*"])]) == (
        E.STREAM_SUBJECT_OVERLAP,
        "Y",
        "a.>",
        "a.b",
    )
    assert refusals.stream_overlap(["a.b"], [("X", ["a.c"])]) is None
    wq = refusals.workqueue_refusal
    assert wq([], [("c1", ["a"])]) == (E.CONSUMER_WQ_MULTIPLE_UNFILTERED, "c1", "", "")
    assert wq([], [("c1", ["a"])], exists=True) is None
    assert wq([], []) is None
    assert wq(["a.b"], [("c1", [])]) == (E.CONSUMER_WQ_CONSUMER_NOT_UNIQUE, "c1", "a.b", "")
    assert wq(["x", "a.*"], [("c1", ["b"]), ("c2", ["a.b"])]) == (E.CONSUMER_WQ_CONSUMER_NOT_UNIQUE, "c2", "a.*", "a.b")
    assert wq(["a.c"], [("c1", ["a.b"])]) is None
