"""What ``jsops plan`` and ``apply`` check before the first request: the lint gate, judged for
what each action is, and the plan against the live estate.

- :func:`gate_lint` runs the rules whose findings are errors (the gate refuses on errors only, so
  warning rules are not run) and splits the errors into those that hold whatever the plan does and
  those of create-only rules (``Rule.applies_to``, :data:`linter.api.CREATE_ONLY`);
- :func:`judged` keeps a create-only error only for an object the plan creates (or recreates):
  sealing an existing stream is an update the server accepts, creating a sealed one is refused;
- :func:`preflight` reads the account's limits and usage (``$JS.API.INFO``) and marks the actions
  the server would refuse blocked, with everything that depends on them
  (:func:`reconciler.plan.block_predicted`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from linter import Estate
from linter.api import CREATE
from linter.config import Config
from linter.engine import discover_rules
from linter.findings import Finding, Severity

from .client import JsClient
from .lintgate import lint_errors
from .live import LiveState
from .plan import Plan, Prediction, account_usage, block_predicted
from .vocabulary import ActionKind

__all__ = ["GateFindings", "gate_lint", "judged", "preflight"]

_Key = tuple[str, str, str | None]  # (kind, name, stream) as a finding's object names it


@dataclass
class GateFindings:
    """The lint errors of the manifests: ``errors`` refuse the run whatever the plan does;
    ``create_only`` refuse it only for the objects the plan creates."""

    errors: list[Finding] = field(default_factory=list)
    create_only: list[Finding] = field(default_factory=list)


_DISK = object()  # lint_estate's default source reader


def gate_lint(estate: Estate, config: Config, *, read_source: Callable[[str], bytes | None] | None | object = _DISK) -> GateFindings:
    """The errors the gate judges, from the rules ``config`` selects that can report an error
    (:func:`reconciler.lintgate.lint_errors`)."""
    registry = discover_rules()
    kwargs: dict[str, Any] = {} if read_source is _DISK else {"read_source": read_source}
    result = lint_errors(estate, config, **kwargs)
    create_only = {r.code for r in registry if CREATE in r.applies_to and len(r.applies_to) == 1}
    out = GateFindings()
    for f in result.findings:
        if f.severity == Severity.ERROR:
            (out.create_only if f.rule in create_only and f.object is not None else out.errors).append(f)
    return out


def _created(plan: Plan) -> set[_Key]:
    """The objects the plan creates or recreates (blocked ones included: they would be)."""
    out: set[_Key] = set()
    for a in plan.actions:
        if (a.wanted if a.action == ActionKind.BLOCKED else a.action) in (ActionKind.CREATE, ActionKind.RECREATE):
            out.add((a.kind, a.name, a.stream))
    return out


def judged(found: GateFindings, plan: Plan) -> list[Finding]:
    """The errors that hold for ``plan``: every error, and a create-only one only where the plan
    creates the object."""
    created = _created(plan)
    kept = [f for f in found.create_only if f.object is not None and (f.object.kind, f.object.name, f.object.stream) in created]
    return sorted([*found.errors, *kept], key=Finding.sort_key)


def preflight(client: JsClient, plan: Plan, live: LiveState) -> dict[int, Prediction]:
    """Block what the server would refuse in ``plan`` (and what depends on it) before any write,
    judged against ``live`` and the account's usage; returns the predictions by action index."""
    return block_predicted(plan, live, account_usage(client.request("INFO")))
