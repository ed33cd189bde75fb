"""Golden text of ``jsops failover --plan`` (pure: plans built by hand): every step in order, a
resumed failover, and a refusal with its reason."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from jsops.reconciler.failover import ConsumerMove, FailoverPlan, FailoverResult, fence_subject
from jsops.reconciler.failover_group import GroupStep
from jsops.reconciler.render_failover import render_failover_plan, render_failover_result, render_group

GOLDEN = Path(__file__).parent / "golden"

PLAN = FailoverPlan(
    "ORDERS",
    "ORDERS_WEST",
    "EAST",
    "WEST",
    ("orders.>", "refunds.*"),
    1200,
    1187,
    (ConsumerMove("billing", 1151, 1150), ConsumerMove("shipping", 1, 0)),
)


def _golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("UPDATE_GOLDEN"):
        path.write_text(text)
    assert text == path.read_text()


@pytest.mark.parametrize(
    ("name", "plan"),
    [
        ("failover_plan.txt", PLAN),
        ("failover_plan_resumed.txt", FailoverPlan(**{**PLAN.__dict__, "resumed": True, "consumers": ()})),
        (
            "failover_plan_repoint.txt",
            FailoverPlan(**{**PLAN.__dict__, "sources": ("AUDIT", "REPORTS"), "mirrors": ("ORDERS_COPY",)}),
        ),
        (
            "failover_plan_refused.txt",
            FailoverPlan(**{**PLAN.__dict__, "refusal": "nats-server 2.11.11 cannot promote a mirror in place"}),
        ),
    ],
)
def test_failover_plan_text(name: str, plan: FailoverPlan) -> None:
    _golden(name, render_failover_plan(plan))


def test_plan_names_every_consumer_and_the_fence() -> None:
    text = render_failover_plan(PLAN)
    assert "create consumer billing on ORDERS_WEST at stream sequence 1151 (ack floor 1150" in text
    assert "create consumer shipping on ORDERS_WEST at stream sequence 1 " in text
    assert f"-> [{fence_subject('ORDERS')}]" in text and fence_subject("ORDERS") == "_jsops.fenced.ORDERS"
    assert (
        text.index("fence ORDERS") < text.index("promote ORDERS_WEST") < text.index("io.jsops.dr.active = ORDERS_WEST")
    )


def test_result_line_has_the_write_pause() -> None:
    line = render_failover_result(PLAN, FailoverResult(1200, 2, 0.0421))
    assert (
        line
        == "Failed over ORDERS to ORDERS_WEST: 1200 messages compared (SHA-256), 2 consumers at their positions, write pause 42.1 ms.\n"
    )


def test_help_and_argument_errors(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from jsops.reconciler.cli.failover import main

    monkeypatch.setenv("COLUMNS", "100")  # argparse wraps to the terminal width

    assert main(["--help"]) == 0
    _golden("failover_help.txt", capsys.readouterr().out)
    assert main([]) == 2  # STREAM is required: the usage, exit 2
    assert "jsops failover" in capsys.readouterr().err


def test_group_summary_says_what_switched_and_what_did_not() -> None:
    steps = (
        GroupStep("ORDERS", "already"),
        GroupStep("LEDGER", "switched", "LEDGER -> LEDGER_W"),
        GroupStep("PAY", "failed", "PAY_W is not a mirror of the whole of PAY in this account and domain"),
        GroupStep("REFUNDS", "not started"),
    )
    _golden("failover_group.txt", render_group("dr=pay", steps, back=False, plan_only=False))
    _golden(
        "failover_group_plan.txt",
        render_group(
            "dr=pay", (GroupStep("ORDERS", "switched", "ORDERS -> ORDERS_WEST", PLAN),), back=False, plan_only=True
        ),
    )
