"""Built-in jsops rules, one per module; registered through the ``jsops.rules`` entry point."""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from linter.api import Rule

__all__ = ["get_rules", "RULE_MODULES"]

RULE_MODULES = (
    "stream_duplicate_window_exceeds_max_age",
)


def get_rules() -> list[type["Rule"]]:
    out = []
    for mod in RULE_MODULES:
        module = import_module(f"{__name__}.{mod}")
        out.append(getattr(module, "RULE"))
    return out
