"""Hostile trees and names (issue 22, items 9-11): a tree nesting 1,500 directories, a JSON name
holding a lone surrogate escape, file names that are not UTF-8, and links out of the repository
are findings with ``file:line:col`` in lint (every format), report, render, plan and apply, never a
traceback, a ``RecursionError`` or output that is not valid JSON/XML.

The CLI runs as a subprocess where the crash was in writing the output (an in-process run prints
to a StringIO, which accepts what a real terminal or pipe refuses).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest

from jsops.linter.cli.app import main
from jsops.linter.load import load_paths

ROOT = Path(__file__).resolve().parents[3]
STREAM = "apiVersion: jsops/v1\nkind: Stream\nmetadata:\n  name: {name}\nspec:\n  subjects: [{subj}.>]\n  max_age: 1h\n"
FORMATS = ["text", "json", "sarif", "junit", "github"]
DEAD_URL = "nats://127.0.0.1:9"  # nothing listens: plan/apply stop at the lint gate before connecting


def jsops(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "JSOPS_NO_CACHE": "1", "LC_ALL": "C.UTF-8"}
    env.pop("PYTHONIOENCODING", None)
    return subprocess.run(
        [sys.executable, "-m", "jsops.linter.cli.app", *args],
        cwd=cwd or ROOT,
        env=env,
        capture_output=True,
        timeout=300,
    )


def check_output(fmt: str, out: bytes) -> str:
    """The output decodes as UTF-8 and parses in its format."""
    text = out.decode("utf-8")
    if fmt in ("json", "sarif"):
        json.loads(text)
    elif fmt == "junit":
        ET.fromstring(out)
    return text


def no_crash(proc: subprocess.CompletedProcess[bytes]) -> str:
    err = proc.stderr.decode("utf-8", "replace")
    assert "Traceback" not in err and "internal error" not in err and "RecursionError" not in err, err[-2000:]
    return err


# --- item 9: 1,500 nested directories --------------------------------------------------------------


def _nest(top: Path, levels: int) -> Path:
    """``top/d/d/.../d`` (``levels`` deep) with a manifest at the bottom, made through directory
    descriptors (no recursion, no chdir); returns the bottom directory."""
    fd = os.open(top, os.O_RDONLY)
    try:
        for _ in range(levels):
            os.mkdir("d", dir_fd=fd)
            inner = os.open("d", os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = inner
        leaf = os.open("deep.yaml", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
        os.write(leaf, STREAM.format(name="DEEP", subj="deep").encode())
        os.close(leaf)
    finally:
        os.close(fd)
    return top.joinpath(*["d"] * levels)


def _unnest(top: Path) -> None:
    """Remove what :func:`_nest` made, bottom-up and iteratively (pytest's cleanup recurses)."""
    dirs = []
    here = top / "d"
    while here.is_dir():
        dirs.append(here)
        here = here / "d"
    for d in reversed(dirs):
        for f in d.iterdir():
            if not f.is_dir():
                f.unlink()
        d.rmdir()


@pytest.fixture
def deep(tmp_path: Path) -> Iterator[Path]:
    top = tmp_path / "repo"
    top.mkdir()
    (top / ".git").mkdir()
    (top / "ok.yaml").write_text(STREAM.format(name="OK", subj="ok"))
    _nest(top, 1500)
    try:
        yield top
    finally:
        _unnest(top)


@pytest.mark.parametrize("fmt", FORMATS)
def test_1500_nested_directories_are_a_finding_in_every_format(deep: Path, fmt: str) -> None:
    """Item 9: on main ``os.walk`` recursed 1,500 deep: lint, plan and report died with RecursionError."""
    proc = jsops("lint", str(deep), "--format", fmt)
    no_crash(proc)
    text = check_output(fmt, proc.stdout)
    assert proc.returncode == 1
    assert "JS002" in text and "100 levels" in text
    if fmt == "json":
        assert json.loads(text)["summary"]["objects"] == 1  # the shallow manifest is still linted


def test_1500_nested_directories_in_plan_apply_and_report(deep: Path, tmp_path: Path) -> None:
    for cmd in (["plan", str(deep), "--server", DEAD_URL], ["apply", str(deep), "--server", DEAD_URL, "--yes"]):
        proc = jsops(*cmd)
        err = no_crash(proc)
        assert proc.returncode == 1 and "JS002" in err, err
    out = tmp_path / "r.html"
    proc = jsops("report", str(deep), "--html", str(out))
    no_crash(proc)
    assert proc.returncode == 0 and "100 levels" in out.read_text()


def test_the_walk_is_bounded_and_keeps_the_shallow_files(deep: Path) -> None:
    estate = load_paths([str(deep)])
    assert [r.name for r in estate.resources] == ["OK"]
    (finding,) = estate.findings
    assert (
        finding.rule == "JS002" and finding.file.count(os.sep + "d") == 100 and (finding.line, finding.column) == (1, 1)
    )


def test_the_controller_source_survives_a_deep_tree(deep: Path) -> None:
    """Item 9: the controller's file snapshot and revision load (on main: RecursionError, exit 2)."""
    from jsops.reconciler.controller.source import load_revision, snapshot

    snap = snapshot([str(deep)])
    assert any(p.endswith("ok.yaml") for p, _, _ in snap)
    revision = load_revision([str(deep)])
    assert any("JS002" in e for e in revision.errors)  # rejected, the last good revision stays in force


# --- item 10: names that cannot be encoded ---------------------------------------------------------


@pytest.fixture
def surrogate(tmp_path: Path) -> Path:
    d = tmp_path / "m"
    d.mkdir()
    (d / "ok.yaml").write_text(STREAM.format(name="OK", subj="ok"))
    (d / "orders.json").write_bytes(b'{\n  "name": "ORD\\ud800",\n  "subjects": ["orders.>"]\n}\n')
    return d


@pytest.fixture
def bad_name(tmp_path: Path) -> Path:
    d = tmp_path / "n"
    d.mkdir()
    (d / "ok.yaml").write_text(STREAM.format(name="OK", subj="ok"))
    with open(os.path.join(os.fsencode(d), b"bad\xff\xfe.yaml"), "wb") as fh:
        fh.write(STREAM.format(name="BAD", subj="bad").encode())
    return d


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_lone_surrogate_escape_is_a_finding_in_every_format(surrogate: Path, fmt: str) -> None:
    """Item 10: on main the name reached the output and every format died (UnicodeEncodeError)."""
    proc = jsops("lint", str(surrogate), "--format", fmt)
    no_crash(proc)
    text = check_output(fmt, proc.stdout)
    assert proc.returncode == 1 and "JS001" in text and "surrogate" in text
    if fmt == "text":
        assert f"{surrogate / 'orders.json'}:2:15: error JS001" in text


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_file_name_that_is_not_utf8_is_a_finding_in_every_format(bad_name: Path, fmt: str) -> None:
    """Item 10: on main SARIF crashed and JSON/JUnit/GitHub output was not valid UTF-8."""
    proc = jsops("lint", str(bad_name), "--format", fmt)
    no_crash(proc)
    text = check_output(fmt, proc.stdout)
    assert proc.returncode == 1 and "JS001" in text
    assert "bad\\xff\\xfe.yaml" in text or "bad\\\\xff\\\\xfe.yaml" in text or "bad%5Cxff%5Cxfe.yaml" in text
    assert "BAD" not in text  # not read


@pytest.mark.parametrize("which", ["surrogate", "bad_name"])
def test_unencodable_names_in_report_plan_and_apply(which: str, request: pytest.FixtureRequest, tmp_path: Path) -> None:
    d: Path = request.getfixturevalue(which)
    out = tmp_path / "r.html"
    proc = jsops("report", str(d), "--html", str(out))
    no_crash(proc)
    assert proc.returncode == 0 and "JS001" in out.read_text(encoding="utf-8")
    for cmd in (["plan", str(d), "--server", DEAD_URL], ["apply", str(d), "--server", DEAD_URL, "--yes"]):
        proc = jsops(*cmd)
        err = no_crash(proc)
        assert proc.returncode == 1 and "JS001" in err, err
        assert (
            (":2:15: error JS001" in err) if which == "surrogate" else ("bad\\xff\\xfe.yaml:1:1: error JS001" in err)
        ), err


# --- item 11: links out of the repository ------------------------------------------------------------


def _repo_with_outside(tmp_path: Path) -> tuple[Path, Path]:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    outside = tmp_path / "outside"
    (outside / "envs").mkdir(parents=True)
    (outside / "envs" / "prod.yaml").write_text("secret: hunter2-from-outside\nname: LEAKED\n")
    (outside / "manifests").mkdir()
    (outside / "manifests" / "host.yaml").write_text(STREAM.format(name="HOSTSTREAM", subj="host"))
    return repo, outside


def test_an_environments_directory_linked_out_of_the_repository_is_not_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Item 11: on main its values were read and printed by ``lint --env`` and ``render --env``."""
    repo, outside = _repo_with_outside(tmp_path)
    (repo / "s.yaml.j2").write_text(STREAM.format(name="{{ name }}", subj="s") + "  description: '{{ secret }}'\n")
    os.symlink(outside / "envs", repo / "environments")
    for argv in (["lint", str(repo), "--env", "prod", "--format", "json"], ["render", str(repo), "--env", "prod"]):
        rc = main(argv)
        out, err = capsys.readouterr()
        assert "hunter2" not in out + err and "LEAKED" not in out + err
        assert rc == 1 and "JS014" in out + err and "environments" in out + err, out + err
    estate = load_paths([str(repo)], env="prod")
    assert estate.resources == [] and [f.rule for f in estate.findings] == ["JS014"]


def test_a_values_link_inside_the_repository_is_still_read(tmp_path: Path) -> None:
    repo, _ = _repo_with_outside(tmp_path)
    (repo / "shared").mkdir()
    (repo / "shared" / "prod.yaml").write_text("name: INSIDE\n")
    os.symlink("shared", repo / "environments")
    (repo / "s.yaml.j2").write_text(STREAM.format(name="{{ name }}", subj="s"))
    assert [r.name for r in load_paths([str(repo)], env="prod").resources] == ["INSIDE"]


def test_an_explicit_directory_link_out_of_the_repository_is_not_walked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Item 11: on main ``jsops lint repo/link`` walked the link's target outside the repository."""
    repo, outside = _repo_with_outside(tmp_path)
    (repo / "ok.yaml").write_text(STREAM.format(name="OK", subj="ok"))
    os.symlink(outside / "manifests", repo / "linked")
    for given in (repo / "linked", f"{repo / 'linked'}/"):
        estate = load_paths([str(given)])
        assert estate.resources == [] and [(f.rule, f.file) for f in estate.findings] == [
            ("JS014", str(repo / "linked"))
        ]
        rc = main(["lint", str(given), "--format", "text"])
        out = capsys.readouterr().out
        assert rc == 1 and "HOSTSTREAM" not in out and "directory outside" in out
    os.symlink("ok-dir", repo / "inside")
    (repo / "ok-dir").mkdir()
    (repo / "ok-dir" / "in.yaml").write_text(STREAM.format(name="IN", subj="in"))
    assert [r.name for r in load_paths([str(repo / "inside")]).resources] == ["IN"]  # a link inside is walked


def test_1500_nested_directories_in_render(deep: Path) -> None:
    proc = jsops("render", str(deep), "--env", "prod")
    err = no_crash(proc)
    assert proc.returncode == 1 and "JS002" in err and proc.stdout == b""


@pytest.mark.parametrize(
    "raw",
    [b"bad\xff\xfe.yaml", b"sur\xed\xa0\x80.yaml", b"tpl\xff.yaml.j2"],
    ids=["not-utf8", "surrogate-bytes", "template"],
)
def test_render_names_a_file_name_that_is_not_utf8_as_lint_does(tmp_path: Path, raw: bytes) -> None:
    """Issue 22 item 10 (render): a name that cannot be encoded is the finding lint gives
    (JS001, the name with ``\\xNN`` escapes, file not read), never a crash or a half-printed estate."""
    d = tmp_path / "r"
    (d / "environments").mkdir(parents=True)
    (d / "environments" / "prod.yaml").write_text("a: 1\n")
    (d / "ok.yaml").write_text(STREAM.format(name="OK", subj="ok"))
    with open(os.path.join(os.fsencode(d), raw), "wb") as fh:
        fh.write(STREAM.format(name="BAD", subj="bad").encode())
    proc = jsops("render", str(d), "--env", "prod")
    err = no_crash(proc)
    lint = jsops("lint", str(d), "--env", "prod", "--format", "text")
    shown = raw.decode("utf-8", "backslashreplace")
    assert proc.returncode == 1 and proc.stdout == b"", err
    assert f"{d / shown}:1:1: error JS001 the file name is not valid UTF-8" in err, err
    assert f"{d / shown}:1:1: error JS001 the file name is not valid UTF-8" in lint.stdout.decode("utf-8"), lint.stdout
    assert "BAD" not in err
