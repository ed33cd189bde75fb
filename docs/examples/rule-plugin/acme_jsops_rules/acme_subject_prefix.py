"""A plugin rule: every subject of a stream starts with the team prefix its metadata names, and no
other stream of the estate uses that prefix (an estate-wide look, which a CEL policy cannot take)."""

from __future__ import annotations

from collections.abc import Iterable

from jsops.linter.api import RuleContext, Severity, StreamConfig, StreamResource, StreamRule, Violation


class AcmeSubjectPrefix(StreamRule):
    """Stream subjects start with the owning team's prefix.

    ## What it does
    Checks that every subject of a stream whose metadata names a `team` starts with `<team>.`, and
    that no stream of another team publishes under that prefix.

    ## Why is this bad?
    Subjects outside a team's prefix escape the team's account permissions and dashboards.

    ## Example
    ```yaml
    spec: {subjects: ["orders.>"], metadata: {team: payments}}
    ```

    ## Use instead
    ```yaml
    spec: {subjects: ["payments.orders.>"], metadata: {team: payments}}
    ```
    """

    code = "JS901"  # plugins take JS9xx codes; built-in rules never do
    name = "acme-subject-prefix"
    severity = Severity.WARNING

    def check_stream(self, resource: StreamResource, cfg: StreamConfig, ctx: RuleContext) -> Iterable[Violation]:
        team = (cfg.metadata or {}).get("team")
        if not team:
            return
        for i, subject in enumerate(cfg.subjects or ()):
            if not subject.startswith(f"{team}."):
                yield Violation(
                    resource, ("subjects", i), f"subject {subject!r} is outside team {team}'s prefix {team}.>"
                )
        for other in ctx.streams_by_context().get(resource.context, []):  # built once per run, shared by the rules
            theirs = (other.config.metadata or {}).get("team")
            if other is resource or theirs in (None, team):
                continue
            for subject in other.config.subjects or ():
                if subject.startswith(f"{team}."):
                    yield Violation(
                        resource,
                        ("metadata", "team"),
                        f"stream {other.name} of team {theirs} publishes under {team}.>: {subject!r}",
                    )
