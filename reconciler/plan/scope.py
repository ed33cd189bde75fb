"""Where a manifest is recorded as coming from, and whether a recorded path lies in a scope.

Owned objects record their manifest's path (:func:`source_path` form: relative to the repository
root with ``/`` separators, else absolute); ``--prune`` with PATHs deletes only objects recorded
under them (:func:`in_scope`).
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Callable, Iterable
from typing import Any

from linter.load import git_root

__all__ = ["in_scope", "prune_scope", "repo_root", "source_path"]


def repo_root() -> str:
    """The repository root (the nearest directory from cwd upward holding ``.git``), else cwd."""
    here = os.path.abspath(os.getcwd())
    found = git_root(here, os.path.exists)
    return here if found is None else found


def source_path(path: str, root: str | None = None) -> str:
    """How a manifest path (or a PATH argument) is recorded and compared: relative to the
    repository root with ``/`` separators when it lies under it, else absolute."""
    base = root or repo_root()
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
    root = repo_root()
    loaded = {source_path(f, root) for f in {*estate.files, *(r.file for r in estate.resources)} if f}

    def stale(recorded: str) -> bool:
        path = recorded if os.path.isabs(recorded) else os.path.join(root, recorded)
        return recorded in loaded or not os.path.exists(path)

    return tuple(source_path(p, root) for p in paths), stale
