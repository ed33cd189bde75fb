"""Golden output of every ``--format`` (sarif, junit, github, colored text), SARIF validated with
jsonschema, JUnit parsed as XML, and the github format chosen automatically on GitHub Actions.

Regenerate after an intended change, then review the diff:

    JSOPS_UPDATE_GOLDEN=1 .venv/bin/pytest tests/linter/test_report_formats.py
"""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from jsops.linter.cli import kit as clikit
from jsops.linter.cli.app import VERSION, main

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = "tests/fixtures/lint"
GOLDEN = ROOT / "tests" / "golden" / "report"
UPDATE = os.environ.get("JSOPS_UPDATE_GOLDEN") == "1"


@pytest.fixture(autouse=True)
def _env(monkeypatch):
    monkeypatch.chdir(ROOT)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    monkeypatch.delenv("NO_COLOR", raising=False)


def _run(argv, capsys) -> tuple[int, str]:
    rc = main(argv)
    out, err = capsys.readouterr()
    assert err == ""
    return rc, out.replace(f'"{VERSION}"', '"VERSION"')  # the version comes from git tags: goldens say VERSION


def _golden(name: str, out: str) -> None:
    path = GOLDEN / name
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(out)
    assert out == path.read_text(), f"{name} differs; if intended, rerun with JSOPS_UPDATE_GOLDEN=1 and review the diff"


@pytest.mark.parametrize(
    ("fmt", "golden"), [("sarif", "lint.sarif"), ("junit", "lint.junit.xml"), ("github", "lint.github.txt")]
)
def test_format_matches_golden(fmt, golden, capsys):
    rc, out = _run(["lint", FIXTURES, "--no-config", "--format", fmt], capsys)
    assert rc == 1
    _golden(golden, out)


def test_colored_text_with_excerpts(capsys, monkeypatch):
    monkeypatch.setattr("jsops.linter.cli.lint.use_color", lambda args=None: True)
    _, out = _run(["lint", FIXTURES, "--no-config"], capsys)
    assert "\x1b[31;1merror\x1b[0m" in out
    _golden("lint.color.txt", out)


def test_color_only_on_a_terminal_without_no_color(monkeypatch):
    class Tty:
        def isatty(self):
            return True

    monkeypatch.setattr(clikit.sys, "stdout", Tty())
    assert clikit.use_color() is True
    monkeypatch.setenv("NO_COLOR", "1")
    assert clikit.use_color() is False


SCHEMAS = {
    "subset": ROOT / "tests" / "golden" / "sarif-2.1.0-subset.schema.json",
    # The official OASIS SARIF 2.1.0 schema, fetched by `make install` (.ci/fetch-sarif-schema) and
    # never committed. JSOPS_SARIF_SCHEMA points elsewhere.
    "official": Path(
        os.environ.get("JSOPS_SARIF_SCHEMA", ROOT / ".venv" / "share" / "sarif" / "sarif-schema-2.1.0.json")
    ),
}


def _validator(which: str):
    jsonschema = pytest.importorskip("jsonschema")
    if not SCHEMAS[which].exists():
        # make install fetches it when npm and the registry are reachable; the subset always runs
        pytest.skip(f"{SCHEMAS[which]} not fetched (`make install` runs .ci/fetch-sarif-schema; needs npm)")
    schema = json.loads(SCHEMAS[which].read_text())
    cls = jsonschema.validators.validator_for(schema)
    return cls(schema, format_checker=jsonschema.FormatChecker())


@pytest.mark.parametrize("which", sorted(SCHEMAS))
def test_sarif_validates_against_the_schema(which, capsys):
    _, out = _run(["lint", FIXTURES, "--no-config", "--format", "sarif"], capsys)
    doc = json.loads(out)
    errors = sorted(_validator(which).iter_errors(doc), key=str)
    assert not errors, errors[0]
    run = doc["runs"][0]
    # GitHub code scanning needs relative URIs, rule ids, and every result's rule in the driver.
    ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
    for res in run["results"]:
        assert ids[res["ruleIndex"]] == res["ruleId"]
        uri = res["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        assert uri.startswith(FIXTURES + "/")


@pytest.mark.parametrize("which", sorted(SCHEMAS))
def test_sarif_schema_rejects_a_broken_log(which):
    bad = {
        "version": "2.1.0",
        "runs": [{"tool": {"driver": {"name": "jsops"}}, "results": [{"message": {"text": "x"}, "level": "fatal"}]}],
    }
    assert list(_validator(which).iter_errors(bad))
    typo = {
        "version": "2.1.0",
        "runs": [{"tool": {"driver": {"name": "jsops"}}, "results": [{"message": {"text": "x"}, "ruleID": "JS1"}]}],
    }
    assert list(_validator(which).iter_errors(typo))


@pytest.mark.parametrize(
    ("fail_on", "failing"),
    [(None, {"error"}), ("warning", {"error", "warning"}), ("info", {"error", "warning", "info"})],
)
def test_junit_counts_as_failures_only_what_fails_the_exit_code(capsys, fail_on, failing):
    # one case per finding and per clean file; a finding below --fail-on is a passing case that says what was found
    extra = ["--fail-on", fail_on] if fail_on else []
    rc, out = _run(["lint", FIXTURES, "--no-config", "--format", "junit", *extra], capsys)
    suite = ET.fromstring(out).find("testsuite")
    findings = json.loads(_run(["lint", FIXTURES, "--no-config", "--format", "json"], capsys)[1])["findings"]
    severities = {f["severity"] for f in findings}
    assert fail_on or severities - failing, (
        "the fixtures must hold a finding below --fail-on=error"
    )  # else the test cannot fail
    failed = [f for f in findings if f["severity"] in failing]
    assert int(suite.get("failures")) == len(suite.findall("testcase/failure")) == len(failed)
    assert len(suite.findall("testcase/system-out")) == len(findings) - len(failed)
    assert (rc == 1) == bool(failed)


def test_github_escapes_and_levels():
    from jsops.linter.engine import LintResult
    from jsops.linter.findings import Finding, Severity
    from jsops.linter.report.github import render_github

    f = Finding("JS102", "n", Severity.INFO, "50% a\nb", "dir/a,b:c.yaml", 3, 4)
    out = render_github(LintResult([f], 1, 1, ["dir/a,b:c.yaml"]))
    assert out.splitlines()[0] == "::notice file=dir/a%2Cb%3Ac.yaml,line=3,col=4,title=JS102 n::50%25 a%0Ab"


def test_github_is_chosen_on_github_actions(capsys, monkeypatch):
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    _, out = _run(["lint", FIXTURES, "--no-config"], capsys)
    assert out.startswith("::error file=")
    _, out = _run(["lint", FIXTURES, "--no-config", "--format", "text"], capsys)
    assert out.startswith(FIXTURES)


def test_excerpts_are_read_fresh_for_each_render(tmp_path, monkeypatch):
    """A file's lines are read once per render, not once per process: a later lint in the same process (the
    controller, a test suite, another working directory with a file of the same relative name) shows the
    file as it is then."""
    from jsops.linter.report.text import source_reader

    monkeypatch.chdir(tmp_path)
    (tmp_path / "estate.yaml").write_text("first\n")
    assert source_reader()("estate.yaml") == ["first"]
    (tmp_path / "estate.yaml").write_text("second\n")
    reader = source_reader()
    assert reader("estate.yaml") == ["second"]
    (tmp_path / "estate.yaml").write_text("third\n")
    assert reader("estate.yaml") == ["second"]  # one render reads each file once
