"""Autofix: ``jsops lint --fix`` / ``--diff`` keep every byte outside the edit (golden pairs in
tests/golden/fix: ``<case>.yaml`` is fixed into ``<case>.fixed.yaml``), and the edit primitives.

Regenerate after an intended change, then review the diff:

    JSOPS_UPDATE_GOLDEN=1 .venv/bin/pytest tests/linter/test_fix.py
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from jsops.linter.cli.app import main
from jsops.linter.findings import Applicability, Edit, Finding, FixSuggestion, Severity
from jsops.linter.fix import FixError, apply_edits, render_scalar

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "fix"
UPDATE = os.environ.get("JSOPS_UPDATE_GOLDEN") == "1"
CASES = sorted(p.stem for p in GOLDEN.glob("*.yaml") if not p.stem.endswith(".fixed"))


@pytest.fixture
def work(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    return tmp_path


def _golden(path: Path, text: str) -> None:
    if UPDATE:
        path.write_text(text)
    assert text == path.read_text(), (
        f"{path.name} differs; if intended, rerun with JSOPS_UPDATE_GOLDEN=1 and review the diff"
    )


@pytest.mark.parametrize("case", CASES)
def test_fix_is_byte_identical_outside_the_edit(case, work, capsys):
    shutil.copy(GOLDEN / f"{case}.yaml", work / f"{case}.yaml")
    # The operational rules (group ops) have advice about the fixed values (a 36h window, a memory
    # stream without max_bytes); this test is about the edit, so only the other rules run.
    (work / "no-ops.yaml").write_text("ignore: [ops]\n")
    rc = main(["lint", f"{case}.yaml", "--config", "no-ops.yaml", "--fix"])
    out, err = capsys.readouterr()
    assert rc == 0, out
    assert err.startswith("jsops: fixed ")
    assert out.startswith("All clean")
    _golden(GOLDEN / f"{case}.fixed.yaml", (work / f"{case}.yaml").read_text())
    # Only the edited lines differ.
    before = (GOLDEN / f"{case}.yaml").read_text().splitlines()
    after = (work / f"{case}.yaml").read_text().splitlines()
    assert len(before) == len(after)
    assert all("uplicate" in b for b, a in zip(before, after) if a != b)


@pytest.mark.parametrize("case", CASES)
def test_diff_prints_and_does_not_write(case, work, capsys):
    shutil.copy(GOLDEN / f"{case}.yaml", work / f"{case}.yaml")
    rc = main(["lint", f"{case}.yaml", "--no-config", "--diff"])
    out, err = capsys.readouterr()
    assert rc == 1 and err == ""
    assert (work / f"{case}.yaml").read_text() == (GOLDEN / f"{case}.yaml").read_text()
    _golden(GOLDEN / f"{case}.diff", out)


def test_diff_with_nothing_to_fix_exits_0(work, capsys):
    shutil.copy(GOLDEN / "native.fixed.yaml", work / "ok.yaml")
    assert main(["lint", "ok.yaml", "--no-config", "--diff"]) == 0
    assert capsys.readouterr().out == ""


def test_unsafe_fixes_need_fix(work, capsys):
    assert main(["lint", ".", "--unsafe-fixes"]) == 2  # argument errors: usage, exit 2 (returned, not raised)
    assert "--unsafe-fixes needs --fix or --diff" in capsys.readouterr().err


def test_json_files_are_not_edited(work, capsys):
    Path("s.json").write_text(
        '{"name": "S", "subjects": ["s.>"], "max_age": 60000000000, "duplicate_window": 120000000000}\n'
    )
    before = Path("s.json").read_text()
    assert main(["lint", "s.json", "--no-config", "--fix"]) == 1
    _, err = capsys.readouterr()
    assert "s.json: not fixed: JSON files (NATS API dialect) are not edited" in err
    assert Path("s.json").read_text() == before


BLOCK = "a: 1  # one\nspec:\n  x: 1   # keep\n  y: [1, 2]\n\n# tail comment\n"


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (Edit("set", ("spec", "x"), "2m"), BLOCK.replace("x: 1", "x: 2m")),
        (Edit("set", ("spec", "z"), True), BLOCK.replace("  y: [1, 2]\n", "  y: [1, 2]\n  z: true\n")),
        (Edit("remove", ("spec", "x")), BLOCK.replace("  x: 1   # keep\n", "")),
        (Edit("remove", ("spec", "nope")), BLOCK),
        (Edit("set", ("spec", "y"), ["a b", "yes"]), BLOCK.replace("[1, 2]", '[a b, "yes"]')),
    ],
)
def test_block_edits(edit, expected):
    assert apply_edits(BLOCK, [edit]) == expected


FLOW = "spec: {a: 1, b: 2}  # c\n"


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (Edit("set", ("spec", "c"), 3), "spec: {a: 1, b: 2, c: 3}  # c\n"),
        (Edit("remove", ("spec", "a")), "spec: {b: 2}  # c\n"),
        (Edit("remove", ("spec", "b")), "spec: {a: 1}  # c\n"),
    ],
)
def test_flow_edits(edit, expected):
    assert apply_edits(FLOW, [edit]) == expected


def test_second_document_and_errors():
    text = "a: 1\n---\nb: 2\n"
    assert apply_edits(text, [Edit("set", ("b",), 3, document=1)]) == "a: 1\n---\nb: 3\n"
    with pytest.raises(FixError, match="not found"):
        apply_edits(text, [Edit("set", ("x", "y"), 1)])


@pytest.mark.parametrize(
    ("value", "text"),
    [("1m", "1m"), ("yes", '"yes"'), ("a: b", '"a: b"'), ("", '""'), ("10", '"10"'), (None, "null"), (3, "3")],
)
def test_scalars_read_back_as_written(value, text):
    assert render_scalar(value) == text


def test_a_fix_that_breaks_the_manifest_is_refused(work, capsys, monkeypatch):
    from jsops.linter import fix

    shutil.copy(GOLDEN / "native.yaml", work / "n.yaml")
    real = fix.apply_edits
    monkeypatch.setattr(
        fix, "apply_edits", lambda text, edits: real(text, edits).replace("storage: 'file'", "storage: 'fil'")
    )
    assert main(["lint", "n.yaml", "--no-config", "--fix"]) == 1
    _, err = capsys.readouterr()
    assert "n.yaml: not fixed: the edited manifest would no longer load cleanly" in err
    assert (work / "n.yaml").read_text() == (GOLDEN / "native.yaml").read_text()


def test_applicability_is_an_enum_spelled_as_before() -> None:
    """A fix's applicability is :class:`Applicability`; reports and the results cache see the same strings."""
    import marshal

    from jsops.linter.cache.results_cache import finding_of, plain_finding

    fix = FixSuggestion.unsafe("set max_age", (Edit.set(("max_age",), 60, duration=True),))
    assert fix.as_dict() == {"applicability": "unsafe", "description": "set max_age"}
    assert type(fix.as_dict()["applicability"]) is str
    f = Finding("JS101", "x", Severity.ERROR, "m", "a.yaml", 1, 1, fix=fix)
    back = finding_of(marshal.loads(marshal.dumps(plain_finding(f))))
    assert back == f and back.fix is not None and back.fix.applicability is Applicability.UNSAFE
