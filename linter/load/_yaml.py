"""Composition of libyaml parser events into plain values and a position tree, within bounds.

Iterative (no recursion on nesting) and bounded by :class:`~jsops.linter.load.parsed.Limits`: nesting
depth, nodes per document (alias expansions counted), nodes per file and documents per file.
Imported with the C parser, only when a YAML (or JSON) file is read.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any, Protocol

from ..jsonvalue import JsonScalar
from ..model.positions import MapPos, Pos, PosEntry, SeqPos, start_of
from .messages import short
from .parsed import Limits, ParsedDocument, ReadProblem, node_count

__all__ = ["compose", "StreamDone"]

_NULL = {"", "~", "null", "Null", "NULL"}
_BOOL = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}
_INT = re.compile(r"^[-+]?[0-9]+$")
_OCT = re.compile(r"^0o[0-7]+$")
_HEX = re.compile(r"^0x[0-9a-fA-F]+$")
_FLOAT = re.compile(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$")
_INF = re.compile(r"^[-+]?\.(inf|Inf|INF)$")
_NAN = {".nan", ".NaN", ".NAN"}

_TAG = "tag:yaml.org,2002:"


class _Mark(Protocol):
    line: int  # 0-based
    column: int


class _Event(Protocol):
    """What composition reads of a libyaml parser event (the C extension ships no stubs)."""

    start_mark: _Mark
    tag: str | None
    anchor: str | None
    value: str  # a scalar's text
    style: str | None


class _Parser(Protocol):
    """libyaml's ``CParser``, as composition uses it."""

    def get_event(self) -> _Event: ...


class _Abort(Exception):
    def __init__(self, problem: ReadProblem) -> None:
        self.problem = problem


def _resolve_plain(text: str) -> JsonScalar:
    """YAML 1.2 core schema for an untagged plain scalar."""
    if text in _NULL:
        return None
    c = text[0]
    if c in "tTfF" and text in _BOOL:
        return _BOOL[text]
    if c.isdigit() or c in "+-.":
        return _resolve_number(text)
    return text


def _resolve_number(text: str) -> int | float | str:
    """A plain scalar that starts like a number: the core schema's int or float, else the text."""
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
    return float("nan") if text in _NAN else text


def _resolve_tagged(text: str, tag: str, mark: Pos) -> JsonScalar:
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
    raise _Abort(ReadProblem("yaml-syntax", f"value {short(text)!r} does not match its tag {_tag_text(tag)}", *mark))


def _tag_text(tag: str) -> str:
    """A tag as the manifest spells it (``!!python/object``), not libyaml's expanded form."""
    shown = "!!" + tag[len(_TAG) :] if tag.startswith(_TAG) else tag
    return short(shown)


def _unsupported_tag(tag: str, mark: Pos) -> _Abort:
    return _Abort(
        ReadProblem(
            "unsupported",
            f"unsupported YAML tag {_tag_text(tag)}; manifests hold plain data (strings, numbers, booleans, lists, mappings)",
            *mark,
        )
    )


def _mark(m: _Mark) -> Pos:
    return (m.line + 1, m.column + 1)


class _NoKey:
    __slots__ = ()


_NOKEY = _NoKey()


class StreamDone(Exception):
    """The parser reached the end of the stream while skipping a document that could not be read."""


def compose(parser: _Parser, limits: Limits) -> Iterator[ParsedDocument]:
    """Every document of the parser's stream (``parser`` is libyaml's ``CParser``).

    A document that cannot be read is yielded with ``value`` None and its problems; a problem that
    would make reading on costly (too complex) ends the file there."""
    import _ruamel_yaml as R  # type: ignore[import-not-found]  # the C extension ships no stubs

    get_event = parser.get_event
    documents = 0
    file_nodes = 0
    while True:
        e = get_event()
        t = type(e)
        if t is R.StreamEndEvent:
            return
        if t is not R.DocumentStartEvent:
            continue
        doc_line = e.start_mark.line + 1
        documents += 1
        if documents > limits.max_documents:
            message = f"file holds more than {limits.max_documents} documents; split it (jsops stopped reading this file here)"
            yield ParsedDocument(None, None, doc_line, [ReadProblem("too-complex", message, doc_line, 1)])
            return
        # Every document may use up to max_nodes, and all of them together max_file_nodes.
        doc = _Document(R, limits, min(limits.max_nodes, limits.max_file_nodes - file_nodes))
        try:
            root, root_pos = doc.run(get_event)
        except _Abort as abort:
            problem = abort.problem
            if problem.code == "too-complex":
                # Hostile or runaway input: reading on (even just to skip to the next document)
                # would cost time in proportion to it, so stop reading this file here.
                problem.message += " (jsops stopped reading this file here)"
                doc.problems.append(problem)
                yield ParsedDocument(None, None, doc_line, doc.problems)
                return
            doc.problems.append(problem)
            yield ParsedDocument(None, None, doc_line, doc.problems)
            _skip_document(parser, R)
            continue
        file_nodes += doc.nodes
        yield ParsedDocument(root, root_pos, doc_line, doc.problems)


class _Document:
    """One document being composed. Containers being built are stack frames, plain lists for speed:
    ``[container, posentry, pending_key, pending_key_pos, anchor, is_map, merges]``."""

    __slots__ = ("R", "limits", "budget", "problems", "anchors", "nodes", "aliased", "stack")

    def __init__(self, R: ModuleType, limits: Limits, budget: int) -> None:
        self.R = R
        self.limits = limits
        self.budget = budget
        self.problems: list[ReadProblem] = []
        self.anchors: dict[str, tuple[Any, PosEntry, int]] = {}
        self.nodes = 0
        self.aliased = False
        self.stack: list[list[Any]] = []

    def run(self, get_event: Callable[[], _Event]) -> tuple[Any, PosEntry | None]:
        """Events up to the document's end: the root value and its positions. Raises :class:`_Abort`."""
        R = self.R
        Scalar, Alias, DocumentEnd = R.ScalarEvent, R.AliasEvent, R.DocumentEndEvent
        MappingStart, SequenceStart = R.MappingStartEvent, R.SequenceStartEvent
        MappingEnd, SequenceEnd = R.MappingEndEvent, R.SequenceEndEvent
        stack = self.stack
        root: Any = None
        root_pos: PosEntry | None = None
        while True:
            e = get_event()
            t = type(e)
            entry: PosEntry
            if t is Scalar:
                value, entry = self._scalar(e)
            elif t is MappingStart or t is SequenceStart:
                self._open(e, t is MappingStart)
                continue
            elif t is MappingEnd or t is SequenceEnd:
                value, entry = self._close()
            elif t is Alias:
                value, entry = self._alias(e)
            elif t is DocumentEnd:
                return root, root_pos
            else:  # pragma: no cover - libyaml emits nothing else inside a document
                continue
            if self.nodes > self.budget:
                raise self._too_big(e)
            if not stack:
                root, root_pos = value, entry
            elif stack[-1][5]:
                self._attach_to_map(stack[-1], value, entry, t is Scalar)
            else:
                stack[-1][0].append(value)
                stack[-1][1].items.append(entry)

    def _scalar(self, e: _Event) -> tuple[Any, Pos]:
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
                    f"number {short(e.value, 20)} has {len(e.value)} digits; configuration values fit in 64 bits",
                    *mark,
                )
            ) from None
        self.nodes += 1
        if e.anchor:
            self.anchors[e.anchor] = (value, mark, 1)
        return value, mark

    def _open(self, e: _Event, is_map: bool) -> None:
        if len(self.stack) >= self.limits.max_depth:
            raise _Abort(
                ReadProblem(
                    "too-complex",
                    f"nesting deeper than {self.limits.max_depth} levels; a manifest never needs this",
                    *_mark(e.start_mark),
                )
            )
        self.nodes += 1
        mark = _mark(e.start_mark)
        if e.tag and e.tag not in ("!", _TAG + "map", _TAG + "seq"):
            raise _unsupported_tag(e.tag, mark)
        if is_map:
            self.stack.append([{}, MapPos(mark), _NOKEY, None, e.anchor, True, None])
        else:
            self.stack.append([[], SeqPos(mark), _NOKEY, None, e.anchor, False, None])

    def _close(self) -> tuple[Any, PosEntry]:
        frame = self.stack.pop()
        value, entry = frame[0], frame[1]
        if frame[6]:
            _apply_merges(value, entry, frame[6])
        if frame[4]:
            self.anchors[frame[4]] = (value, entry, node_count(value, self.limits.max_nodes + 1))
        return value, entry

    def _alias(self, e: _Event) -> tuple[Any, PosEntry]:
        mark = _mark(e.start_mark)
        hit = self.anchors.get(e.anchor or "")  # an alias always names one
        if hit is None:
            raise _Abort(
                ReadProblem(
                    "yaml-syntax", f"alias *{short(e.anchor)} has no anchor &{short(e.anchor)} before it", *mark
                )
            )
        value, entry, size = hit
        self.nodes += size
        self.aliased = True
        return value, entry

    def _too_big(self, e: _Event) -> _Abort:
        limits = self.limits
        if self.budget < limits.max_nodes:
            text = f"file holds more than {limits.max_file_nodes} YAML nodes in all; split it"
        elif self.aliased:
            text = f"document expands to more than {limits.max_nodes} nodes through aliases (an alias bomb?); refusing to read it"
        else:
            text = f"document has more than {limits.max_nodes} nodes; refusing to read it"
        return _Abort(ReadProblem("too-complex", text, *_mark(e.start_mark)))

    def _attach_to_map(self, parent: list[Any], value: object, entry: PosEntry, is_scalar: bool) -> None:
        if parent[2] is _NOKEY:
            if isinstance(value, (dict, list)):
                raise _Abort(
                    ReadProblem(
                        "unsupported", "a mapping key must be a string, not a list or a mapping", *start_of(entry)
                    )
                )
            if isinstance(value, float) and value != value:
                value = ".nan"
            parent[2] = value
            parent[3] = start_of(entry)
            return
        k = parent[2]
        parent[2] = _NOKEY
        if k == "<<" and not is_scalar:
            if parent[6] is None:
                parent[6] = []
            parent[6].append((value, entry, parent[3]))
            return
        container = parent[0]
        if k in container:
            head = f"duplicate key {short(str(k))!r}: already set on line {parent[1].keys[k][0][0]}"
            line, column = parent[3]
            self.problems.append(ReadProblem("duplicate-key", f"{head}; write each key once", line, column, head))
            return
        container[k] = value
        parent[1].keys[k] = (parent[3], entry)


def _apply_merges(value: object, entry: PosEntry, merges: list[tuple[Any, PosEntry, Pos]]) -> None:
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
                    ReadProblem(
                        "yaml-syntax", "a merge key (<<) must refer to a mapping or a list of mappings", *key_pos
                    )
                )
            for k, v in one.items():
                if k not in value:
                    value[k] = v
                    entry.keys[k] = one_entry.keys[k]


def _skip_document(parser: _Parser, R: ModuleType) -> None:
    """After an aborted document, move the parser to the next document (or the end)."""
    depth = 0
    while True:
        e = parser.get_event()
        t = type(e)
        if t is R.StreamEndEvent:
            # Leave the parser where it is; the next get_event() would fail, so re-raise end.
            raise StreamDone
        if t is R.MappingStartEvent or t is R.SequenceStartEvent:
            depth += 1
        elif t is R.MappingEndEvent or t is R.SequenceEndEvent:
            depth -= 1
        elif t is R.DocumentEndEvent and depth <= 0:
            return
