"""jsops.reconciler.failover_group (pure parts): which streams a ``--selector`` names, in which order,
and the selector's syntax."""

from __future__ import annotations

from pathlib import Path

import pytest

from jsops.linter import load_paths
from jsops.reconciler.failover_group import parse_selector, select

MANIFESTS = """\
apiVersion: jsops/v1
kind: Stream
metadata: {name: AGG, labels: {dr: pay}}
spec: {sources: [{name: ORDERS}], placement: {cluster: EAST}}
---
apiVersion: jsops/v1
kind: Stream
metadata: {name: ORDERS, labels: {dr: pay, team: shop}}
spec: {subjects: ["orders.>"], placement: {cluster: EAST}}
---
apiVersion: jsops/v1
kind: Stream
metadata: {name: ORDERS_W, labels: {dr: pay}}
spec: {mirror: {name: ORDERS}, placement: {cluster: WEST}}
---
apiVersion: jsops/v1
kind: Stream
metadata: {name: BILLING, labels: {dr: other}}
spec: {subjects: ["billing.>"]}
"""


def test_labelled_active_streams_origins_first(tmp_path: Path) -> None:
    (tmp_path / "s.yaml").write_text(MANIFESTS)
    estate = load_paths([str(tmp_path)], cache=False)
    # AGG sorts first by name, but reads ORDERS: ORDERS goes first; the standby ORDERS_W goes with it
    assert select(estate, "dr", "pay") == ["ORDERS", "AGG"]
    assert select(estate, "team", "shop") == ["ORDERS"]
    assert select(estate, "dr", "none") == []


@pytest.mark.parametrize("bad", ["dr", "=pay", "dr=pay,team=shop", "dr!=pay"])
def test_selector_is_one_equality(bad: str) -> None:
    with pytest.raises(ValueError, match="--selector takes one KEY=VALUE"):
        parse_selector(bad)
    assert parse_selector("dr-group=payments") == ("dr-group", "payments")


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        ([], "give STREAM or --selector KEY=VALUE"),
        (["ORDERS", "--selector", "dr=pay"], "give STREAM or --selector KEY=VALUE"),
        (["--selector", "dr=pay", "--to", "X"], "not with --to, --emergency or --check"),
    ],
)
def test_selector_argument_errors(argv: list[str], says: str, capsys: pytest.CaptureFixture[str]) -> None:
    from jsops.reconciler.cli.failover import main

    assert main(["--no-config", *argv]) == 2
    assert says in capsys.readouterr().err
