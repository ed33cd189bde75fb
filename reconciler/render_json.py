"""The plan (one target or several) as the JSON of contracts §5 (see :class:`~reconciler.plan.PlanSet`)."""

from __future__ import annotations

import json

from .plan import Plan, PlanSet

__all__ = ["render_json"]


def render_json(plan: Plan | PlanSet) -> str:
    return json.dumps(plan.to_json(), indent=2, sort_keys=False) + "\n"
