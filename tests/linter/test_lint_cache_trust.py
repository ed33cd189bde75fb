"""What the lint caches must never do (issue 33 items 3 and 4): show a file jsops did not read, serve
a finding the clock has changed, serve results of a build whose code changed at the same size and
time, or let a pack forged into a shared cache change what ``jsops lint`` reports."""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import sys
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType

import pytest

from jsops.linter.cache.incremental import lint_incremental
from jsops.linter.cli.app import main
from jsops.linter.config import Config
from jsops.linter.engine import lint_estate
from jsops.linter.load import load_paths
from jsops.linter.model.cache_dir import cache_key
from jsops.linter.report import FORMATS

SECRET = "hunter2-very-secret"
STREAM = "apiVersion: jsops/v1\nkind: Stream\nmetadata: {{name: {name}}}\nspec: {{subjects: [{subject}]}}\n"


def _lint(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    rc = main(["lint", *args])
    out, err = capsys.readouterr()
    assert "Traceback" not in err, err
    return rc, out + err


# -- item 3: nothing secret in the output ------------------------------------------------------


def _linked_tree(tmp_path: Path) -> Path:
    """A repository whose environments/prod.yaml and one manifest are links to files outside it
    whose first line is a password."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "prod.yaml").write_text(f"password: {SECRET}\nname: ORDERS\n")
    (outside / "stolen.yaml").write_text(f"password: {SECRET}\n" + STREAM.format(name="X", subject="x"))
    root = tmp_path / "repo"
    (root / "environments").mkdir(parents=True)
    (root / "manifests").mkdir()
    (root / "environments" / "prod.yaml").symlink_to(outside / "prod.yaml")
    (root / "manifests" / "stolen.yaml").symlink_to(outside / "stolen.yaml")
    (root / "manifests" / "orders.yaml.j2").write_text(STREAM.format(name="{{ name }}", subject="orders.>"))
    (root / "manifests" / "plain.yaml").write_text(STREAM.format(name="PLAIN", subject="plain.>"))
    return root


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_file_linked_from_outside_the_tree_is_never_shown(
    fmt: str, lint_cache: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _linked_tree(tmp_path)
    for extra in (["--no-cache"], [], []):  # uncached, then cold and warm caches
        rc, out = _lint(capsys, str(root), "--env", "prod", "--format", fmt, *extra)
        assert rc == 1
        assert "JS014" in out or "link-outside-tree" in out  # the links are reported...
        assert SECRET not in out  # ...and never excerpted
        assert "password" not in out


# -- item 4 (a): the clock ----------------------------------------------------------------------


def _at(monkeypatch: pytest.MonkeyPatch, year: int) -> None:
    monkeypatch.setattr("jsops.linter.model.clock.now", lambda: datetime(year, 6, 1, tzinfo=UTC))


def test_a_finding_the_clock_changed_is_not_served_from_the_cache(
    lint_cache: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "estate"
    root.mkdir()
    (root / "s.yaml").write_text(STREAM.format(name="ORDERS", subject="orders.>"))
    (root / "c.yaml").write_text(
        "apiVersion: jsops/v1\nkind: Consumer\nmetadata: {name: later, stream: ORDERS}\n"
        'spec: {deliver_policy: by_start_time, opt_start_time: "2040-01-01T00:00:00Z", ack_policy: explicit}\n'
    )
    seen = []
    for year in (2039, 2039, 2041, 2041, 2039):
        _at(monkeypatch, year)
        cold = _lint(capsys, str(root), "--format", "json", "--no-cache")
        for _ in range(2):  # the first run fills the cache, the second would be answered by it
            assert _lint(capsys, str(root), "--format", "json") == cold, f"at {year}"
        seen.append("JS410" in cold[1])
    assert seen == [True, True, False, False, True]  # the clock does move the finding


# -- item 4 (b): jsops's own code by content ----------------------------------------------------

PLUGIN = '''
from jsops.linter.api import Rule, Violation


class PluginNaming(Rule):
    """Test plugin: every stream is flagged with a fixed word."""

    code = "JS995"
    name = "test-plugin-naming"
    kinds = frozenset({{"Stream"}})

    def check(self, resource, ctx):
        yield Violation(resource, ("subjects",), "{word}")


RULE = PluginNaming
'''


def _plugin(site: Path, word: str, stamp: tuple[int, int] | None = None) -> ModuleType:
    """Write the plugin module (its size does not depend on ``word``'s letters), put its old times
    back when ``stamp`` is given, and import it as a new process would."""
    path = site / "cachetrust_plugin.py"
    path.write_text(PLUGIN.format(word=word))
    if stamp is not None:
        os.utime(path, ns=stamp)
    sys.modules.pop("cachetrust_plugin", None)
    importlib.invalidate_caches()
    return importlib.import_module("cachetrust_plugin")


def test_a_same_length_rule_change_with_its_time_put_back_is_a_new_build(
    lint_cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.delitem(sys.modules, "cachetrust_plugin", raising=False)
    root = tmp_path / "estate"
    root.mkdir()
    (root / "s.yaml").write_text(STREAM.format(name="ORDERS", subject="orders.>"))
    config = Config()

    def messages(rule: type) -> tuple[list[str], list[str]]:
        cached = lint_incremental([str(root)], [rule], config=config)
        assert cached is not None
        cold = lint_estate(load_paths([str(root)]), [rule], config=config)
        return [f.message for f in cached.findings], [f.message for f in cold.findings]

    old = _plugin(site, "AAAA").RULE
    assert messages(old) == (["AAAA"], ["AAAA"])
    assert messages(old) == (["AAAA"], ["AAAA"])  # warm: the estate entry answers
    st = (site / "cachetrust_plugin.py").stat()
    new = _plugin(site, "BBBB", (st.st_atime_ns, st.st_mtime_ns)).RULE
    after = (site / "cachetrust_plugin.py").stat()
    assert (after.st_size, after.st_mtime_ns) == (st.st_size, st.st_mtime_ns)  # path, size and time as before
    assert messages(new) == (["BBBB"], ["BBBB"])
    sys.modules.pop("cachetrust_plugin", None)


# -- item 4 (c): a forged pack --------------------------------------------------------------------


def _forge(pack: Path, change: object) -> None:
    """Rewrite a pack the way whoever can write the cache directory (not the user's key) can: decode
    its body, change it, and recompute the checksum jsops used to trust (unkeyed BLAKE2b)."""
    import marshal

    data = pack.read_bytes()
    head = data.index(b"\n") + 1
    value = marshal.loads(data[head + 16 :])
    forged = marshal.dumps(change(value))  # type: ignore[operator]
    pack.write_bytes(data[:head] + hashlib.blake2b(forged, digest_size=16).digest() + forged)


def _one_document_fewer(value: tuple) -> tuple:  # type: ignore[type-arg]
    """A parse pack whose entries each lose their second document, loaded entries dropped (F12)."""
    salt, entries, _loaded = value
    import marshal

    out = {}
    for k, blob in entries.items():
        docs, problems, trailing, looks = marshal.loads(blob)
        out[k] = marshal.dumps((docs[:1], problems, trailing, looks))
    return (salt, out, {})


def test_a_forged_pack_does_not_change_what_lint_reports(
    lint_cache: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "estate"
    root.mkdir()
    two = STREAM.format(name="ONE", subject="one.>") + "---\n" + STREAM.format(name="TWO", subject="two.>")
    (root / "two.yaml").write_text(two)
    truth = _lint(capsys, str(root), "--format", "json", "--no-cache")
    assert json.loads(truth[1])["summary"]["objects"] == 2
    assert _lint(capsys, str(root), "--format", "json") == truth  # the caches are filled
    assert cache_key() is not None
    (parse,) = (lint_cache / "parse").glob("*.pack")
    (results,) = (lint_cache / "results").glob("*.pack")
    _forge(parse, _one_document_fewer)
    _forge(results, lambda v: (None, {}))  # no results: the run has to load the forged parse
    assert _lint(capsys, str(root), "--format", "json") == truth
    assert _lint(capsys, str(root), "--format", "json") == truth


def test_rules_read_the_clock_only_through_the_context_and_declare_it() -> None:
    """The cache knows a finding depends on the time only through ``RuleContext.now`` and
    ``reads_clock``: no built-in rule reads the clock another way, and every one that reads it says so."""
    import re

    from jsops.linter.engine import discover_rules

    rules_dir = Path(__file__).resolve().parents[2] / "rules"
    other = re.compile(r"datetime\.(now|utcnow|today)\(|date\.today\(|time\.(time|time_ns|localtime|gmtime)\(")
    assert [str(p) for p in rules_dir.rglob("*.py") if other.search(p.read_text(encoding="utf-8"))] == []
    for rule in discover_rules():
        source = Path(sys.modules[rule.__module__].__file__ or "").read_text(encoding="utf-8")
        assert ("ctx.now()" in source) == rule.reads_clock, rule.code


# -- a warm hit is answered before the rules are imported (issue 34) ------------------------------


def test_a_warm_hit_imports_no_rule_and_a_change_still_misses(lint_cache: Path, tmp_path: Path) -> None:
    """The whole-estate entry answers an unchanged run without importing a rule module (nor the engine,
    nor the loader but its walk); the output is the cold run's byte for byte, and an edited file,
    config or target is a miss (the rules run)."""
    import subprocess

    root = tmp_path / "estate"
    root.mkdir()
    (root / "s.yaml").write_text(STREAM.format(name="ORDERS", subject="orders.>"))
    (root / "c.yaml").write_text(
        "apiVersion: jsops/v1\nkind: Consumer\nmetadata: {name: C, stream: ORDERS}\nspec: {ack_policy: none}\n"
    )
    config = tmp_path / "jsops.yaml"
    config.write_text("target: {}\n")
    code = (
        "import sys, json, contextlib, io\n"
        "from jsops.linter.cli.app import main\n"
        "out = io.StringIO()\n"
        "with contextlib.redirect_stdout(out):\n"
        f"    rc = main(['lint', {str(root)!r}, '--config', {str(config)!r}])\n"
        "rules = sorted(m for m in sys.modules if m.startswith('jsops.rules.') and not m.rsplit('.', 1)[1].startswith('_'))\n"
        "engine = 'jsops.linter.engine' in sys.modules or 'jsops.linter.load.files' in sys.modules\n"
        "print(json.dumps({'rc': rc, 'out': out.getvalue(), 'rules': len(rules), 'engine': engine}))\n"
    )

    def lint() -> dict[str, object]:
        run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, check=True)
        result: dict[str, object] = json.loads(run.stdout.strip().splitlines()[-1])
        return result

    cold = lint()
    assert cold["rules"] != 0 and cold["engine"] and cold["out"]
    warm = lint()
    assert warm == {**cold, "rules": 0, "engine": False}  # neither the rules, nor the engine, nor the loader
    (root / "c.yaml").write_text(
        "apiVersion: jsops/v1\nkind: Consumer\nmetadata: {name: C, stream: ORDERS}\nspec: {ack_policy: explicit}\n"
    )
    edited = lint()
    assert edited["rules"] != 0 and edited["out"] != cold["out"]
    assert lint()["rules"] == 0
    config.write_text('target: {server_version: "2.10.26"}\n')
    assert lint()["rules"] != 0
    assert lint()["rules"] == 0
