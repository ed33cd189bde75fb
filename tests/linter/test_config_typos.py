"""A typo anywhere in .jsops.yaml gets "did you mean"; lint of a path without manifests says so;
the jsops config is never linted as a manifest."""

from __future__ import annotations

from pathlib import Path

import pytest

from jsops.linter.cli.app import main

STREAM = (
    "apiVersion: jsops/v1\nkind: Stream\nmetadata: {name: A}\nspec: {subjects: [a], max_age: 1h, max_bytes: 1GiB}\n"
)


def _run(argv: list[str], capsys) -> tuple[int, str, str]:
    rc = main(argv)
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "contexts:\n  prod: {sever: x}\n",
            ".jsops.yaml:2:10: contexts.prod.sever: unknown key (did you mean 'server'?)",
        ),
        (
            "contexts:\n  prod: {server: x, pasword: {env: X}}\n",
            "contexts.prod.pasword: unknown key (did you mean 'password'?)",
        ),
        (
            "target: {server_verison: '2.11'}\n",
            ".jsops.yaml:1:10: target.server_verison: unknown key (did you mean 'server_version'?)",
        ),
        (
            "rules:\n  JS405: {sugested: 3}\n",
            "rules.JS405.sugested: unknown option (did you mean 'suggested'?) (JS405 options: suggested)",
        ),
        ("pahts: [m]\n", ".jsops.yaml:1:1: pahts: unknown key (did you mean 'paths'?)"),
    ],
)
def test_config_typos_say_did_you_mean(tmp_path: Path, monkeypatch, capsys, text: str, message: str) -> None:
    monkeypatch.chdir(tmp_path)
    Path("m.yaml").write_text(STREAM)
    Path(".jsops.yaml").write_text(text)
    rc, out, err = _run(["lint", "m.yaml"], capsys)
    assert rc == 2 and out == "" and message in err and err.count("\n") == 1, err


def test_lint_of_a_path_without_manifests_says_so(tmp_path: Path, capsys) -> None:
    (tmp_path / "notes.txt").write_text("not a manifest\n")
    rc, out, err = _run(["lint", "--no-config", str(tmp_path)], capsys)
    assert rc == 0 and out == "No manifests found: nothing was linted (0 files).\n"
    assert "jsops: warning: no manifests" in err and str(tmp_path) in err
    (tmp_path / "a.yaml").write_text(STREAM)
    rc, out, err = _run(["lint", "--no-config", str(tmp_path)], capsys)
    assert out.startswith("All clean: 1 object in 1 file") and err == ""


def test_the_jsops_config_is_not_a_manifest(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    Path("a.yaml").write_text(STREAM)
    Path(".jsops.yaml").write_text("fail-on: warning\n")
    rc, out, err = _run(["lint", "."], capsys)
    assert rc == 0 and "1 file" in out and ".jsops.yaml" not in out, out + err
