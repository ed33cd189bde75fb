"""pydantic is used through its public API only: no module of jsops (nor a bench script) imports a private
module of pydantic or pydantic_core (``pydantic._internal``, ``pydantic_core._pydantic_core``) or a private
name from them. A pydantic minor release may change those."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ("linter", "rules", "reconciler", "profiler", "bench")


def _private(module: str) -> bool:
    parts = module.split(".")
    return parts[0] in ("pydantic", "pydantic_core") and any(p.startswith("_") for p in parts[1:])


def private_imports(source: str) -> list[str]:
    """The private pydantic modules and names ``source`` imports (``import`` statements and ``importlib``
    calls with a literal name)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if _private(a.name)]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if _private(node.module):
                found.append(node.module)
            elif node.module.split(".")[0] in ("pydantic", "pydantic_core"):
                found += [f"{node.module}.{a.name}" for a in node.names if a.name.startswith("_")]
        elif (
            isinstance(node, ast.Call)
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            name = ast.unparse(node.func)
            if name.endswith("import_module") and _private(node.args[0].value):
                found.append(node.args[0].value)
    return found


def test_the_scan_catches_private_imports() -> None:
    src = (
        "import pydantic._internal._core_utils\n"
        "from pydantic._internal import _generate_schema\n"
        "from pydantic_core import _pydantic_core\n"
        "import importlib\nimportlib.import_module('pydantic._internal._config')\n"
        "from pydantic import BaseModel, Field\nfrom pydantic_core import PydanticUndefined\n"
    )
    assert private_imports(src) == [
        "pydantic._internal._core_utils",
        "pydantic._internal",
        "pydantic_core._pydantic_core",
        "pydantic._internal._config",
    ]


def test_no_module_imports_private_pydantic() -> None:
    hits = []
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            hits += [f"{path.relative_to(ROOT)}: {name}" for name in private_imports(path.read_text(encoding="utf-8"))]
    assert hits == []
