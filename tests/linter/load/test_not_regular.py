"""A pipe given as a PATH is read without waiting for a writer that never comes; a socket is refused.

On main an explicit FIFO with no writer blocked ``jsops lint`` forever (opening a FIFO for reading
waits for a writer), with the cache or without. Now a pipe or a device given as a PATH is read to
its end or the file bound, as a file is (``jsops lint <(helm template ...)`` works, a FIFO nobody
writes reads as empty at once); a socket stops ``lint``/``render`` (exit 2) and ``plan`` (exit 1)
with one line ``path: not a regular file``. A directory walk passes over every file that is not a
regular one (it lints the regular files a repository holds).

The CLI runs as a subprocess with a timeout: a blocked open is a failure, not a hung suite.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from jsops.linter.load.reading import NotRegularFile, read_regular

STREAM = "apiVersion: jsops/v1\nkind: Stream\nmetadata:\n  name: {name}\nspec:\n  subjects: [{name}.>]\n  max_age: 1h\n"
DEAD_URL = "nats://127.0.0.1:9"  # nothing listens: plan stops at loading, before connecting
TIMEOUT = 120  # generous on a loaded machine; a blocked open never ends

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")


def jsops(*args: str, cwd: Path, cache: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "LC_ALL": "C.UTF-8"}
    env.pop("JSOPS_NO_CACHE", None)
    if cache is not None:
        env["JSOPS_CACHE_DIR"] = str(cache)
    return subprocess.run(
        [sys.executable, "-m", "jsops.linter.cli.app", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        stdin=subprocess.DEVNULL,
    )


@pytest.fixture
def fifo_tree(tmp_path: Path) -> Path:
    """``tree/`` with one manifest and a FIFO named like one, ``tree/fifo.yaml``."""
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "ok.yaml").write_text(STREAM.format(name="OK"))
    os.mkfifo(tree / "fifo.yaml")
    return tree


@pytest.mark.parametrize("no_cache", [False, True], ids=["cache", "no-cache"])
def test_an_explicit_fifo_without_a_writer_reads_as_empty_at_once(
    fifo_tree: Path, tmp_path: Path, no_cache: bool
) -> None:
    args = ["lint", "fifo.yaml", *(["--no-cache"] if no_cache else [])]
    proc = jsops(*args, cwd=fifo_tree, cache=tmp_path / "cache")
    empty = jsops("lint", "empty.yaml", cwd=_with_empty(fifo_tree), cache=tmp_path / "cache2")
    assert proc.returncode == empty.returncode, proc.stderr
    assert proc.stdout.replace("fifo.yaml", "empty.yaml") == empty.stdout
    assert "Traceback" not in proc.stderr


def _with_empty(tree: Path) -> Path:
    (tree / "empty.yaml").write_bytes(b"")
    return tree


@pytest.mark.parametrize("no_cache", [False, True], ids=["cache", "no-cache"])
def test_a_pipe_with_a_writer_is_read_to_its_end(fifo_tree: Path, tmp_path: Path, no_cache: bool) -> None:
    """What ``jsops lint <(cat manifest.yaml)`` does: the path is a pipe a process writes."""
    script = f"{sys.executable} -m jsops.linter.cli.app lint {'--no-cache ' if no_cache else ''}<(cat ok.yaml)"
    env = {**os.environ, "LC_ALL": "C.UTF-8", "JSOPS_CACHE_DIR": str(tmp_path / "cache")}
    proc = subprocess.run(
        ["bash", "-c", script],
        cwd=fifo_tree,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 0 and proc.stdout == "All clean: 1 object in 1 file.\n", proc.stdout + proc.stderr


def test_a_fifo_met_in_a_walk_is_passed_over(fifo_tree: Path, tmp_path: Path) -> None:
    """A walk lints the regular files it meets (what a repository can hold) and never opens the rest."""
    proc = jsops("lint", ".", cwd=fifo_tree, cache=tmp_path / "cache")
    assert proc.returncode == 0 and proc.stdout == "All clean: 1 object in 1 file.\n", proc.stdout + proc.stderr


def test_a_fifo_among_enough_files_to_fork_is_passed_over(tmp_path: Path) -> None:
    """The same in a tree large enough for the parallel parse (a forked child reads half of it)."""
    tree = tmp_path / "big"
    tree.mkdir()
    for i in range(450):
        (tree / f"s{i:04d}.yaml").write_text(STREAM.format(name=f"S{i:04d}"))
    os.mkfifo(tree / "s0200x.yaml")
    proc = jsops("lint", ".", "--format", "json", cwd=tree, cache=tmp_path / "cache")
    assert proc.returncode == 0 and "s0200x" not in proc.stdout, proc.stdout[-2000:] + proc.stderr


@pytest.mark.parametrize("command", ["render", "plan"])
def test_render_and_plan_refuse_a_socket(tmp_path: Path, command: str) -> None:
    path = tmp_path / "sock.yaml"
    extra = ["--server", DEAD_URL] if command == "plan" else ["--env", "dev"]
    with _bound(path):
        proc = jsops(command, "sock.yaml", *extra, cwd=tmp_path, cache=tmp_path / "cache")
    assert proc.returncode == (1 if command == "plan" else 2), (
        proc.stderr
    )  # plan's bad input is 1 (tests/reconciler/test_cli_errors.py)
    assert "sock.yaml: not a regular file" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("command", ["render", "plan"])
def test_render_and_plan_do_not_wait_on_a_fifo(fifo_tree: Path, command: str) -> None:
    extra = ["--server", DEAD_URL] if command == "plan" else ["--env", "dev"]
    proc = jsops(
        command, "fifo.yaml", *extra, cwd=fifo_tree, cache=fifo_tree.parent / "cache"
    )  # the timeout fails a wait
    assert "Traceback" not in proc.stderr


@contextlib.contextmanager
def _bound(path: Path) -> Iterator[None]:
    with socket.socket(socket.AF_UNIX) as s:
        try:
            s.bind(str(path))
        except OSError as exc:  # a path too long for AF_UNIX on this runner
            pytest.skip(f"cannot bind a unix socket: {exc}")
        yield


def test_a_socket_is_not_a_regular_file(tmp_path: Path) -> None:
    path = tmp_path / "sock.yaml"
    with _bound(path):
        proc = jsops("lint", str(path), cwd=tmp_path)
    assert proc.returncode == 2 and "sock.yaml: not a regular file" in proc.stderr, proc.stderr


def test_read_regular_reads_a_file_to_its_bound(tmp_path: Path) -> None:
    path = tmp_path / "a.yaml"
    path.write_bytes(b"x" * 100)
    assert read_regular(str(path), 1000) == b"x" * 100
    assert read_regular(str(path), 11) == b"x" * 11
    assert read_regular(str(path), 100) == b"x" * 100
    assert read_regular(str(path), 101) == b"x" * 100
    (tmp_path / "empty.yaml").write_bytes(b"")
    assert read_regular(str(tmp_path / "empty.yaml"), 10) == b""
    with pytest.raises(IsADirectoryError):
        read_regular(str(tmp_path), 10)
    os.mkfifo(tmp_path / "fifo.yaml")
    assert read_regular(str(tmp_path / "fifo.yaml"), 10) == b""  # no writer: empty, at once
    assert read_regular("/dev/zero", 10) == b"\0" * 10  # a device: to the bound
    with _bound(tmp_path / "sock.yaml"), pytest.raises(NotRegularFile):
        read_regular(str(tmp_path / "sock.yaml"), 10)
