"""Golden output of ``jsops lint tests/fixtures/lint`` (text and JSON), run from the repository root.

The fixtures hold the mistakes people make by hand in each dialect; the golden files hold exactly
what an SRE sees. When output changes on purpose, regenerate and review the diff:

    JSOPS_UPDATE_GOLDEN=1 .venv/bin/pytest tests/linter/test_cli_golden.py
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from jsops.linter.cli.app import VERSION, main

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = "tests/fixtures/lint"
GOLDEN = ROOT / "tests" / "golden"
UPDATE = os.environ.get("JSOPS_UPDATE_GOLDEN") == "1"


def _run(argv: list[str], capsys, monkeypatch) -> tuple[int, str]:
    monkeypatch.chdir(ROOT)
    rc = main(argv)
    out, err = capsys.readouterr()
    assert err == ""
    return rc, out.replace(f'"{VERSION}"', '"VERSION"')  # the version comes from git tags: goldens say VERSION


@pytest.mark.parametrize(("fmt", "golden"), [("text", "lint.txt"), ("json", "lint.json")])
def test_lint_output_matches_golden(fmt: str, golden: str, capsys, monkeypatch) -> None:
    rc, out = _run(["lint", FIXTURES, "--format", fmt], capsys, monkeypatch)
    path = GOLDEN / golden
    if UPDATE:
        path.write_text(out)
    expected = path.read_text()
    assert out == expected, (
        f"{golden} differs; if the change is intended, rerun with JSOPS_UPDATE_GOLDEN=1 and review the diff"
    )
    assert rc == 1


def test_golden_json_is_the_contract_shape(capsys, monkeypatch) -> None:
    _, out = _run(["lint", FIXTURES, "--format", "json"], capsys, monkeypatch)
    report = json.loads(out)
    assert set(report) == {"version", "findings", "summary"}
    assert set(report["summary"]) == {"files", "objects", "error", "warning", "info"}
    keys = {"rule", "name", "severity", "message", "file", "line", "column", "object", "server_error_code"}
    keys |= {"server_answer", "fix"}
    for f in report["findings"]:
        assert set(f) == keys
        assert not os.path.isabs(f["file"]) and f["file"].startswith(FIXTURES + "/")
        assert f["line"] >= 1 and f["column"] >= 1
    counts = {s: sum(1 for f in report["findings"] if f["severity"] == s) for s in ("error", "warning", "info")}
    assert counts == {s: report["summary"][s] for s in counts}
    assert report["summary"]["files"] == len(list((ROOT / FIXTURES).iterdir()))


def test_text_and_json_report_the_same_findings(capsys, monkeypatch) -> None:
    _, text = _run(["lint", FIXTURES], capsys, monkeypatch)
    _, js = _run(["lint", FIXTURES, "--format", "json"], capsys, monkeypatch)
    heads = [line.split(" [")[0] for line in text.splitlines() if line.startswith(FIXTURES)]
    from_json = [
        f"{f['file']}:{f['line']}:{f['column']}: {f['severity']} {f['rule']} {f['message']}"
        for f in json.loads(js)["findings"]
    ]
    assert heads == from_json


def test_every_fixture_file_is_reported(capsys, monkeypatch) -> None:
    # Each fixture exists to show a mistake; one that lints clean has lost its point.
    _, out = _run(["lint", FIXTURES, "--format", "json"], capsys, monkeypatch)
    reported = {f["file"] for f in json.loads(out)["findings"]}
    assert reported == {f"{FIXTURES}/{p.name}" for p in (ROOT / FIXTURES).iterdir()}
