"""The plan as the JSON of contracts §5."""

from __future__ import annotations

import json

from .plan import Plan

__all__ = ["render_json"]


def render_json(plan: Plan) -> str:
    return json.dumps(plan.to_json(), indent=2, sort_keys=False) + "\n"
