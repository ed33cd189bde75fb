"""A release a company can adopt: the version is declared once in the tree (``linter/_version.py``) and
the build stamps the commit, so a wheel built from a clone, from its sdist or from an archive with
``JSOPS_BUILD_COMMIT`` says both; the wheel installs in a clean virtual environment and runs
``jsops lint`` and ``jsops --version``; LICENSE and CHANGELOG are there; ``make release`` makes the sdist,
the wheel and the packaged chart with their checksums (the image where a container tool runs).

The wheel is built offline from a clean clone of the current commit (``--no-build-isolation``:
the dev extra installs setuptools); the clean venv gets the wheel with
``--no-deps`` and reaches the dependencies through a ``.pth`` line naming the project venv's
site-packages (jsops itself is not importable from there: it is installed editable, through a
finder that such a line does not activate)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import sysconfig
import tarfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def sh(
    *args: str | Path, cwd: Path | None = None, env: dict[str, str] | None = None, check: bool = True
) -> subprocess.CompletedProcess[str]:
    # without PYTHONPATH: the worktree runner puts the source tree's jsops there, and the wheel's must run
    base = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run(
        [str(a) for a in args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=check,
        timeout=300,
        env={**base, **(env or {})},
    )


def _clone(tmp: Path, name: str, *extra: str) -> tuple[Path, str]:
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: the version cannot come from git")
    dest = tmp / name
    sh("git", "clone", "-q", *extra, f"file://{ROOT}", dest)
    # a commit of its own on top: whatever tags the repository has, HEAD is an untagged commit
    sh(
        "git",
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@example.com",
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        "untagged",
        cwd=dest,
    )
    return dest, sh("git", "rev-parse", "HEAD", cwd=dest).stdout.strip()


def _wheel(src: Path, out: Path) -> Path:
    sh(sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", out, ".", cwd=src)
    (wheel,) = out.glob("jsops-*.whl")
    return wheel


def _venv(tmp: Path, wheel: Path) -> Path:
    venv = tmp / "venv"
    sh(sys.executable, "-m", "venv", "--without-pip", venv)
    sh(sys.executable, "-m", "pip", "--python", venv / "bin" / "python", "install", "-q", "--no-deps", wheel)
    site = Path(
        sh(venv / "bin" / "python", "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])").stdout.strip()
    )
    (site / "zz-project-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return venv


def test_wheel_installs_in_a_clean_venv_and_runs(tmp_path: Path) -> None:
    src, commit = _clone(tmp_path, "src")
    wheel = _wheel(src, tmp_path / "dist")
    version = wheel.name.split("-")[1]
    assert version == _declared(), version  # the declared version, whatever the commit
    venv = _venv(tmp_path, wheel)
    work = tmp_path / "work"  # outside the repository: nothing imports from a source tree
    work.mkdir()
    jsops = venv / "bin" / "jsops"
    assert sh(jsops, "--version", cwd=work).stdout == f"jsops {version} (commit {commit[:12]})\n"
    where = sh(
        venv / "bin" / "python",
        "-c",
        "import jsops.linter, jsops.rules, jsops.reconciler; print(jsops.linter.__file__, jsops.reconciler.__file__)",
        cwd=work,
    )
    assert all(p.startswith(str(venv)) for p in where.stdout.split()), where.stdout
    (work / "m").mkdir()
    (work / "m" / "orders.yaml").write_text(
        "apiVersion: jsops/v1\nkind: Stream\nmetadata:\n  name: ORDERS\nspec:\n  subjects: [orders.>]\n  max_age: 1m\n  duplicate_window: 2m\n"
    )
    bad = sh(jsops, "lint", "m", "--no-config", cwd=work, check=False)
    assert bad.returncode == 1 and "JS102" in bad.stdout, bad.stdout + bad.stderr
    (work / "m" / "orders.yaml").write_text(
        "apiVersion: jsops/v1\nkind: Stream\nmetadata:\n  name: ORDERS\nspec:\n  subjects: [orders.>]\n"
    )
    good = sh(jsops, "lint", "m", "--no-config", "--format", "json", cwd=work, check=False)
    assert good.returncode == 0 and f'"version": "{version}"' in good.stdout, good.stdout + good.stderr
    assert sh(jsops, "controller", "--help", cwd=work).stdout.startswith("usage: jsops controller")
    # the license travels with the wheel
    assert (
        sh(
            venv / "bin" / "python", "-c", "import importlib.metadata as m; print(m.metadata('jsops')['License'])"
        ).stdout.strip()
        == "Apache-2.0"
    )


def _declared() -> str:
    sys.path.insert(0, str(ROOT / "tests"))
    from test_pins import declared_version

    return declared_version()


def _installed_version_line(tmp: Path, wheel: Path) -> str:
    venv = _venv(tmp, wheel)
    work = tmp / "work"
    work.mkdir(exist_ok=True)
    return sh(venv / "bin" / "jsops", "--version", cwd=work).stdout


def test_sdist_and_archive_builds_name_the_commit(tmp_path: Path) -> None:
    """A wheel built from the sdist (no git) keeps the commit the sdist was made from; a source archive
    (``git archive``: no git metadata) names the commit given as ``JSOPS_BUILD_COMMIT``, and none without."""
    src, commit = _clone(tmp_path, "src")
    sdist_dir = tmp_path / "sdist"
    hook = "import sys; sys.path.insert(0, '.ci'); import jsops_build as b; print(b.build_sdist(sys.argv[1]))"
    sh(sys.executable, "-c", hook, sdist_dir, cwd=src)
    (sdist,) = sdist_dir.glob("jsops-*.tar.gz")
    assert sdist.name == f"jsops-{_declared()}.tar.gz"
    unpacked = tmp_path / "unpacked"
    unpacked.mkdir()
    sh("tar", "-xzf", sdist, "-C", unpacked)
    (tree,) = unpacked.iterdir()
    assert not (tree / ".git").exists() and (tree / "linter" / "_build_commit.txt").read_text().strip() == commit
    wheel = _wheel(tree, tmp_path / "from-sdist")
    assert _installed_version_line(tmp_path / "a", wheel) == f"jsops {_declared()} (commit {commit[:12]})\n"

    archive = tmp_path / "archive"
    archive.mkdir()
    sh("git", "archive", "-o", tmp_path / "src.tar", "HEAD", cwd=src)
    sh("tar", "-xf", tmp_path / "src.tar", "-C", archive)
    plain = _wheel(archive, tmp_path / "plain")
    assert _installed_version_line(tmp_path / "b", plain) == f"jsops {_declared()}\n"
    given = "ab" * 20
    stamped = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            tmp_path / "given",
            ".",
        ],
        cwd=archive,
        env={**{k: v for k, v in os.environ.items() if k != "PYTHONPATH"}, "JSOPS_BUILD_COMMIT": given},
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    assert stamped.returncode == 0
    (wheel2,) = (tmp_path / "given").glob("jsops-*.whl")
    assert _installed_version_line(tmp_path / "c", wheel2) == f"jsops {_declared()} (commit {given[:12]})\n"


def test_make_release_builds_the_artefacts_and_their_checksums(tmp_path: Path) -> None:
    """``make release`` without the image: sdist, wheel and the chart in helm's layout, and SHA256SUMS
    that ``sha256sum -c`` accepts; run from a clean clone, as the release workflow does."""
    src, commit = _clone(tmp_path, "src")
    out = tmp_path / "out"
    proc = sh(
        "make",
        "-o",
        ".venv/.installed-stamp",
        "release",
        f"PY={sys.executable}",
        f"RELEASE_DIR={out}",
        "RELEASE_ARGS=--no-image",
        cwd=src,
    )
    version = _declared()
    names = {f"jsops-{version}.tar.gz", f"jsops-{version}-py3-none-any.whl", f"jsops-controller-{version}.tgz"}
    assert {p.name for p in out.iterdir()} == names | {"SHA256SUMS"}, proc.stdout + proc.stderr
    assert f"jsops {version} (commit {commit[:12]})" in proc.stdout and "image skipped" in proc.stderr
    sums = (out / "SHA256SUMS").read_text().splitlines()
    assert sorted(line.split("  ")[1] for line in sums) == sorted(names)
    assert sh("sha256sum", "-c", "SHA256SUMS", cwd=out).returncode == 0
    (out / f"jsops-{version}-py3-none-any.whl").write_bytes(b"tampered")
    assert sh("sha256sum", "-c", "--quiet", "SHA256SUMS", cwd=out, check=False).returncode == 1
    chart_dir = src / "docs" / "deploy" / "helm" / "jsops-controller"
    with tarfile.open(out / f"jsops-controller-{version}.tgz") as tar:
        members = tar.getmembers()
        assert all(m.isfile() and m.name.startswith("jsops-controller/") and m.uid == 0 for m in members)
        assert sorted(m.name.removeprefix("jsops-controller/") for m in members) == sorted(
            p.relative_to(chart_dir).as_posix() for p in chart_dir.rglob("*") if p.is_file()
        )
        chart = tar.extractfile("jsops-controller/Chart.yaml")
        assert chart is not None and f"version: {version}" in chart.read().decode()
    # a tag other than the declared version is refused before anything is built
    bad = sh(sys.executable, ".ci/release.py", "--out", tmp_path / "bad", "--tag", "v0.0.1", cwd=src, check=False)
    assert (
        bad.returncode == 1
        and f"is not the declared version v{version}" in bad.stderr
        and not (tmp_path / "bad").exists()
    )


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
