"""Golden text of ``jsops failback --plan`` (pure: plans built by hand): a failback from the start,
one carried on after it deleted the old side, one with only the standby left to restore, a refusal;
the result lines and the help."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from jsops.reconciler.failback import FailbackPlan, FailbackResult
from jsops.reconciler.failover import FailoverResult
from jsops.reconciler.render_failover import render_failback_plan, render_failback_result

GOLDEN = Path(__file__).parent / "golden"

PLAN = FailbackPlan("ORDERS_WEST", "ORDERS", "WEST", "EAST", 1500, 1200, "fenced")


def _golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("UPDATE_GOLDEN"):
        path.write_text(text)
    assert text == path.read_text()


@pytest.mark.parametrize(
    ("name", "plan"),
    [
        ("failback_plan.txt", PLAN),
        ("failback_plan_rebuilding.txt", FailbackPlan(**{**PLAN.__dict__, "state": "rebuilding", "back_last_seq": 0})),
        (
            "failback_plan_restoring.txt",
            FailbackPlan("ORDERS_WEST", "ORDERS", "?", "EAST", 1500, 1510, "restoring"),
        ),
        (
            "failback_plan_refused.txt",
            FailbackPlan(**{**PLAN.__dict__, "refusal": "ORDERS is not fenced (subjects [_jsops.fenced.ORDERS])"}),
        ),
    ],
)
def test_failback_plan_text(name: str, plan: FailbackPlan) -> None:
    _golden(name, render_failback_plan(plan))


def test_plan_compares_before_it_deletes() -> None:
    text = render_failback_plan(PLAN)
    assert text.index("compare ORDERS's last messages") < text.index("delete ORDERS and create it again")
    assert text.index("fail ORDERS_WEST over to ORDERS") < text.index("restore the standby: ORDERS_WEST")


def test_result_lines() -> None:
    done = FailbackResult(64, 1500, FailoverResult(1500, 1, 0.0512), PLAN)
    assert render_failback_result(done) == (
        "Failed back to ORDERS: 64 messages of its old tail compared, mirrored up to sequence 1500; "
        "ORDERS_WEST restored as its standby (a mirror).\n"
        "Failed over ORDERS_WEST to ORDERS: 1500 messages compared (SHA-256), 1 consumers at their positions, "
        "write pause 51.2 ms.\n"
    )
    restored = FailbackResult(0, 0, None, FailbackPlan(**{**PLAN.__dict__, "state": "restoring"}))
    assert (
        render_failback_result(restored) == "Failed back to ORDERS: ORDERS_WEST restored as its standby (a mirror).\n"
    )


def test_help_and_argument_errors(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from jsops.reconciler.cli.failback import main

    monkeypatch.setenv("COLUMNS", "100")
    assert main(["--help"]) == 0
    _golden("failback_help.txt", capsys.readouterr().out)
    assert main([]) == 2
    assert "jsops failback" in capsys.readouterr().err
