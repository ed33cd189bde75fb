"""What reading a file gives: the bounds of a read, a problem that stopped it, and a parsed document.

Shared by the reader (:mod:`jsops.linter.load.documents`) and the YAML composer and its error messages
(:mod:`jsops.linter.load._yaml`, :mod:`jsops.linter.load._yaml_errors`), which the reader runs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..model.positions import PosEntry, compact_positions, pack_positions, unpack_positions

__all__ = [
    "Limits",
    "DEFAULT_LIMITS",
    "ReadProblem",
    "ParsedDocument",
    "Parsed",
    "node_count",
    "pack_parsed",
    "unpack_parsed",
]


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


Parsed = tuple[list[ParsedDocument], list[ReadProblem], bool, bool]
"""Documents, file problems, trailing separator, looks like a manifest (see ``read_text``)."""


def pack_parsed(parsed: Parsed) -> tuple[Any, ...]:
    """A parse result as plain values (for marshal: the parse cache, :mod:`jsops.linter.cache.parse_cache`,
    and the forked child of a parallel load)."""
    docs, problems, trailing, looks = parsed
    return (
        [
            (d.value, compact_positions(pack_positions(d.positions)), d.line, [_pack(p) for p in d.problems])
            for d in docs
        ],
        [_pack(p) for p in problems],
        trailing,
        looks,
    )


def unpack_parsed(packed: Any) -> Parsed:
    """The reverse of :func:`pack_parsed`."""
    docs, problems, trailing, looks = packed
    return (
        [
            ParsedDocument(v, unpack_positions(pos), line, [ReadProblem(*p) for p in probs])
            for v, pos, line, probs in docs
        ],
        [ReadProblem(*p) for p in problems],
        bool(trailing),
        bool(looks),
    )


def _pack(p: ReadProblem) -> tuple[str, str, int, int]:
    return (p.code, p.message, p.line, p.column)
