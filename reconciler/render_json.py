"""The plan (one target or several) as the JSON of contracts §5 (see :class:`~jsops.reconciler.plan.PlanSet`)."""

from __future__ import annotations

import json
from typing import Any

from .drift import Attribution, ChangedBy
from .plan import Plan, PlanSet, seal

__all__ = ["render_json", "render_saved"]


def render_json(plan: Plan | PlanSet, drift: Attribution | None = None) -> str:
    """The plan's JSON; with ``drift``, each drifted change its audit record names carries
    ``changed_by`` (user, account, client_name, host, at, request), or ``changed_by: null`` and
    ``author_unknown`` (``since``: how far back the record reaches); the fields left as they are
    live are listed under ``held`` (``live``, ``manifest``, ``reason``)."""
    doc = plan.to_json()
    if drift:
        _attribute(doc, drift)
        held = [
            {
                "context": k.context,
                "object": {"kind": k.kind, "name": k.name, "stream": k.stream},
                "path": k.field,
                **h.to_json(),
            }
            for p in (plan.plans if isinstance(plan, PlanSet) else [plan])
            for k, h in drift.held_in(p.context)
        ]
        if held:
            doc["held"] = held
    return json.dumps(doc, indent=2, sort_keys=False) + "\n"


def _attribute(doc: dict[str, Any], drift: Attribution) -> None:
    for action in doc.get("actions", ()):
        obj = action.get("object") or {}
        for change in action.get("changes", ()):
            who = drift.of(
                action.get("context", "default"),
                obj.get("kind", ""),
                obj.get("stream"),
                obj.get("name", ""),
                change.get("path", ""),
            )
            if isinstance(who, ChangedBy):
                change["changed_by"] = who.to_json()
            elif who is not None:
                change["changed_by"] = None
                change["author_unknown"] = who.to_json()


def render_saved(plans: PlanSet, binding: dict[str, Any]) -> str:
    """The saved plan ``jsops plan --out`` writes: the plan JSON with its binding and digest."""
    return json.dumps(seal(plans, binding), indent=2, sort_keys=False) + "\n"
