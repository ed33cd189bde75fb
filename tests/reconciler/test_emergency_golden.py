"""Golden text of ``jsops failover --emergency`` (pure: plans built by hand): the stated loss with a
check recorded, with none and no message ever received (unknown), a refusal; the result and the
``--check`` lines; argument errors."""

from __future__ import annotations

import calendar
import os
from pathlib import Path

import pytest

from jsops.reconciler.emergency import CheckResult, EmergencyPlan, EmergencyResult
from jsops.reconciler.render_failover import render_check, render_emergency_plan, render_emergency_result

GOLDEN = Path(__file__).parent / "golden"
AT = float(calendar.timegm((2026, 12, 2, 16, 0, 0)))

PLAN = EmergencyPlan("ORDERS", "ORDERS_WEST", "WEST", ("orders.>",), 1187, 13, 1200, AT, 2.5)


def _golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("UPDATE_GOLDEN"):
        path.write_text(text)
    assert text == path.read_text()


@pytest.mark.parametrize(
    ("name", "plan"),
    [
        ("emergency_plan.txt", PLAN),
        (
            "emergency_plan_unknown.txt",
            EmergencyPlan("ORDERS", "ORDERS_WEST", "WEST", ("orders.>",), 0, None, 0, None, None),
        ),
        (
            "emergency_plan_refused.txt",
            EmergencyPlan(**{**PLAN.__dict__, "refusal": "ORDERS answers: fail over without --emergency"}),
        ),
    ],
)
def test_emergency_plan_text(name: str, plan: EmergencyPlan) -> None:
    _golden(name, render_emergency_plan(plan))


def test_the_stated_loss_comes_first() -> None:
    text = render_emergency_plan(PLAN)
    assert text.index("at most 13 acknowledged publishes can be lost") < text.index("1. fence ORDERS")
    assert "last check 2026-12-02T16:00:00Z" in text


def test_result_and_check_lines() -> None:
    assert render_emergency_result(PLAN, EmergencyResult(13, 1187, 1.25)) == (
        "Promoted ORDERS_WEST in place of ORDERS at sequence 1187 in 1.2 s; stated loss: at most 13 acknowledged publishes.\n"
    )
    assert render_check(CheckResult("ORDERS", "ORDERS_WEST", 1200, 1199, AT)) == (
        "Checked ORDERS (last sequence 1200) and its standby ORDERS_WEST (last sequence 1199): "
        "recorded on ORDERS_WEST at 2026-12-02T16:00:00Z.\n"
    )


@pytest.mark.parametrize(
    "argv",
    [["ORDERS", "--allow-data-loss"], ["ORDERS", "--subjects", "a.>"], ["ORDERS", "--check", "--emergency"]],
)
def test_flags_that_go_together(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    from jsops.reconciler.cli.failover import main

    assert main(argv) == 2
    assert "jsops failover" in capsys.readouterr().err
