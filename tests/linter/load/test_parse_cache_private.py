"""The parse cache is private and never decides what is applied (issue 22, items 1-5).

Attacks come from a second uid (``nobody``, 65534) in a forked child, as another local user would
plant them in a shared or world-writable cache directory; they need root to switch users, so those
tests are skipped elsewhere. Each test names the item it covers.
"""

from __future__ import annotations

import functools
import hashlib
import json
import marshal
import os
import resource
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from jsops.linter.cache.parse_cache import ParseCache, open_cache
from jsops.linter.cli.app import main
from jsops.linter.load import Limits, load_paths
from jsops.linter.load.files import read_text
from jsops.linter.load.parsed import pack_parsed

ROOT = Path(__file__).resolve().parents[3]
NOBODY = 65534
STREAM = (
    "apiVersion: jsops/v1\nkind: Stream\nmetadata: {{name: {name}}}\nspec: {{subjects: [{subjects}], max_age: 1m}}\n"
)
needs_root = pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0, reason="switching to a second uid needs root"
)


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    directory = tmp_path / "cache"
    monkeypatch.setenv("JSOPS_CACHE_DIR", str(directory))
    monkeypatch.delenv("JSOPS_NO_CACHE", raising=False)
    return directory


def as_user(uid: int, action: Callable[[], None]) -> None:
    """Run ``action`` in a forked child as ``uid`` (the attacker); fails the test if it fails."""
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)
            action()
            code = 0
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, "the attacker's setup failed"


@pytest.fixture
def shared() -> Iterator[Path]:
    """A world-writable directory (no sticky bit) another user can reach, as a careless shared
    cache would be (pytest's own temporary directories are 0700)."""
    top = Path(tempfile.mkdtemp(prefix="jsops-shared-"))
    top.chmod(0o755)
    path = top / "shared"
    path.mkdir()
    path.chmod(0o777)
    try:
        yield path
    finally:
        shutil.rmtree(top, ignore_errors=True)


def lint(paths: list[str], capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str]:
    rc = main(["lint", *paths, "--format", "json", *extra])
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "internal error" not in err, err
    return rc, out


def tree(root: Path, count: int = 3) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for i in range(count):
        (root / f"s{i}.yaml").write_text(STREAM.format(name=f"S{i}", subjects=f"s{i}.>"))
    return root


# --- item 1: links and files planted by another user ---------------------------------------------


@needs_root
def test_cleanup_never_deletes_through_a_link_planted_at_parse(
    tmp_path: Path, shared: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Item 1: ``parse`` planted as a link to the victim's directory of large files (sparse here):
    on main the victim's lint wrote its pack there and its cleanup deleted the oldest files."""
    victim = tmp_path / "victim-data"
    victim.mkdir()
    for i in range(7):
        with open(victim / f"{i}.pack", "wb") as fh:
            fh.truncate(10 * 1024 * 1024)  # 70 MiB together: past the cache's 64 MiB budget
        os.utime(victim / f"{i}.pack", ns=(i * 10**9, i * 10**9))
    before = sorted(os.listdir(victim))
    as_user(NOBODY, lambda: os.symlink(victim, shared / "parse"))
    monkeypatch.setenv("JSOPS_CACHE_DIR", str(shared))
    monkeypatch.delenv("JSOPS_NO_CACHE", raising=False)
    src = tree(tmp_path / "src")
    plain = lint([str(src)], capsys, "--no-cache")
    assert lint([str(src)], capsys) == plain
    assert sorted(os.listdir(victim)) == before  # nothing deleted, nothing written


@needs_root
def test_links_planted_at_temporary_names_are_never_written_through(
    tmp_path: Path, shared: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Item 1: another user makes ``parse/`` first and plants links at the temporary pack names
    (on main ``<pack>.<pid>.tmp``, opened without O_NOFOLLOW/O_EXCL: the victim's ~/.bashrc was
    overwritten). A ``parse/`` that is not the user's is not used at all."""
    bashrc = tmp_path / "home" / ".bashrc"
    bashrc.parent.mkdir()
    bashrc.write_text("# my shell\n")
    src = tree(tmp_path / "src")
    pack = Path(ParseCache(str(shared / "parse"), Limits(), tree=[str(src)]).path)

    def plant() -> None:
        os.mkdir(shared / "parse", 0o777)
        os.chmod(shared / "parse", 0o777)
        for pid in range(os.getppid() - 5, os.getppid() + 200):
            os.symlink(bashrc, f"{pack}.{pid}.tmp")
        os.symlink(bashrc, pack)

    as_user(NOBODY, plant)
    monkeypatch.setenv("JSOPS_CACHE_DIR", str(shared))
    monkeypatch.delenv("JSOPS_NO_CACHE", raising=False)
    plain = lint([str(src)], capsys, "--no-cache")
    assert lint([str(src)], capsys) == plain
    assert bashrc.read_text() == "# my shell\n"
    assert all(os.path.islink(shared / "parse" / n) for n in os.listdir(shared / "parse"))  # nothing written there


@needs_root
def test_a_pack_planted_by_another_user_is_not_read(
    shared: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Item 1: a pack owned by another uid (the directory was left group/world-writable) is not
    read, and the directory is narrowed back to 0700."""
    cache = shared
    monkeypatch.setenv("JSOPS_CACHE_DIR", str(cache))
    monkeypatch.delenv("JSOPS_NO_CACHE", raising=False)
    src = tree(tmp_path / "src", 1)
    plain = lint([str(src)], capsys, "--no-cache")
    lint([str(src)], capsys)
    parse = cache / "parse"
    (pack,) = list(parse.iterdir())
    forged = _forged_copy(pack.read_bytes(), STREAM.format(name="S0", subjects="a: [1, 2").encode())
    pack.unlink()
    parse.chmod(0o777)
    as_user(NOBODY, lambda: pack.write_bytes(forged))
    assert pack.stat().st_uid == NOBODY
    shutil.rmtree(cache / "results")  # else the unchanged tree is answered by the results cache, no parse pack read
    assert lint([str(src)], capsys) == plain
    assert stat.S_IMODE(parse.stat().st_mode) == 0o700


# --- item 2: never trusted for plan/apply; wrong shapes are misses ----------------------------------


def _forged_copy(blob: bytes, forged_text: bytes) -> bytes:
    """A pack (any format version, as written by the build under test) whose every entry is replaced
    by the parse of ``forged_text``, with a valid checksum: what someone who can write the user's
    cache can make."""
    magic = blob[: blob.index(b"\n") + 1]
    salt, entries, *rest = marshal.loads(blob[len(magic) + 16 :])  # rest: the loaded entries (cache.loaded_cache)
    forged = pack_parsed(read_text(forged_text, "x.yaml", None))
    body = marshal.dumps(
        (salt, {k: marshal.dumps(forged) for k in entries}, *rest)
    )  # entries are marshalled one by one
    return magic + hashlib.blake2b(body, digest_size=16).digest() + body


def _forge_all(cache: Path, forged_text: bytes) -> int:
    packs = [p for p in (cache / "parse").iterdir() if p.name.endswith(".pack")]
    for p in packs:
        p.write_bytes(_forged_copy(p.read_bytes(), forged_text))
    return len(packs)


def test_apply_never_uses_a_forged_cache(cache: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Item 2: a forged (validly checksummed) pack decides what lint reads, never what plan and
    apply send: on main ``apply`` widened the stream's subjects to what the pack said."""
    from tests.reconciler.helpers import Js, NatsServer, run

    src = tmp_path / "src"
    src.mkdir()
    (src / "orders.yaml").write_text(STREAM.format(name="ORDERS", subjects="orders.>"))
    server = NatsServer().start()
    try:
        assert run("apply", str(src), "--server", server.url, "--yes")[0] == 0
        lint([str(src)], capsys)  # fills the cache for this tree
        assert _forge_all(cache, STREAM.format(name="ORDERS", subjects="orders.>, evil.>").encode()) == 1
        rc, out, err = run("plan", str(src), "--server", server.url)
        assert rc == 0, out + err  # no changes: the forged parse was not used
        assert run("apply", str(src), "--server", server.url, "--yes")[0] == 0
        js = Js(server.url)
        try:
            info = js.stream("ORDERS")
        finally:
            js.close()
        assert info is not None and info["config"]["subjects"] == ["orders.>"]
    finally:
        server.stop()
    from jsops.reconciler.controller.source import _load

    estate = _load([str(src)], None, None)
    assert [r.config.subjects for r in estate.resources] == [["orders.>"]]


_WRONG_SHAPES: dict[str, object] = {
    "value-set": (
        [({"apiVersion": "jsops/v1", "kind": "Stream", "metadata": {"name": frozenset({"A"})}}, None, 1, [])],
        [],
        False,
        True,
    ),
    "value-bytes-key": ([({b"apiVersion": "jsops/v1"}, None, 1, [])], [], False, True),
    "value-surrogate": (
        [
            (
                {
                    "apiVersion": "jsops/v1",
                    "kind": "Stream",
                    "metadata": {"name": "ORD\ud800"},
                    "spec": {"subjects": ["a"]},
                },
                None,
                1,
                [],
            )
        ],
        [],
        False,
        True,
    ),
    "line-string": ([({"a": 1}, None, "1", [])], [], False, True),
    "problem-short": ([], [("yaml-syntax", "x")], False, False),
    "problem-types": ([], [("yaml-syntax", 1, "a", None)], False, False),
    "booleans": ([], [], "yes", None),
    "deep-value": ([(functools.reduce(lambda inner, _: [inner], range(150), []), None, 1, [])], [], False, False),
    "not-a-tuple": {"docs": []},
    "three": ([], [], False),
}


@pytest.mark.parametrize("shape", sorted(_WRONG_SHAPES))
def test_a_checksummed_entry_of_the_wrong_shape_is_a_miss(
    shape: str, cache: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Item 2: entries validated before use: a wrong shape is parsed again, never a crash."""
    src = tree(tmp_path / "src", 1)
    plain = lint([str(src)], capsys, "--no-cache")
    lint([str(src)], capsys)
    (pack,) = [p for p in (cache / "parse").iterdir()]
    blob = pack.read_bytes()
    magic = blob[: blob.index(b"\n") + 1]
    salt, entries, *rest = marshal.loads(blob[len(magic) + 16 :])  # rest: the loaded entries (cache.loaded_cache)
    body = marshal.dumps((salt, {k: marshal.dumps(_WRONG_SHAPES[shape]) for k in entries}, *rest))
    pack.write_bytes(magic + hashlib.blake2b(body, digest_size=16).digest() + body)
    assert lint([str(src)], capsys) == plain


# Packed positions are not validated up front (a warm lint would walk every position of the estate):
# they stay packed and are read defensively where a finding asks for one.
_BAD_POSITIONS: dict[str, object] = {
    "string": "nope",
    "short-pair": (1,),
    "bad-map": [(1, 1), {"spec": ["x", None], "metadata": ((1, "a"), [None, None])}],
    "map-of-sets": [(1, 1), {"spec": ((4, 1), [(4, 8), {frozenset()}]), "kind": None}],
    "deep": functools.reduce(lambda inner, _: [(1, 1), {"spec": ((1, 1), inner)}], range(200), (1, 1)),
    "three": [(1, 1), {}, 3],
}


@pytest.mark.parametrize("shape", sorted(_BAD_POSITIONS))
def test_packed_positions_of_the_wrong_shape_are_never_a_crash(
    shape: str, cache: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A checksummed entry with a manifest's value and positions of the wrong shape: the same
    findings (at the document's line where a position cannot be read), never a traceback."""
    src = tree(tmp_path / "src", 1)
    rc, plain = lint([str(src)], capsys, "--no-cache")
    lint([str(src)], capsys)
    (pack,) = [p for p in (cache / "parse").iterdir()]
    blob = pack.read_bytes()
    magic = blob[: blob.index(b"\n") + 1]
    salt, entries, *rest = marshal.loads(blob[len(magic) + 16 :])  # rest: the loaded entries (cache.loaded_cache)
    value = read_text((src / "s0.yaml").read_bytes(), "s0.yaml", None)[0][0].value
    body = marshal.dumps(
        (salt, {k: marshal.dumps(([(value, _BAD_POSITIONS[shape], 1, [])], [], False, True)) for k in entries}, *rest)
    )
    pack.write_bytes(magic + hashlib.blake2b(body, digest_size=16).digest() + body)
    rc_cached, cached = lint([str(src)], capsys)
    assert rc_cached == rc
    assert [f["rule"] for f in json.loads(cached)["findings"]] == [f["rule"] for f in json.loads(plain)["findings"]]
    assert all(isinstance(f["line"], int) and isinstance(f["column"], int) for f in json.loads(cached)["findings"])


# --- item 3: bounded reads -------------------------------------------------------------------------


def _lint_subprocess(
    src: Path, cache: Path, limit_bytes: int = 1 << 31
) -> tuple[subprocess.CompletedProcess[str], int]:
    """``jsops lint`` in a child under an address-space limit; returns the result and the child's peak RSS (bytes)."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, limit_bytes))

    env = {**os.environ, "JSOPS_CACHE_DIR": str(cache)}
    env.pop("JSOPS_NO_CACHE", None)
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    proc = subprocess.run(
        [sys.executable, "-m", "jsops.linter.cli.app", "lint", str(src), "--format", "json"],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=limit,
    )
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return proc, (peak if peak > before else 0) * 1024


@pytest.mark.parametrize("what", ["fifo", "dev-zero-link", "directory", "huge-sparse"])
def test_special_files_at_the_pack_name_are_skipped(what: str, cache: Path, tmp_path: Path) -> None:
    """Item 3: on main a FIFO at the pack's name hung lint forever and a link to /dev/zero made it
    read until memory ran out; now the pack is opened non-blocking without following links, and
    read only when it is a regular file within the size bound."""
    src = tree(tmp_path / "src", 2)
    parse = cache / "parse"
    parse.mkdir(parents=True, mode=0o700)
    pack = Path(ParseCache(str(parse), Limits(), tree=[str(src)]).path)
    if what == "fifo":
        os.mkfifo(pack, 0o600)
    elif what == "dev-zero-link":
        os.symlink("/dev/zero", pack)
    elif what == "directory":
        pack.mkdir(mode=0o700)
    else:
        with open(pack, "wb") as fh:
            fh.truncate(8 << 30)  # 8 GiB of nothing, a regular file of the user's
    started = time.monotonic()
    proc, peak = _lint_subprocess(src, cache)
    assert time.monotonic() - started < 100
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert peak < 400 * 1024 * 1024, f"peak RSS {peak / 2**20:.0f} MiB"


# --- item 4: private files ------------------------------------------------------------------------


def test_cache_files_are_private_even_with_a_permissive_umask(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Item 4: a JSON file holding a password is not kept at all (it is no manifest); a manifest
    holding one is, privately: directories 0700, the pack 0600, whatever the umask (on main: the
    password file was kept too, in a 0644 pack in 0755 directories)."""
    base = tmp_path / "xdg"
    monkeypatch.setenv("XDG_CACHE_HOME", str(base))
    monkeypatch.delenv("JSOPS_CACHE_DIR", raising=False)
    monkeypatch.delenv("JSOPS_NO_CACHE", raising=False)
    src = tmp_path / "src"
    src.mkdir()
    (src / "secret.json").write_text('{"user": "admin", "password": "pw-of-a-file-that-is-no-manifest"}\n')
    (src / "orders.json").write_text('{"name": "ORDERS", "subjects": ["o.>"], "description": "hunter2-s3cret"}\n')
    old = os.umask(0o002)
    try:
        lint([str(src)], capsys)
    finally:
        os.umask(old)
    parse = base / "jsops" / "parse"
    packs = list(parse.iterdir())
    data = packs[0].read_bytes()
    assert b"pw-of-a-file-that-is-no-manifest" not in data  # the cache holds only manifests
    assert len(packs) == 1 and b"hunter2-s3cret" in data  # a manifest is cached ...
    assert stat.S_IMODE(packs[0].stat().st_mode) == 0o600  # ... where only the user can read it
    assert stat.S_IMODE(parse.stat().st_mode) == 0o700
    assert stat.S_IMODE((base / "jsops").stat().st_mode) == 0o700


def test_a_pack_made_readable_by_others_is_narrowed_again(
    cache: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Item 4: a pack someone chmodded 0644 (and its directory 0755) is private again after a read."""
    src = tree(tmp_path / "src", 1)
    lint([str(src)], capsys)
    (pack,) = list((cache / "parse").iterdir())
    pack.chmod(0o644)
    (cache / "parse").chmod(0o755)
    (src / "s1.yaml").write_text(STREAM.format(name="T", subjects="t"))
    lint([str(src)], capsys)
    (pack,) = list((cache / "parse").iterdir())
    assert stat.S_IMODE(pack.stat().st_mode) == 0o600
    assert stat.S_IMODE((cache / "parse").stat().st_mode) == 0o700


# --- item 5: the key follows the parser's build ----------------------------------------------------


def test_a_parser_change_with_the_same_version_is_a_new_key(tmp_path: Path) -> None:
    """Item 5: a copy of jsops whose parser reports a syntax error differently, same version string:
    on main its lint still served the old build's parse from the cache."""
    copy = tmp_path / "copy"
    for package in ("linter", "rules", "reconciler", "profiler"):
        shutil.copytree(ROOT / package, copy / "jsops" / package, ignore=shutil.ignore_patterns("__pycache__"))
    src = tmp_path / "src"
    src.mkdir()
    (src / "bad.json").write_text('{"name": "A", "subjects": ["a"],,}\n')
    env = {**os.environ, "JSOPS_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(copy)}
    env.pop("JSOPS_NO_CACHE", None)

    def run() -> str:
        proc = subprocess.run(
            [sys.executable, "-m", "jsops.linter.cli.app", "lint", str(src), "--format", "text"],
            env=env,
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert proc.returncode == 1, proc.stderr
        return proc.stdout

    assert "JSON syntax error" in run()
    documents = copy / "jsops" / "linter" / "load" / "documents.py"
    documents.write_text(
        documents.read_text().replace('f"JSON syntax error: {exc.msg}"', 'f"JSON does not parse: {exc.msg}"')
    )
    out = run()
    assert "JSON does not parse" in out and "JSON syntax error" not in out
    assert len(os.listdir(tmp_path / "cache" / "parse")) == 2  # a pack per build


def test_the_build_digest_is_in_the_key(tmp_path: Path) -> None:
    a = ParseCache(str(tmp_path), Limits(), build="build-a")
    b = ParseCache(str(tmp_path), Limits(), build="build-b")
    assert a.key(b"x", False) != b.key(b"x", False) and a.path != b.path
    pc = open_cache(None, tree=[str(tmp_path)])
    assert pc is not None and pc.key(b"x", False) == ParseCache(str(tmp_path), Limits(), tree=[str(tmp_path)]).key(
        b"x", False
    )


def test_load_paths_defaults_to_no_cache(cache: Path, tmp_path: Path) -> None:
    """Item 2: what plan, apply, the controller and the library load is parsed, never cached."""
    src = tree(tmp_path / "src", 1)
    load_paths([str(src)])
    assert not (cache / "parse").exists()


# --- the caches beside it: model schemas (unpickled) and entry points --------------------------------


def _plant_tmp_links(path: str, target: Path) -> Callable[[], None]:
    """As the attacker: links at ``path`` and at every ``<path>.<pid>.tmp`` the test process could use."""

    def plant() -> None:
        for pid in range(os.getppid() - 5, os.getppid() + 200):
            os.symlink(target, f"{path}.{pid}.tmp")
        os.symlink(target, path)

    return plant


@needs_root
def test_the_entry_point_cache_never_writes_through_planted_links(
    tmp_path: Path, shared: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from jsops.linter import plugins

    monkeypatch.setenv("JSOPS_CACHE_DIR", str(shared))
    monkeypatch.delenv("JSOPS_NO_CACHE", raising=False)
    path = plugins._cache_path()
    assert path is not None
    bashrc = tmp_path / ".bashrc"
    bashrc.write_text("# my shell\n")
    as_user(NOBODY, _plant_tmp_links(path, bashrc))
    expected = plugins._scan("jsops.rules")
    assert [[e.name, e.value] for e in plugins.entry_points("jsops.rules")] == expected
    assert bashrc.read_text() == "# my shell\n"
    assert not os.path.islink(path) and stat.S_IMODE(os.stat(path).st_mode) == 0o600


@pytest.mark.parametrize("what", ["fifo", "dev-zero-link"])
def test_special_files_at_the_entry_point_cache_name_are_skipped(what: str, tmp_path: Path) -> None:
    """Item 3 for the cache beside the parse cache: a FIFO never blocks, /dev/zero is never read."""
    from jsops.linter import plugins

    cache = tmp_path / "c"
    cache.mkdir(mode=0o700)
    os.environ["JSOPS_CACHE_DIR"] = str(cache)
    try:
        entry_file = plugins._cache_path()
    finally:
        del os.environ["JSOPS_CACHE_DIR"]
    assert entry_file is not None
    path = Path(entry_file)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    if what == "fifo":
        os.mkfifo(path, 0o600)
    else:
        os.symlink("/dev/zero", path)
    code = (
        "import os, sys, resource; resource.setrlimit(resource.RLIMIT_AS, (1 << 31, 1 << 31));"
        "sys.path.insert(0, sys.argv[1]); os.environ['JSOPS_CACHE_DIR'] = sys.argv[2];"
        "from linter import plugins;"
        "print(len(plugins.entry_points('jsops.rules')) > 0)"
    )
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    proc = subprocess.run(
        [sys.executable, "-c", code, str(ROOT), str(cache)], capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split() == ["True"]
    assert (peak if peak > before else 0) < 400 * 1024, f"peak RSS {peak // 1024} MiB"
