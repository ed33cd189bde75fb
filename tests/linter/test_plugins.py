"""jsops.linter.plugins: the entry points remembered between runs are importlib.metadata's, and a
distribution installed, reinstalled or removed (or a cache that cannot be used) means a new scan."""

from __future__ import annotations

import json
import os
import shutil
import sys
from importlib.metadata import entry_points as metadata_entry_points
from pathlib import Path

import pytest

from jsops.linter import plugins
from jsops.linter.plugins import EntryPoint, entry_points

GROUPS = ("jsops.rules", "jsops.commands")


def _expected(group: str) -> list[EntryPoint]:
    return [EntryPoint(ep.name, ep.value, group) for ep in metadata_entry_points(group=group)]


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("JSOPS_NO_CACHE", raising=False)
    monkeypatch.setenv("JSOPS_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def _cache_file(cache: Path) -> Path:
    (path,) = cache.glob("entry-points-*.json")
    return path


def test_cold_and_warm_runs_find_what_importlib_metadata_finds(cache: Path) -> None:
    for group in GROUPS:
        assert entry_points(group) == _expected(group)  # cold: scanned, then written
    assert set(json.loads(_cache_file(cache).read_text())["groups"]) == set(GROUPS)
    for group in GROUPS:
        assert entry_points(group) == _expected(group)  # warm: read


def test_builtin_rules_load_through_the_cache(cache: Path) -> None:
    entry_points("jsops.rules")
    (builtin,) = [ep for ep in entry_points("jsops.rules") if ep.name == "builtin"]
    rules = builtin.load()()
    assert len(rules) > 100 and all(hasattr(r, "code") for r in rules)


def _distribution(site: Path, name: str, rules: str) -> None:
    info = site / f"{name}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[jsops.rules]\n{name} = {rules}\n")


def test_installing_reinstalling_and_removing_a_plugin_is_seen(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.setattr(sys, "path", [*sys.path, str(site)])
    assert "extra" not in {ep.name for ep in entry_points("jsops.rules")}  # cached without it
    _distribution(site, "extra", "extra_rules:get_rules")
    assert ("extra", "extra_rules:get_rules") in {(ep.name, ep.value) for ep in entry_points("jsops.rules")}
    # a reinstall writes the metadata anew (same name, new entry point)
    info = site / "extra-1.0.dist-info"
    shutil.rmtree(info)
    _distribution(site, "extra", "extra_rules:get_more_rules")
    os.utime(info, ns=(1, 1))  # a different time than the first install's, whatever the clock's resolution
    assert ("extra", "extra_rules:get_more_rules") in {(ep.name, ep.value) for ep in entry_points("jsops.rules")}
    shutil.rmtree(info)
    assert "extra" not in {ep.name for ep in entry_points("jsops.rules")}


@pytest.mark.parametrize(
    "content", ["", "not json", "[]", '{"key": 1}', '{"key": null, "groups": {"jsops.rules": [["a"]]}}']
)
def test_corrupt_or_stale_cache_is_scanned_again(cache: Path, content: str) -> None:
    entry_points("jsops.rules")
    _cache_file(cache).write_text(content)
    assert entry_points("jsops.rules") == _expected("jsops.rules")
    assert json.loads(_cache_file(cache).read_text())["key"] == plugins._key()


def test_malformed_entries_with_a_current_key_are_scanned_again(cache: Path) -> None:
    entry_points("jsops.rules")
    path = _cache_file(cache)
    data = json.loads(path.read_text())
    data["groups"]["jsops.rules"] = [["builtin", 42]]
    path.write_text(json.dumps(data))
    assert entry_points("jsops.rules") == _expected("jsops.rules")


def test_unwritable_or_disabled_cache_still_finds_entry_points(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("JSOPS_CACHE_DIR", str(blocker / "cache"))
    assert entry_points("jsops.rules") == _expected("jsops.rules")
    monkeypatch.setenv("JSOPS_NO_CACHE", "1")
    monkeypatch.setenv("JSOPS_CACHE_DIR", str(tmp_path / "unused"))
    assert entry_points("jsops.commands") == _expected("jsops.commands")
    assert not (tmp_path / "unused").exists()


def test_entry_point_load_follows_importlib_metadata_syntax() -> None:
    assert EntryPoint("x", "os.path:join", "g").load() is os.path.join
    assert EntryPoint("x", "os:path.join", "g").load() is os.path.join
    assert EntryPoint("x", "os.path", "g").load() is os.path
    assert EntryPoint("x", "os.path : join [extra1, extra2]", "g").load() is os.path.join
