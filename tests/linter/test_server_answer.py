"""The server's first answer (issue 35, item 4): nats-server stops at its first failed check, so of an object's
rejections jsops marks the one the server answers at the target's release (``Finding.server_answer``), in the
text, JSON and SARIF outputs. The order itself is measured on the binaries by
tests/integration/test_server_answer.py; here: the marking, the outputs (golden) and that every err_code a rule
can predict has its place in the order.

    JSOPS_UPDATE_GOLDEN=1 .venv/bin/pytest tests/test_server_answer.py
"""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

import pytest

from jsops.linter.cli.app import VERSION, main
from jsops.linter.findings import Finding, ObjectRef, Severity
from jsops.linter.semantics.answer_order import ANSWER_ORDER, answer_rank
from jsops.linter.server_answer import mark_server_answers
from jsops.linter.testing import lint_text
from tests.rules.cases import consumer, stream

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = "tests/fixtures/server-answer"
GOLDEN = ROOT / "tests" / "golden"
UPDATE = os.environ.get("JSOPS_UPDATE_GOLDEN") == "1"
NEWEST = (2, 15, 1)


def _run(argv: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.chdir(ROOT)
    main(argv)
    out, err = capsys.readouterr()
    assert err == ""
    return out.replace(f'"{VERSION}"', '"VERSION"')


@pytest.mark.parametrize(("fmt", "golden"), [("text", "server-answer.txt"), ("json", "server-answer.json")])
def test_outputs_match_golden(
    fmt: str, golden: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    out = _run(["lint", FIXTURES, "--format", fmt], capsys, monkeypatch)
    path = GOLDEN / golden
    if UPDATE:
        path.write_text(out)
    assert out == path.read_text(), f"{golden} differs; rerun with JSOPS_UPDATE_GOLDEN=1 and review the diff"


def test_one_answer_per_object_the_servers(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    findings = json.loads(_run(["lint", FIXTURES, "--format", "json"], capsys, monkeypatch))["findings"]
    answers = {f["object"]["name"]: f["server_error_code"] for f in findings if f["server_answer"]}
    assert answers == {"ORDERS_COPY": 10052, "notify": 10116}  # before 10034, 10031; before 10080
    rejections = Counter(f["object"]["name"] for f in findings if f["server_error_code"])
    assert rejections == {"ORDERS_COPY": 3, "notify": 2}


def test_sarif_carries_the_answer(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    sarif = json.loads(_run(["lint", FIXTURES, "--format", "sarif"], capsys, monkeypatch))
    props = [r["properties"] for r in sarif["runs"][0]["results"] if "server_error_code" in r.get("properties", {})]
    assert sorted((p["server_error_code"], p["server_answer"]) for p in props) == [
        (10031, False),
        (10034, False),
        (10052, True),
        (10080, False),
        (10116, True),
    ]


def _finding(code: int | None, about: str, name: str = "S", severity: Severity = Severity.ERROR) -> Finding:
    ref = ObjectRef("Stream", name)
    return Finding("JS000", "x", severity, "m", "f.yaml", 1, 1, ref, code, about=about)


def test_marking() -> None:
    found = [
        _finding(10065, "subjects"),  # after the config checks
        _finding(10034, "subjects"),
        _finding(10052, "subjects"),  # the subjects' checks come after the mirror's
        _finding(10052, "duplicate_window"),
        _finding(None, "max_age", severity=Severity.WARNING),
        _finding(10052, "subjects", name="T"),
        _finding(10074, "num_replicas", name="U", severity=Severity.WARNING),  # advice: never the answer
    ]
    marked = mark_server_answers(found, NEWEST)
    assert [f.server_answer for f in marked] == [False, False, False, True, False, True, False]
    # among equals (the same check twice), the first listed
    twice = mark_server_answers([_finding(10052, "subjects"), _finding(10052, "subjects")], NEWEST)
    assert [f.server_answer for f in twice] == [True, False]


def test_decode_first_and_unknown_checks_last() -> None:
    assert answer_rank("Stream", 10025, "") == 0 and answer_rank("Consumer", 10025, "max_agee") == 0
    last = len([c for stage in ANSWER_ORDER["Stream"] for c in stage])
    assert answer_rank("Stream", 99999, "x") == last
    assert (
        answer_rank("Stream", 10052, "name")
        < answer_rank("Stream", 10034, "")
        < answer_rank("Stream", 10052, "subjects")
    )


def test_the_sources_checks_changed_order() -> None:
    def rank(code: int, release: tuple[int, int, int]) -> int:
        return answer_rank("Stream", code, "sources", release)

    assert rank(10146, (2, 10, 26)) < rank(10145, (2, 10, 26)) and rank(10145, (2, 11, 11)) < rank(10146, (2, 11, 11))
    assert rank(10046, (2, 11, 11)) < rank(10144, (2, 11, 11)) and rank(10144, NEWEST) < rank(10046, NEWEST)


def test_every_predicted_code_has_its_place() -> None:
    """Every (kind, err_code, field) a rule predicts in its cases is named by the order, by the field or for
    every field of its code: an unnamed check would sort last and could hide the server's answer."""
    missing = set()
    for table in (stream.CASES, consumer.CASES):
        for case in (c.rule_case() for c in table):
            for f in lint_text(case.docs, case.rule, target=case.target, profiles=case.profiles):
                if f.server_error_code is None or f.object is None:
                    continue
                kind, code = str(f.object.kind), int(f.server_error_code)
                named = {c for stage in ANSWER_ORDER[kind] for c in stage}
                if (code, f.about) not in named and (code, "") not in named:
                    missing.add((kind, code, f.about, f.rule))
    assert not missing, sorted(missing)


def test_a_body_the_loader_could_not_tie_to_its_object() -> None:
    """A request key the server fails to decode (the loader's JS005 without an object) is answered before the
    config checks of the file's one object; in a file of several objects it answers for the file."""
    undecoded = Finding("JS005", "x", Severity.ERROR, "m", "f.yaml", 1, 1, None, 10025)
    marked = mark_server_answers([_finding(10059, "stream"), undecoded], NEWEST)
    assert [f.server_answer for f in marked] == [False, True]
    several = mark_server_answers([_finding(10052, "name"), _finding(10052, "name", name="T"), undecoded], NEWEST)
    assert [f.server_answer for f in several] == [True, True, True]
