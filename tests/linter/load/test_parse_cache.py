"""The cache of parsed manifests: every output is byte-identical with and without it, cold or warm;
a damaged entry is parsed again; an edit is seen; other limits never reuse an entry."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from jsops.linter.cache import load_paths
from jsops.linter.cache.parse_cache import ParseCache, open_cache
from jsops.linter.cli.app import main
from jsops.linter.load import Limits
from jsops.linter.load.files import read_text

ROOT = Path(__file__).resolve().parents[3]
CORPUS = ["tests/fixtures", "manifests", "tests/golden"]

_TRICKY = {
    "anchors.yaml": "apiVersion: jsops/v1\nkind: Stream\nmetadata: {name: A}\nspec: &s\n  subjects: [a.>]\n  max_age: 1m\n"
    "---\napiVersion: jsops/v1\nkind: Stream\nmetadata: {name: B}\nspec:\n  <<: *s\n  subjects: [b.>]\n",
    "dupe.yaml": "apiVersion: jsops/v1\nkind: Stream\nmetadata: {name: D}\nspec: {subjects: [d], subjects: [e]}\n",
    "dupe.json": '{"name": "J", "subjects": ["j"], "subjects": ["k"], "max_age": 60000000000}\n',
    "syntax.yaml": "apiVersion: jsops/v1\nkind: Stream\nmetadata: {name: X\n",
    "trailing.yaml": "apiVersion: jsops/v1\nkind: Stream\nmetadata: {name: T}\nspec: {subjects: [t]}\n---\n",
    "empty.yaml": "",
    "null.yaml": "---\n---\napiVersion: jsops/v1\nkind: Stream\nmetadata: {name: N}\nspec: {subjects: [n]}\n",
    "deep.yaml": "a: " + "[" * 80 + "]" * 80 + "\n",
    "tag.yaml": "apiVersion: jsops/v1\nkind: Stream\nmetadata: {name: G}\nspec: {subjects: !!python/tuple [g]}\n",
    "nan.yaml": "apiVersion: jsops/v1\nkind: Stream\nmetadata: {name: F}\nspec: {subjects: [f], max_msgs: .nan, replicas: 0x3}\n",
}
_NOT_MANIFESTS = 3  # empty.yaml, deep.yaml, binary.yaml: parsed every time, never kept
_TRICKY_BYTES = {
    "binary.yaml": b"\x00\x01\x02apiVersion",
    "latin1.yaml": b"apiVersion: jsops/v1\nkind: Stream\nmetadata: {name: \xe9}\n",
    "utf16.yaml": "apiVersion: jsops/v1\nkind: Stream\nmetadata: {name: U}\nspec: {subjects: [u]}\n".encode("utf-16"),
    "bom.yaml": b"\xef\xbb\xbfapiVersion: jsops/v1\nkind: Stream\nmetadata: {name: M}\nspec: {subjects: [m]}\n",
}


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    directory = tmp_path / "cache"
    monkeypatch.setenv("JSOPS_CACHE_DIR", str(directory))
    monkeypatch.delenv("JSOPS_NO_CACHE", raising=False)
    return directory


def _tricky(root: Path) -> Path:
    root.mkdir()
    for name, text in _TRICKY.items():
        (root / name).write_text(text)
    for name, data in _TRICKY_BYTES.items():
        (root / name).write_bytes(data)
    return root


def _lint(paths: list[str], capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str]:
    rc = main(["lint", *paths, "--format", "json", *extra])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return rc, out


def _entries(cache: Path) -> list[Path]:
    return sorted(p for p in (cache / "parse").rglob("*") if p.is_file()) if (cache / "parse").exists() else []


def test_outputs_are_identical_without_cache_cold_and_warm(
    cache: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    tricky = str(_tricky(tmp_path / "tricky"))
    for paths in [[p] for p in CORPUS] + [[tricky]]:
        plain = _lint(paths, capsys, "--no-cache")
        cold = _lint(paths, capsys)
        warm = _lint(paths, capsys)
        assert cold == plain and warm == plain, paths
    assert len(_entries(cache)) == len(CORPUS) + 1  # one pack per tree
    pack = open_cache(None, tree=[tricky])
    assert pack is not None and len(pack.used) == 0
    assert len(pack._old) == len(_TRICKY) + len(_TRICKY_BYTES) - _NOT_MANIFESTS


def test_parallel_load_with_cache_is_identical(
    cache: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JSOPS_NO_PARALLEL", "0")
    for i in range(420):
        body = (
            f"apiVersion: jsops/v1\nkind: Stream\nmetadata: {{name: S{i}}}\nspec: {{subjects: [s{i}.>], max_age: 1m}}\n"
        )
        (tmp_path / f"s{i:04d}.yaml").write_text(body if i % 97 != 3 else "a: [1, 2\n")
    plain = _lint([str(tmp_path)], capsys, "--no-cache")
    assert _entries(cache) == []
    assert _lint([str(tmp_path)], capsys) == plain
    pack = open_cache(None, tree=[str(tmp_path)])
    assert pack is not None and len(pack._old) == 420 - 5  # the forked child's half too; "a: [1, 2" is no manifest
    assert _lint([str(tmp_path)], capsys) == plain


def _damage(entry: Path, how: str) -> None:
    data = entry.read_bytes()
    if how == "truncated":
        entry.write_bytes(data[: len(data) // 2])
    elif how == "empty":
        entry.write_bytes(b"")
    elif how == "garbage":
        entry.write_bytes(os.urandom(len(data)))
    elif how == "flipped":
        entry.write_bytes(data[:-3] + bytes([data[-3] ^ 0x55]) + data[-2:])
    elif how == "foreign":
        entry.write_bytes(b"jsops-parse-cache 0" + data[data.index(b"\n") :])  # another format's magic
    elif how == "directory":
        entry.unlink()
        entry.mkdir()
    elif how == "unreadable":
        entry.chmod(0)


@pytest.mark.parametrize("how", ["truncated", "empty", "garbage", "flipped", "foreign", "directory", "unreadable"])
def test_damaged_entries_are_parsed_again(
    how: str, cache: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tricky = str(_tricky(tmp_path / "tricky"))
    plain = _lint([tricky], capsys, "--no-cache")
    _lint([tricky], capsys)
    for entry in _entries(cache):
        _damage(entry, how)
    assert _lint([tricky], capsys) == plain
    assert _lint([tricky], capsys) == plain


def test_an_entry_is_read_by_content(cache: Path, tmp_path: Path) -> None:
    """A file is looked up by its bytes: an entry under another text's key is what comes back."""
    good = b"apiVersion: jsops/v1\nkind: Stream\nmetadata: {name: A}\nspec: {subjects: [a]}\n"
    bad = b"apiVersion: jsops/v1\nkind: [1, 2\n"
    (tmp_path / "m.yaml").write_bytes(good)
    pc = open_cache(None, tree=[str(tmp_path / "m.yaml")])
    assert pc is not None
    pc.put(pc.key(good, False), read_text(bad, "x.yaml", None))
    pc.save()
    estate = load_paths([str(tmp_path / "m.yaml")], cache=True)
    assert [f.rule for f in estate.findings] == ["JS001"]
    assert load_paths([str(tmp_path / "m.yaml")], cache=False).findings == []


def test_an_edit_is_seen_even_with_the_same_size_and_time(cache: Path, tmp_path: Path) -> None:
    f = tmp_path / "m.yaml"
    f.write_text("apiVersion: jsops/v1\nkind: Stream\nmetadata: {name: A}\nspec: {subjects: [a]}\n")
    st = f.stat()
    assert load_paths([str(f)], cache=True).findings == []
    f.write_text("apiVersion: jsops/v1\nkind: Stream\nmetadata: {name: A}\nspec: {subjects: [a}}\n")
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert f.stat().st_size == st.st_size
    assert [x.rule for x in load_paths([str(f)], cache=True).findings] == ["JS001"]


def test_other_limits_do_not_reuse_entries(cache: Path, tmp_path: Path) -> None:
    f = tmp_path / "deep.yaml"
    f.write_text("apiVersion: jsops/v1\nkind: Stream\nmetadata: {name: A}\nspec: {subjects: [[[[a]]]]}\n")
    assert "manifest-too-complex" not in {x.name for x in load_paths([str(f)], cache=True).findings}
    before = _entries(cache)
    tight = load_paths([str(f)], limits=Limits(max_depth=3), cache=True).findings
    assert "manifest-too-complex" in {x.name for x in tight}
    assert len(_entries(cache)) == len(before) + 1
    assert ParseCache("d", Limits()).key(b"x", False) != ParseCache("d", Limits(max_nodes=10)).key(b"x", False)
    assert ParseCache("d", Limits()).key(b"x", False) != ParseCache("d", Limits()).key(b"x", True)


def test_no_cache_flag_and_environment_turn_it_off(
    cache: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    tricky = str(_tricky(tmp_path / "tricky"))
    _lint([tricky], capsys, "--no-cache")
    assert _entries(cache) == []
    monkeypatch.setenv("JSOPS_NO_CACHE", "1")
    _lint([tricky], capsys)
    assert _entries(cache) == []
    assert open_cache(None) is None and open_cache(None, enabled=False) is None


def test_a_cache_that_cannot_be_written_is_no_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("JSOPS_CACHE_DIR", str(blocker))
    tricky = str(_tricky(tmp_path / "tricky"))
    assert _lint([tricky], capsys) == _lint([tricky], capsys, "--no-cache")


def test_a_pack_follows_its_tree(cache: Path, tmp_path: Path) -> None:
    tricky = _tricky(tmp_path / "tricky")
    load_paths([str(tricky)], cache=True)
    (tricky / "dupe.yaml").unlink()
    load_paths([str(tricky)], cache=True)
    pack = open_cache(None, tree=[str(tricky)])
    assert pack is not None and len(pack._old) == len(_TRICKY) + len(_TRICKY_BYTES) - _NOT_MANIFESTS - 1
    before = os.stat(pack.path).st_mtime_ns
    load_paths([str(tricky)], cache=True)  # nothing changed: not written again
    assert os.stat(pack.path).st_mtime_ns == before


def test_prune_removes_the_oldest_packs(tmp_path: Path) -> None:
    packs = []
    for i in range(20):
        data = f"apiVersion: jsops/v1\nkind: Stream\nmetadata: {{name: S{i}}}\nspec: {{subjects: [s{i}]}}\n".encode()
        pc = ParseCache(str(tmp_path / "parse"), Limits(), tree=[f"tree{i}"], max_bytes=4000)
        pc.put(pc.key(data, False), read_text(data, "x.yaml", None))
        pc.save()
        os.utime(pc.path, ns=(i * 10**9, i * 10**9))
        packs.append(pc.path)
    kept = [p for p in packs if os.path.exists(p)]
    assert kept and kept == packs[len(packs) - len(kept) :] and len(kept) < len(packs)
    assert sum(os.path.getsize(p) for p in kept) <= 4000
