"""Fast, bounded YAML/JSON reading with a source map.

``jsops lint`` runs on every commit, so manifests are read with libyaml's C parser (ruamel.yaml.clib)
as a stream of events, and composed (:mod:`jsops.linter.load._yaml`) into plain Python values plus a
parallel position tree (:mod:`jsops.linter.model.positions`). Composition is iterative and bounded:
nesting depth, alias expansion (billion laughs), and document size all have limits, so hostile
input costs bounded time and memory and never raises out of here.

Round-trip editing (comments kept) is a separate concern and lives with autofix.
"""

from __future__ import annotations

import json
import re
from typing import Any

from .messages import short
from .parsed import DEFAULT_LIMITS, Limits, ParsedDocument, ReadProblem, node_count

__all__ = ["Limits", "DEFAULT_LIMITS", "ReadProblem", "ParsedDocument", "read_documents", "node_count"]


def _decode(data: bytes) -> tuple[str | None, ReadProblem | None]:
    if b"\x00" in data and not data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return None, ReadProblem("binary", "binary file (contains NUL bytes), not a manifest", 1, 1)
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    elif data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16"), None
        except UnicodeDecodeError as exc:
            return None, ReadProblem("encoding", f"invalid UTF-16: {exc.reason}", 1, 1)
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        head = data[: exc.start]
        line = head.count(b"\n") + 1
        col = len(head[head.rfind(b"\n") + 1 :].decode("utf-8", "replace")) + 1
        return None, ReadProblem(
            "encoding", f"invalid UTF-8 (byte 0x{data[exc.start]:02x}); manifests must be UTF-8", line, col
        )


def read_documents(
    data: bytes, *, json_file: bool = False, limits: Limits = DEFAULT_LIMITS
) -> tuple[list[ParsedDocument], list[ReadProblem]]:
    """Every document of a file, with positions; problems that stopped the whole file are separate.

    Never raises for bad input.
    """
    if len(data) > limits.max_file_bytes:
        return [], [
            ReadProblem(
                "too-complex",
                f"file is larger than {limits.max_file_bytes // (1024 * 1024)} MiB; refusing to read it",
                1,
                1,
            )
        ]
    text, problem = _decode(data)
    if problem is not None or text is None:
        return [], [problem] if problem else []
    if json_file:
        return _read_json(text, limits)
    return _read_yaml(text, limits)


def _read_yaml(text: str, limits: Limits) -> tuple[list[ParsedDocument], list[ReadProblem]]:
    from _ruamel_yaml import CParser  # type: ignore[import-not-found]  # the C extension ships no stubs

    from ._yaml import StreamDone, compose
    from ._yaml_errors import error_problem

    docs: list[ParsedDocument] = []
    try:
        parser = CParser(text)
        for doc in compose(parser, limits):
            docs.append(doc)
    except StreamDone:
        pass
    except RecursionError:
        return docs, [ReadProblem("too-complex", "input nests too deeply to read", 1, 1)]
    except MemoryError:
        return docs, [ReadProblem("too-complex", "input is too large to read", 1, 1)]
    except Exception as exc:  # libyaml scanner/parser/reader errors
        return docs, [error_problem(exc, text)]
    return docs, []


def _read_json(text: str, limits: Limits) -> tuple[list[ParsedDocument], list[ReadProblem]]:
    dupes: list[str] = []

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for k, v in items:
            if k in out:
                dupes.append(k)
            out[k] = v
        return out

    if not text.strip():
        return [], []  # an empty file: the loader reports "file holds no manifests"
    try:
        value = json.loads(text, object_pairs_hook=pairs, parse_int=_json_int)
    except json.JSONDecodeError as exc:
        return [], [ReadProblem("yaml-syntax", f"JSON syntax error: {exc.msg}", exc.lineno, exc.colno)]
    except RecursionError:
        return [], [
            ReadProblem(
                "too-complex", f"JSON nests deeper than {limits.max_depth} levels; a manifest never needs this", 1, 1
            )
        ]
    except ValueError as exc:  # e.g. integer string too long
        return [], [ReadProblem("too-complex", f"JSON value cannot be read: {exc}", 1, 1)]
    if "\\u" in text and _holds_surrogate(value):
        return [], [_surrogate_problem(text)]
    # JSON is (almost) YAML: compose it again for positions and duplicate-key locations.
    docs, problems = _read_yaml(text, limits)
    if not problems and len(docs) == 1:
        if dupes:
            # Go's encoding/json (and so nats-server) keeps the last value of a repeated key: so does
            # jsops for JSON files, with a warning (YAML files keep refusing duplicates).
            docs[0].value = value
            docs[0].problems = [
                _json_duplicate(p.head, p.line, p.column) if p.code == "duplicate-key" else p for p in docs[0].problems
            ]
        return docs, []
    # libyaml could not read this JSON (YAML 1.1 differs in corners: keys longer than 1024
    # characters, some control characters): use the value without positions, within the same bounds.
    if _depth_exceeds(value, limits.max_depth):
        return [], [
            ReadProblem(
                "too-complex", f"nesting deeper than {limits.max_depth} levels; a manifest never needs this", 1, 1
            )
        ]
    if node_count(value, limits.max_nodes + 1) > limits.max_nodes:
        return [], [
            ReadProblem("too-complex", f"document has more than {limits.max_nodes} nodes; refusing to read it", 1, 1)
        ]
    extra = [_json_duplicate(f"duplicate key {short(k)!r}", 1, 1) for k in dupes]
    return [ParsedDocument(value, None, 1, extra)], []


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def _holds_surrogate(value: object) -> bool:
    """Whether a JSON value holds a string (or key) with a lone surrogate (``"\\ud800"``): not a
    Unicode character, so no output (UTF-8 text, JSON, SARIF, XML) could print it."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            if not v.isascii() and any(0xD800 <= ord(c) <= 0xDFFF for c in v):
                return True
        elif isinstance(v, dict):
            stack.extend(v.keys())
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return False


def _surrogate_problem(text: str) -> ReadProblem:
    """Where the first lone surrogate escape is (a valid pair is one character and is skipped)."""
    line, col = 1, 1
    for m in _SURROGATE_ESCAPE.finditer(text):
        high = m.group()[2].lower() in "89ab"
        after = _SURROGATE_ESCAPE.match(text, m.end())
        if high and after is not None and after.group()[2].lower() in "cdef":
            continue  # a pair: one character
        if not high and m.start() >= 6 and _SURROGATE_ESCAPE.match(text, m.start() - 6) is not None:
            continue  # the low half of a pair
        line = text.count("\n", 0, m.start()) + 1
        col = m.start() - (text.rfind("\n", 0, m.start()) + 1) + 1
        break
    return ReadProblem(
        "encoding",
        "a lone UTF-16 surrogate escape (\\ud800-\\udfff without its pair) is not a Unicode character; write the character itself, or a valid surrogate pair",
        line,
        col,
    )


def _json_duplicate(head: str, line: int, column: int) -> ReadProblem:
    """A duplicate key of a JSON file: nats-server keeps the last value, and so does jsops."""
    return ReadProblem(
        "json-duplicate-key",
        f"{head}; nats-server (Go's JSON decoder) keeps the last value, and so does jsops: write each key once",
        line,
        column,
    )


def _json_int(text: str) -> Any:
    try:
        return int(text)
    except ValueError:  # thousands of digits; read it as YAML does (a string the model rejects)
        return text


def _depth_exceeds(value: object, limit: int) -> bool:
    stack = [(value, 0)]
    while stack:
        v, d = stack.pop()
        if d > limit:
            return True
        if isinstance(v, dict):
            stack.extend((x, d + 1) for x in v.values())
        elif isinstance(v, list):
            stack.extend((x, d + 1) for x in v)
    return False
