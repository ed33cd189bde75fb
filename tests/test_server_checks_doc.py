"""docs/server-checks.md (every config check each release makes, read from its source) names only
rules that exist and proofs that exist, and lists every err_code of the release tables."""

from __future__ import annotations

import fnmatch
import re
from pathlib import Path

from jsops.linter.engine import discover_rules
from jsops.linter.findings import LOAD_CODES
from jsops.linter.semantics.releases import CHECK_SINCE, CODE_BEFORE
from tests.integration.test_release_checks_server import CASES

DOC = Path(__file__).resolve().parents[1] / "docs" / "server-checks.md"


def test_rules_named_exist() -> None:
    known = {r.code for r in discover_rules()} | {c.code for c in LOAD_CODES.values()}
    named = set(re.findall(r"\bJS\d{3}\b", DOC.read_text()))
    assert named and named <= known, sorted(named - known)


def test_release_proofs_name_cases_of_the_release_test() -> None:
    ids = [c.id for c in CASES]
    proofs = set(re.findall(r"release:([a-z0-9*-]+)", DOC.read_text()))
    assert proofs
    for p in proofs:
        assert fnmatch.filter(ids, p), f"release:{p} names no case of tests/integration/test_release_checks_server.py"


def test_every_release_table_code_is_in_the_inventory() -> None:
    text = DOC.read_text()
    codes = {code for _, code, _ in CHECK_SINCE} | {code for _, code, _ in CODE_BEFORE}
    missing = [c for c in sorted(codes) if f"| {int(c)} |" not in text]
    assert not missing, missing
