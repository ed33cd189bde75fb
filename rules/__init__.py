"""Built-in jsops rules, registered through the ``jsops.rules`` entry point (``rules:get_rules``).

Rules live in theme packages (``rules/stream/``, ``rules/consumer/``, ``rules/estate/``,
``rules/target/``, ``rules/rewrite/``, ``rules/ops/``, ``rules/capacity/``, ``rules/monitoring/``),
one rule per module; each theme package declares its :class:`jsops.linter.api.Theme` (``THEME``) and may
have one private ``_common.py``. A module whose name does not start with ``_`` defines one rule
class and exposes it as ``RULE``. ``_transform.py`` is nats-server's subject-transform semantics.
"""

from __future__ import annotations

import pkgutil
from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from jsops.linter.api import Rule

__all__ = ["get_rules", "THEMES"]

THEMES = ("stream", "consumer", "estate", "target", "rewrite", "ops", "capacity", "monitoring")


def get_rules() -> list[type[Rule]]:
    """Every built-in rule class, by code."""
    out: list[type[Rule]] = []
    for theme in THEMES:
        package = import_module(f"{__name__}.{theme}")
        for info in pkgutil.iter_modules(package.__path__):
            if not info.name.startswith("_"):
                out.append(import_module(f"{package.__name__}.{info.name}").RULE)
    return sorted(out, key=lambda r: r.code)
