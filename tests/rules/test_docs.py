"""Rule docs: ``jsops rule``, ``jsops rules`` (table, json), and docs/rules.md kept in step with the registry."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from jsops.linter.cli.app import main
from jsops.linter.findings import LOAD_CODES

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden"
UPDATE = os.environ.get("JSOPS_UPDATE_GOLDEN") == "1"


def _run(argv, capsys):
    rc = main(argv)
    out, err = capsys.readouterr()
    return rc, out, err


def test_docs_rules_md_is_up_to_date(capsys):
    rc, out, _ = _run(["rules", "--format", "markdown"], capsys)
    assert rc == 0
    current = (ROOT / "docs" / "rules.md").read_text()
    assert out == current, (
        "docs/rules.md is stale; regenerate it with: .venv/bin/jsops rules --format markdown > docs/rules.md"
    )


def test_rules_json_lists_rules_and_load_codes(capsys):
    rc, out, _ = _run(["rules", "--format", "json"], capsys)
    rows = json.loads(out)
    codes = [r["code"] for r in rows]
    assert rc == 0 and codes == sorted(codes)
    assert {c.code for c in LOAD_CODES.values()} <= set(codes)
    js102 = next(r for r in rows if r["code"] == "JS102")
    assert js102["name"] == "stream-duplicate-window-exceeds-max-age" and "stream" in js102["groups"]


def test_rules_table(capsys):
    rc, out, _ = _run(["rules"], capsys)
    lines = out.splitlines()
    assert rc == 0 and lines[0].split() == ["CODE", "NAME", "SEVERITY", "SUMMARY"]
    assert any(line.startswith("JS010  unused-suppression") for line in lines)


@pytest.mark.parametrize("token", ["JS102", "js102", "stream-duplicate-window-exceeds-max-age"])
def test_rule_by_code_or_name(token, capsys):
    rc, out, _ = _run(["rule", token], capsys)
    assert rc == 0
    path = GOLDEN / "rule-JS102.txt"
    if UPDATE:
        path.write_text(out)
    assert out == path.read_text(), "rule-JS102.txt differs; if intended, rerun with JSOPS_UPDATE_GOLDEN=1"


def test_unknown_rule_exits_2(capsys):
    rc, out, err = _run(["rule", "stream-duplicate-window"], capsys)
    assert rc == 2 and out == ""
    assert err.startswith("jsops: error: unknown rule 'stream-duplicate-window'; did you mean") and err.count("\n") == 1


def test_load_code_doc(capsys):
    rc, out, _ = _run(["rule", "JS010"], capsys)
    assert rc == 0 and out.startswith("JS010 unused-suppression\n")
