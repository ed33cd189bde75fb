"""Text output at scale: a rule's repeated findings read as one (a few examples, ``... and N more``, a tally
of every rule with its count), ``--show-all`` lists every one, and JSON keeps every finding."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import sys
from pathlib import Path

import pytest

from jsops.linter.cli.app import main
from jsops.linter.engine import LintResult
from jsops.linter.findings import Finding, Severity
from jsops.linter.report.text import EXAMPLES, GROUP_ABOVE, render_text

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden" / "lint-grouped.txt"
UPDATE = os.environ.get("JSOPS_UPDATE_GOLDEN") == "1"


def lint(*args: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        rc = main(["lint", "--no-config", "--no-cache", *args])
    return rc, out.getvalue()


def write_estate(directory: Path, streams: int, consumers: int) -> None:
    """The benchmark's estate (bench/reconcile_scale.py): every consumer has max_deliver and no dead-letter
    stream, one JS406 each."""
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        from reconcile_scale import write_estate as bench_estate
    finally:
        sys.path.remove(str(ROOT / "bench"))
    bench_estate(directory, streams, consumers)


def tally(text: str) -> dict[str, int]:
    """The text output's tally: rule code -> the count it names (every severity's)."""
    out: dict[str, int] = {}
    for m in re.finditer(r"^  (JS\d+) [\w-]+: (.+)$", text, re.M):
        out[m.group(1)] = sum(int(n) for n in re.findall(r"(\d+) (?:errors?|warnings?|info)", m.group(2)))
    return out


def finding(rule: str, file: str, severity: Severity = Severity.WARNING) -> Finding:
    return Finding(rule, f"name-{rule}", severity, f"{rule} here", file, 1, 1, excerpt=False)


def test_a_rule_with_many_findings_shows_a_few_then_its_count() -> None:
    many = [finding("JS900", f"f{i:02d}.yaml") for i in range(GROUP_ABOVE + 4)]
    few = [finding("JS901", f"f{i:02d}.yaml", Severity.ERROR) for i in range(GROUP_ABOVE)]
    findings = sorted(many + few, key=Finding.sort_key)
    result = LintResult(findings, 20, 20, [], 0)
    text = render_text(result)
    assert text.count(": warning JS900 ") == EXAMPLES
    assert text.count(": error JS901 ") == GROUP_ABOVE  # at the bound: every one
    assert f"... and {len(many) - EXAMPLES} more JS900 [name-JS900] findings (--show-all lists every one)" in text
    assert f"By rule ({EXAMPLES + GROUP_ABOVE} of {len(findings)} findings listed" in text
    assert tally(text) == {"JS900": len(many), "JS901": GROUP_ABOVE}
    assert f"  JS900 name-JS900: {len(many)} warnings\n  JS901 name-JS901: {GROUP_ABOVE} errors\n" in text
    assert text.endswith(f"Found {GROUP_ABOVE} errors, {len(many)} warnings, 0 info (20 objects in 20 files).\n")

    every = render_text(result, show_all=True)
    assert every.count(": warning JS900 ") == len(many)
    assert "more JS900" not in every and "By rule" not in every


def test_nothing_grouped_nothing_tallied() -> None:
    result = LintResult([finding("JS900", "a.yaml")], 1, 1, [], 0)
    assert (
        render_text(result)
        == "a.yaml:1:1: warning JS900 JS900 here [name-JS900]\nFound 0 errors, 1 warning, 0 info (1 object in 1 file).\n"
    )


def test_500_streams_read_in_under_200_lines(tmp_path: Path) -> None:
    write_estate(tmp_path, 500, 4)
    rc, text = lint(str(tmp_path))
    assert rc == 0
    _, raw = lint("--format", "json", str(tmp_path))
    findings = json.loads(raw)["findings"]
    counts: dict[str, int] = {}
    for f in findings:
        counts[f["rule"]] = counts.get(f["rule"], 0) + 1
    assert counts.get("JS406") == 2000  # JSON keeps every finding
    assert len(text.splitlines()) < 200
    assert tally(text) == counts  # every rule named with its count

    _, every = lint("--show-all", str(tmp_path))
    assert every.count(" JS406 ") == 2000


def test_grouped_output_matches_golden(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """20 streams x 4 consumers: 80 JS406 read as three examples, a count and the tally.
    When output changes on purpose: JSOPS_UPDATE_GOLDEN=1 and review the diff."""
    (tmp_path / "estate").mkdir()
    write_estate(tmp_path / "estate", 20, 4)
    monkeypatch.chdir(tmp_path)
    rc, text = lint("estate")
    assert rc == 0
    if UPDATE:
        GOLDEN.write_text(text)
    assert text == GOLDEN.read_text(), (
        "lint-grouped.txt differs; if the change is intended, rerun with JSOPS_UPDATE_GOLDEN=1 and review the diff"
    )
