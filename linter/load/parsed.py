"""What reading a file gives: the bounds of a read, a problem that stopped it, and a parsed document.

Shared by the reader (:mod:`jsops.linter.load.documents`) and the YAML composer and its error messages
(:mod:`jsops.linter.load._yaml`, :mod:`jsops.linter.load._yaml_errors`), which the reader runs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..model.positions import PosEntry

__all__ = ["Limits", "DEFAULT_LIMITS", "ReadProblem", "ParsedDocument", "node_count"]


@dataclass(frozen=True)
class Limits:
    """Bounds that keep hostile input cheap."""

    max_depth: int = 64
    max_nodes: int = 200_000  # per document, counting every alias expansion
    max_file_bytes: int = 64 * 1024 * 1024
    max_documents: int = 20_000  # per file
    max_file_nodes: int = 1_000_000  # per file, all documents together


DEFAULT_LIMITS = Limits()


@dataclass
class ReadProblem:
    """Something that stopped a file or a document from being read."""

    code: str  # yaml-syntax, encoding, binary, too-complex, duplicate-key, json-duplicate-key, unsupported
    message: str
    line: int
    column: int
    # The problem without the advice the message ends with (a duplicate key and the line that set it
    # first), for a dialect that gives its own advice; not cached (the read's result is).
    head: str = ""


@dataclass
class ParsedDocument:
    value: Any
    positions: PosEntry | None
    line: int  # where the document starts (1-based)
    problems: list[ReadProblem] = field(default_factory=list)


def node_count(value: object, budget: int) -> int:
    """Node count of a composed value, stopping early past ``budget`` (values are shared by aliases)."""
    count = 0
    stack = [value]
    while stack:
        v = stack.pop()
        count += 1
        if count > budget:
            return count
        if isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return count
