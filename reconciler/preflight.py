"""What ``jsops plan`` and ``apply`` check before the first request: the lint gate, judged for
what each action is, and the plan against the live estate.

- :func:`gate_lint` runs the rules whose findings are errors (the gate refuses on errors only, so
  warning rules are not run), on the objects a plan acts on (:func:`acted_on`; none for a plan
  without changes), and splits the errors into those that hold whatever the action is and those of
  create-only rules (``Rule.applies_to``, :data:`jsops.linter.api.CREATE_ONLY`);
- :func:`judged` keeps the errors of the objects the plan acts on, and of no object (the loader's:
  a manifest that did not load is never planned), and a create-only error only for an object the
  plan creates (a create, recreate or migration): sealing an existing stream is an update the
  server accepts, creating a sealed one is refused;
- :func:`preflight` reads the account's limits and usage (``$JS.API.INFO``) and marks the actions
  the server would refuse blocked, with everything that depends on them
  (:func:`jsops.reconciler.plan.predict.predicted_refusals`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any

from jsops.linter import LOAD_CODES, Config, Estate, Finding, Severity, discover_rules
from jsops.linter.api import CREATE

from .client import JsClient
from .lintgate import lint_errors
from .live import LiveState
from .plan import Plan, ServerStorage, account_usage, decide, predicted_refusals
from .vocabulary import ActionKind

__all__ = ["GateFindings", "LOADER_CODES", "acted_on", "gate_lint", "judged", "preflight"]

_Key = tuple[str, str, str | None]  # (kind, name, stream) as a finding's object names it
# The loader's findings (a manifest that does not load, a duplicate object, ...): judged whatever the plan does.
LOADER_CODES = frozenset(c.code for c in LOAD_CODES.values())


@dataclass
class GateFindings:
    """The lint errors of the manifests: ``errors`` refuse the run whatever the plan does;
    ``create_only`` refuse it only for the objects the plan creates."""

    errors: list[Finding] = field(default_factory=list)
    create_only: list[Finding] = field(default_factory=list)


_DISK = object()  # lint_estate's default source reader


def gate_lint(
    estate: Estate,
    config: Config,
    *,
    read_source: Callable[[str], bytes | None] | None | object = _DISK,
    objects: Collection[_Key] | None = None,
    env: str | None = None,
) -> GateFindings:
    """The errors the gate judges, from the rules ``config`` selects that can report an error
    (:func:`jsops.reconciler.lintgate.lint_errors`); with ``objects`` (:func:`acted_on`), of those
    objects only (and of no object)."""
    registry = discover_rules(config, env=env)
    kwargs: dict[str, Any] = {} if read_source is _DISK else {"read_source": read_source}
    result = lint_errors(estate, config, objects=objects, env=env, **kwargs)
    create_only = {r.code for r in registry if CREATE in r.applies_to and len(r.applies_to) == 1}
    out = GateFindings()
    for f in result.findings:
        if f.severity == Severity.ERROR:
            (out.create_only if f.rule in create_only and f.object is not None else out.errors).append(f)
    return out


def acted_on(plan: Plan) -> tuple[set[_Key], set[_Key]]:
    """The objects ``plan`` acts on, and those of them it creates: a create, a recreate, a
    migration's new stream and its consumers (blocked actions included: they would be)."""
    acted: set[_Key] = set()
    created: set[_Key] = set()
    for a in plan.actions:
        kind = a.wanted if a.action == ActionKind.BLOCKED and a.wanted is not None else a.action
        keys: list[_Key] = [(a.kind, a.name, a.stream)]
        if a.migration is not None:  # the migration creates the new stream's consumers
            keys += [("Consumer", c, a.name) for c in a.migration.consumers]
        acted.update(keys)
        if kind in (ActionKind.CREATE, ActionKind.RECREATE, ActionKind.MIGRATE):
            created.update(keys)
    return acted, created


def judged(found: GateFindings, plan: Plan) -> list[Finding]:
    """The errors that hold for ``plan``: those of no object and the loader's, an error of an
    object the plan acts on, and a create-only one only where the plan creates the object."""
    acted, created = acted_on(plan)

    def of(f: Finding, keys: set[_Key]) -> bool:
        return f.object is not None and (f.object.kind, f.object.name, f.object.stream) in keys

    kept = [f for f in found.errors if f.object is None or f.rule in LOADER_CODES or of(f, acted)]
    kept += [f for f in found.create_only if of(f, created)]
    return sorted(kept, key=Finding.sort_key)


def preflight(client: JsClient, plan: Plan, live: LiveState, server: ServerStorage | None = None) -> Plan:
    """``plan`` with what the server would refuse (and what depends on it) blocked before any write,
    judged against ``live``, the account's usage and, given, a standalone server's own storage (``/varz``)
    (a new plan). A plan without actions has nothing to predict (and asks the server nothing)."""
    if not plan.actions:
        return plan
    return decide(plan, predicted_refusals(plan, live, account_usage(client.request("INFO")), server))
