"""Packaging: every folder is installed under the ``jsops`` namespace, and jsops keeps working beside the
PyPI projects whose names are our folders' names (``rules``, ``profiler``, ``reconciler``).

Before the namespace, ``pip install rules`` in jsops's environment broke every command ("module 'rules'
has no attribute 'get_rules'") and uninstalling either project deleted the other's files.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path
from typing import Any

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


# The wheel, built from a clean clone of the current commit and installed in a clean venv (tests/test_release.py).

# the import graph of jsops (grimp, as import-linter reads it, TYPE_CHECKING imports included) as JSON
GRAPH = """
import json, grimp
g = grimp.build_graph("jsops", include_external_packages=False, exclude_type_checking_imports=False, cache_dir=None)
edges = sorted([m, i] for m in g.modules for i in g.find_modules_directly_imported_by(m))
print(json.dumps({"modules": sorted(g.modules), "edges": edges}))
"""
# the installed distribution's modules: its RECORD's files, each found by importlib where RECORD puts it
INSTALLED = """
import importlib.metadata as md, importlib.util, json, pathlib
dist = md.distribution("jsops")
modules = {}
for f in dist.files or ():
    if f.parts[0] == "jsops" and f.suffix == ".py":
        parts = list(f.with_suffix("").parts)
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        modules[name] = str(pathlib.Path(dist.locate_file(f)).resolve())
found = {name: str(pathlib.Path(importlib.util.find_spec(name).origin).resolve()) for name in modules}
print(json.dumps({"record": modules, "found": found}))
"""


class Installed:
    def __init__(self, wheel: Path, venv: Path, work: Path) -> None:
        self.wheel, self.venv, self.work = wheel, venv, work
        self.python = venv / "bin" / "python"

    def run(self, *args: str | Path, check: bool = True) -> subprocess.CompletedProcess[str]:
        from test_release import sh

        return sh(*args, cwd=self.work, check=check)

    def json(self, code: str) -> dict[str, Any]:
        return json.loads(self.run(self.python, "-c", code).stdout)  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    from test_release import _clone, _venv, _wheel

    tmp = tmp_path_factory.mktemp("wheel")
    src, _ = _clone(tmp, "src")
    wheel = _wheel(src, tmp / "dist")
    work = tmp / "work"  # outside the repository: nothing imports from a source tree
    work.mkdir()
    return Installed(wheel, _venv(tmp, wheel), work)


def _build_backend() -> Any:
    sys.path.insert(0, str(ROOT / ".ci"))
    try:
        import jsops_build
    finally:
        sys.path.remove(str(ROOT / ".ci"))
    return jsops_build


def _folder_graph() -> dict[str, Any]:
    """The import graph of the folders, through the jsops view of links (tests/nsview.py)."""
    from nsview import make_view

    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(make_view(ROOT))
    out = subprocess.run(
        [sys.executable, "-c", GRAPH], env=env, cwd=ROOT / "build", capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout)  # type: ignore[no-any-return]


def test_the_wheel_holds_no_demo_or_synthetic_module(installed: Installed) -> None:
    """``make demo`` and the synthetic telemetry run from a checkout; the wheel leaves them out
    (.ci/jsops_build.py's NOT_IN_WHEEL) and holds every other module of the four folders."""
    backend = _build_backend()
    with zipfile.ZipFile(installed.wheel) as z:
        in_wheel = {n[: -len(".py")].replace("/", ".") for n in z.namelist() if n.endswith(".py")}
    folders = {
        "jsops." + ".".join(p.relative_to(ROOT).with_suffix("").parts)
        for top in FOLDERS
        for p in (ROOT / top).rglob("*.py")
        if "__pycache__" not in p.parts
    }
    left_out = folders - in_wheel
    assert {"jsops.reconciler.demo", "jsops.reconciler._traffic", "jsops.profiler.synthetic"} <= left_out
    assert all(not backend.in_wheel(m) for m in left_out), sorted(m for m in left_out if backend.in_wheel(m))
    assert in_wheel == {m for m in folders if backend.in_wheel(m)}, sorted(in_wheel ^ folders)


def test_the_installed_cli_works_without_them(installed: Installed) -> None:
    """Every command of the installed jsops starts, lint lints, and every module of the wheel imports (none
    needs a module the wheel leaves out); the demo and the generator are not there."""
    jsops = installed.venv / "bin" / "jsops"
    assert installed.run(jsops, "--help").returncode == 0
    commands = _pyproject()["project"]["entry-points"]["jsops.commands"]  # type: ignore[index]
    for name in ["lint", *commands]:
        proc = installed.run(jsops, name, "--help", check=False)
        assert proc.returncode == 0 and proc.stdout.startswith(f"usage: jsops {name}"), (name, proc.stderr[-2000:])
    (installed.work / "m").mkdir(exist_ok=True)
    (installed.work / "m" / "orders.yaml").write_text(
        "apiVersion: jsops/v1\nkind: Stream\nmetadata:\n  name: ORDERS\nspec:\n  subjects: [orders.>]\n"
    )
    lint = installed.run(jsops, "lint", "m", "--no-config", check=False)
    assert lint.returncode == 0, lint.stdout + lint.stderr
    modules = sorted(n for n in installed.json(INSTALLED)["record"] if not n.endswith(".__main__"))
    code = f"import importlib\nfor m in {modules!r}:\n    importlib.import_module(m)\n"
    imported = installed.run(installed.python, "-c", code, check=False)
    assert imported.returncode == 0, imported.stderr[-3000:]
    for module in ("jsops.reconciler.demo", "jsops.profiler.synthetic"):
        gone = installed.run(installed.python, "-m", module, "--help", check=False)
        assert gone.returncode != 0 and f"No module named {module}" in gone.stderr, gone.stderr[-2000:]


def _cycles(edges: list[list[str]]) -> set[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, without recursion)."""
    graph: dict[str, list[str]] = {}
    for a, b in edges:
        graph.setdefault(a, []).append(b)
        graph.setdefault(b, [])
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: set[frozenset[str]] = set()
    for root in graph:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                index[node] = low[node] = len(index)
                stack.append(node)
                on_stack.add(node)
            if i < len(graph[node]):
                work.append((node, i + 1))
                nxt = graph[node][i]
                if nxt not in index:
                    work.append((nxt, 0))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            if low[node] == index[node]:
                component = set()
                while True:
                    m = stack.pop()
                    on_stack.discard(m)
                    component.add(m)
                    if m == node:
                        break
                if len(component) > 1:
                    found.add(frozenset(component))
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return found


def test_the_import_graph_of_the_installed_package_is_the_folders(installed: Installed) -> None:
    """The jsops.* mapping (pyproject's package-dir) seen by tools: the graph grimp draws of the installed wheel
    (modules found by importlib where the distribution's RECORD puts them) is the graph of the folders through
    the jsops view, less the modules the wheel leaves out; no module of the wheel imports one of those, and none
    is there only for them."""
    backend = _build_backend()
    files = installed.json(INSTALLED)
    assert files["found"] == files["record"]  # importlib finds every module in the installed distribution
    assert all(p.startswith(str(installed.venv)) for p in files["found"].values())
    wheel = installed.json(GRAPH)
    folder = _folder_graph()
    shipped = {m for m in folder["modules"] if backend.in_wheel(m)}
    assert set(wheel["modules"]) == shipped, sorted(set(wheel["modules"]) ^ shipped)
    assert set(files["record"]) | {"jsops"} == shipped, sorted((set(files["record"]) | {"jsops"}) ^ shipped)
    into_left_out = [(a, b) for a, b in folder["edges"] if a in shipped and b not in shipped]
    assert not into_left_out, into_left_out
    importers: dict[str, set[str]] = {}
    for a, b in folder["edges"]:
        importers.setdefault(b, set()).add(a)
    only_theirs = sorted(m for m in shipped if importers.get(m) and not importers[m] & shipped)
    assert not only_theirs, f"imported only by modules the wheel leaves out (NOT_IN_WHEEL them too): {only_theirs}"
    folder_edges = {(a, b) for a, b in folder["edges"] if a in shipped}
    wheel_edges = {(a, b) for a, b in wheel["edges"]}
    assert wheel_edges == folder_edges, sorted(wheel_edges ^ folder_edges)
    assert len(wheel_edges) > 500  # the graph is the real one (1,200 edges in December 2026)


def test_no_import_cycles() -> None:
    """No module imports itself through others (issue 34): the graph of the folders (the wheel's is the same,
    less what it leaves out), TYPE_CHECKING and function-level imports included, has no cycle. The acyclic
    contract of pyproject.toml checks siblings with TYPE_CHECKING imports left out; this checks every module.
    A part that calls back into the module running it knows it by a Protocol; a type two modules share lives
    below both."""
    cycles = _cycles(_folder_graph()["edges"])
    assert not cycles, sorted(sorted(c) for c in cycles)
