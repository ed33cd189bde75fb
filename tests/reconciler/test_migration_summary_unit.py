"""The one line a migration ends with (issue 35: "80 compared for 40 stored", "0 consumers at their
positions" after recreating two): each copy's comparison counted once, the consumers of the last copy."""

from __future__ import annotations

from jsops.reconciler.render_migration import migration_line


def test_one_copy() -> None:
    assert migration_line("ORDERS", None, [40], 2, 0, [0.0123]) == (
        "migrated from ORDERS: 40 messages compared (SHA-256), 2 consumers at their positions, cut-over window 12.3 ms"
    )


def test_two_copies_compare_the_same_messages_twice() -> None:
    line = migration_line("ORDERS", "ORDERS_JSOPS_TMP", [40, 40], 2, 1, [])
    assert line == (
        "migrated from ORDERS through ORDERS_JSOPS_TMP: 40 messages compared (SHA-256) in each of its 2 copies, "
        "2 consumers at their positions, 1 where the manifest says (--reset-position)"
    )
    assert "80" not in line and "4 consumers" not in line


def test_a_resumed_migration_names_each_copy() -> None:
    assert "0 + 40 messages compared (SHA-256) in its 2 copies, 1 consumer at their positions" in migration_line(
        "A", "B", [0, 40], 1, 0, []
    )
