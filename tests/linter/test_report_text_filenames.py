"""A hostile file name cannot send terminal escapes through the text report."""

from jsops.linter.engine import LintResult
from jsops.linter.findings import Finding, Severity
from jsops.linter.report.text import render_text


def test_control_characters_in_file_names_are_escaped():
    f = Finding("JS001", "manifest-syntax-error", Severity.ERROR, "bad", "dir/bad\x1b[31m.yaml", 1, 1)
    out = render_text(LintResult([f], files=1, objects=0))
    assert "\x1b" not in out
    assert out.startswith("dir/bad?[31m.yaml:1:1: error JS001 bad")
