"""``--format text``: one line per finding, ``file:line:col: severity CODE message [name]``."""

from __future__ import annotations

from ..engine import LintResult
from ..findings import Severity

__all__ = ["render_text"]


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def render_text(result: LintResult) -> str:
    lines = []
    for f in result.findings:
        extra = f" (nats-server err_code {f.server_error_code})" if f.server_error_code else ""
        lines.append(f"{f.file}:{f.line}:{f.column}: {f.severity.value} {f.rule} {f.message} [{f.name}]{extra}")
        if f.fix is not None:
            lines.append(f"    fix ({f.fix.applicability}): {f.fix.description}")
    e, w, i = (result.count(s) for s in (Severity.ERROR, Severity.WARNING, Severity.INFO))
    scope = f"{_plural(result.objects, 'object')} in {_plural(result.files, 'file')}"
    if not result.findings:
        lines.append(f"All clean: {scope}.")
    else:
        lines.append(f"Found {_plural(e, 'error')}, {_plural(w, 'warning')}, {i} info ({scope}).")
    return "\n".join(lines) + "\n"
