"""Built-in jsops rules, one per module; registered through the ``jsops.rules`` entry point.

Every module in this package whose name does not start with ``_`` defines one rule class and
exposes it as ``RULE``.
"""

from __future__ import annotations

import pkgutil
from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from linter.api import Rule

__all__ = ["get_rules"]


def get_rules() -> list[type[Rule]]:
    out = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = import_module(f"{__name__}.{info.name}")
        out.append(module.RULE)
    return sorted(out, key=lambda r: r.code)
