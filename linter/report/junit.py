"""``--format junit``: JUnit XML (one test case per finding, one passing case per clean file)."""

from __future__ import annotations

from xml.sax.saxutils import escape, quoteattr

from ..engine import LintResult

__all__ = ["render_junit"]


def _clean(text: str) -> str:
    # XML 1.0 cannot carry most control characters, even escaped.
    return "".join(c if c in "\t\n\r" or ord(c) >= 0x20 else "?" for c in text)


def render_junit(result: LintResult) -> str:
    cases = []
    failed = set()
    for f in result.findings:
        failed.add(f.file)
        head = f"{f.where()}: {f.severity.value} {f.rule} {f.message} [{f.name}]"
        body = head + (f"\nfix ({f.fix.applicability}): {f.fix.description}" if f.fix else "")
        cases.append(
            f'    <testcase classname={quoteattr(_clean(f.file))} name={quoteattr(_clean(f"{f.rule} {f.name} at {f.line}:{f.column}" if f.line else f"{f.rule} {f.name}"))} file={quoteattr(_clean(f.file))} line="{f.line}">\n'
            f"      <failure type={quoteattr(f.severity.value)} message={quoteattr(_clean(f.message))}>{escape(_clean(body))}</failure>\n"
            "    </testcase>"
        )
    for file in result.paths:
        if file not in failed:
            cases.append(f'    <testcase classname={quoteattr(_clean(file))} name="no findings" file={quoteattr(_clean(file))}/>')
    n, failures = len(cases), len(result.findings)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<testsuites name="jsops" tests="{n}" failures="{failures}" errors="0">\n'
        f'  <testsuite name="jsops lint" tests="{n}" failures="{failures}" errors="0" skipped="0">\n'
        + "".join(c + "\n" for c in cases)
        + "  </testsuite>\n</testsuites>\n"
    )
