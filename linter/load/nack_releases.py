"""The NACK releases jsops knows the CRDs of, and what kube-apiserver enforces for each.

The facts live in ``nack_crds.json`` beside this module, derived from NACK's ``deploy/crds.yml`` at
each release tag by ``tests/nack_crd_facts.py`` (the tag's commit is recorded with it): per release
and kind, the version kube-apiserver serves and, per field path, the schema facts it enforces. The
file is read once, and only when a NACK file is loaded.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

from ..errors import LinterError

__all__ = ["NackRelease", "NackVersionError", "known_releases", "newest_release", "nack_release"]

_DATA = Path(__file__).with_name("nack_crds.json")
_SPELLING = re.compile(r"^v?(\d+)\.(\d+)(?:\.(\d+))?$")


class NackVersionError(LinterError):
    """A NACK version jsops has no CRDs of (``--nack-version``, ``nack-version:``)."""


class NackRelease:
    """One NACK release: its tag, commit, and per kind the served version and schema facts."""

    __slots__ = ("tag", "commit", "_kinds", "_schemas")

    def __init__(
        self, tag: str, commit: str, kinds: dict[str, dict[str, Any]], schemas: dict[str, dict[str, dict[str, Any]]]
    ) -> None:
        self.tag = tag
        self.commit = commit
        self._kinds = kinds
        self._schemas = schemas

    def served(self, kind: str) -> str | None:
        """The API version (``v1beta2``) kube-apiserver serves ``kind`` in, None if none (or no such CRD)."""
        entry = self._kinds.get(kind)
        return None if entry is None else entry.get("served")

    def schema(self, kind: str) -> dict[str, dict[str, Any]]:
        """Path (``spec.sources[].name``, ``spec.metadata{}``) -> enforced facts, for the served version."""
        entry = self._kinds.get(kind)
        ref = None if entry is None else entry.get("schema")
        return {} if ref is None else self._schemas[ref]

    def field_type(self, kind: str, path: str) -> str | None:
        """The schema type at ``path`` (``spec.limitMarkerTtl``), None where the CRD has no such field."""
        facts = self.schema(kind).get(path)
        return None if facts is None else facts.get("type")

    def __repr__(self) -> str:
        return f"NackRelease({self.tag})"


@cache
def _table() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(_DATA.read_text(encoding="utf-8"))
    return data


def known_releases() -> tuple[str, ...]:
    """The NACK release tags jsops has the CRDs of, newest first."""
    return tuple(_table()["releases"])


def newest_release() -> str:
    return known_releases()[0]


@cache
def nack_release(version: str | None = None) -> NackRelease:
    """The release ``version`` names (``0.21``: its newest patch; ``v0.21.0``, ``0.21.0``: that tag;
    None, ``latest``, ``newest``: the newest); raises :class:`NackVersionError` for any other."""
    table = _table()
    tag = _tag(version, tuple(table["releases"]))
    entry = table["releases"][tag]
    return NackRelease(tag, entry["commit"], entry["kinds"], table["schemas"])


def _tag(version: str | None, tags: tuple[str, ...]) -> str:
    if version is None or version.strip().lower() in ("", "latest", "newest"):
        return tags[0]
    m = _SPELLING.match(version.strip())
    if m is not None:
        major, minor, patch = m.groups()
        for tag in tags:  # newest first: a minor names its newest patch
            t_major, t_minor, t_patch = tag.lstrip("v").split(".")
            if (t_major, t_minor) == (major, minor) and patch in (None, t_patch):
                return tag
    oldest, newest = tags[-1], tags[0]
    raise NackVersionError(
        f"NACK version {version!r}: jsops has the CRDs of NACK {oldest} to {newest} ({', '.join(tags)}); "
        "give one of them, a minor like 0.21 (its newest patch), or latest"
    )
