"""The controller's desired state: watching the manifest files, loading and linting a revision
(the git source that updates the files is :mod:`jsops.reconciler.controller.git`).

A revision that loads with lint errors is rejected: :func:`load_revision` reports its findings and
the controller keeps the last good revision in force.

The controller's configuration is its operator's: :func:`followed_roots` are the trees whose files
come from commits (a git work tree holding a PATH, the clone of ``--repo``), and the operator's
config is never taken from inside them. A jsops config inside them is the repository's: it is read
with each revision and may only set what :data:`jsops.linter.config.KEY_SCOPES` lets a repository
set; a revision whose config sets anything else is rejected whole, naming the file and the key.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from jsops.linter import Config, LintTarget, RefusedKey

from ..errors import TemporaryError
from ..plan import Desired, desired_from_estate

if TYPE_CHECKING:
    from jsops.linter import Estate

__all__ = [
    "Snapshot",
    "snapshot",
    "Revision",
    "load_revision",
    "SourceError",
    "followed_roots",
    "repository_config_path",
]


class SourceError(TemporaryError):
    """The manifests cannot be read (missing path, unusable --env, git failure)."""


Snapshot = tuple[tuple[str, int, int], ...]


def snapshot(paths: list[str]) -> Snapshot:
    """(path, mtime_ns, size) of every file under ``paths`` (hidden directories skipped): any
    change, addition or removal changes the snapshot."""
    from jsops.linter import walk_manifest_dirs

    out: list[tuple[str, int, int]] = []
    for p in paths:
        if os.path.isdir(p):
            try:
                walked = list(walk_manifest_dirs(p))  # iterative and depth-bounded (a deep tree is a lint finding)
            except OSError:
                walked = []
            for root, files, _ in walked:
                for f in sorted(files):
                    _stat(os.path.join(root, f), out)
        else:
            _stat(p, out)
    return tuple(out)


def _stat(path: str, out: list[tuple[str, int, int]]) -> None:
    try:
        st = os.stat(path)
    except OSError:
        out.append((path, -1, -1))
        return
    out.append((path, st.st_mtime_ns, st.st_size))


@dataclass
class Revision:
    """One loaded and linted revision of the manifests."""

    id: str  # sha256 of the files' contents (and the git commit when pulled)
    estate: Any = None
    errors: list[str] = field(default_factory=list)  # lint errors as file:line:col: CODE message
    commit: str | None = None  # the git commit the files were checked out from
    # The repository's config (inside the followed tree) when it is why the revision is rejected:
    # the file, and the keys it may not set (none: the file is broken, see ``errors``).
    config_file: str | None = None
    refused: tuple[RefusedKey, ...] = ()

    @property
    def good(self) -> bool:
        return not self.errors

    def objects(self, contexts: Iterable[str]) -> int:
        wanted = set(contexts)
        return sum(1 for r in self.estate.resources if r.context in wanted) if self.estate is not None else 0

    def desired(self, contexts: Iterable[str], limits: LintTarget | None = None) -> list[Desired]:
        """The effective configs of the objects routed to ``contexts``, with the target's ``limits``."""
        return desired_from_estate(self.estate, contexts=list(contexts), target=limits)


# Per-file digests, reused while a file's stat is unchanged: a round hashes only what changed.
_StatKey = tuple[int, int, int, int, int]
_DIGESTS: dict[str, tuple[_StatKey, bytes]] = {}
_MAX_DIGESTS = 100_000
_CHUNK = 1 << 20


def _stat_key(path: str) -> _StatKey | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _file_digest(path: str, max_bytes: int) -> bytes:
    """sha256 of a file's first ``max_bytes + 1`` bytes (the loader reads no more: a larger file is
    refused, and past the bound its content changes nothing), read in chunks; cached by stat."""
    key = _stat_key(path)
    if key is None:
        return b"unreadable"
    hit = _DIGESTS.get(path)
    if hit is not None and hit[0] == key:
        return hit[1]
    h = hashlib.sha256()
    left = max_bytes + 1
    try:
        with open(path, "rb") as fh:
            while left > 0:
                chunk = fh.read(min(_CHUNK, left))
                if not chunk:
                    break
                h.update(chunk)
                left -= len(chunk)
    except OSError:
        return b"unreadable"
    digest = h.digest()
    if len(_DIGESTS) >= _MAX_DIGESTS:
        _DIGESTS.clear()
    _DIGESTS[path] = (key, digest)
    return digest


def _content_id(files: list[str], commit: str | None) -> str:
    from jsops.linter import InputLimits

    max_bytes = InputLimits().max_file_bytes
    h = hashlib.sha256()
    for f in sorted(files):
        h.update(f.encode() + b"\0")
        h.update(_file_digest(f, max_bytes))
    rid = "sha256:" + h.hexdigest()[:16]
    return f"git:{commit[:12]}/{rid}" if commit else rid


def work_tree(path: str) -> str | None:
    """The git work tree holding ``path`` (the nearest folder at or above it with a ``.git``), or None."""
    here = os.path.realpath(path)
    folder = here if os.path.isdir(here) else os.path.dirname(here)
    while True:
        if os.path.lexists(os.path.join(folder, ".git")):
            return folder
        up = os.path.dirname(folder)
        if up == folder:
            return None
        folder = up


class FollowedCheckout(Protocol):
    """What :func:`followed_roots` reads of a git source (:class:`jsops.reconciler.controller.git.GitSource`)."""

    @property
    def checkout(self) -> str: ...
    @property
    def own_clone(self) -> bool: ...


def followed_roots(paths: list[str], source: FollowedCheckout | None = None) -> tuple[str, ...]:
    """The trees the controller follows, whose files come from whoever can commit there: the clone
    of a git source (``--repo``: all of it; ``--git``: the work tree holding it), and for each PATH
    the git work tree holding it, else the PATH itself."""
    roots: list[str] = []
    if source is not None:
        checkout = os.path.realpath(source.checkout)
        roots.append(checkout if source.own_clone else (work_tree(checkout) or checkout))
    for p in paths:
        roots.append(work_tree(p) or os.path.realpath(p))
    return tuple(dict.fromkeys(roots))


def _inside(path: str, root: str) -> bool:
    return os.path.commonpath([path, root]) == root


def repository_config_path(paths: list[str], roots: tuple[str, ...]) -> str | None:
    """The jsops config inside the followed trees that a revision is read with: the nearest one from
    the first PATH upward, up to the root of its tree (None: there is none)."""
    from jsops.linter import find_config

    if not paths:
        return None
    first = os.path.realpath(paths[0])
    root = next((r for r in roots if _inside(first, r)), None)
    if root is None or not os.path.isdir(root):
        return None
    return find_config(first if os.path.isdir(first) else os.path.dirname(first), stop=root)


def _load(paths: list[str], env: str | None, config: Config | None) -> Estate:
    from jsops.linter import load_paths

    cfg = config or Config()
    # never the parse cache: it is not trusted for apply; the files read as lint and plan read them
    return load_paths(
        paths,
        env=env,
        cache=False,
        exclude=cfg.exclude,
        consumer_streams=cfg.consumer_stream_globs(),
        nack_version=cfg.nack_version,
    )


def load_revision(
    paths: list[str],
    env: str | None = None,
    commit: str | None = None,
    config: Config | None = None,
    roots: tuple[str, ...] = (),
) -> Revision:
    """Load and lint the manifests (with the jsops ``config``'s rule selection, as ``jsops apply``
    does); a revision with lint errors has ``errors``. ``config`` is the operator's; a config inside
    the followed ``roots`` (:func:`repository_config_path`) is laid over it when it sets only what
    a repository may set, else the revision is rejected naming its file and keys."""
    from jsops.linter import (
        ConfigError,
        LoadError,
        discover_manifests,
        discover_rules,
        finding_line,
        lint_estate,
        load_repository_config,
    )

    repo_config = repository_config_path(paths, roots) if roots else None
    try:
        files = discover_manifests(paths)
    except LoadError as exc:
        raise SourceError(str(exc)) from None
    own = [repo_config] if repo_config else []
    if repo_config is not None:
        try:
            found = load_repository_config(repo_config)
        except ConfigError as exc:
            return Revision(
                _content_id(sorted({*files, *own}), commit), commit=commit, errors=[str(exc)], config_file=repo_config
            )
        if found.refused:
            rid = _content_id(sorted({*files, *own}), commit)
            return Revision(
                rid,
                commit=commit,
                errors=[str(r) for r in found.refused],
                config_file=repo_config,
                refused=found.refused,
            )
        config = found.over(config or Config())
    try:
        estate = _load(paths, env, config)
    except LoadError as exc:
        raise SourceError(str(exc)) from None
    rev = Revision(
        _content_id(sorted(set(files) | set(estate.files or []) | set(own)), commit), estate=estate, commit=commit
    )
    try:
        rules = discover_rules(config, env=env) if config is not None else None  # the config's policies too
    except ConfigError as exc:  # a policy that does not compile: nothing of the revision can be judged
        rev.errors = [str(exc)]
        return rev
    result = lint_estate(estate, rules, config=config)
    errors = [f for f in result.findings if f.severity.value == "error"]
    if errors:
        rev.errors = list(dict.fromkeys(finding_line(f) for f in sorted(errors, key=lambda f: f.sort_key())))
    return rev
