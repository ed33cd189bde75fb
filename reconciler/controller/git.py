"""The controller's git source: the branch tip of a remote repository, followed every round.

Two modes, one behaviour:

- ``--repo URL --branch B [--path DIR]``: the controller keeps its own clone in a working
  directory (``--workdir``), created on the first round;
- ``--git``: an existing clone holding the manifests, following its branch's upstream.

Every round fetches the branch and moves the checkout to the fetched commit (``git fetch`` of
``+refs/heads/B`` then ``git reset --hard``): the branch tip is what counts, so a force-pushed
branch is followed like any other push; history is not the controller's business. Nothing is
merged, so a fetch never stops on diverged histories.

Credentials come from files named by flags or environment variables, never from the command
line: an SSH private key and a known_hosts file (through ``GIT_SSH_COMMAND``, host keys checked
strictly), or an HTTPS token (through ``GIT_ASKPASS``: a small script that reads the token file
when git asks, so the token is in no process's argv or environment). Git's own messages are
shortened to their last line and reach the event log with the token blanked out.

A user and token written in an ``http(s)://user:token@host/...`` URL are taken out of it: the
clone's remote is the URL without them (nothing secret in ``.git/config`` or ``FETCH_HEAD``), and
git gets them from the same askpass script, through the environment of the git process only
(readable by the controller's user alone). Credential helpers from the user's git configuration
are switched off whenever jsops supplies a credential, so that none stores it (``credential.helper
store`` would write it to ``~/.git-credentials``). The controller's own clone is private: its
directory is mode 0700 and git runs in it with umask 077.

The source remembers when it last fetched successfully: :meth:`GitSource.stale` turns the
controller's ``/readyz`` red once no fetch has succeeded for ``stale_after`` seconds.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import stat
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from urllib.parse import quote, unquote, urlsplit

from ..client import scrub
from .source import SourceError

__all__ = ["GitCredentials", "GitSource", "default_workdir", "split_userinfo", "DEFAULT_STALE_AFTER"]

DEFAULT_STALE_AFTER = 300.0  # seconds without a successful fetch before /readyz fails (--git-stale-after)
_ASKPASS = """#!/bin/sh
# jsops: answers git's HTTPS prompts: the token from its file, or the password taken out of the URL
case "$1" in
  Username*) printf '%s\\n' "${JSOPS_GIT_USERNAME:-git}" ;;
  *) if [ -n "${JSOPS_GIT_PASSWORD+set}" ]; then printf '%s\\n' "$JSOPS_GIT_PASSWORD"; else cat "$JSOPS_GIT_TOKEN_FILE"; fi ;;
esac
"""
_CLONE_MODE = 0o700  # the controller's own clone: its user only
_CLONE_UMASK = 0o077  # what git creates in it: files 0600, directories 0700
_CHILD_ONLY = ("JSOPS_GIT_TOKEN_FILE", "JSOPS_GIT_USERNAME", "JSOPS_GIT_PASSWORD")  # set by _env alone, never inherited


def split_userinfo(url: str) -> tuple[str, str | None, str | None]:
    """An ``http(s)://`` URL without its user information, and the user and password it carried
    (percent-decoded; None when absent). Other URLs are returned as they are: an SSH URL's user
    (``ssh://git@host``) is no secret and ssh is never given a password."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url, None, None
    if parts.scheme.lower() not in ("http", "https") or "@" not in parts.netloc:
        return url, None, None
    info, _, host = parts.netloc.rpartition("@")
    user, colon, password = info.partition(":")
    return parts._replace(netloc=host).geturl(), unquote(user) or None, unquote(password) if colon else None


@dataclass(frozen=True)
class GitCredentials:
    """Where the credentials are: file paths only (the files are read by ssh and the askpass
    script when git needs them). Empty: anonymous access."""

    ssh_key_file: str | None = None
    known_hosts_file: str | None = None
    token_file: str | None = None
    username: str | None = None  # HTTPS user sent with the token (default "git")

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None, **given: str | None) -> GitCredentials:
        """Flags in ``given`` win over ``JSOPS_GIT_SSH_KEY_FILE``, ``JSOPS_GIT_KNOWN_HOSTS_FILE``,
        ``JSOPS_GIT_TOKEN_FILE`` and ``JSOPS_GIT_USERNAME``."""
        env = os.environ if environ is None else environ
        names = {
            "ssh_key_file": "JSOPS_GIT_SSH_KEY_FILE",
            "known_hosts_file": "JSOPS_GIT_KNOWN_HOSTS_FILE",
            "token_file": "JSOPS_GIT_TOKEN_FILE",
            "username": "JSOPS_GIT_USERNAME",
        }
        return cls(**{k: given.get(k) or env.get(v) or None for k, v in names.items()})

    def check(self) -> None:
        """A usage error (``ValueError``) when a named file cannot be read."""
        for what, path in (
            ("SSH key", self.ssh_key_file),
            ("known_hosts", self.known_hosts_file),
            ("token", self.token_file),
        ):
            if path is not None and not os.access(path, os.R_OK):
                raise ValueError(f"git {what} file {path}: cannot be read")

    def token(self) -> str | None:
        """The token's text (for blanking it out of messages), or None."""
        if self.token_file is None:
            return None
        try:
            with open(self.token_file, encoding="utf-8") as fh:
                return fh.read().strip() or None
        except OSError:
            return None


def default_workdir(repo: str, branch: str) -> str:
    """``$XDG_CACHE_HOME/jsops/git/<hash of URL and branch>`` (``~/.cache`` without it); the URL
    without user information, so that a rotated token keeps the same clone."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    public = split_userinfo(repo)[0]
    return os.path.join(base, "jsops", "git", hashlib.sha256(f"{public}#{branch}".encode()).hexdigest()[:16])


@dataclass
class GitSource:
    """A branch followed by fetch + hard reset. Build it with :meth:`remote` or :meth:`clone`."""

    checkout: str  # the work tree the manifests are read from
    remote_name: str = "origin"
    branch: str | None = None  # None: the upstream of the clone's current branch (--git), found on each sync
    url: str | None = (
        None  # --repo: the remote's URL, never with user information (set on the clone's remote on every round)
    )
    credentials: GitCredentials = field(default_factory=GitCredentials)
    stale_after: float = DEFAULT_STALE_AFTER
    timeout: float = 120.0
    own_clone: bool = False  # --repo: untracked files are removed too (the clone is the controller's)
    commit: str | None = None  # the commit checked out by the last successful sync
    last_success: float | None = None  # time.monotonic() of the last successful fetch
    last_error: str | None = None
    started: float = field(default_factory=time.monotonic)
    _askpass_dir: str | None = None
    # the user and password taken out of an http(s) ``url`` (given to git by the askpass script only)
    _url_user: str | None = field(default=None, repr=False)
    _url_password: str | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.url is not None:
            self.url, user, password = split_userinfo(self.url)
            self._url_user = user or self._url_user
            self._url_password = password if password is not None else self._url_password

    @classmethod
    def remote(
        cls, url: str, branch: str, workdir: str, credentials: GitCredentials, stale_after: float = DEFAULT_STALE_AFTER
    ) -> GitSource:
        return cls(
            checkout=os.path.join(workdir, "repo"),
            branch=branch,
            url=url,
            credentials=credentials,
            stale_after=stale_after,
            own_clone=True,
        )

    @classmethod
    def clone(
        cls, path: str, credentials: GitCredentials | None = None, stale_after: float = DEFAULT_STALE_AFTER
    ) -> GitSource:
        """The existing clone holding ``path`` (a directory or a file in it)."""
        where = path if os.path.isdir(path) else (os.path.dirname(path) or ".")
        return cls(checkout=where, credentials=credentials or GitCredentials(), stale_after=stale_after)

    # -- status ----------------------------------------------------------------------------------

    def stale(self, now: float | None = None) -> str | None:
        """Why the source is stale (no successful fetch for ``stale_after`` seconds), or None."""
        now = time.monotonic() if now is None else now
        since = self.last_success if self.last_success is not None else self.started
        if now - since <= self.stale_after:
            return None
        what = f"no successful git fetch for {now - since:.0f}s (more than {self.stale_after:.0f}s)"
        return what + (f": {self.last_error}" if self.last_error else "")

    def secrets(self) -> list[str]:
        """What to blank out of messages: the token, and the credential taken out of the URL (the
        password, or the user when it is the only credential: ``https://TOKEN@host`` is how some
        hosts take a token), raw and as written in the URL."""
        token = self.credentials.token()
        out = [token] if token else []
        from_url = self._url_password or (
            self._url_user if self._url_password is None and not self.credentials.token_file else None
        )
        if from_url:
            out += [from_url, quote(from_url, safe="")]
        return out

    def describe(self) -> str:
        return f"{self.url or self.checkout}#{self.branch or 'upstream'}"

    # -- git ---------------------------------------------------------------------------------------

    def _supplies_credential(self) -> bool:
        return bool(self.credentials.token_file or self._url_user or self._url_password is not None)

    def _env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_") and k not in _CHILD_ONLY}
        env.update(GIT_TERMINAL_PROMPT="0", GIT_CONFIG_NOSYSTEM="1", LC_ALL="C")
        creds = self.credentials
        if creds.ssh_key_file or creds.known_hosts_file:
            ssh = ["ssh", "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=yes"]
            if creds.ssh_key_file:
                ssh += ["-i", creds.ssh_key_file, "-o", "IdentitiesOnly=yes"]
            if creds.known_hosts_file:
                ssh += ["-o", f"UserKnownHostsFile={creds.known_hosts_file}"]
            env["GIT_SSH_COMMAND"] = shlex.join(ssh)
        if self._supplies_credential():
            env["GIT_ASKPASS"] = self._askpass()
            # the URL's credential wins over the token file, as git itself used it before
            if self._url_password is not None or not creds.token_file:
                env["JSOPS_GIT_PASSWORD"] = self._url_password or ""
            else:
                env["JSOPS_GIT_TOKEN_FILE"] = creds.token_file
            user = self._url_user or creds.username
            if user:
                env["JSOPS_GIT_USERNAME"] = user
        return env

    def _askpass(self) -> str:
        if self._askpass_dir is None or not os.path.exists(os.path.join(self._askpass_dir, "askpass")):
            self._askpass_dir = tempfile.mkdtemp(prefix="jsops-git-")
            script = os.path.join(self._askpass_dir, "askpass")
            with open(script, "w", encoding="utf-8") as fh:
                fh.write(_ASKPASS)
            os.chmod(script, stat.S_IRWXU)
        return os.path.join(self._askpass_dir, "askpass")

    def _git(self, *args: str, cwd: str | None = None) -> str:
        where = cwd or self.checkout
        # no credential helper of the user's configuration may answer for, or store, what jsops supplies
        helpers = ["-c", "credential.helper="] if self._supplies_credential() else []
        try:
            done = subprocess.run(
                ["git", *helpers, "-C", where, *args],
                capture_output=True,
                text=True,
                timeout=self.timeout,
                env=self._env(),
                stdin=subprocess.DEVNULL,
                umask=_CLONE_UMASK if self.own_clone else -1,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise SourceError(f"git {args[0]} in {where}: {exc}") from None
        if done.returncode != 0:
            lines = (done.stderr or done.stdout).strip().splitlines()
            said = scrub(lines[-1] if lines else f"exit {done.returncode}", self.secrets())  # it reaches /readyz too
            raise SourceError(f"git {args[0]} in {where} failed: {said}")
        return done.stdout.strip()

    def run(self, *args: str, cwd: str) -> str:
        """One git command in ``cwd`` with this source's credentials (the pull mode's own repository,
        :mod:`jsops.reconciler.controller.pulls`); its output, or :class:`SourceError`."""
        return self._git(*args, cwd=cwd)

    def remote_url(self) -> str:
        """The URL fetched from: ``--repo``'s, else the clone's upstream remote's."""
        if self.url is not None:
            return self.url
        remote = self._git("rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{upstream}").partition("/")[0]
        return self._git("remote", "get-url", remote)

    def _prepare(self) -> tuple[str, str]:
        """The remote and branch to fetch (creating the controller's own clone when needed)."""
        if self.url is not None and self.branch is not None:
            os.makedirs(self.checkout, mode=_CLONE_MODE, exist_ok=True)
            if stat.S_IMODE(os.stat(self.checkout).st_mode) != _CLONE_MODE:  # created wider, or by an older jsops
                os.chmod(self.checkout, _CLONE_MODE)
            if not os.path.isdir(os.path.join(self.checkout, ".git")):
                self._git("init", "--quiet")
                self._git("remote", "add", self.remote_name, self.url)
            else:
                self._git("remote", "set-url", self.remote_name, self.url)
            return self.remote_name, self.branch
        upstream = self._git("rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{upstream}")
        remote, _, branch = upstream.partition("/")
        if not branch:
            raise SourceError(f"git: the branch checked out in {self.checkout} has no upstream ({upstream!r})")
        return remote, branch

    def sync(self) -> str:
        """Fetch the branch and check out its tip (force-pushes included); returns the commit.
        A failure raises :class:`SourceError`; the checkout stays as it was."""
        try:
            remote, branch = self._prepare()
            tracking = f"refs/remotes/{remote}/{branch}"
            self._git("fetch", "--quiet", "--no-tags", "--prune", remote, f"+refs/heads/{branch}:{tracking}")
            tip = self._git("rev-parse", "--verify", f"{tracking}^{{commit}}")
            if self.own_clone:
                self._git("checkout", "--quiet", "--force", "-B", branch, tip)
                self._git("clean", "-ffdxq")
            else:
                self._git("reset", "--quiet", "--hard", tip)
        except SourceError as exc:
            self.last_error = str(exc)
            raise
        except OSError as exc:
            self.last_error = f"git: {exc.strerror or exc}"
            raise SourceError(self.last_error) from None
        self.commit, self.last_success, self.last_error = tip, time.monotonic(), None
        return tip
