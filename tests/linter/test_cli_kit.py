"""The CLI kit (jsops.linter.cli.kit), the exit-code contract (jsops.linter.exitcodes), the reporter registry and
the fix loop: what every command relies on."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from jsops.linter.cli.kit import (
    Exit,
    Parser,
    add_config,
    config_from_args,
    duration_type,
    parse_seconds,
    run,
    use_color,
)
from jsops.linter.config import ConfigError
from jsops.linter.errors import LinterError
from jsops.linter.exitcodes import EXIT_CODES, ExitCode, exit_codes_help, exit_codes_markdown, signalled

ROOT = Path(__file__).resolve().parents[2]


def test_parse_seconds_go_strings_and_bare_numbers() -> None:
    assert parse_seconds("30s") == 30
    assert parse_seconds("1m30s", bare="s") == 90
    assert parse_seconds("200ms", bare="s") == pytest.approx(0.2)
    assert parse_seconds("2.5", bare="s") == 2.5  # the controller: a bare number is seconds
    assert parse_seconds("1500000000") == 1.5  # elsewhere: integer nanoseconds, as in manifests
    assert parse_seconds("30") == pytest.approx(30e-9)
    for bad in ("soon", "2.5", ""):
        with pytest.raises(ValueError):
            parse_seconds(bad)


def test_duration_type_is_an_argument_error() -> None:
    p = Parser(prog="jsops x")
    p.add_argument("--wait", type=duration_type(), default="30s")
    assert p.parse_args([]).wait == 30
    assert p.parse_args(["--wait", "2m"]).wait == 120
    for bad, message in (("soon", "invalid duration"), ("-5s", "must not be negative")):
        with pytest.raises(Exit) as info:
            p.parse_args([f"--wait={bad}"])
        assert info.value.code == 2 and f"jsops x: error: argument --wait: {message}" in info.value.message


def test_parser_errors_are_usage_then_one_line() -> None:
    p = Parser(prog="jsops x")
    p.add_argument("--n", type=int)
    with pytest.raises(Exit) as info:
        p.parse_args(["--bogus"])
    assert info.value.code == ExitCode.USAGE
    assert info.value.message == "usage: jsops x [-h] [--n N]\njsops x: error: unrecognized arguments: --bogus"
    q = Parser(prog="jsops lint", error_prog="jsops")
    with pytest.raises(Exit, match=r"\njsops: error: unrecognized"):
        q.parse_args(["--bogus"])


def test_run_maps_errors_to_one_line_and_the_contract(capsys: pytest.CaptureFixture[str]) -> None:
    class MineError(Exception):
        pass

    def raising(exc: BaseException) -> int:
        raise exc

    cases: list[tuple[BaseException, int, str]] = [
        (Exit("jsops x: error: as is", 1), 1, "jsops x: error: as is\n"),
        (LinterError("bad"), 2, "jsops x: error: bad\n"),
        (MineError("mine"), 2, "jsops x: error: mine\n"),
        (KeyboardInterrupt(), 130, ""),
        (BrokenPipeError(), 1, ""),
        (SystemExit(0), 0, ""),
        (RuntimeError("bug"), 2, "jsops x: internal error: RuntimeError: bug\n"),
    ]
    for exc, code, err in cases:
        assert run(lambda _argv, e=exc: raising(e), [], prog="jsops x", errors=(LinterError, MineError)) == code
        assert capsys.readouterr().err == err
    assert run(lambda argv: len(argv), ["a", "b"]) == 2
    secret = run(
        lambda _argv: raising(LinterError("pw s3cr3t")), [], error_code=1, redact=lambda t: t.replace("s3cr3t", "***")
    )
    assert secret == 1 and capsys.readouterr().err == "jsops: error: pw ***\n"


def test_config_from_args(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".jsops.yaml").write_text("fail-on: warning\n")
    p = argparse.ArgumentParser()
    add_config(p, "the config")
    assert config_from_args(p.parse_args([])).source == ".jsops.yaml"
    assert config_from_args(p.parse_args(["--no-config"])).source is None
    with pytest.raises(ConfigError):
        config_from_args(p.parse_args(["--config", "nope.yaml"]))
    assert config_from_args(argparse.Namespace()).source == ".jsops.yaml"  # a command without the flags


def test_use_color(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdout.isatty", lambda: True)
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    assert use_color() and use_color(argparse.Namespace(no_color=False))
    assert not use_color(argparse.Namespace(no_color=True))
    monkeypatch.setenv("NO_COLOR", "1")
    assert not use_color()


def test_exit_codes_are_written_once() -> None:
    assert (ExitCode.FINDINGS, ExitCode.ERROR, ExitCode.NOT_RUN, ExitCode.CHANGES) == (1, 1, 2, 2)
    assert signalled(15) == 143
    assert exit_codes_help("rule") == "exit codes:\n  0  shown\n  2  unknown rule or bad arguments\n"
    assert "130, 143" not in exit_codes_help("apply")  # documented, not in --help
    assert set(EXIT_CODES) >= {"lint", "render", "report", "plan", "apply", "export", "discover", "controller"}
    assert exit_codes_markdown() in (ROOT / "docs" / "cli.md").read_text(), "regenerate the table in docs/cli.md"


def test_reporter_registry_drives_the_format_flag(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from jsops.linter import report
    from jsops.linter.cli.app import main
    from jsops.linter.engine import LintResult

    assert report.FORMATS == ("text", "json", "sarif", "junit", "github")
    monkeypatch.setitem(report.REPORTERS, "count", lambda result, ctx: f"{len(result.findings)} findings\n")
    assert report.render_result(LintResult(), "count", report.RenderContext("0")) == "0 findings\n"
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.yaml").write_text("apiVersion: jsops/v1\nkind: Stream\nmetadata: {name: A}\nspec: {subjects: [a]}\n")
    assert main(["lint", "--no-config", "--format", "count", "s.yaml"]) == 0
    assert capsys.readouterr().out.endswith(" findings\n")


def test_fix_loop_fixes_until_nothing_changes(tmp_path: Path) -> None:
    from jsops.linter.engine import LintResult, lint_paths
    from jsops.linter.fix import fix_and_relint, fix_diff

    path = tmp_path / "s.yaml"
    path.write_text(
        "apiVersion: jsops/v1\nkind: Stream\nmetadata: {name: A}\nspec:\n  subjects: [a]\n  max_age: 1m\n  duplicate_window: 2m\n"
    )

    def lint() -> LintResult:
        return lint_paths([str(path)])

    before = path.read_text()
    diff = fix_diff(lint().findings)
    assert diff.startswith(f"--- a/{str(path).lstrip('/')}") and path.read_text() == before
    notes: list[str] = []
    outcome = fix_and_relint(lint, note=notes.append)
    assert outcome.fixed >= 1 and outcome.files == {str(path)} and path.read_text() != before
    assert outcome.summary() == f"fixed {outcome.fixed} finding{'s' if outcome.fixed != 1 else ''} in 1 file"
    assert fix_diff(outcome.result.findings) == ""
