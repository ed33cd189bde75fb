"""Entry points of jsops's groups (``jsops.rules``, ``jsops.commands``), remembered between runs.

``importlib.metadata`` reads the metadata of every installed distribution (and imports ``email`` to
parse it) to find the few entry points jsops registers: tens of milliseconds of every ``jsops
lint``. The entry points found are kept in the cache directory
(:func:`jsops.linter.model.cache_dir.cache_dir`) under a key made of the Python version, ``sys.path``,
the meta-path finders and, in each ``sys.path`` directory, the distributions' metadata directories
and their modification times: installing, upgrading, reinstalling or removing a distribution changes
them, and the next run reads the metadata again. The file carries a MAC under the user's cache key
(:func:`jsops.linter.model.cache_dir.cache_key`): a list forged into a shared cache, which could drop
rules or name other modules, is not used. Without a usable cache (off, missing, stale,
corrupt, not writable) the entry points come from ``importlib.metadata`` as before.
"""

from __future__ import annotations

import hmac
import json
import os
import sys
from typing import Any, NamedTuple

from .model.cache_dir import cache_dir, cache_key, cache_mac
from .model.private_dir import read_private, write_private

__all__ = ["EntryPoint", "entry_points"]

_FORMAT = 1
_MAX_CACHE_BYTES = 4 * 1024 * 1024  # an entry-point list is a few kB
_METADATA_DIRS = (".dist-info", ".egg-info")


class EntryPoint(NamedTuple):  # not a dataclass: jsops lint pays for every class it creates
    """One entry point: ``value`` is ``module:attr`` (``importlib.metadata``'s syntax)."""

    name: str
    value: str
    group: str

    def load(self) -> Any:
        """Import the module and return the attribute (the module when there is none)."""
        from importlib import import_module

        target = self.value.split("[", 1)[0]  # extras ([name]) are for installers, not for loading
        module, _, attr = target.partition(":")
        obj: Any = import_module(module.strip())
        for part in attr.strip().split(".") if attr.strip() else ():
            obj = getattr(obj, part)
        return obj


def entry_points(group: str) -> list[EntryPoint]:
    """The entry points of ``group`` of every installed distribution, as ``importlib.metadata`` finds them."""
    key = _key()
    path = _cache_path()
    groups = (_read(path, key) if path is not None else None) or {}
    if group not in groups:
        groups[group] = _scan(group)
        if path is not None:
            _write(path, key, groups)
    return [EntryPoint(name, value, group) for name, value in groups[group]]


def _key() -> list[Any]:
    """What the entry points found depend on: for each ``sys.path`` directory, the distributions'
    metadata directories in it and when each was written (a reinstall writes it anew)."""
    stamps: list[Any] = []
    for entry in sys.path:
        try:
            with os.scandir(entry or ".") as it:
                stamps.append(sorted([e.name, e.stat().st_mtime_ns] for e in it if e.name.endswith(_METADATA_DIRS)))
        except OSError:  # not a directory (a zip file) or missing
            try:
                stamps.append(os.stat(entry).st_mtime_ns)
            except OSError:
                stamps.append(None)
    finders = [f"{type(f).__module__}.{type(f).__qualname__}" for f in sys.meta_path]
    return [_FORMAT, sys.version, sys.path, stamps, finders]


def _cache_path() -> str | None:
    """One file per Python environment (two virtual environments do not overwrite each other)."""
    import hashlib

    directory = cache_dir()
    if directory is None:
        return None
    where = hashlib.sha256(sys.prefix.encode()).hexdigest()[:12]
    return os.path.join(directory, f"entry-points-{where}.json")


def _scan(group: str) -> list[list[str]]:
    from importlib.metadata import entry_points as metadata_entry_points

    return [[ep.name, ep.value] for ep in metadata_entry_points(group=group)]


def _valid(groups: dict[Any, Any]) -> bool:
    return all(
        isinstance(entries, list)
        and all(isinstance(e, list) and len(e) == 2 and all(isinstance(x, str) for x in e) for e in entries)
        for entries in groups.values()
    )


def _read(path: str, key: list[Any]) -> dict[str, list[list[str]]] | None:
    """The cached groups, when the file is the user's own regular file (:func:`read_private`) and current."""
    raw = read_private(path, _MAX_CACHE_BYTES)
    if raw is None:
        return None
    try:
        data = json.loads(raw.decode("utf-8"))
    except ValueError:
        return None
    if not isinstance(data, dict) or data.get("key") != key or not _vouched(data):
        return None
    groups = data.get("groups")
    if not isinstance(groups, dict) or not _valid(groups):
        return None
    return groups


def _write(path: str, key: list[Any], groups: dict[str, list[list[str]]]) -> None:
    """Written private and atomically (:func:`write_private`); not writable: the next run scans again."""
    mac = _mac({"key": key, "groups": groups})
    if mac is not None:
        write_private(path, json.dumps({"key": key, "groups": groups, "mac": mac}).encode("utf-8"))


def _mac(data: dict[str, Any]) -> str | None:
    """The MAC of the cache's ``key`` and ``groups`` as written (their JSON), under the user's cache key."""
    secret = cache_key()
    return None if secret is None else cache_mac(json.dumps(data).encode("utf-8"), secret).hex()


def _vouched(data: dict[str, Any]) -> bool:
    """Whether the file's MAC holds: a list forged into a shared cache could drop rules or name other modules."""
    mac = data.pop("mac", None)
    expected = _mac(data)
    return type(mac) is str and expected is not None and hmac.compare_digest(mac, expected)
