"""A migration's result in words (computed by :mod:`jsops.reconciler.migration_steps`)."""

from __future__ import annotations

__all__ = ["migration_line"]


def migration_line(
    source: str, via: str | None, compared: list[int], placed: int, reset_to: int, windows: list[float]
) -> str:
    """What a migration did, in one line. Each copy compares every message it takes, so a migration
    through a temporary stream compares the same messages twice: counted per copy, not added up.
    ``placed``/``reset_to``: the consumers of the stream it ends with, created at their positions or where
    their manifest says (--reset-position); ``windows``: each cut-over's, in seconds."""
    if len(set(compared)) == 1:
        counted = f"{compared[0]} messages compared (SHA-256)" + (
            f" in each of its {len(compared)} copies" if len(compared) > 1 else ""
        )
    else:
        counted = f"{' + '.join(map(str, compared))} messages compared (SHA-256) in its {len(compared)} copies"
    consumers = f"{placed} consumer{'' if placed == 1 else 's'} at their positions"
    if reset_to:
        consumers += f", {reset_to} where the manifest says (--reset-position)"
    shown = [f"{w * 1000:.1f} ms" for w in windows]
    return (
        f"migrated from {source}"
        + (f" through {via}" if via else "")
        + f": {counted}, {consumers}"
        + (f", cut-over window {' + '.join(shown)}" if shown else "")
    )
