"""``jsops lint`` exit codes (contracts §2): 0 clean, 1 findings at or above --fail-on, 2 cannot run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from jsops.linter.cli.app import main

ROOT = Path(__file__).resolve().parents[2]

CLEAN = """\
apiVersion: jsops/v1
kind: Stream
metadata:
  name: ORDERS
spec:
  subjects: ["orders.>"]
  storage: file
  max_age: 7d
  duplicate_window: 2m
"""
ERROR = CLEAN.replace("max_age: 7d", "max_age: soon")
WARNING_ONLY = CLEAN + "---\n" + "---\n"  # an empty document between two separators


def run(argv: list[str], capsys) -> tuple[int, str, str]:
    try:
        rc = main(argv)
    except SystemExit as exc:  # argparse exits by itself on bad arguments
        rc = exc.code if isinstance(exc.code, int) else 2
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.fixture
def tree(tmp_path: Path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "clean").mkdir()
    (tmp_path / "clean" / "orders.yaml").write_text(CLEAN)
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "orders.yaml").write_text(ERROR)
    (tmp_path / "warn").mkdir()
    (tmp_path / "warn" / "orders.yaml").write_text(WARNING_ONLY)
    return tmp_path


def test_clean_is_0(tree: Path, capsys) -> None:
    rc, out, err = run(["lint", "clean"], capsys)
    assert (rc, err) == (0, "")
    assert "error" not in out
    rc, out, _ = run(["lint", "clean", "--format", "json"], capsys)
    assert rc == 0


def test_default_path_is_the_current_directory(tree: Path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tree / "clean")
    assert run(["lint"], capsys)[0] == 0
    monkeypatch.chdir(tree / "bad")
    assert run(["lint"], capsys)[0] == 1


def test_findings_are_1(tree: Path, capsys) -> None:
    rc, out, err = run(["lint", "bad"], capsys)
    assert (rc, err) == (1, "")
    assert "bad/orders.yaml:8:12: error JS005 spec.max_age: invalid duration 'soon'" in out
    assert run(["lint", "bad", "--format", "json"], capsys)[0] == 1
    assert run(["lint", "clean", "bad"], capsys)[0] == 1


def test_fail_on_sets_the_threshold(tree: Path, capsys) -> None:
    rc, out, _ = run(["lint", "warn"], capsys)
    assert rc == 0 and "warning JS008" in out
    assert run(["lint", "warn", "--fail-on", "error"], capsys)[0] == 0
    assert run(["lint", "warn", "--fail-on", "warning"], capsys)[0] == 1
    assert run(["lint", "warn", "--fail-on", "info"], capsys)[0] == 1
    assert run(["lint", "bad", "--fail-on", "warning"], capsys)[0] == 1


@pytest.mark.parametrize(
    "argv",
    [
        ["lint", "missing"],
        ["lint", "clean", "missing.yaml"],
        ["lint", "missing", "--format", "json"],
    ],
    ids=["missing-dir", "one-of-two-missing", "missing-json"],
)
def test_nonexistent_path_is_2(argv: list[str], tree: Path, capsys) -> None:
    rc, out, err = run(argv, capsys)
    assert rc == 2
    assert out == ""  # no half report on stdout
    assert "missing" in err and "no such file or directory" in err
    assert "Traceback" not in err


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every file")
def test_unreadable_file_is_2(tree: Path, capsys) -> None:
    path = tree / "clean" / "secret.yaml"
    path.write_text(CLEAN)
    path.chmod(0)
    try:
        rc, out, err = run(["lint", str(path)], capsys)
    finally:
        path.chmod(0o644)
    assert rc == 2 and out == "" and "cannot read" in err


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["lint", "--format", "xml", "clean"],
        ["lint", "--fail-on", "never", "clean"],
        ["lint", "--no-such-flag", "clean"],
        ["lnit", "clean"],
        ["lint", "--format"],
    ],
    ids=["no-command", "bad-format", "bad-fail-on", "unknown-flag", "unknown-command", "missing-value"],
)
def test_bad_arguments_are_2(argv: list[str], tree: Path, capsys) -> None:
    rc, out, err = run(argv, capsys)
    assert rc == 2
    assert out == ""
    assert err  # says why
    assert "Traceback" not in err


def test_version_is_0(capsys) -> None:
    rc, out, _ = run(["--version"], capsys)
    assert rc == 0 and out.startswith("jsops ")


def test_real_process_exit_codes(tree: Path) -> None:
    """The console entry point turns main()'s return value into the process exit code."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))

    def code(*args: str) -> int:
        return subprocess.run(
            [sys.executable, "-m", "jsops.linter.cli.app", *args], cwd=tree, env=env, capture_output=True
        ).returncode

    assert code("lint", "clean") == 0
    assert code("lint", "bad") == 1
    assert code("lint", "missing") == 2
    assert code("lint", "--format", "xml", "clean") == 2
