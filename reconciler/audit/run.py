"""Everything ``jsops audit`` reports, from a state already read: pure (no request is sent here but by
the ``authors`` the caller gives, which reads the record of API changes when a field drifted)."""

from __future__ import annotations

from collections.abc import Sequence

from jsops.linter import Config, Estate, Finding, LintResult
from jsops.linter.api import Rule

from .drift import Authors, drift_findings
from .read import AuditState
from .registry import Selected, live_findings
from .registry import severities as chosen_severities
from .static import lint_live, live_estate, live_target
from .upgrade import upgrade_findings

__all__ = ["audit_result"]


def audit_result(
    state: AuditState,
    config: Config,
    rules: Sequence[type[Rule]],
    live_rules: Sequence[Selected],
    *,
    context: str = "default",
    manifests: object = None,
    target_version: str | None = None,
    estate: Estate | None = None,
    contexts: Sequence[str] | None = None,
    authors: Authors | None = None,
) -> LintResult:
    """The findings of every part of the audit, as a lint result (files: one pseudo-file per stream).
    ``estate``: the live estate when it was built while the state was read (else it is built here);
    ``contexts``: the manifests' contexts routed to this target (default: ``context`` and ``default``);
    ``authors``: what names who made the drifted fields' live values (keyed by ``context``; it reads the
    account's record: the one part of the audit that may send a request, and only when a field drifted).
    The manifests' own loading findings are not included (they are the same for every target)."""
    target = live_target(state, config.target)
    if estate is None:
        estate = live_estate(state.live, context)
    static = lint_live(estate, rules, config, target)
    findings: list[Finding] = list(static.findings)
    findings.extend(live_findings(state, live_rules))
    severities = chosen_severities(live_rules)  # the comparisons' (JS520-JS522, JS530), as select_live chose them
    files = list(estate.files)
    if isinstance(manifests, Estate):
        routed = list(contexts) if contexts is not None else [context, "default"]
        named = (context, authors) if authors is not None else None
        findings.extend(drift_findings(manifests, state.live, target, routed, severities, named, config.drift.record))
    if target_version is not None:
        findings.extend(
            upgrade_findings(estate, rules, config, target, target_version, static.findings, severities["JS530"])
        )
    findings.sort(key=Finding.sort_key)
    objects = len(state.live.streams) + len(state.live.consumers)
    return LintResult(findings, len(files), objects, files, 0, assumed_release=static.assumed_release)
