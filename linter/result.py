"""What a lint found: its findings and counts (the engine makes it, the results cache replays it, the
reports render it). Its own module: a warm ``jsops lint`` that the results cache answers renders a
result without importing the engine and the rules."""

from __future__ import annotations

from dataclasses import dataclass, field

from .findings import Finding, Severity

__all__ = ["LintResult"]


@dataclass
class LintResult:
    findings: list[Finding] = field(default_factory=list)
    files: int = 0
    objects: int = 0
    paths: list[str] = field(default_factory=list)  # the files reported on
    skipped: int = 0  # documents of other kinds (Kubernetes Deployments, ConfigMaps, ...) passed over
    # Files that are not JetStream configs (package.json, Helm charts, workflows, ...) passed over.
    not_jetstream: int = 0
    # The release the predicted err_codes are for when the target gives no server_version (the
    # newest supported one); None when the target declares it.
    assumed_release: str | None = None

    def count(self, severity: Severity) -> int:
        return sum(1 for f in self.findings if f.severity is severity)

    def worst(self) -> Severity | None:
        ranks = [f.severity for f in self.findings]
        return max(ranks, key=lambda s: s.rank) if ranks else None
