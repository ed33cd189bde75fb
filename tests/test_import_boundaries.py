"""House rules: `jsops lint` imports neither nats nor pyspark; linter never imports rules/reconciler/profiler."""

import ast
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_lint_path_imports_no_nats_or_pyspark(tmp_path):
    (tmp_path / "s.yaml").write_text("apiVersion: jsops/v1\nkind: Stream\nmetadata: {name: A}\nspec: {subjects: [a]}\n")
    code = (
        "import sys, json\n"
        "from linter.cli import main\n"
        f"rc = main(['lint', {str(tmp_path)!r}, '--format', 'json'])\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('nats', 'pyspark', 'reconciler', 'profiler'))\n"
        "print(json.dumps({'rc': rc, 'bad': bad}))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True).stdout
    result = json.loads(out.strip().splitlines()[-1])
    assert result == {"rc": 0, "bad": []}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_linter_never_imports_upward():
    offenders = {
        str(p.relative_to(ROOT)): sorted(_imports(p) & {"rules", "reconciler", "profiler", "nats", "pyspark"})
        for p in (ROOT / "linter").rglob("*.py")
    }
    assert {k: v for k, v in offenders.items() if v} == {}


def test_only_profiler_imports_pyspark_and_rules_import_no_nats():
    for pkg in ("linter", "rules", "reconciler"):
        for p in (ROOT / pkg).rglob("*.py"):
            assert "pyspark" not in _imports(p), p
    for p in (ROOT / "rules").rglob("*.py"):
        assert "nats" not in _imports(p), p
