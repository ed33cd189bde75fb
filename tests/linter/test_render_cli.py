"""``jsops render --env NAME`` output (golden), exit codes, and ``--env`` on lint, plan and apply.

Golden files are regenerated with ``JSOPS_UPDATE_GOLDEN=1 .venv/bin/pytest tests/linter/test_render_cli.py``
(review the diff).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from natsserver import NatsServer

from jsops.linter.cli.app import main
from jsops.linter.load import load_paths

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = "tests/fixtures/environments"
GOLDEN = ROOT / "tests" / "golden"
UPDATE = os.environ.get("JSOPS_UPDATE_GOLDEN") == "1"


def _run(argv: list[str], capsys, monkeypatch, cwd: Path = ROOT) -> tuple[int, str, str]:
    monkeypatch.chdir(cwd)
    try:
        rc = main(argv)
    except SystemExit as exc:  # argparse
        rc = int(exc.code or 0)
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.mark.parametrize("env", ["dev", "prod"])
def test_render_output_matches_golden(env, capsys, monkeypatch):
    rc, out, err = _run(["render", "--env", env, FIXTURE], capsys, monkeypatch)
    assert (rc, err) == (0, "")
    path = GOLDEN / f"render-{env}.yaml"
    if UPDATE:
        path.write_text(out)
    assert out == path.read_text(), (
        f"{path.name} differs; if intended, rerun with JSOPS_UPDATE_GOLDEN=1 and review the diff"
    )


def test_rendered_output_lints_like_the_templates(tmp_path, capsys, monkeypatch):
    """What render prints is what lint --env reads: the same objects and configs."""
    rc, out, _ = _run(["render", "--env", "prod", FIXTURE], capsys, monkeypatch)
    assert rc == 0
    (tmp_path / "all.yaml").write_text(out)
    from_render = load_paths([str(tmp_path)])
    from_templates = load_paths([str(ROOT / FIXTURE)], env="prod")
    assert from_render.findings == []
    assert {r.key: r.config for r in from_render.resources} == {r.key: r.config for r in from_templates.resources}


def test_render_failure_prints_findings_and_nothing_else(tmp_path, capsys, monkeypatch):
    (tmp_path / "environments").mkdir()
    (tmp_path / "environments" / "dev.yaml").write_text("a: 1\n")
    (tmp_path / "good.yaml.j2").write_text(
        "apiVersion: jsops/v1\nkind: Stream\nmetadata: {name: A}\nspec: {subjects: [a]}\n"
    )
    (tmp_path / "bad.yaml.j2").write_text("# ok\n# ok\nmax_age: {{ missing }}\n")
    rc, out, err = _run(["render", "--env", "dev", "."], capsys, monkeypatch, cwd=tmp_path)
    assert rc == 1 and out == ""
    assert err.splitlines()[0].startswith("bad.yaml.j2:3:1: error JS012 undefined value: 'missing' is undefined")
    assert "Traceback" not in err


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["render", FIXTURE], "--env"),
        (["render", "--env", "staging", FIXTURE], "unknown environment 'staging'"),
        (["render", "--env", "dev", "tests/fixtures/no-such-dir"], "no such file"),
        (["render", "--env", "../x", FIXTURE], "invalid environment name"),
        (["render", "--env", "dev", "--bogus", FIXTURE], "unrecognized"),
    ],
)
def test_render_bad_arguments_exit_2(argv, needle, capsys, monkeypatch):
    rc, out, err = _run(argv, capsys, monkeypatch)
    assert rc == 2 and out == "" and needle in err and "Traceback" not in err


def test_render_without_templates_prints_the_manifests(tmp_path, capsys, monkeypatch):
    (tmp_path / "a.yaml").write_text(
        "---\napiVersion: jsops/v1\nkind: Stream\nmetadata: {name: A}\nspec: {subjects: [a]}"
    )
    rc, out, err = _run(["render", "--env", "dev", "a.yaml"], capsys, monkeypatch, cwd=tmp_path)
    assert rc == 0 and err == ""
    assert (
        out == "---\n# Source: a.yaml\napiVersion: jsops/v1\nkind: Stream\nmetadata: {name: A}\nspec: {subjects: [a]}\n"
    )


# --- jsops lint --env ---------------------------------------------------------------------------


def test_lint_env_findings_point_at_the_template(capsys, monkeypatch):
    rc, out, err = _run(["lint", "--env", "dev", "--format", "json", FIXTURE], capsys, monkeypatch)
    assert rc == 1 and err == ""
    found = [
        (f["rule"], f["file"], f["line"], f["column"]) for f in json.loads(out)["findings"] if f["severity"] == "error"
    ]
    assert found == [("JS102", f"{FIXTURE}/streams/orders.yaml.j2", 13, 21)]
    fix = next(f["fix"] for f in json.loads(out)["findings"] if f["rule"] == "JS102")
    assert "does not edit templates" in fix["description"]


def test_lint_env_text_shows_the_template_line(capsys, monkeypatch):
    rc, out, _ = _run(["lint", "--env", "dev", FIXTURE], capsys, monkeypatch)
    assert rc == 1
    assert f"{FIXTURE}/streams/orders.yaml.j2:13:21: error JS102" in out
    assert "   13 |   duplicate_window: {{ dedupe }}" in out
    assert "jsops lint --fix" not in out  # a template is never edited


def test_lint_env_exit_codes(capsys, monkeypatch):
    assert _run(["lint", "--env", "prod", FIXTURE], capsys, monkeypatch)[0] == 0  # warnings only
    assert _run(["lint", FIXTURE], capsys, monkeypatch)[0] == 1  # JS013: templates need --env
    rc, out, err = _run(["lint", "--env", "qa", FIXTURE], capsys, monkeypatch)
    assert rc == 2 and "unknown environment 'qa'" in err and "known: dev, prod" in err


def test_lint_fix_leaves_templates_alone(tmp_path, capsys, monkeypatch):
    (tmp_path / "environments").mkdir()
    (tmp_path / "environments" / "dev.yaml").write_text("dw: 2m\n")
    text = "apiVersion: jsops/v1\nkind: Stream\nmetadata: {name: A}\nspec:\n  subjects: [a]\n  max_age: 1m\n  duplicate_window: {{ dw }}\n"
    (tmp_path / "a.yaml.j2").write_text(text)
    rc, _, _ = _run(["lint", "--env", "dev", "--fix", "."], capsys, monkeypatch, cwd=tmp_path)
    assert rc == 1 and (tmp_path / "a.yaml.j2").read_text() == text


def test_lint_env_note_when_a_line_renders_to_several(tmp_path, capsys, monkeypatch):
    (tmp_path / "environments").mkdir()
    (tmp_path / "environments" / "dev.yaml").write_text('limits: "max_age: 1m\\n  duplicate_window: 2m"\n')
    (tmp_path / "a.yaml.j2").write_text(
        "apiVersion: jsops/v1\nkind: Stream\nmetadata: {name: A}\nspec:\n  subjects: [a]\n  {{ limits }}\n"
    )
    rc, out, _ = _run(["lint", "--env", "dev", "--format", "json", "."], capsys, monkeypatch, cwd=tmp_path)
    f = next(f for f in json.loads(out)["findings"] if f["rule"] == "JS102")
    assert (f["file"], f["line"]) == ("a.yaml.j2", 6)
    assert "renders to several lines" in f["message"] and "jsops render --env dev a.yaml.j2" in f["message"]


# --- jsops plan / apply --env against a real nats-server -----------------------------------------


@pytest.mark.integration
def test_plan_and_apply_take_env(tmp_path, capsys, monkeypatch):
    (tmp_path / "environments").mkdir()
    (tmp_path / "environments" / "dev.yaml").write_text("age: 1h\n")
    (tmp_path / "environments" / "prod.yaml").write_text("age: 2h\n")
    (tmp_path / "environments" / "broken.yaml").write_text("age: 1m\n")
    (tmp_path / "s.yaml.j2").write_text(
        "apiVersion: jsops/v1\nkind: Stream\nmetadata: {name: ENVS}\nspec:\n  subjects: [envs.>]\n  max_age: {{ age }}\n  duplicate_window: 2m\n"
    )
    server = NatsServer().start()
    try:
        target = ["--server", server.url]
        rc, out, err = _run(["apply", ".", "--env", "dev", "--yes", *target], capsys, monkeypatch, cwd=tmp_path)
        assert rc == 0, (out, err)
        rc, out, err = _run(
            ["plan", ".", "--env", "prod", "--format", "json", "--detailed-exitcode", *target],
            capsys,
            monkeypatch,
            cwd=tmp_path,
        )
        assert rc == 2, (out, err)
        assert "max_age" in out and "ENVS" in out
        rc, out, err = _run(["apply", ".", "--env", "prod", "--yes", *target], capsys, monkeypatch, cwd=tmp_path)
        assert rc == 0, (out, err)
        assert _run(["plan", ".", "--env", "prod", *target], capsys, monkeypatch, cwd=tmp_path)[0] == 0
        assert (
            _run(["plan", ".", "--env", "dev", "--detailed-exitcode", *target], capsys, monkeypatch, cwd=tmp_path)[0]
            == 2
        )
        # a template that does not lint in this environment stops plan before anything is read
        rc, out, err = _run(["plan", ".", "--env", "broken", *target], capsys, monkeypatch, cwd=tmp_path)
        assert rc == 1 and "s.yaml.j2:7:" in err and "JS102" in err
        # without --env the template is not silently left out
        rc, out, err = _run(["plan", ".", *target], capsys, monkeypatch, cwd=tmp_path)
        assert rc == 1 and "JS013" in err
    finally:
        server.stop()
