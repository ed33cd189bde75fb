"""Suppressions: comments on or above a line, file-wide comments, the jsops.io/disable annotation,
and findings about suppressions that suppress nothing (JS010) or name no rule (JS011)."""

from __future__ import annotations

from pathlib import Path

from jsops.linter.cli.app import main
from jsops.linter.config import Config
from jsops.linter.engine import lint_paths

BAD = 'spec: {subjects: ["{subj}.>"], max_age: 1m, duplicate_window: 2m}\n'


def _stream(name: str, body: str = BAD, meta: str = "") -> str:
    body = body.replace("{subj}", name.lower())
    return f"apiVersion: jsops/v1\nkind: Stream\nmetadata:\n  name: {name}\n{meta}{body}"


def _lint(tmp_path: Path, text: str, **kw):
    p = tmp_path / "m.yaml"
    p.write_text(text)
    return [(f.rule, f.line) for f in lint_paths([str(p)], **kw).findings]


def test_unsuppressed_finding(tmp_path):
    assert _lint(tmp_path, _stream("A")) == [("JS102", 5)]


def test_comment_on_the_line(tmp_path):
    text = _stream("A", BAD.rstrip("\n") + "  # jsops: disable=JS102 legacy stream, fixed in Q3\n")
    assert _lint(tmp_path, text) == []


def test_comment_on_the_line_above_by_name(tmp_path):
    text = _stream(
        "A", "# jsops: disable=stream-duplicate-window-exceeds-max-age migrating\n\n# another comment\n" + BAD
    )
    assert _lint(tmp_path, text) == []


def test_comment_above_covers_only_the_next_line(tmp_path):
    body = 'spec:\n  # jsops: disable=JS102 reason\n  subjects: ["{subj}.>"]\n  max_age: 1m\n  duplicate_window: 2m\n'
    found = _lint(tmp_path, _stream("A", body))
    assert ("JS102", 9) in found and ("JS010", 6) in found


def test_disable_file(tmp_path):
    text = "# jsops: disable-file=JS102 all of these are legacy\n" + _stream("A") + "---\n" + _stream("B")
    assert _lint(tmp_path, text) == []


def test_annotation(tmp_path):
    meta = '  annotations:\n    jsops.io/disable: "JS102 legacy"\n'
    assert _lint(tmp_path, _stream("A", meta=meta)) == []


def test_annotation_covers_only_its_object(tmp_path):
    meta = '  annotations:\n    jsops.io/disable: "JS102"\n'
    text = _stream("A", meta=meta) + "---\n" + _stream("B")
    assert [r for r, _ in _lint(tmp_path, text)] == ["JS102"]


def test_unused_suppressions_are_findings(tmp_path):
    meta = '  annotations:\n    jsops.io/disable: "JS102,JS103"\n'
    found = _lint(tmp_path, _stream("A", meta=meta) + "# jsops: disable=JS104 nothing\n")
    assert found == [("JS010", 6), ("JS010", 8)]


def test_unknown_and_malformed(tmp_path):
    text = _stream("A", "# jsops: disable=JS999\n# jsops: enable\n" + BAD.replace("2m", "1m"))
    assert _lint(tmp_path, text) == [("JS011", 5), ("JS011", 6)]


def test_suppression_of_a_rule_switched_off_is_not_unused(tmp_path):
    text = _stream("A", "# jsops: disable=JS102 x\n" + BAD)
    assert _lint(tmp_path, text, config=Config(ignore=["JS102"])) == []


def test_unused_suppression_can_be_ignored(tmp_path):
    text = _stream("A", "# jsops: disable=JS104 x\n" + BAD.replace("2m", "1m"))
    assert _lint(tmp_path, text, config=Config(ignore=["unused-suppression"])) == []


def test_a_hash_inside_a_value_is_not_a_comment(tmp_path):
    body = 'spec: {subjects: ["{subj}.>"], description: "x#jsops: disable=JS102", max_age: 1m, duplicate_window: 2m}\n'
    assert [r for r, _ in _lint(tmp_path, _stream("A", body))] == ["JS102"]


def test_cli_text_shows_the_unused_comment(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("m.yaml").write_text(_stream("A", "# jsops: disable=JS104 nothing\n" + BAD.replace("2m", "1m")))
    assert main(["lint", "m.yaml", "--no-config"]) == 0
    out = capsys.readouterr().out
    assert "m.yaml:5:1: warning JS010 unused suppression: comment disables JS104" in out
    assert main(["lint", "m.yaml", "--no-config", "--fail-on", "warning"]) == 1
