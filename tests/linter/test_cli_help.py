"""Discoverability: `jsops --help` lists every command with a summary (golden), an unknown command
says "did you mean" and lists them, `jsops help CMD` is `CMD --help`, every command's help has
examples and exit codes, argument errors print the usage and exit 2, and the completion scripts
work in a real bash."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from jsops.linter.cli.app import SUMMARIES, main, top_help

GOLDEN = Path(__file__).parents[1] / "golden"
ROOT = Path(__file__).resolve().parents[2]


def _golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("UPDATE_GOLDEN"):
        path.write_text(text)
    assert text == path.read_text()


def run(argv: list[str], capsys) -> tuple[int, str, str]:
    rc = main(argv)
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.fixture(autouse=True)
def _columns(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "100")  # argparse wraps to the terminal width


def test_top_help_lists_every_command(capsys) -> None:
    rc, out, _ = run(["--help"], capsys)
    assert rc == 0 and out == top_help()
    _golden("help.txt", out)
    for name, summary in SUMMARIES.items():
        assert f"  {name}" in out and summary in out
    assert run(["help"], capsys)[1] == out


def test_unknown_command_suggests_and_lists(capsys) -> None:
    rc, out, err = run(["pln", "manifests"], capsys)
    assert rc == 2 and out == ""
    assert "jsops: error: unknown command 'pln'; did you mean 'plan'?" in err
    assert "commands: lint, render, plan, apply" in err
    rc, _, err = run(["zzzz"], capsys)
    assert rc == 2 and "did you mean" not in err and "unknown command 'zzzz'" in err


@pytest.mark.parametrize(
    "command", ["lint", "rule", "rules", "plan", "apply", "export", "completion", "render", "report"]
)
def test_every_command_help_has_examples_and_exit_codes(command: str, capsys) -> None:
    rc, out, _ = run([command, "--help"], capsys)
    assert rc == 0 and "examples:" in out and "exit codes:" in out, out
    assert run(["help", command], capsys)[1] == out


def test_plan_help_golden(capsys) -> None:
    rc, out, _ = run(["plan", "--help"], capsys)
    assert rc == 0
    _golden("help-plan.txt", out)


@pytest.mark.parametrize(
    "argv",
    [
        ["lint", "--bogus"],
        ["rules", "--format", "x"],
        ["plan", "--bogus"],
        ["apply", "--bogus"],
        ["export"],
        ["completion", "tcsh"],
    ],
)
def test_argument_errors_print_usage_and_exit_2(argv: list[str], capsys) -> None:
    rc, out, err = run(argv, capsys)
    assert rc == 2 and err.startswith(f"usage: jsops {argv[0]}") and "error:" in err and "Traceback" not in err


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_bash_completion_completes_commands_and_options(capsys, tmp_path: Path) -> None:
    rc, script, _ = run(["completion", "bash"], capsys)
    assert rc == 0
    (tmp_path / "c.bash").write_text(script)

    def complete(*words: str) -> list[str]:
        line = " ".join(f"'{w}'" for w in words)
        cmd = f"source {tmp_path / 'c.bash'}; COMP_WORDS=({line}); COMP_CWORD={len(words) - 1}; _jsops; printf '%s\\n' \"${{COMPREPLY[@]}}\""
        return subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, check=True).stdout.split()

    assert complete("jsops", "pl") == ["plan"]
    assert "--detailed-exitcode" in complete("jsops", "plan", "--de")
    assert complete("jsops", "apply", "--tlsc") == ["--tlsca", "--tlscert"]
    assert complete("jsops", "help", "exp") == ["export"]


@pytest.mark.parametrize("shell", ["zsh", "fish"])
def test_zsh_and_fish_scripts_name_every_command(shell: str, capsys) -> None:
    rc, script, _ = run(["completion", shell], capsys)
    assert rc == 0
    for name in SUMMARIES:
        assert name in script
    assert "detailed-exitcode" in script
    exe = shutil.which(shell)
    if exe:  # syntax check where the shell is installed
        flag = ["-n"] if shell == "zsh" else ["--no-execute"]
        assert subprocess.run([exe, *flag], input=script, text=True).returncode == 0


def test_docs_install_only_what_exists() -> None:
    """jsops is not on PyPI: the docs install it from a clone or a wheel, never `pip install jsops`."""
    import re

    docs = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    seen = 0
    for doc in docs:
        for m in re.finditer(r"pip install ((?:-e )?[^\s`]+)", doc.read_text()):
            target = m.group(1).strip("'\"")
            seen += 1
            assert target.startswith((".", "-e ", "dist/", "tools/")) or target.endswith(".whl"), (
                f"{doc.name}: pip install {target}"
            )
    assert seen >= 2
    readme = (ROOT / "README.md").read_text()
    assert "## Install" in readme and 'pip install ".[spark]"' in readme and "Java 17" in readme
