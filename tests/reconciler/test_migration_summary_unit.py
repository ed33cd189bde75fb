"""The one line a migration ends with (issue 35: "80 compared for 40 stored", "0 consumers at their
positions" after recreating two): each copy's comparison counted once, the consumers of the last copy."""

from __future__ import annotations

from typing import Any

from jsops.reconciler.migration_steps import _Leg, _summary


def _leg(compared: int, placed: int = 0, reset_to: int = 0, window: float | None = None) -> Any:
    leg = _Leg.__new__(_Leg)
    for k, v in {"compared": compared, "placed": placed, "reset_to": reset_to, "window": window}.items():
        object.__setattr__(leg, k, v)
    return leg


def test_one_copy() -> None:
    assert _summary("ORDERS", None, [_leg(40, 2, window=0.0123)]) == (
        "migrated from ORDERS: 40 messages compared (SHA-256), 2 consumers at their positions, cut-over window 12.3 ms"
    )


def test_two_copies_compare_the_same_messages_twice() -> None:
    line = _summary("ORDERS", "ORDERS_JSOPS_TMP", [_leg(40, 2), _leg(40, 2, 1)])
    assert line == (
        "migrated from ORDERS through ORDERS_JSOPS_TMP: 40 messages compared (SHA-256) in each of its 2 copies, "
        "2 consumers at their positions, 1 where the manifest says (--reset-position)"
    )
    assert "80" not in line and "4 consumers" not in line


def test_a_resumed_migration_names_each_copy() -> None:
    assert "0 + 40 messages compared (SHA-256) in its 2 copies, 1 consumer at their positions" in _summary("A", "B", [_leg(0), _leg(40, 1)])
