"""Err codes have one home (jsops.linter.semantics.errcodes.ErrCode): no module writes a server err_code as a bare
number, and every member of the enum is used by some module."""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

from jsops.linter.semantics.errcodes import ErrCode

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("linter", "rules", "reconciler", "profiler")
HOME = ROOT / "linter" / "semantics" / "errcodes.py"
CODES = {int(c) for c in ErrCode}


def _sources() -> list[Path]:
    return sorted(p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py") if p != HOME)


def test_no_err_code_is_written_as_a_number_in_code() -> None:
    bare: list[str] = []
    for p in _sources():
        for tok in tokenize.generate_tokens(io.StringIO(p.read_text(encoding="utf-8")).readline):
            if tok.type == tokenize.NUMBER and tok.string.isdigit() and 10000 < int(tok.string) < 10400:
                bare.append(f"{p.relative_to(ROOT)}:{tok.start[0]}: {tok.string}")
    assert bare == [], "write err codes as ErrCode members (jsops.linter.semantics.errcodes)"


def test_every_err_code_is_used() -> None:
    text = "\n".join(p.read_text(encoding="utf-8") for p in _sources())
    used = set(re.findall(r"ErrCode\.([A-Z0-9_]+)", text))
    assert {c.name for c in ErrCode} - used == set()


def test_err_codes_are_the_numbers_the_server_sends() -> None:
    assert ErrCode.STREAM_INVALID_CONFIG == 10052 and f"{ErrCode.STREAM_NOT_FOUND}" == "10059"
    assert len(CODES) == len(ErrCode)  # no two names for one code
