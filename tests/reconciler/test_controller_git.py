"""The controller follows a git branch by itself (``--repo URL --branch B``) or in an existing clone
(``--git``), against real git: a bare repository served over ``file://`` and over ``git daemon`` on
loopback. A force-pushed branch is applied within one round, the applied commit is reported (event
log, /metrics, /readyz), and a repository that cannot be fetched turns /readyz red after the stated
staleness."""

from __future__ import annotations

import base64
import os
import stat
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from natsserver import free_port

from jsops.reconciler.controller.git import GitCredentials, GitSource, default_workdir, split_userinfo
from jsops.reconciler.controller.source import SourceError

from .helpers import Js, NatsServer, manifest
from .test_controller_helpers import CONTROLLER, REPO, STREAM_YAML, Proc, Running, get, sample, wait_for

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


def push(author: Path, files: dict[str, str], message: str, *, force: bool = False) -> str:
    """Write ``files`` (paths in the author's clone), commit them as ``message`` and push the commit to
    ``main`` (``force``: force-pushed); its sha."""
    for name, text in files.items():
        manifest(author / os.path.dirname(name), os.path.basename(name), text)
    git(author, "add", ".")
    git(author, "commit", "-q", "-m", message)
    git(author, "push", "-q", *(["--force"] if force else []), "origin", "HEAD:main")
    return git(author, "rev-parse", "HEAD")


def make_origin(tmp_path: Path) -> tuple[Path, Path, str]:
    """A bare repository (``origin.git``), an author's clone that pushed one commit to ``main`` with the
    ORDERS estate under ``manifests/``, and that commit."""
    bare = tmp_path / "origin.git"
    bare.mkdir()
    git(bare, "init", "--bare", "-q")
    git(tmp_path, "clone", "-q", str(bare), "author")
    author = tmp_path / "author"
    return bare, author, push(author, {"manifests/orders.yaml": STREAM_YAML}, "one")


@pytest.fixture
def origin(tmp_path: Path) -> tuple[Path, Path]:
    """:func:`make_origin`'s repository and clone."""
    bare, author, _ = make_origin(tmp_path)
    return bare, author


def _following(url: str, tmp_path: Path) -> list[str]:
    """``jsops controller``'s options to follow ``manifests/`` on ``url``'s main (cloned under ``work``), without a lease."""
    return ["--repo", url, "--branch", "main", "--path", "manifests", "--workdir", str(tmp_path / "work"), "--no-lease"]


def force_push_rewrite(author: Path) -> str:
    """Rewrite main: a new root commit (no common history) adding INVOICES, force-pushed; its sha."""
    git(author, "checkout", "-q", "--orphan", "rewritten")
    git(author, "rm", "-rfq", ".")
    return push(author, {"manifests/invoices.yaml": OTHER_YAML}, "rewritten history", force=True)


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
    wait_for(
        lambda: any(e["event"] == "round" and e.get("commit") == new for e in ctl.events()),
        what="the round of the force-pushed commit",
    )
    # the round running when the push was done may have fetched before it; the next one has the new tip
    assert _first_round_with(ctl.events(), new) <= pushed_at + 1
    accepted = [e for e in ctl.events("revision_accepted")]
    assert [e["commit"] for e in accepted] == [first, new]
    assert accepted[-1]["revision"].startswith(f"git:{new[:12]}/")
    wait_for(
        lambda: sample(ctl.metrics(), "jsops_controller_git_commit_info", commit=new) == 1,
        what="the commit in /metrics",
    )
    assert (sample(ctl.metrics(), "jsops_controller_git_last_fetch_timestamp_seconds") or 0) > 0
    code, body = get(ctl.port, "/readyz")
    assert code == 200 and body == f"ready\ncommit {new}\n"
    assert ctl.events("error") == []
    assert ctl.events("source_changed") == []  # the round's own checkout is not a change seen after it
    return new


def test_repo_follows_force_push_over_file_url(
    server: NatsServer, js: Js, tmp_path: Path, origin: tuple[Path, Path]
) -> None:
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
    source = GitSource.remote(
        f"file://{tmp_path}/missing.git", "main", str(tmp_path / "work"), GitCredentials(), stale_after=1.0
    )
    with Running([source.checkout], server.url, source=source) as ctl:
        wait_for(lambda: len(ctl.events("round")) >= 2, what="two rounds")
        errors = ctl.events("error")
        assert errors and errors[0]["type"] == "git" and "git fetch" in errors[0]["message"]
        assert ctl.events("revision_accepted") == [] and js.streams() == []
        assert ctl.events("round")[0]["error"] == "the git source has never been fetched; nothing is applied"
        wait_for(
            lambda: get(ctl.port, "/readyz")[0] == 503 and "no successful git fetch" in get(ctl.port, "/readyz")[1],
            what="/readyz to name the stale source",
        )


@pytest.fixture
def daemon(tmp_path: Path, origin: tuple[Path, Path]) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """``git daemon`` serving tmp_path on a free loopback port; yields the repository's git:// URL."""
    port = free_port()
    proc = subprocess.Popen(
        [
            "git",
            "daemon",
            "--reuseaddr",
            "--export-all",
            f"--base-path={tmp_path}",
            "--listen=127.0.0.1",
            f"--port={port}",
            str(tmp_path),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"git://127.0.0.1:{port}/origin.git"
    try:
        wait_for(
            lambda: subprocess.run(["git", "ls-remote", url], capture_output=True, timeout=10).returncode == 0,
            what="git daemon to serve",
        )
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
    ctl = Proc([], server.url, *_following(url, tmp_path), "--git-stale-after", "2s", log=tmp_path / "events.jsonl")
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
    source = GitSource.remote(
        "https://example.invalid/r.git",
        "main",
        str(tmp_path / "w"),
        GitCredentials(token_file=str(token_file), username="robot"),
    )
    env = source._env()
    assert not any("s3cr3t" in v for v in env.values())
    ask = env["GIT_ASKPASS"]
    user = subprocess.run([ask, "Username for 'https://example.invalid': "], env=env, capture_output=True, text=True)
    password = subprocess.run(
        [ask, "Password for 'https://robot@example.invalid': "], env=env, capture_output=True, text=True
    )
    assert (user.stdout, password.stdout.strip()) == ("robot\n", "s3cr3t-t0ken-value")
    assert source.secrets() == ["s3cr3t-t0ken-value"]


def test_ssh_credentials_are_files_in_git_ssh_command(tmp_path: Path) -> None:
    creds = GitCredentials.from_env(
        {"JSOPS_GIT_SSH_KEY_FILE": "/secrets/id ed25519", "JSOPS_GIT_KNOWN_HOSTS_FILE": "/secrets/known_hosts"}
    )
    env = GitSource.remote("git@example.invalid:r.git", "main", str(tmp_path), creds)._env()
    assert env["GIT_SSH_COMMAND"] == (
        "ssh -o BatchMode=yes -o StrictHostKeyChecking=yes -i '/secrets/id ed25519' -o IdentitiesOnly=yes -o UserKnownHostsFile=/secrets/known_hosts"
    )
    assert GitCredentials.from_env({"JSOPS_GIT_TOKEN_FILE": "/a"}, token_file="/b").token_file == "/b"  # the flag wins


def test_usage_errors(tmp_path: Path) -> None:
    def run(*args: str) -> tuple[int, str]:
        done = subprocess.run(
            [*CONTROLLER, *args],
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


# -- a token in an https URL or a token file, against git's smart HTTP protocol on loopback ---------

TOKEN = "glpat-Zk9#s3cr3t/t0ken"  # "#" and "/" must be percent-encoded in a URL


@dataclass
class HttpGit:
    """``git http-backend`` (CGI) behind a loopback HTTP server that demands basic authentication
    as ``user``/``token``; ``seen`` holds every request's Authorization header (None: none sent)."""

    root: Path
    user: str
    token: str
    seen: list[str | None] = field(default_factory=list)
    port: int = 0

    def url(self, userinfo: str = "") -> str:
        return f"http://{userinfo + '@' if userinfo else ''}127.0.0.1:{self.port}/origin.git"

    def expected(self) -> str:
        return "Basic " + base64.b64encode(f"{self.user}:{self.token}".encode()).decode()


def _handler(git: HttpGit) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            self._cgi()

        def do_POST(self) -> None:
            self._cgi()

        def _cgi(self) -> None:
            auth = self.headers.get("Authorization")
            git.seen.append(auth)
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            if auth != git.expected():
                self.send_response(401)
                self.send_header("WWW-Authenticate", 'Basic realm="git"')
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            path, _, query = self.path.partition("?")
            env = {
                "PATH": os.environ["PATH"],
                "GIT_PROJECT_ROOT": str(git.root),
                "GIT_HTTP_EXPORT_ALL": "1",
                "GIT_CONFIG_NOSYSTEM": "1",
                "HOME": str(git.root),
                "REQUEST_METHOD": self.command,
                "PATH_INFO": path,
                "QUERY_STRING": query,
                "CONTENT_TYPE": self.headers.get("Content-Type", ""),
                "CONTENT_LENGTH": str(len(body)),
                "HTTP_CONTENT_ENCODING": self.headers.get("Content-Encoding", ""),
                "GIT_PROTOCOL": self.headers.get("Git-Protocol", ""),
                "REMOTE_USER": git.user,
                "REMOTE_ADDR": "127.0.0.1",
            }
            out = subprocess.run(["git", "http-backend"], input=body, env=env, capture_output=True, timeout=60).stdout
            sep = b"\r\n\r\n" if b"\r\n\r\n" in out else b"\n\n"
            head, _, payload = out.partition(sep)
            status, headers = 200, []
            for line in head.decode().splitlines():
                name, _, value = line.partition(":")
                if name.lower() == "status":
                    status = int(value.split()[0])
                elif name:
                    headers.append((name, value.strip()))
            self.send_response(status)
            for name, value in headers:
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    return Handler


@pytest.fixture
def http_git(tmp_path: Path, origin: tuple[Path, Path]) -> Iterator[HttpGit]:
    """The origin repository over smart HTTP on loopback, for user ``robot`` with :data:`TOKEN`."""
    git = HttpGit(root=tmp_path, user="robot", token=TOKEN)
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(git))
    git.port = httpd.server_address[1]
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield git
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(10)


@pytest.fixture
def storing_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A HOME whose git configuration stores every credential git uses (``credential.helper
    store``, in ``~/.git-credentials``), and umask 022: what a user's machine commonly has."""
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text("[credential]\n\thelper = store\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    old = os.umask(0o022)
    try:
        yield home
    finally:
        os.umask(old)


def _holding(root: Path, *needles: str) -> list[str]:
    """The files under ``root`` whose bytes contain any of ``needles``."""
    found = []
    for dirpath, _, files in os.walk(root):
        for name in files:
            path = Path(dirpath, name)
            if path.is_symlink() or not path.is_file():
                continue
            data = path.read_bytes()
            if any(n.encode() in data for n in needles):
                found.append(str(path.relative_to(root)))
    return found


def _open_to_others(root: Path) -> list[str]:
    """Everything under ``root`` (itself included) that its group or others may read, write or enter."""
    out = []
    for dirpath, _, files in os.walk(root):
        for path in [Path(dirpath)] + [Path(dirpath, n) for n in files]:
            mode = path.lstat().st_mode
            if not stat.S_ISLNK(mode) and stat.S_IMODE(mode) & 0o077:
                out.append(f"{path.relative_to(root.parent)} {stat.S_IMODE(mode):04o}")
    return out


def _secret_forms(user: str, token: str) -> tuple[str, ...]:
    return (token, quote(token, safe=""), base64.b64encode(f"{user}:{token}".encode()).decode())


def test_token_in_url_is_used_for_fetch_but_written_nowhere(
    tmp_path: Path, origin: tuple[Path, Path], http_git: HttpGit, storing_home: Path
) -> None:
    """``--repo https://user:token@host/...``: git fetches with the token, yet the clone's
    ``.git/config`` holds the URL without it, no file of the clone (nor ``~/.git-credentials``)
    holds it, and the clone is its user's alone (0700, nothing open to group or others). Before,
    the URL with the token sat in ``.git/config``, mode 0644 under 0755 directories."""
    _, author = origin
    work = tmp_path / "work"
    source = GitSource.remote(http_git.url(f"robot:{quote(TOKEN, safe='')}"), "main", str(work), GitCredentials())
    assert source.sync() == git(author, "rev-parse", "HEAD")
    assert (work / "repo" / "manifests" / "orders.yaml").is_file()
    assert http_git.expected() in http_git.seen  # the token was sent: the server refuses any request without it
    second = push(author, {"manifests/invoices.yaml": OTHER_YAML}, "two")
    assert source.sync() == second and (work / "repo" / "manifests" / "invoices.yaml").is_file()
    assert git(work / "repo", "config", "--get", "remote.origin.url") == http_git.url()
    assert _holding(work, *_secret_forms("robot", TOKEN)) == []
    assert (
        _holding(storing_home, *_secret_forms("robot", TOKEN)) == []
        and not (storing_home / ".git-credentials").exists()
    )
    assert stat.S_IMODE((work / "repo").stat().st_mode) == 0o700
    assert _open_to_others(work / "repo") == []
    # what the event log and /readyz show of the source
    assert source.describe() == f"{http_git.url()}#main" and TOKEN not in repr(source)
    assert TOKEN in source.secrets() and quote(TOKEN, safe="") in source.secrets()


def test_token_file_is_stored_by_no_credential_helper(
    tmp_path: Path, origin: tuple[Path, Path], http_git: HttpGit, storing_home: Path
) -> None:
    """``--git-token-file``: the user's ``credential.helper store`` does not copy the token to
    ``~/.git-credentials`` (it did: git hands every credential that worked to the helpers)."""
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")
    source = GitSource.remote(
        http_git.url(), "main", str(tmp_path / "work"), GitCredentials(token_file=str(token_file), username="robot")
    )
    source.sync()
    assert http_git.expected() in http_git.seen
    assert not (storing_home / ".git-credentials").exists()
    assert (
        _holding(tmp_path / "work", *_secret_forms("robot", TOKEN)) == []
        and _open_to_others(tmp_path / "work" / "repo") == []
    )


def test_clone_of_an_older_jsops_is_made_private_and_forgets_the_token(
    tmp_path: Path, origin: tuple[Path, Path], http_git: HttpGit, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A clone left by an older jsops (the URL with the token in ``.git/config``, 0755) is narrowed
    to 0700 and its remote rewritten without the token on the next round."""
    (tmp_path / "empty-home").mkdir()
    monkeypatch.setenv("HOME", str(tmp_path / "empty-home"))  # no credential helper of the real HOME sees the token
    clone = tmp_path / "work" / "repo"
    clone.parent.mkdir()
    git(tmp_path / "work", "clone", "-q", http_git.url(f"robot:{quote(TOKEN, safe='')}"), "repo")
    os.chmod(clone, 0o755)
    assert _holding(clone, TOKEN, quote(TOKEN, safe=""))  # the old state
    source = GitSource.remote(
        http_git.url(f"robot:{quote(TOKEN, safe='')}"), "main", str(tmp_path / "work"), GitCredentials()
    )
    source.sync()
    assert git(clone, "config", "--get", "remote.origin.url") == http_git.url()
    assert _holding(clone, TOKEN, quote(TOKEN, safe="")) == []
    assert stat.S_IMODE(clone.stat().st_mode) == 0o700


def test_wrong_token_error_names_no_secret(tmp_path: Path, origin: tuple[Path, Path], http_git: HttpGit) -> None:
    wrong = "wr0ng-t0ken-value"
    source = GitSource.remote(http_git.url(f"robot:{wrong}"), "main", str(tmp_path / "work"), GitCredentials())
    with pytest.raises(SourceError) as caught:
        source.sync()
    assert "git fetch" in str(caught.value) and wrong not in str(caught.value) and "robot:" not in str(caught.value)
    assert source.last_error is not None and wrong not in source.last_error
    assert len(http_git.seen) >= 2 and http_git.seen[0] is None  # asked without, then with the (wrong) credential
    assert _holding(tmp_path / "work", wrong) == []


def test_controller_with_token_url_logs_no_token(
    server: NatsServer, js: Js, tmp_path: Path, http_git: HttpGit, storing_home: Path
) -> None:
    """``jsops controller --repo http://robot:TOKEN@...`` end to end: the estate is applied, and
    neither the event log nor the clone holds the token."""
    url = http_git.url(f"robot:{quote(TOKEN, safe='')}")
    ctl = Proc([], server.url, *_following(url, tmp_path), log=tmp_path / "events.jsonl")
    try:
        wait_for(lambda: js.consumer("ORDERS", "shipper"), 30, "the estate applied over HTTP with the token")
        wait_for(lambda: ctl.events("revision_accepted"), 30, "the revision accepted")
        assert ctl.events("started")[0]["source"] == f"{http_git.url()}#main"
    finally:
        ctl.stop()
    assert _holding(tmp_path, TOKEN, quote(TOKEN, safe="")) == []  # events.jsonl, the clone, HOME
    assert _open_to_others(tmp_path / "work" / "repo") == []


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://robot:t%2Fk%40n@git.example.com/p/r.git", ("https://git.example.com/p/r.git", "robot", "t/k@n")),
        ("https://TOKEN@git.example.com:8443/r.git?x=1", ("https://git.example.com:8443/r.git?x=1", "TOKEN", None)),
        ("HTTP://u:@[::1]:80/r", ("http://[::1]:80/r", "u", "")),
        ("https://git.example.com/r.git", ("https://git.example.com/r.git", None, None)),
        ("ssh://git@git.example.com/r.git", ("ssh://git@git.example.com/r.git", None, None)),
        ("git@git.example.com:r.git", ("git@git.example.com:r.git", None, None)),
    ],
)
def test_split_userinfo(url: str, expected: tuple[str, str | None, str | None]) -> None:
    assert split_userinfo(url) == expected


def test_default_workdir_does_not_move_when_the_token_rotates() -> None:
    a = default_workdir("https://robot:one@git.example.com/r.git", "main")
    assert (
        a
        == default_workdir("https://robot:two@git.example.com/r.git", "main")
        == default_workdir("https://git.example.com/r.git", "main")
    )
