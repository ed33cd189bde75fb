"""``jsops audit --format text``: lint's text lines (each live object named ``nats://STREAM[/CONSUMER]``),
then a summary of what was audited instead of lint's file count."""

from __future__ import annotations

from jsops.linter import LintResult, Severity, read_source_lines, render_findings_text

from .read import AuditState

__all__ = ["render_audit_text"]


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def render_audit_text(
    result: LintResult, audited: list[tuple[str, AuditState]], *, color: bool = False, show_all: bool = False
) -> str:
    """``audited``: each target's display name and what was read from it."""
    body = render_findings_text(result, color=color, source=read_source_lines, show_all=show_all).splitlines()
    # lint's summary is the last line (two when it notes the assumed release): replace it
    while body and _is_summary(body[-1]):
        body.pop()
    scopes = []
    for where, state in audited:
        live = state.live
        durable = sum(1 for c in live.consumers.values() if c.config.durable_name)
        scopes.append(
            f"{_plural(len(live.streams), 'stream')}, {_plural(durable, 'durable consumer')}, "
            f"{_plural(len(live.consumers) - durable, 'ephemeral consumer')} on {where}"
            f" (nats-server {state.server_version or 'unknown'}; {_plural(state.requests, 'request')})"
        )
    scope = "; ".join(scopes)
    e, w, i = (result.count(s) for s in (Severity.ERROR, Severity.WARNING, Severity.INFO))
    if result.findings:
        body.append(f"Found {_plural(e, 'error')}, {_plural(w, 'warning')}, {i} info: {scope}.")
    else:
        body.append(f"All clean: {scope}.")
    return "\n".join(body) + "\n"


def _is_summary(line: str) -> bool:
    return line.startswith(("Found ", "All clean", "No manifests found", "Predicted err_codes"))
