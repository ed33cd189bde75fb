"""``--format github``: GitHub Actions workflow commands, so findings show on the pull request diff.

Chosen automatically when ``GITHUB_ACTIONS=true`` and ``--format`` is not given.
"""

from __future__ import annotations

from ..findings import Severity
from ..result import LintResult

__all__ = ["render_github"]

_COMMAND = {"error": "error", "warning": "warning", "info": "notice"}


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _prop(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def render_github(result: LintResult) -> str:
    lines = []
    for f in result.findings:
        msg = f.message + (f" (fix: {f.fix.description})" if f.fix else "")
        lines.append(
            f"::{_COMMAND[f.severity.value]} file={_prop(f.file)}{f',line={f.line},col={f.column}' if f.line else ''},title={_prop(f'{f.rule} {f.name}')}::{_data(msg)}"
        )
    e, w, i = (result.count(s) for s in (Severity.ERROR, Severity.WARNING, Severity.INFO))
    lines.append(f"jsops: {e} error(s), {w} warning(s), {i} info in {result.files} file(s)")
    return "\n".join(lines) + "\n"
