"""The walk of the paths given: the files the loader reads, in order, and what it passes over (names
that are not UTF-8, links out of the tree, Helm templates, directories too deep), recorded in the
estate as findings or counts. Its own module: a warm ``jsops lint`` (the results cache,
:mod:`jsops.linter.cache.incremental`) walks the tree without importing the rest of the loader."""

from __future__ import annotations

import os
from collections.abc import Sequence

from ..model.resource import Estate
from .discovery import MAX_DIR_DEPTH, NOT_UTF8_NAME, discover_tree, link_out, printable_path
from .messages import finding
from .recognise import HELM_TEMPLATE, helm_template

__all__ = ["link_out_finding", "readable_files"]


def _readable(entries: list[tuple[str, str]], too_deep: list[str], estate: Estate) -> list[str]:
    """The files of a walk that are read; the others (a name that is not UTF-8, a link out of the tree,
    a Helm template) and the directories too deep to walk are findings or counts in ``estate``."""
    for d in too_deep:
        d = printable_path(d) or d
        estate.opaque.add(d)
        message = f"directories nest more than {MAX_DIR_DEPTH} levels below the path given; jsops did not look inside this directory's subdirectories"
        estate.findings.append(finding("manifest-too-complex", message, d, 1, 1, excerpt=False))
    files: list[str] = []
    for f, root in entries:
        shown = printable_path(f)
        if shown is not None:  # never read: no output could name it as it is
            estate.opaque.add(shown)
            estate.findings.append(finding("manifest-syntax-error", NOT_UTF8_NAME, shown, 1, 1, excerpt=False))
        elif link_out(f, root):
            link_out_finding(f, estate)
        elif helm_template(f):
            estate.not_jetstream[f] = HELM_TEMPLATE
        else:
            files.append(f)
    return files


def readable_files(paths: Sequence[str], exclude: Sequence[str], estate: Estate) -> tuple[list[str], dict[str, str]]:
    """The files under ``paths`` the loader reads, in order, and the tree each was found in; what
    the walk passes over (names that are not UTF-8, links out of the tree, Helm templates, directories
    too deep) is recorded in ``estate`` as :func:`load_paths` reports it."""
    entries, too_deep = discover_tree(paths, exclude=exclude)
    return _readable(entries, too_deep, estate), dict(entries)


def link_out_finding(path: str, estate: Estate) -> None:
    """JS014 for a link out of the tree: it names the link only; the target is never opened (a
    directory link given as a PATH is never walked)."""
    estate.opaque.add(path)
    message = (
        "symbolic link to a directory outside the tree; jsops does not follow links out of the repository (or the "
        "directory holding the link) and did not walk it: give the directory itself"
        if os.path.isdir(path)
        else "symbolic link to a file outside the tree; jsops does not follow links out of the linted directory "
        "(or the repository) and did not read it: replace the link with the manifest itself"
    )
    estate.findings.append(
        finding(
            "link-outside-tree",
            message,
            path,
            1,
            1,
            excerpt=False,
        )
    )
