"""Everything the docs tell a user to pin is the one declared version (``linter/_version.py``), which is
CHANGELOG.md's top release, and resolves in a fresh clone: the pre-commit ``rev:`` and any git tag or
GitHub Action ref the docs name are the tag ``v<version>``, which exists and holds that release; the
chart's ``version``/``appVersion``, image tags, wheel, sdist and chart archive names are ``<version>``.
A doc that drifts fails here (``test_a_drifted_pin_fails`` shows the scan catching one)."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHART = ROOT / "docs" / "deploy" / "helm" / "jsops-controller"
_V = r"v?\d+\.\d+\.\d+[\w.+\-]*"


def declared_version(root: Path = ROOT) -> str:
    tree = ast.parse((root / "linter" / "_version.py").read_text())
    (value,) = [
        n.value.value
        for n in tree.body
        if isinstance(n, ast.Assign)
        and [getattr(t, "id", None) for t in n.targets] == ["__version__"]
        and isinstance(n.value, ast.Constant)
    ]
    assert isinstance(value, str)
    return value


def top_release(changelog: str) -> str:
    return re.findall(r"^## (\d+\.\d+\.\d+)\s*$", changelog, re.M)[0]


@dataclass(frozen=True)
class Pin:
    where: str  # file:line
    kind: str
    value: str
    tag: bool  # a git ref (v<version>), else a bare version


# what a user copies and pins, by the shape it has in a doc
_PATTERNS: list[tuple[str, re.Pattern[str], bool]] = [
    ("image tag", re.compile(rf"\bjsops:({_V})"), False),
    ("wheel", re.compile(r"\bjsops-(\d+\.\d+\.\d+[\w.+]*)-py3-none-any\.whl"), False),
    ("sdist", re.compile(r"\bjsops-(\d+\.\d+\.\d+[\w.+]*)\.tar\.gz"), False),
    ("chart archive", re.compile(r"\bjsops-controller-(\d+\.\d+\.\d+[\w.+]*)\.tgz"), False),
    ("helm image.tag", re.compile(rf"\bimage\.tag=({_V})"), False),
    ("helm --version", re.compile(rf"\bhelm\b.*--version[ =]({_V})"), False),
    ("version line", re.compile(r"\bjsops (\d+\.\d+\.\d+[\w.+]*) \(commit"), False),
    (
        "git tag",
        re.compile(
            r"(?:git checkout|git clone\b.*--branch|the tag|releases/(?:tag|download)/)\s*(v\d+\.\d+\.\d+[\w.+\-]*)"
        ),
        True,
    ),
    ("action ref", re.compile(r"\bjsops(?:/[\w./\-]*)?@(v?\d[\w.\-]*)"), True),
]


def scan(name: str, text: str) -> list[Pin]:
    pins: list[Pin] = []
    lines = text.splitlines()
    for i, line in enumerate(lines, 1):
        for kind, pattern, tag in _PATTERNS:
            pins += [Pin(f"{name}:{i}", kind, m.group(1), tag) for m in pattern.finditer(line)]
        rev = re.match(r"\s*rev:\s*['\"]?([^'\"\s#]+)", line)
        # a pre-commit rev of a jsops repository (the nearest `repo:` line above names one)
        repo = next((r for r in reversed(lines[max(0, i - 6) : i - 1]) if re.match(r"\s*-?\s*repo:", r)), "")
        if rev and re.search(r"/jsops(\.git)?\s*(#.*)?$", repo):
            pins.append(Pin(f"{name}:{i}", "pre-commit rev", rev.group(1), True))
    return pins


def _chart_pins() -> list[Pin]:
    import yaml

    chart = yaml.safe_load((CHART / "Chart.yaml").read_text())
    pins = [
        Pin("Chart.yaml", "chart version", str(chart["version"]), False),
        Pin("Chart.yaml", "chart appVersion", str(chart["appVersion"]), False),
    ]
    tag = (yaml.safe_load((CHART / "values.yaml").read_text()).get("image") or {}).get("tag")
    return pins + ([Pin("values.yaml", "chart image.tag", str(tag), False)] if tag else [])


def doc_files(root: Path = ROOT) -> list[Path]:
    """README, the docs (markdown and the deploy files) and the repository's own workflows and action."""
    files = [
        root / "README.md",
        *sorted((root / "docs").rglob("*.md")),
        *sorted(p for p in (root / "docs" / "deploy").rglob("*") if p.is_file()),
    ]
    files += sorted((root / ".github").rglob("*.y*ml")) if (root / ".github").is_dir() else []
    files += [p for p in (root / "action.yml", root / "action.yaml") if p.exists()]
    return [f for f in files if f.suffix not in {".lock", ".tgz"}]


def all_pins(root: Path = ROOT) -> list[Pin]:
    pins = [
        p
        for f in doc_files(root)
        for p in scan(str(f.relative_to(root)), f.read_text(encoding="utf-8", errors="replace"))
    ]
    return pins + _chart_pins()


def drifted(pins: list[Pin], version: str) -> list[Pin]:
    return [p for p in pins if p.value != (f"v{version}" if p.tag else version)]


VERSION = declared_version()


def test_the_version_is_declared_once_and_is_the_changelogs_top_release() -> None:
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in project["project"] and project["project"]["dynamic"] == ["version"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "jsops.linter._version.__version__"}
    assert top_release((ROOT / "CHANGELOG.md").read_text()) == VERSION
    from jsops.linter import __version__

    assert __version__ == VERSION


def test_every_pin_is_the_declared_version() -> None:
    pins = all_pins()
    kinds = {p.kind for p in pins}
    # the pins the issue names are all found (a scan that found nothing would pass anything)
    assert {"pre-commit rev", "chart version", "chart appVersion", "image tag", "wheel"} <= kinds, kinds
    assert not drifted(pins, VERSION), "\n".join(
        f"{p.where}: {p.kind} {p.value!r}, the declared version is {VERSION}" for p in drifted(pins, VERSION)
    )


def test_a_drifted_pin_fails() -> None:
    readme = (ROOT / "README.md").read_text()
    assert not drifted(scan("README.md", readme), VERSION)
    old = scan("README.md", readme.replace(f"rev: v{VERSION}", "rev: v0.0.9"))
    assert [p.kind for p in drifted(old, VERSION)] == ["pre-commit rev"]
    bumped = f"{int(VERSION.split('.')[0]) + 1}.0.0"
    guide = "helm install x ./jsops-controller-{v}.tgz --set image.tag={v}\nuses: platform/jsops@v{v}\nrun: pip install jsops-{v}-py3-none-any.whl\n"
    assert {p.kind for p in drifted(scan("guide.txt", guide.format(v=bumped)), VERSION)} == {
        "chart archive",
        "helm image.tag",
        "action ref",
        "wheel",
    }
    assert not drifted(scan("guide.txt", guide.format(v=VERSION)), VERSION)


def _git(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *map(str, args)], cwd=cwd, capture_output=True, text=True, timeout=120, check=False)


def _fresh_clone(tmp: Path) -> Path:
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    dest = tmp / "clone"
    assert _git("clone", "-q", f"file://{ROOT}", dest, cwd=tmp).returncode == 0
    return dest


def test_the_pinned_tag_resolves_in_a_fresh_clone(tmp_path: Path) -> None:
    clone = _fresh_clone(tmp_path)
    if not _git("tag", "-l", cwd=clone).stdout.strip():
        pytest.skip("this repository carries no tags (a checkout made without them): v<version> cannot be looked up")
    tag = f"v{VERSION}"
    assert _git("rev-parse", "--verify", "-q", f"{tag}^{{commit}}", cwd=clone).returncode == 0, (
        f"tag {tag} is missing (docs/releasing.md)"
    )
    assert top_release(_git("show", f"{tag}:CHANGELOG.md", cwd=clone).stdout) == VERSION
    hooks = _git("show", f"{tag}:.pre-commit-hooks.yaml", cwd=clone).stdout
    wanted = set(re.findall(r"^\s*-\s*id:\s*(\S+)", (ROOT / "README.md").read_text(), re.M))
    assert wanted and all(re.search(rf"^- id: {re.escape(w)}$", hooks, re.M) for w in wanted), (wanted, hooks)


def test_a_fresh_clone_says_its_version_and_commit(tmp_path: Path) -> None:
    clone = _fresh_clone(tmp_path)
    head = _git("rev-parse", "HEAD", cwd=clone).stdout.strip()
    sys.path.insert(0, str(ROOT / "tests"))
    from nsview import make_view

    view = make_view(clone)
    code = "from jsops.linter.cli.app import main; main(['--version'])"
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PYTHONPATH": str(view), "PATH": "/usr/bin:/bin"},
    )
    assert out.stdout == f"jsops {VERSION} (commit {head[:12]})\n", out.stdout + out.stderr
    assert top_release((clone / "CHANGELOG.md").read_text()) == VERSION


def test_no_hint_installs_from_a_registry_jsops_is_not_on() -> None:
    """jsops is on no package index: no message says ``pip install jsops`` or ``'jsops[extra]'``; hints name a
    clone (``'.[extra]'``) or a release's wheel (``linter/_version.py``'s ``install_hint``)."""
    bad = re.compile(r"jsops\[|pip install (-U |--upgrade )?['\"]?jsops\b(?![-_/.\w])")
    found = [
        f"{path.relative_to(ROOT)}:{i}: {line.strip()}"
        for top in ("linter", "reconciler", "profiler", "rules")
        for path in sorted((ROOT / top).rglob("*.py"))
        for i, line in enumerate(path.read_text().splitlines(), 1)
        if bad.search(line)
    ]
    assert not found, "\n".join(found)
    assert (
        bad.search("pip install 'jsops[spark]'")
        and bad.search("pip install jsops")
        and not bad.search("pip install '.[spark]'")
    )
    from jsops.linter import install_hint

    assert (
        install_hint("connect")
        == f"pip install '.[connect]' in a jsops clone, or 'jsops-{VERSION}-py3-none-any.whl[connect]' from a release"
    )


def test_lint_does_not_look_up_the_commit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The commit is looked up (git, a subprocess) only for ``--version``: not on every command's parser."""
    from jsops.linter import _version
    from jsops.linter.cli.app import main

    (tmp_path / "s.yaml").write_text(
        "apiVersion: jsops/v1\nkind: Stream\nmetadata:\n  name: S\nspec:\n  subjects: [s.>]\n"
    )
    _version.commit.cache_clear()
    assert main(["lint", str(tmp_path), "--no-config", "--no-cache"]) == 0
    assert _version.commit.cache_info().misses == 0
    capsys.readouterr()
    try:
        main(["--version"])
    except SystemExit as exc:
        assert exc.code in (0, None)
    assert capsys.readouterr().out == _version.version_line() + "\n" and _version.commit.cache_info().misses == 1
