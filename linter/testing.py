"""Testing rules: lint manifest text with one rule (or the registry), and data-driven rule cases.

>>> from jsops.linter.testing import lint_text
>>> [f.rule for f in lint_text(STREAM_YAML, "JS114")]      # doctest: +SKIP
['JS114']

A :class:`RuleCase` is one pass/fail case kept as data: manifests, the rule, the err_code the
server answers (``None``: it accepts the config and the rule is silent), and optionally a target,
profiles and the expected fix applicability. :func:`run_case` checks a case and returns its
findings; one pytest driver runs every case table (``tests/rules/test_cases.py``). Every run also
checks that the findings agree with the rule's declared :class:`~jsops.linter.api.FixAvailability`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from .api import Applicability, FixAvailability, Rule
from .engine import discover_rules, lint_estate
from .findings import Finding
from .load import Estate, check_estate, load_text
from .model.profiles import Profiles
from .model.target import Target

__all__ = [
    "RuleCase",
    "estate_from_text",
    "find_rule",
    "lint_text",
    "run_case",
    "check_fix_availability",
    "manifest",
]

Doc = Mapping[str, Any]


@cache
def _registry() -> dict[str, type[Rule]]:
    out: dict[str, type[Rule]] = {}
    for r in discover_rules():
        out[r.code] = r
        out[r.name] = r
    return out


def find_rule(token: str) -> type[Rule]:
    """The registered rule of a code (``JS114``) or name (``stream-sealed-on-create``)."""
    hit = _registry().get(token.upper() if token[:2].lower() == "js" else token)
    if hit is None:
        raise KeyError(f"no rule {token!r} is registered")
    return hit


def manifest(kind: str, name: str, spec: Doc | None = None, *, stream: str | None = None) -> dict[str, Any]:
    """A native ``jsops/v1`` document (``stream`` names a consumer's stream)."""
    meta: dict[str, Any] = {"name": name}
    if stream is not None:
        meta["stream"] = stream
    return {"apiVersion": "jsops/v1", "kind": kind, "metadata": meta, "spec": dict(spec or {})}


def _text(docs: str | Doc | Sequence[Doc]) -> str:
    if isinstance(docs, str):
        return docs
    items = [docs] if isinstance(docs, Mapping) else list(docs)
    return "\n---\n".join(json.dumps(d) for d in items) + "\n"


def estate_from_text(docs: str | Doc | Sequence[Doc], file: str = "manifest.yaml", *, clean: bool = True) -> Estate:
    """An estate loaded from manifest text (or documents), with the estate-wide load checks made.
    ``clean``: assert that loading found nothing (a case must reach the rules as written)."""
    estate = Estate()
    load_text(_text(docs).encode(), file, estate)
    check_estate(estate)
    if clean and estate.findings:
        raise AssertionError(f"{file} does not load cleanly: {estate.findings}")
    return estate


def _rules(rules: str | type[Rule] | Iterable[str | type[Rule]] | None) -> list[type[Rule]]:
    if rules is None:
        return discover_rules()
    if isinstance(rules, str | type):
        rules = [rules]
    return [find_rule(r) if isinstance(r, str) else r for r in rules]


def lint_text(
    docs: str | Doc | Sequence[Doc] | Estate,
    rules: str | type[Rule] | Iterable[str | type[Rule]] | None = None,
    *,
    target: Target | Mapping[str, Any] | None = None,
    profiles: Profiles | Mapping[str, Any] | None = None,
) -> list[Finding]:
    """The findings of ``rules`` (codes, names or classes; None: the whole registry) on manifests
    given as text, documents or an estate, against a target and profiles (models or plain dicts).
    The findings are checked against each rule's declared fix availability."""
    estate = docs if isinstance(docs, Estate) else estate_from_text(docs)
    the_target = target if isinstance(target, Target) or target is None else Target.model_validate(dict(target))
    the_profiles = (
        profiles if isinstance(profiles, Profiles) or profiles is None else Profiles.model_validate(dict(profiles))
    )
    selected = _rules(rules)
    found = lint_estate(estate, selected, target=the_target, profiles=the_profiles).findings
    check_fix_availability(selected, found)
    return found


def check_fix_availability(rules: Iterable[type[Rule]], findings: Iterable[Finding]) -> None:
    """Assert that findings carry fixes as their rules declare: none for ``NONE``, always for
    ``ALWAYS`` (``SOMETIMES`` may go either way), each with an :class:`Applicability`."""
    declared = {r.code: r.fix_availability for r in rules}
    for f in findings:
        availability = declared.get(f.rule)
        if availability is FixAvailability.NONE and f.fix is not None:
            raise AssertionError(f"{f.rule} declares no fixes but its finding has one: {f.message}")
        if availability is FixAvailability.ALWAYS and f.fix is None:
            raise AssertionError(f"{f.rule} declares a fix on every finding but this one has none: {f.message}")
        if f.fix is not None and not isinstance(f.fix.applicability, Applicability):
            raise AssertionError(f"{f.rule}'s fix applicability {f.fix.applicability!r} is not an Applicability")


@dataclass(frozen=True)
class RuleCase:
    """One data-driven case: ``docs`` are the manifests (text or documents); ``rule`` the code;
    ``err_code`` the server's answer (None: accepted, the rule is silent); ``findings`` how many
    findings a fail case gives; ``target`` and ``profiles`` as plain dicts; ``fix`` the expected
    applicability of the fix ("safe", "unsafe") when the case checks it; ``severity`` of every
    finding of a fail case (None: not checked); ``only`` - no other of ``rules`` fires."""

    id: str
    rule: str
    docs: str | Doc | Sequence[Doc]
    err_code: int | None
    findings: int = 1
    target: Target | Mapping[str, Any] = field(default_factory=dict)
    profiles: Mapping[str, Any] | None = None
    fix: str | None = None
    severity: str | None = "error"
    fires: bool | None = None  # for rules without err_codes: whether the rule fires

    @property
    def passes(self) -> bool:
        return self.err_code is None and not self.fires


def run_case(case: RuleCase, rules: Iterable[str | type[Rule]] | None = None) -> list[Finding]:
    """Lint the case with its rule (or ``rules``, which must include it: then only the case's rule
    may fire) and assert its expectations; the findings of the case's rule are returned."""
    chosen = _rules(list(rules) if rules is not None else case.rule)
    found = lint_text(case.docs, chosen, target=case.target, profiles=case.profiles)
    mine = [f for f in found if f.rule == case.rule]
    others = [(f.rule, f.message) for f in found if f.rule != case.rule]
    if case.passes:
        assert found == [], [(f.rule, f.message) for f in found]
        return mine
    assert others == [], others
    assert len(mine) == case.findings, [(f.rule, f.message) for f in mine]
    if case.err_code is not None:
        assert {f.server_error_code for f in mine} == {case.err_code}, [(f.server_error_code, f.message) for f in mine]
    if case.severity is not None:
        assert {f.severity.value for f in mine} == {case.severity}
    if case.fix is not None:
        assert all(f.fix is not None and f.fix.applicability == case.fix for f in mine), [f.fix for f in mine]
    return mine
