"""Files past the size bound are not read past it (lint, render, the controller's hashing), and
the controller hashes only the files whose stat changed.

File reads are observed with a real audit hook (``sys.addaudithook``: every ``open`` the process
makes) and memory with tracemalloc; nothing is mocked.
"""

from __future__ import annotations

import os
import sys
import tracemalloc
from pathlib import Path

import pytest

from jsops.linter.cli.app import main
from jsops.linter.cli.render import render_estate
from jsops.linter.load import Limits, load_paths
from jsops.reconciler.controller import source

GiB = 1024**3
MiB = 1024**2
STREAM = "apiVersion: jsops/v1\nkind: Stream\nmetadata:\n  name: {name}\nspec:\n  subjects: [{name}.>]\n"

_OPENED: list[str] | None = None


def _hook(event: str, args: tuple[object, ...]) -> None:
    if event == "open" and _OPENED is not None and isinstance(args[0], str):
        _OPENED.append(args[0])


sys.addaudithook(_hook)


class _Opens:
    """The paths opened inside the ``with`` block."""

    def __enter__(self) -> list[str]:
        global _OPENED
        _OPENED = []
        return _OPENED

    def __exit__(self, *exc: object) -> None:
        global _OPENED
        _OPENED = None


def _huge(tmp_path: Path) -> Path:
    """A 1 GiB file (sparse: it costs no disk) whose first bytes are a valid manifest."""
    path = tmp_path / "huge.yaml"
    with open(path, "wb") as fh:
        fh.write(STREAM.format(name="HUGE").encode())
        fh.truncate(GiB)
    return path


def _peak(fn: object) -> int:
    tracemalloc.start()
    try:
        fn()  # type: ignore[operator]
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_lint_stops_at_the_bound(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _huge(tmp_path)
    bound = Limits().max_file_bytes
    for fmt in ("text", "json"):
        peak = _peak(lambda: main(["lint", str(tmp_path), "--format", fmt]))  # noqa: B023 (called at once)
        out = capsys.readouterr().out
        assert "JS002" in out and "larger than" in out
        # One read of bound + 1 bytes at most (the loader, not the reporters or the suppression scan).
        assert peak < bound + 16 * MiB, (fmt, peak)


def test_load_paths_reads_at_most_bound_plus_one(tmp_path: Path) -> None:
    path = tmp_path / "big.yaml"
    path.write_bytes(STREAM.format(name="BIG").encode() + b"#" * (4 * MiB))
    peak = _peak(lambda: load_paths([str(path)], limits=Limits(max_file_bytes=MiB)))
    assert peak < 3 * MiB


def test_render_stops_at_the_bound(tmp_path: Path) -> None:
    _huge(tmp_path)
    (tmp_path / "environments").mkdir()
    (tmp_path / "environments" / "dev.yaml").write_text("x: 1\n")
    result: list[object] = []
    peak = _peak(lambda: result.append(render_estate([str(tmp_path)], "dev")))
    text, findings = result[0]  # type: ignore[misc]
    assert [f.rule for f in findings] == ["JS002"] and text == ""
    assert peak < Limits().max_file_bytes + 16 * MiB


def test_controller_hash_reads_at_most_bound_plus_one(tmp_path: Path) -> None:
    path = _huge(tmp_path)
    source._DIGESTS.clear()
    peak = _peak(lambda: source._content_id([str(path)], None))
    assert peak < 8 * MiB  # hashed in chunks, not read whole
    # Bytes past the bound change nothing the loader reads, and so not the revision either.
    first = source._content_id([str(path)], None)
    with open(path, "r+b") as fh:
        fh.seek(GiB - 10)
        fh.write(b"tail")
    source._DIGESTS.clear()
    assert source._content_id([str(path)], None) == first


def test_controller_hashes_only_changed_files(tmp_path: Path) -> None:
    files = []
    for name in ("a", "b", "c"):
        p = tmp_path / f"{name}.yaml"
        p.write_text(STREAM.format(name=name.upper()))
        files.append(str(p))
    source._DIGESTS.clear()
    with _Opens() as opened:
        first = source._content_id(files, None)
    assert sorted(opened) == sorted(files)
    with _Opens() as opened:
        assert source._content_id(files, None) == first
    assert opened == []  # nothing changed: nothing read
    Path(files[1]).write_text(STREAM.format(name="B2"))
    with _Opens() as opened:
        second = source._content_id(files, None)
    assert opened == [files[1]] and second != first
    # Same content as before: the same id (the id is of the content, not of the stat).
    Path(files[1]).write_text(STREAM.format(name="B"))
    with _Opens() as opened:
        assert source._content_id(files, None) == first
    assert opened == [files[1]]


def test_controller_revision_id_matches_a_plain_content_hash(tmp_path: Path) -> None:
    """The cache changes no id: ids are those of the plain sha256 of each file (event-log goldens)."""
    import hashlib

    p = tmp_path / "a.yaml"
    p.write_text(STREAM.format(name="A"))
    h = hashlib.sha256()
    h.update(str(p).encode() + b"\0")
    h.update(hashlib.sha256(p.read_bytes()).digest())
    assert source._content_id([str(p)], None) == "sha256:" + h.hexdigest()[:16]
    assert source._content_id([str(tmp_path / "missing.yaml")], "abcdef1234567890").startswith(
        "git:abcdef123456/sha256:"
    )
    assert os.path.exists(p)


@pytest.mark.parametrize("fmt", ["text", "json", "sarif"])
def test_lint_of_a_1_gib_file_in_a_subprocess_has_bounded_rss(tmp_path: Path, fmt: str) -> None:
    """The reported case through the real command line: a 1 GiB file used 10.5 GB of RSS."""
    import subprocess

    _huge(tmp_path)
    root = Path(__file__).resolve().parents[3]
    env = dict(os.environ, PYTHONPATH=str(root), HWM_FILE=str(tmp_path / "hwm"))
    # The peak is the lint process's own high-water mark (VmHWM of its address space), read as it
    # exits: wait4's ru_maxrss also counts the pytest process's memory at the fork (Linux keeps it
    # across exec), which grows with the suite and says nothing of the lint.
    hwm = tmp_path / "hwm"
    code = (
        "import os, runpy, sys\n"
        "sys.argv = ['jsops', *sys.argv[1:]]\n"
        "try:\n"
        "    runpy.run_module('jsops.linter.cli.app', run_name='__main__')\n"
        "finally:\n"
        "    with open('/proc/self/status') as st, open(os.environ['HWM_FILE'], 'w') as out:\n"
        "        out.write(next(line for line in st if line.startswith('VmHWM:')).split()[1])\n"
    )
    with open(tmp_path / "out", "wb") as out:
        proc = subprocess.run(
            [sys.executable, "-c", code, "lint", str(tmp_path), "--format", fmt],
            stdout=out,
            stderr=subprocess.DEVNULL,
            env=env,
            cwd=root,
        )
    assert proc.returncode == 1
    assert "JS002" in (tmp_path / "out").read_text()
    peak_rss = int(hwm.read_text()) * 1024  # KiB
    assert peak_rss < Limits().max_file_bytes + 300 * MiB, f"peak RSS {peak_rss / MiB:.0f} MiB"
