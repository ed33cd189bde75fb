"""The plan (one target or several) as the JSON of contracts §5 (see :class:`~jsops.reconciler.plan.PlanSet`)."""

from __future__ import annotations

import json
from typing import Any

from .plan import Plan, PlanSet, seal

__all__ = ["render_json", "render_saved"]


def render_json(plan: Plan | PlanSet) -> str:
    return json.dumps(plan.to_json(), indent=2, sort_keys=False) + "\n"


def render_saved(plans: PlanSet, binding: dict[str, Any]) -> str:
    """The saved plan ``jsops plan --out`` writes: the plan JSON with its binding and digest."""
    return json.dumps(seal(plans, binding), indent=2, sort_keys=False) + "\n"
