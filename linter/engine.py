"""Run rules over a loaded estate and turn violations into findings."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from .api import Rule, RuleContext, Violation
from .findings import Finding, Severity
from .loader import Estate, load_paths
from .model.target import Target

__all__ = ["LintResult", "lint_paths", "lint_estate", "discover_rules"]

ENTRY_POINT_GROUP = "jsops.rules"


@dataclass
class LintResult:
    findings: list[Finding] = field(default_factory=list)
    files: int = 0
    objects: int = 0

    def count(self, severity: Severity) -> int:
        return sum(1 for f in self.findings if f.severity is severity)

    def worst(self) -> Severity | None:
        ranks = [f.severity for f in self.findings]
        return max(ranks, key=lambda s: s.rank) if ranks else None


def discover_rules() -> list[type[Rule]]:
    """Rule classes registered under the ``jsops.rules`` entry point group (built-ins and plugins)."""
    from importlib.metadata import entry_points

    found: list[type[Rule]] = []
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        provider = ep.load()
        found.extend(provider())
    return found


def _to_finding(rule: Rule, v: Violation) -> Finding:
    line, col = v.resource.locate(v.path, key=v.key)
    return Finding(
        rule.code,
        rule.name,
        rule.severity,
        v.message,
        v.resource.file,
        line,
        col,
        v.resource.ref,
        v.server_error_code,
        v.fix,
    )


def lint_estate(estate: Estate, rules: Sequence[type[Rule]] | None = None, *, target: Target | None = None) -> LintResult:
    ctx = RuleContext(estate, target or Target())
    findings = list(estate.findings)
    for cls in rules if rules is not None else discover_rules():
        rule = cls()
        violations: Iterable[Violation]
        if cls.estate_wide:
            violations = rule.check_estate(ctx)
        else:
            violations = (v for r in estate.resources if r.kind in cls.kinds for v in rule.check(r, ctx))
        findings.extend(_to_finding(rule, v) for v in violations)
    findings.sort(key=Finding.sort_key)
    return LintResult(findings, len(estate.files), len(estate.resources))


def lint_paths(paths: Iterable[str], rules: Sequence[type[Rule]] | None = None, *, target: Target | None = None) -> LintResult:
    return lint_estate(load_paths(paths), rules, target=target)


if __name__ == "__main__":  # pragma: no cover
    print(lint_paths(sys.argv[1:]))
