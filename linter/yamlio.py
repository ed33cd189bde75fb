"""Fast, bounded YAML/JSON reading with a source map.

``jsops lint`` runs on every commit, so manifests are read with libyaml's C parser (ruamel.yaml.clib)
as a stream of events, and composed here into plain Python values plus a parallel position tree.
Composition is iterative and bounded: nesting depth, alias expansion (billion laughs), and document
size all have limits, so hostile input costs bounded time and memory and never raises out of here.

Round-trip editing (comments kept) is a separate concern and lives with autofix.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "MapPos",
    "SeqPos",
    "Pos",
    "ParsedDocument",
    "ReadProblem",
    "read_documents",
    "resolve_position",
    "Limits",
    "pack_positions",
    "unpack_positions",
]

Pos = tuple[int, int]  # 1-based (line, column)


class MapPos:
    """Positions of a mapping: its own start and, per key, the key's and the value's entries."""

    __slots__ = ("start", "keys")

    def __init__(self, start: Pos) -> None:
        self.start = start
        self.keys: dict[Any, tuple[Pos, Any]] = {}


class SeqPos:
    """Positions of a sequence: its own start and one entry per item."""

    __slots__ = ("start", "items")

    def __init__(self, start: Pos) -> None:
        self.start = start
        self.items: list[Any] = []


PosEntry = Pos | MapPos | SeqPos


def pack_positions(entry: PosEntry | None) -> Any:
    """Positions as plain lists/dicts/tuples (for marshal); :func:`unpack_positions` reverses it."""
    if entry is None or isinstance(entry, tuple):
        return entry
    if isinstance(entry, MapPos):
        return [entry.start, {k: (kpos, pack_positions(child)) for k, (kpos, child) in entry.keys.items()}]
    return [entry.start, [pack_positions(child) for child in entry.items]]


def unpack_positions(packed: Any) -> PosEntry | None:
    if packed is None or isinstance(packed, tuple):
        return packed
    start, body = packed
    if isinstance(body, dict):
        m = MapPos(start)
        m.keys = {k: (kpos, unpack_positions(child)) for k, (kpos, child) in body.items()}
        return m
    sq = SeqPos(start)
    sq.items = [unpack_positions(child) for child in body]
    return sq


def _start(entry: PosEntry) -> Pos:
    return entry if isinstance(entry, tuple) else entry.start


def resolve_position(entry: PosEntry | None, path: tuple[Any, ...], *, key: bool = False) -> Pos | None:
    """Where ``path`` is in the document: the value's position, or the key's with ``key=True``.

    A path that leaves the document (a field the manifest does not write) resolves to the deepest
    position that exists, so a finding about a missing field points at its parent mapping.
    """
    if entry is None:
        return None
    current: PosEntry = entry
    for i, step in enumerate(path):
        last = i == len(path) - 1
        if isinstance(current, MapPos):
            hit = current.keys.get(step)
            if hit is None:
                return current.start
            kpos, child = hit
            if last and key:
                return kpos
            current = child
        elif isinstance(current, SeqPos) and isinstance(step, int) and 0 <= step < len(current.items):
            current = current.items[step]
        else:
            return _start(current)
    return _start(current)


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


@dataclass
class ParsedDocument:
    value: Any
    positions: PosEntry | None
    line: int  # where the document starts (1-based)
    problems: list[ReadProblem] = field(default_factory=list)


_NULL = {"", "~", "null", "Null", "NULL"}
_BOOL = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}
_INT = re.compile(r"^[-+]?[0-9]+$")
_OCT = re.compile(r"^0o[0-7]+$")
_HEX = re.compile(r"^0x[0-9a-fA-F]+$")
_FLOAT = re.compile(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$")
_INF = re.compile(r"^[-+]?\.(inf|Inf|INF)$")
_NAN = {".nan", ".NaN", ".NAN"}

_TAG = "tag:yaml.org,2002:"


class _Abort(Exception):
    def __init__(self, problem: ReadProblem) -> None:
        self.problem = problem


def _resolve_plain(text: str) -> Any:
    """YAML 1.2 core schema for an untagged plain scalar."""
    if text in _NULL:
        return None
    c = text[0]
    if c in "tTfF" and text in _BOOL:
        return _BOOL[text]
    if c.isdigit() or c in "+-.":
        if text.isdigit() and text.isascii():
            return int(text)  # ValueError past Python's digit limit; _compose reports it
        last = text[-1]
        if not (last.isdigit() or last in ".fFnN" or text[:2] in ("0x", "0o")):
            return text  # "30s", "7d", "10GiB": the common case for durations and sizes
        if _INT.match(text):
            return int(text)  # ValueError past Python's digit limit; _compose reports it
        if _OCT.match(text):
            return int(text[2:], 8)
        if _HEX.match(text):
            return int(text[2:], 16)
        if _FLOAT.match(text):
            return float(text)
        if _INF.match(text):
            return float("-inf") if text[0] == "-" else float("inf")
        if text in _NAN:
            return float("nan")
    return text


def _resolve_tagged(text: str, tag: str, mark: Pos) -> Any:
    if tag in ("!", _TAG + "str"):
        return text
    if tag == _TAG + "int":
        v = _resolve_plain(text)
        if isinstance(v, int) and not isinstance(v, bool):
            return v
    elif tag == _TAG + "float":
        v = _resolve_plain(text)
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return float(v)
    elif tag == _TAG + "bool":
        if text in _BOOL:
            return _BOOL[text]
    elif tag == _TAG + "null":
        if text in _NULL:
            return None
    else:
        raise _unsupported_tag(tag, mark)
    raise _Abort(ReadProblem("yaml-syntax", f"value {_short(text)!r} does not match its tag {_tag_text(tag)}", *mark))


def _short(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _tag_text(tag: str) -> str:
    """A tag as the manifest spells it (``!!python/object``), not libyaml's expanded form."""
    shown = "!!" + tag[len(_TAG) :] if tag.startswith(_TAG) else tag
    return _short(shown)


def _unsupported_tag(tag: str, mark: Pos) -> _Abort:
    return _Abort(
        ReadProblem(
            "unsupported",
            f"unsupported YAML tag {_tag_text(tag)}; manifests hold plain data (strings, numbers, booleans, lists, mappings)",
            *mark,
        )
    )


def _mark(m: Any) -> Pos:
    return (m.line + 1, m.column + 1)


def _size(value: Any, budget: int) -> int:
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


def _compose(parser: Any, limits: Limits) -> Iterator[ParsedDocument]:
    import _ruamel_yaml as R  # the C extension, imported lazily with the parser

    ScalarEvent, AliasEvent = R.ScalarEvent, R.AliasEvent
    MappingStartEvent, SequenceStartEvent = R.MappingStartEvent, R.SequenceStartEvent
    MappingEndEvent, SequenceEndEvent = R.MappingEndEvent, R.SequenceEndEvent
    DocumentStartEvent, DocumentEndEvent, StreamEndEvent = (
        R.DocumentStartEvent,
        R.DocumentEndEvent,
        R.StreamEndEvent,
    )
    get_event = parser.get_event
    documents = 0
    file_nodes = 0
    while True:
        e = get_event()
        t = type(e)
        if t is StreamEndEvent:
            return
        if t is not DocumentStartEvent:
            continue
        doc_line = e.start_mark.line + 1
        documents += 1
        if documents > limits.max_documents:
            yield ParsedDocument(
                None,
                None,
                doc_line,
                [
                    ReadProblem(
                        "too-complex",
                        f"file holds more than {limits.max_documents} documents; split it "
                        "(jsops stopped reading this file here)",
                        doc_line,
                        1,
                    )
                ],
            )
            return
        problems: list[ReadProblem] = []
        anchors: dict[str, tuple[Any, PosEntry, int]] = {}
        nodes = 0
        # Every document may use up to max_nodes, and all of them together max_file_nodes.
        budget = min(limits.max_nodes, limits.max_file_nodes - file_nodes)
        aliased = False
        # Stack frames: [container, posentry, pending_key, pending_key_pos, anchor, is_map, merges]
        stack: list[list[Any]] = []
        root: Any = None
        root_pos: PosEntry | None = None
        done = False
        try:
            while not done:
                e = get_event()
                t = type(e)
                if t is ScalarEvent:
                    mark = _mark(e.start_mark)
                    tag = e.tag
                    try:
                        if tag and tag != "!":
                            value = _resolve_tagged(e.value, tag, mark)
                        elif e.style or tag == "!":
                            value = e.value
                        else:
                            value = _resolve_plain(e.value)
                    except ValueError:  # an integer of thousands of digits
                        raise _Abort(
                            ReadProblem(
                                "unsupported",
                                f"number {_short(e.value, 20)} has {len(e.value)} digits; configuration values fit in 64 bits",
                                *mark,
                            )
                        ) from None
                    entry: PosEntry = mark
                    nodes += 1
                    if e.anchor:
                        anchors[e.anchor] = (value, entry, 1)
                elif t is MappingStartEvent or t is SequenceStartEvent:
                    if len(stack) >= limits.max_depth:
                        raise _Abort(
                            ReadProblem(
                                "too-complex",
                                f"nesting deeper than {limits.max_depth} levels; a manifest never needs this",
                                *_mark(e.start_mark),
                            )
                        )
                    nodes += 1
                    mark = _mark(e.start_mark)
                    if e.tag and e.tag not in ("!", _TAG + "map", _TAG + "seq"):
                        raise _unsupported_tag(e.tag, mark)
                    if t is MappingStartEvent:
                        stack.append([{}, MapPos(mark), _NOKEY, None, e.anchor, True, None])
                    else:
                        stack.append([[], SeqPos(mark), _NOKEY, None, e.anchor, False, None])
                    continue
                elif t is MappingEndEvent or t is SequenceEndEvent:
                    frame = stack.pop()
                    value, entry = frame[0], frame[1]
                    if frame[6]:
                        _apply_merges(value, entry, frame[6])
                    if frame[4]:
                        anchors[frame[4]] = (value, entry, _size(value, limits.max_nodes + 1))
                elif t is AliasEvent:
                    mark = _mark(e.start_mark)
                    hit = anchors.get(e.anchor)
                    if hit is None:
                        raise _Abort(ReadProblem("yaml-syntax", f"alias *{_short(e.anchor)} has no anchor &{_short(e.anchor)} before it", *mark))
                    value, entry, size = hit
                    nodes += size
                    aliased = True
                elif t is DocumentEndEvent:
                    done = True
                    continue
                else:  # pragma: no cover - libyaml emits nothing else inside a document
                    continue
                if nodes > budget:
                    if budget < limits.max_nodes:
                        text = f"file holds more than {limits.max_file_nodes} YAML nodes in all; split it"
                    elif aliased:
                        text = f"document expands to more than {limits.max_nodes} nodes through aliases (an alias bomb?); refusing to read it"
                    else:
                        text = f"document has more than {limits.max_nodes} nodes; refusing to read it"
                    raise _Abort(ReadProblem("too-complex", text, *_mark(e.start_mark)))
                # Attach (value, entry) to the parent.
                if not stack:
                    root, root_pos = value, entry
                    continue
                parent = stack[-1]
                if parent[5]:
                    if parent[2] is _NOKEY:
                        if isinstance(value, (dict, list)):
                            raise _Abort(
                                ReadProblem(
                                    "unsupported",
                                    "a mapping key must be a string, not a list or a mapping",
                                    *_start(entry),
                                )
                            )
                        if isinstance(value, float) and value != value:
                            value = ".nan"
                        parent[2] = value
                        parent[3] = _start(entry)
                    else:
                        k = parent[2]
                        parent[2] = _NOKEY
                        if k == "<<" and t is not ScalarEvent:
                            if parent[6] is None:
                                parent[6] = []
                            parent[6].append((value, entry, parent[3]))
                            continue
                        container = parent[0]
                        if k in container:
                            problems.append(
                                ReadProblem(
                                    "duplicate-key",
                                    f"duplicate key {_short(str(k))!r}: already set on line "
                                    f"{parent[1].keys[k][0][0]}; write each key once",
                                    *parent[3],
                                )
                            )
                            continue
                        container[k] = value
                        parent[1].keys[k] = (parent[3], entry)
                else:
                    parent[0].append(value)
                    parent[1].items.append(entry)
        except _Abort as abort:
            problem = abort.problem
            if problem.code == "too-complex":
                # Hostile or runaway input: reading on (even just to skip to the next document)
                # would cost time in proportion to it, so stop reading this file here.
                problem.message += " (jsops stopped reading this file here)"
                problems.append(problem)
                yield ParsedDocument(None, None, doc_line, problems)
                return
            problems.append(problem)
            yield ParsedDocument(None, None, doc_line, problems)
            _skip_document(parser, R)
            continue
        file_nodes += nodes
        yield ParsedDocument(root, root_pos, doc_line, problems)


class _NoKey:
    __slots__ = ()


_NOKEY = _NoKey()


def _apply_merges(value: Any, entry: PosEntry, merges: list[tuple[Any, PosEntry, Pos]]) -> None:
    if not isinstance(value, dict) or not isinstance(entry, MapPos):
        return
    for src, src_entry, key_pos in merges:
        sources = (
            list(zip(src, src_entry.items))
            if isinstance(src, list) and isinstance(src_entry, SeqPos)
            else [(src, src_entry)]
        )
        for one, one_entry in sources:
            if not (isinstance(one, dict) and isinstance(one_entry, MapPos)):
                raise _Abort(
                    ReadProblem("yaml-syntax", "a merge key (<<) must refer to a mapping or a list of mappings", *key_pos)
                )
            for k, v in one.items():
                if k not in value:
                    value[k] = v
                    entry.keys[k] = one_entry.keys[k]


def _skip_document(parser: Any, R: Any) -> None:
    """After an aborted document, move the parser to the next document (or the end)."""
    depth = 0
    while True:
        e = parser.get_event()
        t = type(e)
        if t is R.StreamEndEvent:
            # Leave the parser where it is; the next get_event() would fail, so re-raise end.
            raise _StreamDone
        if t is R.MappingStartEvent or t is R.SequenceStartEvent:
            depth += 1
        elif t is R.MappingEndEvent or t is R.SequenceEndEvent:
            depth -= 1
        elif t is R.DocumentEndEvent and depth <= 0:
            return


class _StreamDone(Exception):
    pass


_HINTS = {
    "mapping values are not allowed in this context": "a value that contains ': ' must be quoted",
    "did not find expected key": "check the indentation",
    "did not find expected '-' indicator": "check the indentation",
}


# (libyaml context, problem) -> what is not closed, and what was expected
_UNCLOSED = {
    ("while parsing a flow sequence", "did not find expected ',' or ']'"): ("the list '['", " (expected ',' or ']')"),
    ("while parsing a flow mapping", "did not find expected ',' or '}'"): ("the mapping '{'", " (expected ',' or '}')"),
    ("while scanning a quoted scalar", "found unexpected end of stream"): ("the quoted string", ""),
}


def _error_problem(exc: BaseException, text: str = "") -> ReadProblem:
    """A libyaml reader, scanner or parser error as a problem with a position and a plain message."""
    if hasattr(exc, "reason") and hasattr(exc, "position"):  # ReaderError: a byte offset into UTF-8
        offset = int(getattr(exc, "position", 0) or 0)
        head = text.encode("utf-8", "surrogatepass")[:offset]
        line = head.count(b"\n") + 1
        col = len(head[head.rfind(b"\n") + 1 :].decode("utf-8", "replace")) + 1
        char = getattr(exc, "character", None)
        reason = str(getattr(exc, "reason", "") or "unreadable input")
        if isinstance(char, int) and reason.startswith("control characters"):
            what = "control character" if char < 0x20 or 0x7F <= char <= 0x9F else "character"
            reason = f"{what} U+{char:04X} is not allowed in YAML; write it as an escape in a double-quoted string"
        return ReadProblem("yaml-syntax", f"YAML syntax error: {reason}", line, col)
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    line, col = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
    problem = getattr(exc, "problem", None)
    context = getattr(exc, "context", None)
    context_mark = getattr(exc, "context_mark", None)
    if not problem:
        first = str(exc).splitlines()
        return ReadProblem("yaml-syntax", f"YAML syntax error: {_short(first[0] if first else type(exc).__name__, 200)}", line, col)
    message = f"YAML syntax error: {problem}"
    if mark is not None and mark.column >= 1024 and problem in (
        "mapping values are not allowed in this context",
        "could not find expected ':'",
        "did not find expected ',' or '}'",
    ):
        return ReadProblem(
            "yaml-syntax", "YAML syntax error: a mapping key longer than 1024 characters (YAML's limit for keys)", line, col
        )
    if problem == "found character that cannot start any token" and mark is not None:
        lines = text.split("\n", mark.line + 1)
        bad = lines[mark.line][mark.column : mark.column + 1] if mark.line < len(lines) else ""
        if bad == "\t":
            message = "YAML syntax error: a tab character; YAML indents with spaces only"
        elif bad:
            message += f" ({bad!r})"
    elif _HINTS.get(problem):
        message += f" ({_HINTS[problem]})"
    unclosed = _UNCLOSED.get((context or "", problem))
    if unclosed is not None and context_mark is not None:
        what, expected = unclosed
        return ReadProblem(
            "yaml-syntax",
            f"YAML syntax error: {what} that starts at line {context_mark.line + 1}, column {context_mark.column + 1} "
            f"is not closed{expected}",
            line,
            col,
        )
    if context and context != "while scanning for the next token":
        where = ""
        if context_mark is not None and (context_mark.line, context_mark.column) != (mark.line, mark.column):
            where = f" that starts at line {context_mark.line + 1}, column {context_mark.column + 1}"
        message += f", {context}{where}"
    return ReadProblem("yaml-syntax", message, line, col)


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


def read_documents(data: bytes, *, json_file: bool = False, limits: Limits = DEFAULT_LIMITS) -> tuple[list[ParsedDocument], list[ReadProblem]]:
    """Every document of a file, with positions; problems that stopped the whole file are separate.

    Never raises for bad input.
    """
    if len(data) > limits.max_file_bytes:
        return [], [
            ReadProblem("too-complex", f"file is larger than {limits.max_file_bytes // (1024 * 1024)} MiB; refusing to read it", 1, 1)
        ]
    text, problem = _decode(data)
    if problem is not None or text is None:
        return [], [problem] if problem else []
    if json_file:
        return _read_json(text, limits)
    return _read_yaml(text, limits)


def _read_yaml(text: str, limits: Limits) -> tuple[list[ParsedDocument], list[ReadProblem]]:
    from _ruamel_yaml import CParser

    docs: list[ParsedDocument] = []
    try:
        parser = CParser(text)
        for doc in _compose(parser, limits):
            docs.append(doc)
    except _StreamDone:
        pass
    except RecursionError:
        return docs, [ReadProblem("too-complex", "input nests too deeply to read", 1, 1)]
    except MemoryError:
        return docs, [ReadProblem("too-complex", "input is too large to read", 1, 1)]
    except Exception as exc:  # libyaml scanner/parser/reader errors
        return docs, [_error_problem(exc, text)]
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
        return [], [ReadProblem("too-complex", f"JSON nests deeper than {limits.max_depth} levels; a manifest never needs this", 1, 1)]
    except ValueError as exc:  # e.g. integer string too long
        return [], [ReadProblem("too-complex", f"JSON value cannot be read: {exc}", 1, 1)]
    # JSON is (almost) YAML: compose it again for positions and duplicate-key locations.
    docs, problems = _read_yaml(text, limits)
    if not problems and len(docs) == 1:
        if dupes:
            # Go's encoding/json (and so nats-server) keeps the last value of a repeated key: so does
            # jsops for JSON files, with a warning (YAML files keep refusing duplicates).
            docs[0].value = value
            docs[0].problems = [_json_duplicate(p) if p.code == "duplicate-key" else p for p in docs[0].problems]
        return docs, []
    # libyaml could not read this JSON (YAML 1.1 differs in corners: keys longer than 1024
    # characters, some control characters): use the value without positions, within the same bounds.
    if _depth_exceeds(value, limits.max_depth):
        return [], [ReadProblem("too-complex", f"nesting deeper than {limits.max_depth} levels; a manifest never needs this", 1, 1)]
    if _size(value, limits.max_nodes + 1) > limits.max_nodes:
        return [], [ReadProblem("too-complex", f"document has more than {limits.max_nodes} nodes; refusing to read it", 1, 1)]
    extra = [_json_duplicate(ReadProblem("duplicate-key", f"duplicate key {_short(k)!r}", 1, 1)) for k in dupes]
    return [ParsedDocument(value, None, 1, extra)], []


def _json_duplicate(p: ReadProblem) -> ReadProblem:
    head = p.message.split("; write each key once")[0]
    return ReadProblem("json-duplicate-key", f"{head}; nats-server (Go's JSON decoder) keeps the last value, and so does jsops: write each key once", p.line, p.column)


def _json_int(text: str) -> Any:
    try:
        return int(text)
    except ValueError:  # thousands of digits; read it as YAML does (a string the model rejects)
        return text


def _depth_exceeds(value: Any, limit: int) -> bool:
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
