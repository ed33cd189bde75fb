"""Where a manifest is recorded as coming from, and whether a recorded path lies in a scope.

Owned objects record their manifest's path (:func:`source_path` form: relative to the root of the
repository holding the manifests, whatever the working directory, with ``/`` separators, else absolute);
``--prune`` with PATHs deletes only objects recorded under them (:func:`in_scope`).
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Callable, Iterable
from typing import Any

from jsops.linter import git_root

__all__ = ["in_scope", "prune_scope", "repo_identity", "repo_root", "source_path"]


def repo_root(anchors: Iterable[str] = ()) -> str:
    """The root of the repository the manifests are in: the nearest directory holding ``.git`` upward from
    the first of ``anchors`` (manifest files or PATHs, in order) that lies in a repository, else from cwd;
    else cwd. So a plan run from a parent workspace records and compares the paths a run inside the
    repository does."""
    for anchor in anchors:
        full = os.path.abspath(anchor)
        found = git_root(full if os.path.isdir(full) else os.path.dirname(full), os.path.exists)
        if found is not None:
            return found
    here = os.path.abspath(os.getcwd())
    found = git_root(here, os.path.exists)
    return here if found is None else found


def repo_identity(root: str | None = None) -> str:
    """What identifies the repository the manifests come from, recorded on the objects applied
    without an ``estate:`` so that ``--prune`` deletes only its own: ``git:HOST/PATH`` of the
    ``origin`` remote (every clone of one repository shares it), else ``path:`` and the root's
    absolute path."""
    base = root or repo_root()
    url = _origin_url(base)
    return f"git:{_normal_url(url)}" if url else "path:" + os.path.abspath(base).replace(os.sep, "/")


def _git_dir(root: str) -> str | None:
    """The directory holding the repository's ``config`` (a worktree's ``.git`` file points to
    its own directory, whose ``commondir`` names the shared one)."""
    dot = os.path.join(root, ".git")
    if os.path.isdir(dot):
        return dot
    try:
        with open(dot, encoding="utf-8") as fh:
            line = fh.read().strip()
    except OSError:
        return None
    if not line.startswith("gitdir:"):
        return None
    gitdir = os.path.join(root, line[len("gitdir:") :].strip())
    try:
        with open(os.path.join(gitdir, "commondir"), encoding="utf-8") as fh:
            return os.path.normpath(os.path.join(gitdir, fh.read().strip()))
    except OSError:
        return gitdir


def _origin_url(root: str) -> str | None:
    """The ``url`` of ``[remote "origin"]`` in the repository's config (read as text, no git)."""
    gitdir = _git_dir(root)
    if gitdir is None:
        return None
    try:
        with open(os.path.join(gitdir, "config"), encoding="utf-8", errors="replace") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return None
    section = ""
    for raw in lines:
        line = raw.strip()
        if line.startswith("["):
            section = line.replace(" ", "").lower()
        elif section == '[remote"origin"]' and line.split("=", 1)[0].strip().lower() == "url" and "=" in line:
            return line.split("=", 1)[1].strip() or None
    return None


def _normal_url(url: str) -> str:
    """``HOST/PATH`` of a remote URL, without scheme, user, port-less ``:`` form or ``.git``:
    ``git@github.com:o/r.git`` and ``https://github.com/o/r`` name the same repository."""
    text = url.strip()
    if "://" in text:
        text = text.split("://", 1)[1]
    elif ":" in text and not text.startswith("/"):  # scp-like: [user@]host:path
        text = text.replace(":", "/", 1)
    host, _, path = text.partition("/")
    host = host.rsplit("@", 1)[-1].lower()
    path = path.strip("/")
    if path.endswith(".git"):
        path = path[:-4]
    return f"{host}/{path}" if path else host


def source_path(path: str, root: str | None = None) -> str:
    """How a manifest path (or a PATH argument) is recorded and compared: relative to ``root`` (default: the
    root of the repository holding the path, :func:`repo_root`) with ``/`` separators when it lies under it,
    else absolute."""
    base = root or repo_root((path,))
    full = os.path.normpath(os.path.join(os.getcwd(), path))
    rel = os.path.relpath(full, base)
    if rel == "." or not rel.startswith(".."):
        return rel.replace(os.sep, "/")
    return full.replace(os.sep, "/")


def in_scope(recorded: str, scopes: Iterable[str]) -> bool:
    """Whether the recorded path ``recorded`` lies under (or is) one of ``scopes`` (both in
    :func:`source_path` form)."""
    norm = _norm(recorded)
    if norm is None:
        return False
    for s in scopes:
        s = (_norm(s) or "").rstrip("/") or "/"
        if s == "." and not norm.startswith("/"):
            return True
        if norm == s or norm.startswith(s if s.endswith("/") else s + "/"):
            return True
    return False


def _norm(path: str) -> str | None:
    """``path`` (``/`` separators) normalised; None for a relative path that climbs out of the
    repository (``manifests/../../x``): it is under no scope."""
    norm = posixpath.normpath(path) if path else path
    if not norm.startswith("/") and (norm == ".." or norm.startswith("../")):
        return None
    return norm


def prune_scope(estate: Any, paths: Iterable[str]) -> tuple[tuple[str, ...], Callable[[str], bool]]:
    """The prune scope ``jsops apply`` and the controller share: the PATHs in :func:`source_path`
    form, and a test of whether a recorded manifest path is stale (its file was loaded this run
    under another name, or is gone), so that a moved manifest updates the record."""
    paths = list(paths)
    files = sorted({f for f in {*estate.files, *(r.file for r in estate.resources)} if f})
    root = repo_root([*files, *paths])
    loaded = {source_path(f, root) for f in files}

    def stale(recorded: str) -> bool:
        path = recorded if os.path.isabs(recorded) else os.path.join(root, recorded)
        return recorded in loaded or not os.path.exists(path)

    return tuple(source_path(p, root) for p in paths), stale
