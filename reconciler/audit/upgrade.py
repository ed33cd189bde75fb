"""Upgrade (and downgrade) readiness: what the live configs do on another release (``--target-version``).

From the per-release semantics the static rules already apply (:mod:`jsops.linter.semantics.releases`):
the live estate is linted for the live release and for the target release, and every finding the
target release adds (a config it refuses, a field it drops, advice that becomes an error, an
err_code that changes) is reported, prefixed with the release. The server-filled defaults that
differ between the two releases are reported per field (JS530).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from jsops.linter import Config, Estate, Finding, LintTarget, Severity, api_json
from jsops.linter.api import Rule, RuleContext

from .registry import COMPARED, register
from .static import lint_live, ref_path

__all__ = ["upgrade_findings"]


def _key(f: Finding) -> tuple[Any, ...]:
    return (f.rule, f.file, f.message, f.severity, f.server_error_code)


def upgrade_findings(
    estate: Estate,
    rules: Sequence[type[Rule]],
    config: Config,
    now: LintTarget,
    version: str,
    current: Sequence[Finding],
    defaults_severity: Severity | None,
) -> list[Finding]:
    """The findings release ``version`` adds to ``current`` (the live release's), and the defaults
    that change (``defaults_severity`` None: not reported)."""
    then = now.model_copy(update={"server_version": version})
    seen = {_key(f) for f in current}
    verb = _verb(now.server_version, version)
    out = [
        replace(f, message=f"on nats-server {version} ({verb}): {f.message}")
        for f in lint_live(estate, rules, config, then).findings
        if _key(f) not in seen
    ]
    if defaults_severity is not None:
        out.extend(_default_changes(estate, now, then, version, verb, defaults_severity))
    return out


def _verb(current: str | None, version: str) -> str:
    from jsops.linter.api import parse_version

    a, b = parse_version(current), parse_version(version)
    if a is None or b is None or a == b:
        return "same release"
    return "upgrade" if b > a else "downgrade"


@register(
    "JS530",
    "live-upgrade-default-changes",
    Severity.WARNING,
    "a server-filled default of a live config differs on the --target-version release",
    compares=True,
)
def _default_changes(
    estate: Estate, now: LintTarget, then: LintTarget, version: str, verb: str, severity: Severity
) -> list[Finding]:
    a, b = RuleContext(estate, now), RuleContext(estate, then)
    out = []
    for r in estate.resources:
        before, after = api_json(a.effective(r)), api_json(b.effective(r))  # compared as the server stores them
        for key in sorted(set(before) | set(after)):
            if before.get(key) != after.get(key):
                out.append(
                    Finding(
                        "JS530",
                        COMPARED["JS530"].name,
                        severity,
                        f"on nats-server {version} ({verb}): the server fills {key} with {after.get(key)!r} instead of {before.get(key)!r}",
                        ref_path(r.ref),
                        0,
                        0,
                        r.ref,
                        excerpt=False,
                    )
                )
    return out
