"""The controller follows a git branch by itself (``--repo URL --branch B``) or in an existing clone
(``--git``), against real git: a bare repository served over ``file://`` and over ``git daemon`` on
loopback. A force-pushed branch is applied within one round, the applied commit is reported (event
log, /metrics, /readyz), and a repository that cannot be fetched turns /readyz red after the stated
staleness."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from natsserver import free_port

from jsops.reconciler.controller.git import GitCredentials, GitSource

from .helpers import Js, NatsServer, manifest
from .test_controller_helpers import REPO, STREAM_YAML, Proc, Running, get, sample, wait_for

pytestmark = pytest.mark.integration

OTHER_YAML = """
apiVersion: jsops/v1
kind: Stream
metadata:
  name: INVOICES
spec:
  subjects: ["invoices.>"]
"""


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout.strip()


@pytest.fixture
def origin(tmp_path: Path) -> tuple[Path, Path]:
    """A bare repository (``origin.git``) and an author's clone that pushed one commit to ``main``
    with the ORDERS estate under ``manifests/``."""
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


def force_push_rewrite(author: Path) -> str:
    """Rewrite main: a new root commit (no common history) adding INVOICES, force-pushed; its sha."""
    git(author, "checkout", "-q", "--orphan", "rewritten")
    git(author, "rm", "-rfq", ".")
    manifest(author / "manifests", "invoices.yaml", OTHER_YAML)
    git(author, "add", ".")
    git(author, "commit", "-q", "-m", "rewritten history")
    git(author, "push", "-q", "--force", "origin", "HEAD:main")
    return git(author, "rev-parse", "HEAD")


def _first_round_with(events: list[dict[str, Any]], commit: str) -> int:
    rounds = [e for e in events if e["event"] == "round"]
    return next(i + 1 for i, e in enumerate(rounds) if e.get("commit") == commit)


def _follows_force_push(ctl: Running, js: Js, author: Path) -> str:
    wait_for(lambda: js.consumer("ORDERS", "shipper"), what="the first commit to be applied")
    first = git(author, "rev-parse", "HEAD")
    wait_for(lambda: ctl.controller.last_result == "success", what="a successful round")
    new = force_push_rewrite(author)
    pushed_at = ctl.rounds()  # rounds started by the time the push was done (on a loaded machine a push spans rounds)
    assert new != first
    wait_for(lambda: js.stream("INVOICES"), what="the force-pushed commit to be applied")
    # a round's event is written when the round ends, after its requests: wait for it, not the stream
    wait_for(lambda: any(e["event"] == "round" and e.get("commit") == new for e in ctl.events()), what="the round of the force-pushed commit")
    # the round running when the push was done may have fetched before it; the next one has the new tip
    assert _first_round_with(ctl.events(), new) <= pushed_at + 1
    accepted = [e for e in ctl.events("revision_accepted")]
    assert [e["commit"] for e in accepted] == [first, new]
    assert accepted[-1]["revision"].startswith(f"git:{new[:12]}/")
    wait_for(lambda: sample(ctl.metrics(), "jsops_controller_git_commit_info", commit=new) == 1, what="the commit in /metrics")
    assert (sample(ctl.metrics(), "jsops_controller_git_last_fetch_timestamp_seconds") or 0) > 0
    code, body = get(ctl.port, "/readyz")
    assert code == 200 and body == f"ready\ncommit {new}\n"
    assert ctl.events("error") == []
    return new


def test_repo_follows_force_push_over_file_url(server: NatsServer, js: Js, tmp_path: Path, origin: tuple[Path, Path]) -> None:
    bare, author = origin
    source = GitSource.remote(f"file://{bare}", "main", str(tmp_path / "work"), GitCredentials())
    with Running([os.path.join(source.checkout, "manifests")], server.url, source=source) as ctl:
        _follows_force_push(ctl, js, author)
        fetched = ctl.events("source_fetched")
        assert fetched[0]["previous"] is None and fetched[-1]["source"] == f"file://{bare}#main"
    # the controller's own clone is at the tip, with no file of the old history left
    assert not (tmp_path / "work" / "repo" / "manifests" / "orders.yaml").exists()


def test_git_clone_follows_force_push(server: NatsServer, js: Js, tmp_path: Path, origin: tuple[Path, Path]) -> None:
    """``--git`` in an existing clone: the same force-push behaviour (`git pull --ff-only`, as
    before, refused the rewritten branch and kept applying the old commit)."""
    bare, author = origin
    git(tmp_path, "clone", "-q", str(bare), "watched")
    with Running([str(tmp_path / "watched" / "manifests")], server.url, git=True) as ctl:
        new = _follows_force_push(ctl, js, author)
    assert git(tmp_path / "watched", "rev-parse", "HEAD") == new


def test_unreachable_repo_is_never_ready_and_applies_nothing(server: NatsServer, js: Js, tmp_path: Path) -> None:
    source = GitSource.remote(f"file://{tmp_path}/missing.git", "main", str(tmp_path / "work"), GitCredentials(), stale_after=1.0)
    with Running([source.checkout], server.url, source=source) as ctl:
        wait_for(lambda: len(ctl.events("round")) >= 2, what="two rounds")
        errors = ctl.events("error")
        assert errors and errors[0]["type"] == "git" and "git fetch" in errors[0]["message"]
        assert ctl.events("revision_accepted") == [] and js.streams() == []
        assert ctl.events("round")[0]["error"] == "the git source has never been fetched; nothing is applied"
        wait_for(
            lambda: get(ctl.port, "/readyz")[0] == 503 and "no successful git fetch" in get(ctl.port, "/readyz")[1], what="/readyz to name the stale source"
        )


@pytest.fixture
def daemon(tmp_path: Path, origin: tuple[Path, Path]) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """``git daemon`` serving tmp_path on a free loopback port; yields the repository's git:// URL."""
    port = free_port()
    proc = subprocess.Popen(
        ["git", "daemon", "--reuseaddr", "--export-all", f"--base-path={tmp_path}", "--listen=127.0.0.1", f"--port={port}", str(tmp_path)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"git://127.0.0.1:{port}/origin.git"
    try:
        wait_for(lambda: subprocess.run(["git", "ls-remote", url], capture_output=True, timeout=10).returncode == 0, what="git daemon to serve")
        yield url, proc
    finally:
        if proc.poll() is None:
            proc.terminate()
            proc.wait(10)


def test_jsops_controller_repo_over_git_daemon(
    server: NatsServer, js: Js, tmp_path: Path, origin: tuple[Path, Path], daemon: tuple[str, subprocess.Popen[bytes]]
) -> None:
    """The command line end to end, in a subprocess: ``--repo git://... --branch main --path
    manifests``; a force-push is applied; once the daemon is gone, /readyz turns red after
    ``--git-stale-after`` while the last commit stays in force."""
    url, proc = daemon
    _, author = origin
    ctl = Proc(
        [],
        server.url,
        "--repo",
        url,
        "--branch",
        "main",
        "--path",
        "manifests",
        "--workdir",
        str(tmp_path / "work"),
        "--no-lease",
        "--git-stale-after",
        "2s",
        log=tmp_path / "events.jsonl",
    )
    try:
        wait_for(lambda: js.consumer("ORDERS", "shipper"), 30, "the first commit to be applied")
        wait_for(lambda: get(ctl.port, "/readyz")[0] == 200, 30, "ready")
        new = force_push_rewrite(author)
        wait_for(lambda: js.stream("INVOICES"), 30, "the force-pushed commit to be applied")
        assert any(e.get("commit") == new for e in ctl.events("revision_accepted"))
        wait_for(lambda: get(ctl.port, "/readyz") == (200, f"ready\ncommit {new}\n"), 30, "/readyz to name the commit")
        assert ctl.events("started")[0]["source"] == f"{url}#main"
        # sources are recorded relative to the clone's root, as `jsops apply` in a clone records them
        meta = js.stream("INVOICES")["config"]["metadata"]  # type: ignore[index]
        assert meta["io.jsops.source"] == "manifests/invoices.yaml"
        proc.terminate()
        proc.wait(10)
        gone = time.monotonic()
        wait_for(lambda: get(ctl.port, "/readyz")[0] == 503, 30, "/readyz to turn red")
        assert time.monotonic() - gone >= 1.5  # not before the staleness (2s since the last good fetch)
        code, body = get(ctl.port, "/readyz")
        assert "no successful git fetch for" in body and "more than 2s" in body
        assert (sample(ctl.metrics(), "jsops_controller_errors_total", context="", type="git", err_code="") or 0) >= 1
        assert sample(ctl.metrics(), "jsops_controller_git_commit_info", commit=new) == 1  # still in force
    finally:
        ctl.stop()


def test_token_reaches_git_only_through_askpass(tmp_path: Path) -> None:
    """The HTTPS token is read from its file by the askpass script: it is in neither argv nor the
    environment git runs with, and the script answers git's two prompts."""
    token_file = tmp_path / "token"
    token_file.write_text("s3cr3t-t0ken-value\n")
    source = GitSource.remote("https://example.invalid/r.git", "main", str(tmp_path / "w"), GitCredentials(token_file=str(token_file), username="robot"))
    env = source._env()
    assert not any("s3cr3t" in v for v in env.values())
    ask = env["GIT_ASKPASS"]
    user = subprocess.run([ask, "Username for 'https://example.invalid': "], env=env, capture_output=True, text=True)
    password = subprocess.run([ask, "Password for 'https://robot@example.invalid': "], env=env, capture_output=True, text=True)
    assert (user.stdout, password.stdout.strip()) == ("robot\n", "s3cr3t-t0ken-value")
    assert source.secrets() == ["s3cr3t-t0ken-value"]


def test_ssh_credentials_are_files_in_git_ssh_command(tmp_path: Path) -> None:
    creds = GitCredentials.from_env({"JSOPS_GIT_SSH_KEY_FILE": "/secrets/id ed25519", "JSOPS_GIT_KNOWN_HOSTS_FILE": "/secrets/known_hosts"})
    env = GitSource.remote("git@example.invalid:r.git", "main", str(tmp_path), creds)._env()
    assert env["GIT_SSH_COMMAND"] == (
        "ssh -o BatchMode=yes -o StrictHostKeyChecking=yes -i '/secrets/id ed25519' -o IdentitiesOnly=yes -o UserKnownHostsFile=/secrets/known_hosts"
    )
    assert GitCredentials.from_env({"JSOPS_GIT_TOKEN_FILE": "/a"}, token_file="/b").token_file == "/b"  # the flag wins


def test_usage_errors(tmp_path: Path) -> None:
    def run(*args: str) -> tuple[int, str]:
        done = subprocess.run(
            [sys.executable, "-m", "jsops.reconciler.controller.cli", *args],
            cwd=REPO,
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONPATH": str(REPO)},
        )
        return done.returncode, done.stderr

    assert run("--repo", "file:///x", str(tmp_path)) == (
        2,
        "jsops controller: error: --repo takes no PATH and no --git (use --path DIR for a directory of the repository)\n",
    )
    assert run("--repo", "file:///x", "--path", "../up")[0] == 2
    assert run("--repo", "file:///x", "--git-token-file", str(tmp_path / "nope"))[1].endswith("cannot be read\n")
    assert run()[1] == "jsops controller: error: give manifest PATHs, or --repo URL\n"
