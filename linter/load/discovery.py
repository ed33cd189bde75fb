"""Finding manifest files: walking directories, and never following a link out of the tree.

A file reached through a symbolic link whose target resolves outside its tree (the git repository
holding it, or else the directory given) is not read by anything in jsops; the loader reports it
(JS014 link-outside-tree). A directory link given explicitly is the same: when it leads out of the
tree holding the link, it is reported, never walked.

Walks are iterative and bounded (:data:`MAX_DIR_DEPTH` directories below the path given): a tree
nesting deeper is not read below the bound, and :func:`load_paths` reports the directory there
(JS002), so no tree, however deep, ends in a ``RecursionError``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from fnmatch import fnmatchcase
from typing import NamedTuple

from ..errors import LinterError

__all__ = [
    "LoadError",
    "MANIFEST_SUFFIXES",
    "TEMPLATE_SUFFIXES",
    "ENVIRONMENTS_DIR",
    "MAX_DIR_DEPTH",
    "Discovered",
    "discover",
    "discover_entries",
    "discover_tree",
    "excluded",
    "git_root",
    "tree_root",
    "escapes",
    "link_out",
    "printable_path",
    "NOT_UTF8_NAME",
    "walk_dirs",
]

MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")
# The finding (manifest-syntax-error) on a file whose name :func:`printable_path` had to escape:
# lint and render give the same one, and neither reads the file.
NOT_UTF8_NAME = "the file name is not valid UTF-8 (shown with \\xNN escapes); jsops did not read it: rename it"
# templates rendered for an environment (jsops.linter.load.templates), and the directory of their values
TEMPLATE_SUFFIXES = (".yaml.j2", ".yml.j2", ".json.j2")
ENVIRONMENTS_DIR = "environments"
MAX_DIR_DEPTH = 100
"""Directories below a path given that a walk enters; a manifest tree never needs more."""


class LoadError(LinterError):
    """A path that cannot be read at all (missing, unreadable): the tool cannot run (exit 2)."""


def discover(paths: Iterable[str], exclude: Sequence[str] = ()) -> list[str]:
    """Manifest files under ``paths`` (directories are walked; hidden directories are skipped).
    Templates (``*.yaml.j2``, ``*.yml.j2``, ``*.json.j2``) are manifest files too. A directory
    named ``environments`` found by the walk holds template values: its own files are skipped
    (its subdirectories, ``environments/prod/*.yaml``, are walked as usual). Paths given
    explicitly are always read, unless they are links out of their tree. Symbolic links whose
    target is outside the tree (see :func:`tree_root`) are left out: :func:`load_paths` reports
    them (JS014) and nothing ever reads them.

    ``exclude``: glob patterns (:func:`excluded`) of files and directories a walk leaves out.

    Raises :class:`LoadError` for a path that does not exist or cannot be listed.
    """
    return [f for f, root in discover_entries(paths, exclude) if not link_out(f, root)]


def excluded(relative: str, patterns: Sequence[str]) -> bool:
    """Whether a path (relative to the directory walked, ``/``-separated) matches one of ``patterns``.

    As in ``.gitignore``: a pattern without ``/`` matches any file or directory of that name
    (``node_modules``, ``*.lock.json``, ``values*.yaml``); a pattern with ``/`` matches the relative
    path from the directory walked (``charts/*``, ``deploy/helm``), a directory and all under it;
    ``**/`` matches any number of directories. Matching is case-sensitive.
    """
    parts = relative.split("/")
    for raw in patterns:
        pat = raw.strip().rstrip("/")
        if pat.startswith("./"):
            pat = pat[2:]
        if not pat:
            continue
        if "/" not in pat:
            if any(fnmatchcase(part, pat) for part in parts):
                return True
            continue
        for p in {pat, pat.removeprefix("**/")}:
            if fnmatchcase(relative, p) or any(fnmatchcase("/".join(parts[:i]), p) for i in range(1, len(parts))):
                return True
    return False


def link_out(path: str, root: str) -> bool:
    """:func:`escapes` for a path from :func:`discover_entries`: only a link can lead out of its
    tree there (the walk does not follow directory links; a root is a real path), so a file that
    is not a link costs one ``lstat``."""
    return os.path.islink(path) and escapes(path, root)


class Discovered(NamedTuple):
    """What a walk found: ``(file, tree root)`` pairs, and the directories at :data:`MAX_DIR_DEPTH`
    whose subdirectories were not walked."""

    entries: list[tuple[str, str]]
    too_deep: list[str]


def discover_entries(paths: Iterable[str], exclude: Sequence[str] = ()) -> list[tuple[str, str]]:
    """``(file, tree root)`` of every file :func:`discover` would find, links out of the tree included."""
    return discover_tree(paths, exclude=exclude).entries


def discover_tree(paths: Iterable[str], max_depth: int = MAX_DIR_DEPTH, exclude: Sequence[str] = ()) -> Discovered:
    """:func:`discover_entries`, with the directories too deep to walk (see the module's docstring)."""
    out: list[tuple[str, str]] = []
    too_deep: list[str] = []
    for p in paths:
        bare = p.rstrip(os.sep) or p
        if os.path.islink(bare) and os.path.isdir(bare):
            holder = tree_root(os.path.dirname(os.path.abspath(bare)))
            if escapes(bare, holder):  # a directory link out of its tree: reported (JS014), never walked
                out.append((bare, holder))
                continue
        if os.path.isdir(p):
            _walk_entries(p, max_depth, out, too_deep, exclude)
        elif os.path.lexists(p):
            out.append((p, tree_root(p)))
        else:
            raise LoadError(f"{p}: no such file or directory")
    seen: set[str] = set()
    unique = []
    for f, root in out:
        norm = os.path.normpath(f)
        if norm not in seen:
            seen.add(norm)
            unique.append((norm, root))
    return Discovered(unique, too_deep)


def _walk_entries(
    p: str, max_depth: int, out: list[tuple[str, str]], too_deep: list[str], exclude: Sequence[str] = ()
) -> None:
    try:
        walked = list(walk_dirs(p, max_depth, exclude))
    except OSError as exc:
        raise LoadError(f"{p}: cannot read directory: {exc.strerror or exc}") from None
    top = os.path.normpath(p)
    root = tree_root(p)
    for dirpath, files, deep in walked:
        if deep:
            too_deep.append(os.path.normpath(dirpath))
        if os.path.normpath(dirpath) != top and _is_values_dir(dirpath):
            continue
        for f in sorted(files):
            full = os.path.join(dirpath, f)
            # Hidden files (the jsops config .jsops.yaml among them) are not manifests.
            if not f.endswith(_DISCOVERED) or f.startswith("."):
                continue
            if exclude and excluded(_relative(full, p), exclude):
                continue
            # Only regular files: a FIFO would block, a device would never end. A link out
            # of the tree is kept here (and reported) whatever it points at.
            if os.path.islink(full) and escapes(full, root):
                out.append((full, root))
            elif os.path.isfile(full):
                out.append((full, root))


def printable_path(path: str) -> str | None:
    """None for a path that is valid Unicode; else the path with each byte that is not valid UTF-8
    written ``\\xNN`` (the name as findings show it: it cannot be printed, nor encoded in JSON,
    SARIF or XML, as it is)."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        try:
            raw = path.encode("utf-8", "surrogateescape")  # the bytes the file system holds
        except UnicodeEncodeError:
            return path.encode("utf-8", "backslashreplace").decode("utf-8")
        return raw.decode("utf-8", "backslashreplace")
    return None


def tree_root(path: str) -> str:
    """The tree a path belongs to, as a real path: the git repository holding it (the nearest
    directory above with a ``.git``), or else the directory given (a file's own directory)."""
    start = os.path.realpath(path if os.path.isdir(path) else (os.path.dirname(path) or "."))
    found = git_root(start)
    return start if found is None else found


def git_root(start: str, exists: Callable[[str], bool] = os.path.lexists) -> str | None:
    """The nearest directory from ``start`` upward holding a ``.git`` entry (``exists`` judges it:
    by default a link counts even when dangling), or None."""
    here = start
    while True:
        if exists(os.path.join(here, ".git")):
            return here
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def escapes(path: str, root: str) -> bool:
    """Whether ``path`` resolves (through symbolic links) to somewhere outside ``root``."""
    real = os.path.realpath(path)
    return not (real == root or real.startswith(root.rstrip(os.sep) + os.sep))


_DISCOVERED = MANIFEST_SUFFIXES + TEMPLATE_SUFFIXES


def _is_values_dir(directory: str) -> bool:
    return os.path.basename(os.path.normpath(directory)) == ENVIRONMENTS_DIR


def _relative(path: str, top: str) -> str:
    return os.path.relpath(path, top).replace(os.sep, "/")


def walk_dirs(
    top: str, max_depth: int = MAX_DIR_DEPTH, exclude: Sequence[str] = ()
) -> Iterator[tuple[str, list[str], bool]]:
    """``(directory, its file names, too deep)`` top-down as ``os.walk`` visits them (hidden
    directories skipped, subdirectories in name order, directory links listed but not entered),
    without recursion: a directory ``max_depth`` levels below ``top`` is yielded with ``too deep``
    true when it has subdirectories, which are not walked. Raises OSError for a directory that
    cannot be listed. Directories matching ``exclude`` (:func:`excluded`, relative to ``top``) are not
    entered."""
    stack = [(top, 0)]
    while stack:
        here, depth = stack.pop()
        files: list[str] = []
        dirs: list[str] = []
        with os.scandir(here) as it:
            for e in it:
                try:
                    is_dir = e.is_dir()
                    enter = is_dir and not e.is_symlink()
                except OSError:
                    is_dir = enter = False
                if not is_dir:
                    files.append(e.name)
                elif (
                    enter
                    and not e.name.startswith(".")
                    and not (exclude and excluded(_relative(os.path.join(here, e.name), top), exclude))
                ):
                    dirs.append(e.name)
        dirs.sort()
        deep = depth >= max_depth and bool(dirs)
        yield here, files, deep
        if not deep:
            stack.extend((os.path.join(here, d), depth + 1) for d in reversed(dirs))
