"""Packaging: every folder is installed under the ``jsops`` namespace, and jsops keeps working beside the
PyPI projects whose names are our folders' names (``rules``, ``profiler``, ``reconciler``).

Before the namespace, ``pip install rules`` in jsops's environment broke every command ("module 'rules'
has no attribute 'get_rules'") and uninstalling either project deleted the other's files.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from natsserver import NatsServer

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
FOLDERS = ("linter", "rules", "reconciler", "profiler")
# wheels of the colliding PyPI projects, fetched by `make install` (COLLIDE_WHEELS in the Makefile)
WHEELS = Path(sys.prefix) / "share" / "collision-wheels"


def _pyproject() -> dict[str, object]:
    with (ROOT / "pyproject.toml").open("rb") as f:
        return tomllib.load(f)


def test_every_package_folder_is_installed_under_jsops() -> None:
    setuptools = _pyproject()["tool"]["setuptools"]  # type: ignore[index]
    folders = sorted(
        "jsops." + ".".join(d.relative_to(ROOT).parts)
        for top in FOLDERS
        for d in [ROOT / top, *(ROOT / top).rglob("*")]
        if d.is_dir() and (d / "__init__.py").exists() and "__pycache__" not in d.parts
    )
    assert sorted(setuptools["packages"]) == folders
    assert setuptools["package-dir"] == {f"jsops.{top}": top for top in FOLDERS}


def test_no_top_level_import_names_but_jsops() -> None:
    """Entry points and commands name modules under jsops only."""
    project = _pyproject()["project"]
    targets = [project["scripts"]["jsops"]]  # type: ignore[index]
    for group in project["entry-points"].values():  # type: ignore[index]
        targets.extend(group.values())
    assert targets and all(t.startswith("jsops.") for t in targets), targets


@pytest.fixture(scope="module")
def colliding(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The PyPI projects ``rules``, ``profiler`` and ``reconciler`` installed into a directory that is put
    first on the path: their top-level modules are what ``import rules`` (etc.) finds."""
    wheels = sorted(WHEELS.glob("*.whl")) if WHEELS.is_dir() else []
    names = {w.name.split("-")[0] for w in wheels}
    if not {"rules", "profiler", "reconciler"} <= names:
        pytest.skip(f"the colliding PyPI wheels were not fetched into {WHEELS} (make install fetches them)")
    target = tmp_path_factory.mktemp("site")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--no-index",
            "--target",
            str(target),
            *map(str, wheels),
        ],
        check=True,
        capture_output=True,
    )
    for name in ("rules", "profiler", "reconciler"):
        assert any((target / n).exists() for n in (name, f"{name}.py")), f"{name} not installed"
    return target


def _jsops(site: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "NATS_URL", "NATS_CONTEXT")}
    env["PYTHONPATH"] = str(site)
    env["JSOPS_NO_CACHE"] = "1"
    return subprocess.run([str(BIN / "jsops"), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def test_the_colliding_projects_are_what_plain_imports_find(colliding: Path, tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(colliding)}
    code = (
        "import importlib.util as u\n"
        "for name in ('rules', 'profiler', 'reconciler', 'jsops.rules', 'jsops.profiler', 'jsops.reconciler'):\n"
        "    print(u.find_spec(name).origin)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=tmp_path, capture_output=True, text=True, check=True
    ).stdout.split()
    assert all(o.startswith(str(colliding)) for o in out[:3]), out
    assert [Path(o).parent for o in out[3:]] == [ROOT / "rules", ROOT / "profiler", ROOT / "reconciler"], out


def test_lint_works_beside_the_colliding_projects(colliding: Path, tmp_path: Path) -> None:
    proc = _jsops(colliding, "lint", str(ROOT / "manifests"), "--format", "json", cwd=tmp_path)
    assert proc.returncode in (0, 1), proc.stderr
    assert '"findings"' in proc.stdout or proc.stdout.lstrip().startswith(("[", "{")), proc.stdout[:500]
    rules = _jsops(colliding, "rules", cwd=tmp_path)
    assert rules.returncode == 0 and "JS001" in rules.stdout, rules.stderr


@pytest.mark.integration
def test_plan_works_beside_the_colliding_projects(colliding: Path, tmp_path: Path) -> None:
    with NatsServer() as server:
        proc = _jsops(colliding, "plan", str(ROOT / "manifests"), "--server", server.url, cwd=tmp_path)
    assert proc.returncode in (0, 2) and "Traceback" not in proc.stderr, proc.stderr
    assert "ORDERS" in proc.stdout, proc.stdout[-2000:] + proc.stderr[-2000:]


def test_profile_works_beside_the_colliding_projects(colliding: Path, tmp_path: Path) -> None:
    pytest.importorskip("pyspark")
    telemetry = tmp_path / "telemetry"
    env = {**os.environ, "PYTHONPATH": str(colliding)}
    subprocess.run(
        [sys.executable, "-m", "jsops.profiler.synthetic", str(telemetry), "--acks", "200", "--publish-ids", "50"],
        env=env,
        check=True,
        capture_output=True,
    )
    out = tmp_path / "profiles.json"
    proc = _jsops(colliding, "profile", str(telemetry), "-o", str(out), "--master", "local[1]", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert out.stat().st_size > 0
