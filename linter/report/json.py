"""``--format json`` (contracts §2)."""

from __future__ import annotations

from ..findings import Severity
from ..result import LintResult
from .jsontext import dumps_indented

__all__ = ["render_json"]


def render_json(result: LintResult, version: str) -> str:
    doc = {
        "version": version,
        "findings": [f.as_dict() for f in result.findings],
        "summary": {
            "files": result.files,
            "objects": result.objects,
            "error": result.count(Severity.ERROR),
            "warning": result.count(Severity.WARNING),
            "info": result.count(Severity.INFO),
        },
    }
    return dumps_indented(doc) + "\n"
