"""The live-state rules of ``jsops audit`` (JS501-JS539): their codes, names, thresholds and checks.

A live rule reads what a listing returns (:class:`jsops.reconciler.audit.read.AuditState`), never a
manifest: it is not a lint rule and ``jsops lint`` does not know it. Each is documented in
``docs/audit.md`` (a test keeps the page and this registry equal). Thresholds are options, set in
the jsops config under ``audit``, by code or name::

    audit:
      JS501: {warn_at: 0.8}                     # a threshold
      live-consumer-redelivering: {ratio: 0.05}
      JS521: {severity: "off"}                  # a severity (error, warning, info) or off

A key that names no live rule, or an option the rule does not have, is a config error (exit 2).

Every rule of ``jsops audit`` is declared here, by ``@register`` on the function that finds it: the
state checks (:data:`LIVE_RULES`, ``checks_*``: what one listing shows) and the comparisons
(:data:`COMPARED`: manifests against the server, JS520-JS522 in :mod:`.drift`; the live configs on
another release, JS530 in :mod:`.upgrade`), whose inputs are not one listing: they are called by
:func:`jsops.reconciler.audit.run.audit_result`, with the severities :func:`select_live` chose.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar, cast

from jsops.linter import ConfigError, Finding, ObjectRef, Severity, validate_options
from jsops.linter.api import RuleOptions

from .read import AuditState
from .static import object_path

__all__ = [
    "COMPARED",
    "Hit",
    "LiveRule",
    "LIVE_RULES",
    "register",
    "live_findings",
    "select_live",
    "Selected",
    "severities",
]


@dataclass(frozen=True)
class Hit:
    """One live-rule violation: the object (stream, and consumer when it is one) and the message."""

    stream: str | None
    consumer: str | None
    message: str
    severity: Severity | None = None  # when it differs from the rule's


Check = Callable[[AuditState, Any], Iterable[Hit]]
_F = TypeVar("_F", bound=Callable[..., object])


@dataclass(frozen=True)
class LiveRule:
    code: str
    name: str
    severity: Severity
    summary: str
    Options: type[RuleOptions]
    check: Check | None  # None: a comparison (COMPARED), made by its own module


LIVE_RULES: dict[str, LiveRule] = {}
COMPARED: dict[str, LiveRule] = {}


def register(
    code: str,
    name: str,
    severity: Severity,
    summary: str,
    options: type[RuleOptions] = RuleOptions,
    *,
    compares: bool = False,
) -> Callable[[_F], _F]:
    """Declare an audit rule found by the decorated function: a state check (a :data:`Check`), or
    with ``compares`` a comparison whose module calls the function itself."""

    def wrap(check: _F) -> _F:
        if any(code == r.code or name == r.name for r in (*LIVE_RULES.values(), *COMPARED.values())):
            raise ValueError(f"live rule {code} {name} declared twice")
        into = COMPARED if compares else LIVE_RULES
        into[code] = LiveRule(code, name, severity, summary, options, None if compares else cast(Check, check))
        return check

    return wrap


@dataclass(frozen=True)
class Selected:
    rule: LiveRule
    options: Any
    severity: Severity | None  # None: the rule's own (or its hit's)


def select_live(settings: Mapping[str, Any], source: str = "config") -> list[Selected]:
    """The live rules with the options and severities of the config's ``audit`` mapping."""
    rules = {
        **LIVE_RULES,
        **COMPARED,
    }  # every built-in rule is declared once the package is imported (audit/__init__.py)
    by_key = {**{r.code.upper(): r for r in rules.values()}, **{r.name: r for r in rules.values()}}
    chosen: dict[str, tuple[Any, Severity | None, bool]] = {}
    for key, values in settings.items():
        rule = by_key.get(str(key).upper()) or by_key.get(str(key))
        if rule is None:
            raise ConfigError(f"{source}: audit.{key}: not a live rule (docs/audit.md lists them)")
        values = dict(values or {})
        sev_text = values.pop("severity", None)
        off = sev_text == "off"
        sev = None
        if sev_text is not None and not off:
            try:
                sev = Severity(sev_text)
            except ValueError:
                raise ConfigError(
                    f"{source}: audit.{key}.severity: one of error, warning, info, off; got {sev_text!r}"
                ) from None
        chosen[rule.code] = (
            validate_options(rule.Options, values, f"{source}: audit.{key}", rule.code, ", severity"),
            sev,
            off,
        )
    out = []
    for code in sorted(rules):
        opts, sev, off = chosen.get(code, (rules[code].Options(), None, False))
        if not off:
            out.append(Selected(rules[code], opts, sev))
    return out


def live_findings(state: AuditState, selected: Iterable[Selected], only: set[str] | None = None) -> list[Finding]:
    """Every selected live rule's findings on ``state`` (``only``: these codes)."""
    out: list[Finding] = []
    for sel in selected:
        rule = sel.rule
        if rule.check is None or only is not None and rule.code not in only:
            continue
        for hit in rule.check(state, sel.options):
            out.append(hit_finding(rule.code, rule.name, sel.severity or hit.severity or rule.severity, hit))
    return out


def severities(selected: Iterable[Selected]) -> dict[str, Severity | None]:
    """The severity of every comparison (:data:`COMPARED`) as ``selected`` chose it; None: off."""
    chosen = {s.rule.code: s.severity or s.rule.severity for s in selected if s.rule.check is None}
    return {code: chosen.get(code) for code in COMPARED}


def hit_finding(code: str, name: str, severity: Severity, hit: Hit) -> Finding:
    if hit.stream is None:
        ref = None
    elif hit.consumer is None:
        ref = ObjectRef("Stream", hit.stream)
    else:
        ref = ObjectRef("Consumer", hit.consumer, hit.stream)
    return Finding(code, name, severity, hit.message, object_path(hit.stream, hit.consumer), 0, 0, ref, excerpt=False)
