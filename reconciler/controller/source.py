"""The controller's desired state: watching the manifest files, loading and linting a revision
(the git source that updates the files is :mod:`jsops.reconciler.controller.git`).

A revision that loads with lint errors is rejected: :func:`load_revision` reports its findings and
the controller keeps the last good revision in force.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ..errors import TemporaryError
from ..plan import Desired, desired_from_estate

__all__ = ["Snapshot", "snapshot", "Revision", "load_revision", "SourceError"]


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

    @property
    def good(self) -> bool:
        return not self.errors

    def objects(self, contexts: Iterable[str]) -> int:
        wanted = set(contexts)
        return sum(1 for r in self.estate.resources if r.context in wanted) if self.estate is not None else 0

    def desired(self, contexts: Iterable[str], limits: Any = None) -> list[Desired]:
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


def _load(paths: list[str], env: str | None) -> Any:
    from jsops.linter import load_paths

    return load_paths(paths, env=env, cache=False)  # never the parse cache: it is not trusted for apply


def load_revision(paths: list[str], env: str | None = None, commit: str | None = None, config: Any = None) -> Revision:
    """Load and lint the manifests (with the jsops ``config``'s rule selection, as ``jsops apply``
    does); a revision with lint errors has ``errors``."""
    from jsops.linter import ConfigError, LoadError, discover_manifests, discover_rules, lint_estate

    try:
        files = discover_manifests(paths)
        estate = _load(paths, env)
    except LoadError as exc:
        raise SourceError(str(exc)) from None
    rev = Revision(_content_id(sorted(set(files) | set(estate.files or [])), commit), estate=estate, commit=commit)
    try:
        rules = discover_rules(config, env=env) if config is not None else None  # the config's policies too
    except ConfigError as exc:  # a policy that does not compile: nothing of the revision can be judged
        rev.errors = [str(exc)]
        return rev
    result = lint_estate(estate, rules, config=config)
    errors = [f for f in result.findings if f.severity.value == "error"]
    if errors:
        rev.errors = [f"{f.file}:{f.line}:{f.column}: {f.rule} {f.message}" for f in sorted(errors, key=lambda f: f.sort_key())]
    return rev
