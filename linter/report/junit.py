"""``--format junit``: JUnit XML (one test case per finding, one passing case per clean file).

Only findings at or above ``--fail-on`` are failures, as only they fail the exit code; the others are
passing cases whose ``system-out`` says what was found (CI shows them without turning the run red)."""

from __future__ import annotations

from xml.sax.saxutils import escape, quoteattr

from ..findings import Severity
from ..result import LintResult

__all__ = ["render_junit"]


def _clean(text: str) -> str:
    # XML 1.0 cannot carry most control characters, even escaped.
    return "".join(c if c in "\t\n\r" or ord(c) >= 0x20 else "?" for c in text)


def render_junit(result: LintResult, fail_on: Severity = Severity.ERROR) -> str:
    cases = []
    found = set()
    failures = 0
    for f in result.findings:
        found.add(f.file)
        head = f"{f.where()}: {f.severity.value} {f.rule} {f.message} [{f.name}]"
        body = escape(_clean(head + (f"\nfix ({f.fix.applicability}): {f.fix.description}" if f.fix else "")))
        name = f"{f.rule} {f.name} at {f.line}:{f.column}" if f.line else f"{f.rule} {f.name}"
        if f.severity.rank >= fail_on.rank:
            failures += 1
            inner = f"      <failure type={quoteattr(f.severity.value)} message={quoteattr(_clean(f.message))}>{body}</failure>\n"
        else:
            inner = f"      <system-out>{body}</system-out>\n"
        cases.append(
            f"    <testcase classname={quoteattr(_clean(f.file))} name={quoteattr(_clean(name))} file={quoteattr(_clean(f.file))} "
            f'line="{f.line}">\n{inner}    </testcase>'
        )
    for file in result.paths:
        if file not in found:
            cases.append(
                f'    <testcase classname={quoteattr(_clean(file))} name="no findings" file={quoteattr(_clean(file))}/>'
            )
    n = len(cases)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<testsuites name="jsops" tests="{n}" failures="{failures}" errors="0">\n'
        f'  <testsuite name="jsops lint" tests="{n}" failures="{failures}" errors="0" skipped="0">\n'
        + "".join(c + "\n" for c in cases)
        + "  </testsuite>\n</testsuites>\n"
    )
