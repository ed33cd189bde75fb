"""The controller takes its configuration from its operator, never from the tree it follows.

A jsops config inside the followed tree (the clone of ``--repo``, the work tree of ``--git``, a
plain PATH) is read with each revision and may only set what
:data:`jsops.linter.config.KEY_SCOPES` lets a repository set (lint selection, severities,
excludes...). A commit whose config sets a context, an ``access`` grant, the target's facts or any
other operator key is refused whole (event ``revision_rejected`` naming the file and the key) and the
last good revision stays in force; a restarted controller does not take it as its own config either.
Real git (bare repositories over ``file://``) and a real nats-server; the pushed context points at a
TCP listener of the test's, which nothing may reach.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from procs import spawn

from jsops.linter.config import Config, ContextConfig, load_config
from jsops.reconciler.controller.git import GitCredentials, GitSource

from .helpers import Js, NatsServer, manifest
from .test_controller_git import git
from .test_controller_helpers import STREAM_YAML, Running, sample, wait_for

pytestmark = pytest.mark.integration

SECRET = "s3cret-nats-password-of-the-controller"
HOUR, TWO_HOURS = 3_600_000_000_000, 7_200_000_000_000


class Listener:
    """A TCP listener on loopback that records every connection (and what it is sent): where a
    pushed context would send the controller's credentials."""

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        self.received = b""
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.connections += 1
            with conn:
                conn.settimeout(2)
                try:  # as a NATS server would: INFO first, then read what the client says
                    conn.sendall(
                        b'INFO {"server_id":"X","version":"2.10.0","proto":1,"max_payload":1048576,"auth_required":true}\r\n'
                    )
                    self.received += conn.recv(65536)
                except OSError:
                    pass

    def close(self) -> None:
        self._stop.set()
        self._thread.join(5)
        self.sock.close()


@pytest.fixture
def listener() -> Iterator[Listener]:
    lst = Listener()
    try:
        yield lst
    finally:
        lst.close()


@pytest.fixture
def origin(tmp_path: Path) -> tuple[Path, Path]:
    """A bare repository and an author's clone that pushed ORDERS (max_age 1h) under ``manifests/``."""
    bare = tmp_path / "origin.git"
    bare.mkdir()
    git(bare, "init", "--bare", "-q")
    git(tmp_path, "clone", "-q", str(bare), "author")
    author = tmp_path / "author"
    manifest(author / "manifests", "orders.yaml", STREAM_YAML)
    git(author, "add", ".")
    git(author, "commit", "-q", "-m", "one")
    git(author, "push", "-q", "origin", "HEAD:main")
    return bare, author


def _push(author: Path, files: dict[str, str], message: str) -> str:
    for name, text in files.items():
        manifest(author / os.path.dirname(name), os.path.basename(name), text)
    git(author, "add", ".")
    git(author, "commit", "-q", "-m", message)
    git(author, "push", "-q", "origin", "HEAD:main")
    return git(author, "rev-parse", "HEAD")


def _max_age(js: Js) -> int | None:
    info = js.stream("ORDERS")
    return None if info is None else int(info["config"]["max_age"])


def _evil_config(port: int) -> str:
    """What the fault pass pushed: a context with the controller's password by reference, pointing
    at the committer's listener, and an access grant letting every manifest name it."""
    return (
        "# lint settings are fine here\n"
        "ignore: [JS110]\n"
        "contexts:\n"
        f"  evil: {{server: 'nats://127.0.0.1:{port}', user: ctl, password: {{env: JSOPS_TEST_NATS_PASSWORD}}}}\n"
        "access:\n"
        "  - {paths: ['**'], contexts: ['*']}\n"
    )


EVIL_STREAM = (
    "apiVersion: jsops/v1\nkind: Stream\nmetadata:\n  name: EVIL\n  context: evil\nspec:\n  subjects: ['evil.>']\n"
)


def _rejected_for(events: list[dict[str, Any]], key: str) -> dict[str, Any] | None:
    return next((e for e in events if e.get("reason") == "config" and key in e.get("keys", [])), None)


def test_git_pushed_context_with_env_secret_is_refused(
    server: NatsServer,
    js: Js,
    tmp_path: Path,
    origin: tuple[Path, Path],
    listener: Listener,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    bare, author = origin
    git(tmp_path, "clone", "-q", str(bare), "watched")
    watched = tmp_path / "watched"
    monkeypatch.setenv("JSOPS_TEST_NATS_PASSWORD", SECRET)
    with Running([str(watched / "manifests")], server.url, git=True) as ctl:
        wait_for(
            lambda: _max_age(js) == HOUR and ctl.controller.last_result == "success",
            what="the first commit to be applied",
        )
        good = ctl.controller.current.id
        bad = _push(
            author,
            {
                ".jsops.yaml": _evil_config(listener.port),
                "manifests/evil.yaml": EVIL_STREAM,
                "manifests/orders.yaml": STREAM_YAML.replace("1h", "2h"),
            },
            "route a stream to my server",
        )
        event = wait_for(
            lambda: _rejected_for(ctl.events("revision_rejected"), "contexts"), what="the pushed config to be refused"
        )
        assert event["file"].endswith(".jsops.yaml") and event["keys"] == ["contexts", "access"]
        assert (
            event["revision"].startswith(f"git:{bad[:12]}/") and event["in_force"] == good and event["lint_errors"] == 0
        )
        assert event["findings"][0].endswith(
            ".jsops.yaml:3:1: contexts: a config in the followed tree may not set this key " + _REST
        )
        assert ":5:1: access: " in event["findings"][1]
        ctl.settle()
        assert ctl.controller.current.id == good  # the last good revision stays in force
        assert _max_age(js) == HOUR and js.stream("EVIL") is None
        assert sample(ctl.metrics(), "jsops_controller_errors_total", context="", type="config", err_code="") == 1
    assert listener.connections == 0


def test_git_restarted_controller_does_not_take_the_pushed_config(
    server: NatsServer, js: Js, tmp_path: Path, origin: tuple[Path, Path], listener: Listener
) -> None:
    """The fault pass's scenario: the clone is at the pushed commit (as the last round left it) and
    the controller restarts there, as the README starts it (config found from `.`). On main it read
    the pushed config and sent its password to the committer's listener."""
    bare, author = origin
    _push(
        author,
        {
            ".jsops.yaml": _evil_config(listener.port),
            "manifests/evil.yaml": EVIL_STREAM,
            "manifests/orders.yaml": STREAM_YAML.replace("1h", "2h"),
        },
        "route a stream to my server",
    )
    git(tmp_path, "clone", "-q", str(bare), "watched")
    watched = tmp_path / "watched"
    log = tmp_path / "restart.jsonl"
    proc = spawn(
        [sys.executable, "-m", "jsops.reconciler.controller.cli", "manifests", "--git", "--server", server.url]
        + ["--once", "--no-lease", "--listen", "none", "--log-file", str(log)],
        cwd=watched,
        env={**os.environ, "JSOPS_TEST_NATS_PASSWORD": SECRET},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 1, err  # no revision passes: nothing applied, the round is an error
    events = [json.loads(line) for line in log.read_text().splitlines()]
    assert events[0]["event"] == "started" and events[0]["config"] is None
    event = _rejected_for(events, "contexts")
    assert event is not None and event.pop("time") and event.pop("revision").startswith("git:")
    assert event == {  # the event, whole
        "event": "revision_rejected",
        "reason": "config",
        "file": ".jsops.yaml",
        "keys": ["contexts", "access"],
        "lint_errors": 0,
        "findings": [
            f".jsops.yaml:3:1: contexts: a config in the followed tree may not set this key {_REST}",
            f".jsops.yaml:5:1: access: a config in the followed tree may not set this key {_REST}",
        ],
        "in_force": None,
    }
    assert listener.connections == 0 and SECRET.encode() not in listener.received
    assert SECRET not in log.read_text() + err.decode() + out.decode()
    assert js.stream("ORDERS") is None and js.stream("EVIL") is None  # nothing was ever applied
    assert (watched / ".jsops.yaml").exists()


_REST = "(only the operator's --config may; docs/security.md lists what a repository may set)"


def test_repo_pushed_access_grant_is_refused_and_a_fixed_commit_is_applied(
    server: NatsServer, js: Js, tmp_path: Path, origin: tuple[Path, Path]
) -> None:
    bare, author = origin
    # the operator's config: a second context the manifests may not name (no access grant for it)
    operator = Config(contexts={"west": ContextConfig(server=server.url)})
    source = GitSource.remote(f"file://{bare}", "main", str(tmp_path / "work"), GitCredentials())
    west = (
        "apiVersion: jsops/v1\nkind: Stream\nmetadata:\n  name: WEST\n  context: west\nspec:\n  subjects: ['west.>']\n"
    )
    with Running([os.path.join(source.checkout, "manifests")], server.url, source=source, config=operator) as ctl:
        wait_for(
            lambda: _max_age(js) == HOUR and ctl.controller.last_result == "success",
            what="the first commit to be applied",
        )
        good = ctl.controller.current.id
        _push(
            author,
            {
                ".jsops.yaml": "access:\n  - {paths: ['**'], contexts: [west]}\n",
                "manifests/west.yaml": west,
                "manifests/orders.yaml": STREAM_YAML.replace("1h", "2h"),
            },
            "grant myself west",
        )
        event = wait_for(
            lambda: _rejected_for(ctl.events("revision_rejected"), "access"), what="the access grant to be refused"
        )
        assert event["keys"] == ["access"] and event["findings"][0].endswith(
            ".jsops.yaml:1:1: access: a config in the followed tree may not set this key " + _REST
        )
        ctl.settle()
        assert ctl.controller.current.id == good and _max_age(js) == HOUR and js.stream("WEST") is None
        # the next commit drops the grant: it is a good revision again (WEST itself is refused by
        # the operator's access rule, ORDERS is applied)
        fixed = _push(author, {".jsops.yaml": "ignore: [JS110]\n"}, "no grant")
        wait_for(lambda: _max_age(js) == TWO_HOURS, what="the fixed commit to be applied")
        assert ctl.controller.current.commit == fixed and js.stream("WEST") is None


def test_plain_directory_narrowing_config_applies_and_target_change_is_refused(
    server: NatsServer, js: Js, tmp_path: Path
) -> None:
    tree = tmp_path / "tree"
    manifest(tree, "orders.yaml", STREAM_YAML)
    manifest(tree / "broken", "bad.yaml", "apiVersion: jsops/v1\nkind: Stream\nmetadata: {name: [\n")
    # a narrowing config in the tree takes effect: the broken file is excluded, JS116 is off
    (tree / ".jsops.yaml").write_text("exclude: [broken]\nseverity: {JS102: warning}\n")
    with Running([str(tree)], server.url, interval=0.2) as ctl:
        wait_for(
            lambda: _max_age(js) == HOUR and ctl.controller.last_result == "success",
            what="the narrowed revision to be applied",
        )
        assert ctl.events("revision_rejected") == []
        good = ctl.controller.current.id
        manifest(tree, "orders.yaml", STREAM_YAML.replace("1h", "2h"))
        (tree / ".jsops.yaml").write_text("exclude: [broken]\ntarget:\n  server_version: '2.10.0'\n")
        event = wait_for(
            lambda: _rejected_for(ctl.events("revision_rejected"), "target"), what="the target change to be refused"
        )
        assert event["file"].endswith(".jsops.yaml") and event["keys"] == ["target"]
        assert event["findings"] == [
            f"{event['file']}:2:1: target: a config in the followed tree may not set this key {_REST}"
        ]
        ctl.settle()
        assert ctl.controller.current.id == good and _max_age(js) == HOUR


# -- without a server --------------------------------------------------------------------------------


def _revision(tree: Path, config: Config | None = None) -> Any:
    from jsops.reconciler.controller.source import followed_roots, load_revision

    return load_revision([str(tree)], config=config, roots=followed_roots([str(tree)]))


OVERLAP = (
    "apiVersion: jsops/v1\nkind: Stream\nmetadata:\n  name: ORDERS\nspec:\n  subjects: ['orders.>', 'orders.new']\n"
)


def test_repository_config_narrows_lint(tmp_path: Path) -> None:
    manifest(tmp_path, "orders.yaml", OVERLAP)
    assert [e.split(": ", 1)[1].split()[1] for e in _revision(tmp_path).errors] == ["JS116"]
    (tmp_path / ".jsops.yaml").write_text("ignore: [JS116]\n")
    assert _revision(tmp_path).good
    (tmp_path / ".jsops.yaml").write_text("severity: {stream-invalid-subjects: warning}\n")
    assert _revision(tmp_path).good
    # the operator's selection stays where the repository says nothing
    (tmp_path / ".jsops.yaml").write_text("exclude: [other]\n")
    assert not _revision(tmp_path).good and _revision(tmp_path, Config(ignore=["JS116"])).good


@pytest.mark.parametrize(
    ("name", "text", "where", "key"),
    [
        (".jsops.yaml", "select: [all]\ncontexts:\n  x: {server: 'nats://h:4222'}\n", ".jsops.yaml:2:1", "contexts"),
        (".jsops.yaml", "estate: someone-else\n", ".jsops.yaml:1:1", "estate"),
        (".jsops.yaml", "profiles: /etc/passwd\n", ".jsops.yaml:1:1", "profiles"),
        (
            ".jsops.yaml",
            "ignore: [JS110]\nnotices:\n  receivers: [{name: x, url: {file: /etc/hostname}}]\n",
            ".jsops.yaml:2:1",
            "notices",
        ),
        (".jsops.yml", "root: /etc\n", ".jsops.yml:1:1", "root"),
        (
            "pyproject.toml",
            "[tool.jsops]\ntarget = {server_version = '2.10.0'}\n",
            "pyproject.toml",
            "[tool.jsops] target",
        ),
    ],
)
def test_operator_keys_in_a_repository_config_are_refused(
    tmp_path: Path, name: str, text: str, where: str, key: str
) -> None:
    manifest(tmp_path, "orders.yaml", STREAM_YAML)
    (tmp_path / name).write_text(text)
    rev = _revision(tmp_path)
    assert not rev.good and rev.estate is None and rev.config_file.endswith(name)
    assert [r.key for r in rev.refused] == [key]
    assert rev.errors[0].endswith(f"{where}: {key}: a config in the followed tree may not set this key {_REST}")


def test_broken_repository_config_rejects_the_revision_with_its_position(tmp_path: Path) -> None:
    manifest(tmp_path, "orders.yaml", STREAM_YAML)
    (tmp_path / ".jsops.yaml").write_text("ignore: [JS116]\nseverity: {JS102: loud}\n")
    rev = _revision(tmp_path)
    assert not rev.good and rev.refused == () and rev.config_file.endswith(".jsops.yaml")
    assert rev.errors[0].endswith(
        ".jsops.yaml:2:19: severity.JS102: Input should be 'error', 'warning' or 'info', got 'loud'"
    ), rev.errors


def test_followed_roots_cover_the_work_tree(tmp_path: Path) -> None:
    from jsops.reconciler.controller.source import followed_roots, repository_config_path

    git(tmp_path, "init", "-q", "clone")
    clone = tmp_path / "clone"
    manifest(clone / "teams" / "a", "orders.yaml", STREAM_YAML)
    (clone / ".jsops.yaml").write_text("ignore: [JS110]\n")
    paths = [str(clone / "teams" / "a")]
    roots = followed_roots(paths)
    assert roots == (str(clone.resolve()),)
    # the repository's config is the one at its root, even when the PATH is a directory below it
    assert repository_config_path(paths, roots) is not None and repository_config_path(paths, roots).endswith(
        "clone/.jsops.yaml"
    )  # type: ignore[union-attr]
    plain = tmp_path / "plain"
    manifest(plain, "orders.yaml", STREAM_YAML)
    assert (
        followed_roots([str(plain)]) == (str(plain.resolve()),)
        and repository_config_path([str(plain)], followed_roots([str(plain)])) is None
    )


# -- the operator's config at start -------------------------------------------------------------------


def test_operator_config_is_never_found_inside_the_followed_tree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from jsops.reconciler.controller.cli import _options

    git(tmp_path, "init", "-q", "clone")
    clone = tmp_path / "clone"
    manifest(clone / "manifests", "orders.yaml", STREAM_YAML)
    (clone / ".jsops.yaml").write_text(_evil_config(4222))
    monkeypatch.chdir(clone)
    for argv in (["manifests", "--git"], ["manifests"], ["."]):
        opt, target, _ = _options([*argv, "--server", "nats://127.0.0.1:4222"])
        assert opt.config.contexts == {} and opt.config.access is None and opt.config.source is None, argv
    # one outside the tree (the operator's, above the clone) is found; its paths stay its own
    (tmp_path / ".jsops.yaml").write_text("contexts:\n  prod: {server: 'nats://p:4222', creds: prod.creds}\n")
    opt, _, _ = _options(["manifests", "--git", "--server", "nats://127.0.0.1:4222"])
    assert set(opt.config.contexts) == {"prod"} and opt.config.resolve_path("prod.creds") == str(
        tmp_path / "prod.creds"
    )


def test_config_flag_inside_the_followed_tree_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from jsops.reconciler.controller.cli import main

    git(tmp_path, "init", "-q", "clone")
    clone = tmp_path / "clone"
    manifest(clone / "manifests", "orders.yaml", STREAM_YAML)
    (clone / "ops.yaml").write_text("contexts: {}\n")
    monkeypatch.chdir(tmp_path)
    assert main(["clone/manifests", "--git", "--config", "clone/ops.yaml", "--once", "--listen", "none"]) == 2
    err = capsys.readouterr().err
    assert (
        err.startswith("jsops controller: error: --config clone/ops.yaml is inside the followed tree ")
        and "Traceback" not in err
    )
    assert load_config("clone/ops.yaml").contexts == {}  # the file itself is fine: where it lives is not


def test_repo_operator_access_paths_are_relative_to_the_repository(
    server: NatsServer, js: Js, tmp_path: Path, origin: tuple[Path, Path]
) -> None:
    """The operator's config lives outside the clone; its `access` paths name the repository's
    directories (as they did when the config sat at the repository's root)."""
    bare, author = origin
    ops = tmp_path / "ops"
    ops.mkdir()
    (ops / "jsops.yaml").write_text(
        f"contexts:\n  west: {{server: '{server.url}'}}\n  east: {{server: '{server.url}'}}\naccess:\n  - {{paths: [manifests/west], contexts: [west]}}\n"
    )
    west = (
        "apiVersion: jsops/v1\nkind: Stream\nmetadata:\n  name: WEST\n  context: west\nspec:\n  subjects: ['west.>']\n"
    )
    east = west.replace("WEST", "EAST").replace("west", "east")
    _push(author, {"manifests/west/west.yaml": west, "manifests/east.yaml": east}, "west and east")
    source = GitSource.remote(f"file://{bare}", "main", str(tmp_path / "work"), GitCredentials())
    with Running(
        [os.path.join(source.checkout, "manifests")],
        server.url,
        source=source,
        config=load_config(str(ops / "jsops.yaml")),
    ) as ctl:
        wait_for(lambda: js.stream("WEST") and ctl.events("error"), what="WEST applied, EAST refused")
        assert js.stream("EAST") is None
        assert {(e["type"], e["context"]) for e in ctl.events("error")} == {("access", "east")}
        assert "does not allow for manifests/east.yaml (allowed here: none)" in ctl.events("error")[0]["message"]
