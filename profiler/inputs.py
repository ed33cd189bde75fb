"""Telemetry paths as the driver sees them (no pyspark): local or a URI, which files are under them."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

__all__ = ["JSON_SUFFIXES", "is_local", "has_files", "check_paths"]

JSON_SUFFIXES = (".jsonl", ".jsonl.gz", ".json", ".json.gz")


def is_local(path: str) -> bool:
    """A path on this machine's disk (not a URI such as ``file:``, ``hdfs://`` or ``s3a://``)."""
    return "://" not in path and not path.startswith("file:")


def has_files(path: str, suffixes: tuple[str, ...]) -> bool:
    """Whether the local ``path`` is, or holds at any depth, a file ending with one of ``suffixes``."""
    p = Path(path)
    if p.is_file():
        return p.name.endswith(suffixes)
    return any(f.name.endswith(suffixes) for f in p.rglob("*") if f.is_file())


def check_paths(paths: Iterable[str]) -> str | None:
    """The first local path that does not exist, as a message; ``None`` when all do (URIs are Spark's)."""
    for p in paths:
        if is_local(p) and not Path(p).exists():
            return f"{p}: no such file or directory"
    return None
