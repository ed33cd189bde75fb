"""A release a company can adopt: the version comes from git tags (untagged commits get a dev
version naming the commit; a shallow clone and an archive still build), the wheel installs in a
clean virtual environment and runs ``jsops lint`` and ``jsops --version``; LICENSE and CHANGELOG
are there.

The wheel is built offline from a clean clone of the current commit (``--no-build-isolation``:
the dev extra installs setuptools and setuptools-scm); the clean venv gets the wheel with
``--no-deps`` and reaches the dependencies through a ``.pth`` line naming the project venv's
site-packages (jsops itself is not importable from there: it is installed editable, through a
finder that such a line does not activate)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def sh(*args: str | Path, cwd: Path | None = None, env: dict[str, str] | None = None, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True, check=check, timeout=300, env={**os.environ, **(env or {})})


def _clone(tmp: Path, name: str, *extra: str) -> tuple[Path, str]:
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: the version cannot come from git")
    dest = tmp / name
    sh("git", "clone", "-q", *extra, f"file://{ROOT}", dest)
    # a commit of its own on top: whatever tags the repository has, HEAD is an untagged commit
    sh("git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "untagged", cwd=dest)
    return dest, sh("git", "rev-parse", "HEAD", cwd=dest).stdout.strip()


def _wheel(src: Path, out: Path) -> Path:
    sh(sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", out, ".", cwd=src)
    (wheel,) = out.glob("jsops-*.whl")
    return wheel


def _venv(tmp: Path, wheel: Path) -> Path:
    venv = tmp / "venv"
    sh(sys.executable, "-m", "venv", "--without-pip", venv)
    sh(sys.executable, "-m", "pip", "--python", venv / "bin" / "python", "install", "-q", "--no-deps", wheel)
    site = Path(sh(venv / "bin" / "python", "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])").stdout.strip())
    (site / "zz-project-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return venv


def test_wheel_installs_in_a_clean_venv_and_runs(tmp_path: Path) -> None:
    src, commit = _clone(tmp_path, "src")
    wheel = _wheel(src, tmp_path / "dist")
    version = wheel.name.split("-")[1]
    # untagged commit: a dev version naming the commit
    assert re.fullmatch(r"\d+\.\d+\.\d+\.dev\d+\+g[0-9a-f]{7,}", version), version
    assert commit.startswith(version.split("+g")[1])
    venv = _venv(tmp_path, wheel)
    work = tmp_path / "work"  # outside the repository: nothing imports from a source tree
    work.mkdir()
    jsops = venv / "bin" / "jsops"
    assert sh(jsops, "--version", cwd=work).stdout == f"jsops {version} (commit {commit[:12]})\n"
    where = sh(
        venv / "bin" / "python", "-c", "import jsops.linter, jsops.rules, jsops.reconciler; print(jsops.linter.__file__, jsops.reconciler.__file__)", cwd=work
    )
    assert all(p.startswith(str(venv)) for p in where.stdout.split()), where.stdout
    (work / "m").mkdir()
    (work / "m" / "orders.yaml").write_text(
        "apiVersion: jsops/v1\nkind: Stream\nmetadata:\n  name: ORDERS\nspec:\n  subjects: [orders.>]\n  max_age: 1m\n  duplicate_window: 2m\n"
    )
    bad = sh(jsops, "lint", "m", "--no-config", cwd=work, check=False)
    assert bad.returncode == 1 and "JS102" in bad.stdout, bad.stdout + bad.stderr
    (work / "m" / "orders.yaml").write_text("apiVersion: jsops/v1\nkind: Stream\nmetadata:\n  name: ORDERS\nspec:\n  subjects: [orders.>]\n")
    good = sh(jsops, "lint", "m", "--no-config", "--format", "json", cwd=work, check=False)
    assert good.returncode == 0 and f'"version": "{version}"' in good.stdout, good.stdout + good.stderr
    assert sh(jsops, "controller", "--help", cwd=work).stdout.startswith("usage: jsops controller")
    # the license travels with the wheel
    assert sh(venv / "bin" / "python", "-c", "import importlib.metadata as m; print(m.metadata('jsops')['License'])").stdout.strip() == "Apache-2.0"


def test_tagged_commit_is_its_tag(tmp_path: Path) -> None:
    src, commit = _clone(tmp_path, "src")
    sh("git", "-c", "user.name=t", "-c", "user.email=t@example.com", "tag", "-a", "v9.8.7", "-m", "test release", cwd=src)
    assert sh(sys.executable, "-m", "setuptools_scm", cwd=src).stdout.strip() == "9.8.7"
    sh("git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "after", cwd=src)
    after = sh("git", "rev-parse", "HEAD", cwd=src).stdout.strip()
    version = sh(sys.executable, "-m", "setuptools_scm", cwd=src).stdout.strip()
    assert version.startswith("9.8.8.dev1+g") and after.startswith(version.split("+g")[1]), version


def test_shallow_clone_and_archive_still_have_a_version(tmp_path: Path) -> None:
    """CI may clone one commit without tags; a source archive has no git metadata at all."""
    shallow, commit = _clone(tmp_path, "shallow", "--depth", "1", "--no-tags")
    version = sh(sys.executable, "-m", "setuptools_scm", cwd=shallow).stdout.strip()
    assert ".dev" in version and commit.startswith(version.split("+g")[1]), version
    archive = tmp_path / "archive"
    archive.mkdir()
    tar = sh("git", "archive", "-o", tmp_path / "src.tar", "HEAD", cwd=shallow)
    assert tar.returncode == 0
    sh("tar", "-xf", tmp_path / "src.tar", "-C", archive)
    assert sh(sys.executable, "-m", "setuptools_scm", cwd=archive).stdout.strip() == "0.0.0"


def test_license_and_changelog() -> None:
    license_text = (ROOT / "LICENSE").read_text()
    assert license_text.lstrip().startswith("Apache License") and "Version 2.0, January 2004" in license_text
    assert "END OF TERMS AND CONDITIONS" in license_text
    changelog = (ROOT / "CHANGELOG.md").read_text()
    assert "## Unreleased" in changelog and "### Upgrade notes" in changelog
    readme = (ROOT / "README.md").read_text()
    tags = re.findall(r"^\s*rev: (\S+)", readme, flags=re.M)
    assert tags and all(re.fullmatch(r"v\d+\.\d+\.\d+", t) for t in tags), tags
    assert all(f"## {t[1:]}" in changelog for t in tags)  # the pinned tag is a release the changelog describes
