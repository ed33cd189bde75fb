"""Where jsops keeps what it caches between runs (the entry points, parsed manifests): imports
nothing heavy, so that every command can ask."""

from __future__ import annotations

import os

__all__ = ["cache_dir"]


def cache_dir() -> str | None:
    """The directory the cache lives in, or None when ``JSOPS_NO_CACHE`` turns it off."""
    if os.environ.get("JSOPS_NO_CACHE", "") not in ("", "0"):
        return None
    explicit = os.environ.get("JSOPS_CACHE_DIR")
    if explicit:
        return explicit
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "jsops")
