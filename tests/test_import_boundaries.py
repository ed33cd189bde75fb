"""House rules: `jsops lint` imports neither nats nor pyspark; linter never imports rules/reconciler/profiler."""

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_lint_path_imports_no_nats_or_pyspark(tmp_path):
    (tmp_path / "s.yaml").write_text("apiVersion: jsops/v1\nkind: Stream\nmetadata: {name: A}\nspec: {subjects: [a]}\n")
    code = (
        "import sys, json\n"
        "from jsops.linter.cli.app import main\n"
        f"rc = main(['lint', {str(tmp_path)!r}, '--format', 'json'])\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('nats', 'pyspark', 'reconciler', 'profiler'))\n"
        "print(json.dumps({'rc': rc, 'bad': bad}))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True).stdout
    result = json.loads(out.strip().splitlines()[-1])
    assert result == {"rc": 0, "bad": []}


VALID = """apiVersion: jsops/v1
kind: Stream
metadata: {name: ORDERS}
spec:
  subjects: ["orders.>"]
  max_age: 7d
  max_bytes: 1GiB
  duplicate_window: 2m
  placement: {tags: [ssd]}
  metadata: {owner: shop}
---
apiVersion: jsops/v1
kind: Consumer
metadata: {name: shipper, stream: ORDERS}
spec:
  ack_policy: explicit
  ack_wait: 30s
  backoff: [5s, 30s]
  max_deliver: 5
  filter_subject: orders.shipped
"""


def _lint_modules(tmp_path: Path, *args: str) -> dict[str, object]:
    code = (
        "import sys, json\n"
        "from jsops.linter.cli.app import main\n"
        f"rc = main(['lint', *{list(args)!r}])\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('pydantic', 'pydantic_core', 'nats', 'pyspark'))\n"
        "print(json.dumps({'rc': rc, 'bad': bad}))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "JSOPS_RECORDS_FAST"}
    env["JSOPS_CACHE_DIR"] = str(tmp_path / "cache")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, env=env, check=True
    ).stdout
    result: dict[str, object] = json.loads(out.strip().splitlines()[-1])
    return result


def test_lint_of_a_valid_file_imports_no_pydantic(tmp_path):
    """pydantic validates only what the records' fast validator cannot judge (jsops.linter.model.records.record):
    a valid file, linted with the default config and a config of plain keys, never imports it."""
    (tmp_path / "s.yaml").write_text(VALID)
    result = _lint_modules(tmp_path, "s.yaml", "--format", "json")
    assert result["bad"] == [], result
    (tmp_path / ".jsops.yaml").write_text(
        "ignore: [JS406]\nseverity: {JS103: info}\ntarget: {server_version: '2.11.0'}\nrules: {JS433: {max_bytes: 1GiB}}\n"
    )
    result = _lint_modules(tmp_path, "s.yaml", "--format", "json")
    assert result["bad"] == [], result


def test_lint_of_an_invalid_file_still_words_pydantic_errors(tmp_path):
    (tmp_path / "s.yaml").write_text(VALID.replace("max_age: 7d", "max_age: 7x"))
    result = _lint_modules(tmp_path, "s.yaml", "--format", "json")
    assert result["rc"] == 1 and "pydantic" in result["bad"], result


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name.removeprefix("jsops.").split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.removeprefix("jsops.").split(".")[0])
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
