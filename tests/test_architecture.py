"""The architecture, enforced (docs/architecture.md): import contracts, types, style and size.

Each check runs the real tool on the real tree, so a new import across a layer, an untyped
function, a lint error or a module grown past its budget fails the suite with the tool's own words.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest
from nsview import make_view

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
PACKAGES = ("linter", "rules", "reconciler", "profiler")
MAX_MODULE_LINES = 600
MAX_FUNCTION_LINES = 80
# A longer function says why in its docstring with this marker (e.g. "Long on purpose: ...").
LONG_MARK = "Long on purpose"


def _tool(name: str, *args: str) -> subprocess.CompletedProcess[str]:
    exe = BIN / name
    if not exe.exists():
        pytest.fail(f"{name} is not installed in {BIN} (it is a dev dependency: make install)")
    view = str(make_view(ROOT))  # the jsops namespace on disk (mypy and grimp do not follow editable installs)
    env = {**os.environ, "PYTHONPATH": view, "MYPYPATH": view}
    return subprocess.run([str(exe), *args], cwd=ROOT, capture_output=True, text=True, env=env, timeout=900)


def test_import_contracts_hold() -> None:
    proc = _tool("lint-imports", "--no-cache")
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]
    assert "0 broken" in proc.stdout


def test_mypy_strict_is_clean() -> None:
    proc = _tool("mypy", "--cache-dir", str(ROOT / ".mypy_cache"))
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]


def test_ruff_is_clean() -> None:
    proc = _tool("ruff", "check", "--no-cache", ".")
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]


def test_ruff_format_is_applied() -> None:
    proc = _tool("ruff", "format", "--check", "--no-cache", ".")
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]


def _sources() -> list[Path]:
    return sorted(p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py"))


def test_no_module_over_budget() -> None:
    big = {
        str(p.relative_to(ROOT)): n
        for p in _sources()
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    }
    assert big == {}, f"modules over {MAX_MODULE_LINES} lines: split them by concern"


def test_no_function_over_budget_without_a_reason() -> None:
    long: dict[str, int] = {}
    for p in _sources():
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                size = (node.end_lineno or node.lineno) - node.lineno + 1
                if size > MAX_FUNCTION_LINES and LONG_MARK not in (ast.get_docstring(node) or ""):
                    long[f"{p.relative_to(ROOT)}:{node.lineno} {node.name}"] = size
    assert long == {}, f"functions over {MAX_FUNCTION_LINES} lines without '{LONG_MARK}' in their docstring"


def test_every_type_ignore_names_its_code_and_reason() -> None:
    bare = []
    for p in _sources():
        for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
            if "type: ignore" not in line:
                continue
            after = line.split("type: ignore", 1)[1]
            if not after.startswith("[") or "#" not in after.split("]", 1)[1]:
                bare.append(f"{p.relative_to(ROOT)}:{i}: {line.strip()}")
    assert bare == [], "each `# type: ignore[code]` needs a `# reason` after it"


# Ratchets (issue 34): bare `Any` at the seams and complex functions may only become fewer. The goal
# is ANN401 (bare `Any` parameters and returns) <= 150 and C901 (complexity over 10) <= 40 in the
# package code; these are the counts reached so far. When a change lowers a count, lower its
# constant with it; a change that raises one finds the concept instead (a frozen value, a typed
# record, a Protocol, one function per fact). Counted without noqa and at ruff's default complexity
# bound, so neither a noqa nor a raised limit hides one.
MAX_BARE_ANY = 118
MAX_COMPLEX_FUNCTIONS = 30
# Lines over the 120 columns that `ruff format` leaves: string literals (messages, help) and docstrings it does
# not wrap. Code is formatted at 120; these are rewrapped by hand as their modules are touched.
MAX_LONG_LINES = 314


def _ruff_findings(rule: str) -> list[str]:
    proc = _tool(
        "ruff",
        "check",
        "--no-cache",
        "--ignore-noqa",
        "--config",
        "lint.mccabe.max-complexity = 10",
        "--select",
        rule,
        "--output-format",
        "concise",
        *PACKAGES,
    )
    assert proc.returncode in (0, 1), proc.stdout[-6000:] + proc.stderr[-2000:]
    return [line for line in proc.stdout.splitlines() if f" {rule} " in line]


def test_bare_any_does_not_grow() -> None:
    found = _ruff_findings("ANN401")
    assert len(found) <= MAX_BARE_ANY, (
        f"{len(found)} bare `Any` parameters/returns (budget {MAX_BARE_ANY}): type the seam\n" + "\n".join(found)
    )


def test_complex_functions_do_not_grow() -> None:
    found = _ruff_findings("C901")
    assert len(found) <= MAX_COMPLEX_FUNCTIONS, (
        f"{len(found)} functions over complexity 10 (budget {MAX_COMPLEX_FUNCTIONS}): split them by concept\n"
        + "\n".join(found)
    )


def test_long_lines_do_not_grow() -> None:
    found = _ruff_findings("E501")
    assert len(found) <= MAX_LONG_LINES, (
        f"{len(found)} lines over 120 columns (budget {MAX_LONG_LINES}): wrap the string or the docstring\n"
        + "\n".join(found)
    )


def test_no_function_graded_e_or_f() -> None:
    """Issue 34: no function (nor class) of the package code graded E or F by radon's cyclomatic complexity
    (over 30): such a function decides many things at once; split it into functions that each decide one
    (a table where the logic is a table)."""
    proc = _tool("radon", "cc", "-n", "E", "-s", *PACKAGES)
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]
    assert proc.stdout.strip() == "", "graded E or F by radon (cc -n E): split them by concept\n" + proc.stdout
