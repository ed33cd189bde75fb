"""Autofix: apply findings' edits to YAML manifests, byte-identical outside each edit.

Spans come from ruamel.yaml's round-trip composer (each node's start and end marks); the edit is
spliced into the original text, so comments, key order, quoting, indentation and blank lines outside
the edited value stay exactly as they were (a full ``ruamel.yaml`` dump would re-flow them). The
edited text is parsed again before it is accepted; a file whose edit would not parse is left alone.

Only native and NACK YAML files are fixed; JSON files (NATS API dialect) are skipped with a note.
"""

from __future__ import annotations

import difflib
import json as _json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .errors import LinterError
from .findings import Applicability, Edit, FieldPath, Finding

if TYPE_CHECKING:
    from ruamel.yaml.nodes import Node

    from .engine import LintResult

__all__ = [
    "FixReport",
    "FixOutcome",
    "plan_fixes",
    "apply_edits",
    "fix_findings",
    "fix_and_relint",
    "fix_diff",
    "unified_diff",
    "FixError",
]


class FixError(LinterError):
    """An edit that cannot be applied to this document (path not found, unsupported shape), or a
    fixed file that cannot be written."""


@dataclass
class FixReport:
    changed: dict[str, tuple[str, str]] = field(default_factory=dict)  # file -> (before, after)
    applied: int = 0  # findings whose edits were applied
    notes: list[str] = field(default_factory=list)  # files or findings skipped, and why


def plan_fixes(
    findings: Iterable[Finding], *, unsafe: bool = False
) -> dict[str, list[tuple[Finding, tuple[Edit, ...]]]]:
    """Findings with applicable edits, grouped by file."""
    out: dict[str, list[tuple[Finding, tuple[Edit, ...]]]] = {}
    for f in findings:
        if f.fix is None or not f.fix.edits:
            continue
        if f.fix.applicability is not Applicability.SAFE and not unsafe:
            continue
        out.setdefault(f.file, []).append((f, f.fix.edits))
    return out


def fix_findings(
    findings: Iterable[Finding], *, unsafe: bool = False, read: Callable[[str], str] | None = None
) -> FixReport:
    """Compute the new text of every file with applicable fixes (nothing is written here); ``read``
    gives a file's text (default: read it from disk)."""
    report = FixReport()
    for file, items in sorted(plan_fixes(findings, unsafe=unsafe).items()):
        if file.endswith(".json"):
            report.notes.append(
                f"{file}: not fixed: JSON files (NATS API dialect) are not edited; apply the fix by hand"
            )
            continue
        try:
            if read is not None:
                before = read(file)
            else:
                with open(file, encoding="utf-8", newline="") as fh:
                    before = fh.read()
        except (OSError, UnicodeDecodeError) as exc:
            report.notes.append(f"{file}: not fixed: cannot read: {exc}")
            continue
        edits: list[Edit] = []
        seen: set[tuple[int | None, FieldPath]] = set()
        count = 0
        for _f, fedits in items:
            keys = [(e.document, e.path) for e in fedits]
            if any(k in seen for k in keys):
                continue  # another finding already edits this field
            seen.update(keys)
            edits.extend(fedits)
            count += 1
        try:
            after = apply_edits(before, edits)
        except FixError as exc:
            report.notes.append(f"{file}: not fixed: {exc}")
            continue
        if after != before and _load_problems(after, file) > _load_problems(before, file):
            report.notes.append(f"{file}: not fixed: the edited manifest would no longer load cleanly; fix it by hand")
            continue
        if after != before:
            report.changed[file] = (before, after)
            report.applied += count
    return report


@dataclass
class FixOutcome:
    """What :func:`fix_and_relint` did: the last lint result, and the findings fixed in which files."""

    result: LintResult
    fixed: int = 0
    files: set[str] = field(default_factory=set)

    def summary(self) -> str:
        """``fixed N findings in M files``."""
        n, m = self.fixed, len(self.files)
        return f"fixed {n} finding{'s' if n != 1 else ''} in {m} file{'s' if m != 1 else ''}"


def _ignore(_note: str) -> None:
    pass


def fix_and_relint(
    lint: Callable[[], LintResult], *, unsafe: bool = False, note: Callable[[str], None] = _ignore, rounds: int = 3
) -> FixOutcome:
    """``jsops lint --fix``: write the fixes of ``lint()``'s findings to the files and lint again,
    until nothing changes (a fix can reveal another) or after ``rounds`` rounds. ``note`` gets
    why a file or finding was not fixed. Raises :class:`FixError` when a file cannot be written."""
    outcome = FixOutcome(lint())
    for _ in range(rounds):
        report = fix_findings(outcome.result.findings, unsafe=unsafe)
        for text in report.notes:
            note(text)
        if not report.changed:
            break
        for file, (_, after) in report.changed.items():
            try:
                with open(file, "w", encoding="utf-8", newline="") as fh:
                    fh.write(after)
            except OSError as exc:
                raise FixError(f"cannot write: {exc}") from None
        outcome.fixed += report.applied
        outcome.files.update(report.changed)
        outcome.result = lint()
    return outcome


def fix_diff(findings: Iterable[Finding], *, unsafe: bool = False, note: Callable[[str], None] = _ignore) -> str:
    """``jsops lint --diff``: the fixes as one unified diff, files in order (empty: nothing to fix);
    nothing is written. ``note`` gets why a file or finding was not fixed."""
    report = fix_findings(findings, unsafe=unsafe)
    for text in report.notes:
        note(text)
    return "".join(unified_diff(file, before, after) for file, (before, after) in sorted(report.changed.items()))


def _load_problems(text: str, file: str) -> int:
    """How many loading findings (syntax, fields, names) a file's text has on its own."""
    from .load import Estate, load_text

    estate = Estate()
    load_text(text.encode("utf-8"), file, estate)
    return len(estate.findings)


def unified_diff(file: str, before: str, after: str) -> str:
    name = str(file).lstrip("/")  # a/<path> and b/<path> as git writes them, also for absolute paths
    return "".join(
        difflib.unified_diff(
            before.splitlines(keepends=True), after.splitlines(keepends=True), f"a/{name}", f"b/{name}"
        )
    )


# --- splicing --------------------------------------------------------------------------------


def apply_edits(text: str, edits: Iterable[Edit]) -> str:
    """Apply edits (document paths, ``document`` index set) to YAML text; raise FixError if one cannot be."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    edits = list(edits)
    if not edits:
        return text
    try:
        docs = list(YAML(typ="rt").compose_all(text))
    except YAMLError as exc:
        raise FixError(f"does not parse: {str(exc).splitlines()[0]}") from None
    splices: list[tuple[int, int, str]] = []
    for e in edits:
        index = e.document or 0
        if index >= len(docs) or docs[index] is None:
            raise FixError(f"document {index + 1} not found")
        splices.append(_splice(text, docs[index], e))
    splices.sort(key=lambda s: (s[0], s[1]))
    for a, b in zip(splices, splices[1:]):
        if b[0] < a[1]:
            raise FixError("two edits overlap")
    out = text
    for start, end, new in reversed(splices):
        out = out[:start] + new + out[end:]
    _check_parses(out)
    return out


def _check_parses(text: str) -> None:
    from .load import read_documents

    docs, problems = read_documents(text.encode("utf-8"))
    problems = problems + [p for d in docs for p in d.problems]
    if problems:
        raise FixError(f"the edited file would not parse ({problems[0].message}); left unchanged")


def _child(node: Node, key: str | int) -> tuple[Node | None, Node] | None:
    from ruamel.yaml.nodes import MappingNode, SequenceNode

    if isinstance(node, MappingNode):
        for k, v in node.value:
            if getattr(k, "value", None) == str(key):
                return k, v
        return None
    if isinstance(node, SequenceNode) and isinstance(key, int) and 0 <= key < len(node.value):
        return None, node.value[key]
    return None


def _find(root: Node, path: FieldPath) -> tuple[Node, Node | None, Node | None]:
    """(parent node, key node, value node) of ``path``; key/value None when the last key is missing."""
    node = root
    for i, part in enumerate(path):
        hit = _child(node, part)
        if hit is None:
            if i == len(path) - 1:
                return node, None, None
            raise FixError(f"{'.'.join(map(str, path[: i + 1]))} not found")
        if i == len(path) - 1:
            return node, hit[0], hit[1]
        node = hit[1]
    raise FixError("empty path")


_PLAIN_OK = re.compile(r"^[A-Za-z0-9_./][A-Za-z0-9_./ :>*+-]*$")
_RESERVED = re.compile(
    r"^(?:~|null|Null|NULL|true|True|TRUE|false|False|FALSE|yes|Yes|YES|no|No|NO|on|On|ON|off|Off|OFF|y|Y|n|N|[-+]?[0-9][0-9_.:eE+-]*|\.inf|\.nan)$"
)


def render_scalar(value: object) -> str:
    """``value`` as YAML flow text: plain when that reads back as the same value, else JSON-quoted."""
    if value is None:
        return "null"
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        if (
            value
            and _PLAIN_OK.match(value)
            and not _RESERVED.match(value)
            and ": " not in value
            and not value.endswith((" ", ":"))
        ):
            return value
        return _json.dumps(value, ensure_ascii=False)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(render_scalar(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{render_scalar(str(k))}: {render_scalar(v)}" for k, v in value.items()) + "}"
    raise FixError(f"cannot write a {type(value).__name__} value")


def _quoted(value: str, style: str) -> str:
    if style == "'":
        return "'" + value.replace("'", "''") + "'"
    return _json.dumps(value, ensure_ascii=False)


def _line_end(text: str, pos: int) -> int:
    """Index just past the newline ending the line that holds ``pos`` (or the end of text)."""
    nl = text.find("\n", pos)
    return len(text) if nl < 0 else nl + 1


def _splice(text: str, root: Node, e: Edit) -> tuple[int, int, str]:
    """``(start, end, replacement)`` in ``text`` that makes edit ``e``."""
    parent, key, value = _find(root, e.path)
    if e.op == "set":
        if value is not None:
            return _replace_value(text, key, value, e)
        return _add_key(text, parent, e)
    if e.op == "remove":
        if value is None:
            return 0, 0, ""  # already absent
        if key is None:
            raise FixError("removing sequence items is not supported")
        return _remove_key(text, parent, key, value, e)
    raise FixError(f"unknown edit {e.op!r}")


def _replace_value(text: str, key: Node | None, value: Node, e: Edit) -> tuple[int, int, str]:
    """A set of a field the document writes: its value replaced, in the author's style where it can."""
    from ruamel.yaml.nodes import ScalarNode

    rendered = render_scalar(e.value)
    start, end = value.start_mark.index, value.end_mark.index
    if isinstance(value, ScalarNode) and start == end:  # `key:` with an empty value
        return start, end, " " + rendered if text[start - 1 : start] == ":" else rendered
    if not isinstance(value, ScalarNode) and not getattr(value, "flow_style", False):
        # A block collection: replace it with the flow value right after the key.
        kend = key.end_mark.index if key is not None else start
        colon = text.index(":", kend)
        return colon + 1, _trim_end(text, end), " " + rendered + "\n"
    style = getattr(value, "style", None)
    if isinstance(value, ScalarNode) and isinstance(e.value, str) and style in ("'", '"'):
        rendered = _quoted(e.value, style)  # keep the author's quoting
    return start, end, rendered


def _add_key(text: str, parent: Node, e: Edit) -> tuple[int, int, str]:
    """A set of a field the document does not write: a new entry at the end of its mapping."""
    from ruamel.yaml.nodes import MappingNode

    if not isinstance(parent, MappingNode):
        raise FixError(f"{'.'.join(map(str, e.path[:-1])) or 'document'} is not a mapping")
    entry = f"{render_scalar(str(e.path[-1]))}: {render_scalar(e.value)}"
    if parent.flow_style:
        close = parent.end_mark.index - 1
        while close > parent.start_mark.index and text[close] != "}":
            close -= 1
        inner = text[parent.start_mark.index + 1 : close].strip()
        return close, close, (", " if inner else "") + entry
    if not parent.value:
        raise FixError("cannot add to an empty block mapping")
    first_key = parent.value[0][0]
    indent = " " * first_key.start_mark.column
    last_value = parent.value[-1][1]
    pos = last_value.end_mark.index
    if pos > 0 and text[pos - 1] != "\n":
        pos = _line_end(text, pos)
    prefix = "" if pos == 0 or text[pos - 1] == "\n" else "\n"
    return pos, pos, f"{prefix}{indent}{entry}\n"


def _remove_key(text: str, parent: Node, key: Node, value: Node, e: Edit) -> tuple[int, int, str]:
    """A removal: the entry (and its separator in a flow mapping, its whole line in a block one)."""
    from ruamel.yaml.nodes import MappingNode

    if isinstance(parent, MappingNode) and parent.flow_style:
        start, end = key.start_mark.index, value.end_mark.index
        m = re.match(r"\s*,\s*", text[end:])
        if m:
            return start, end + m.end(), ""
        m2 = re.search(r",\s*$", text[:start])
        return (m2.start() if m2 else start), end, ""
    line_start = text.rfind("\n", 0, key.start_mark.index) + 1
    if text[line_start : key.start_mark.index].strip():
        raise FixError(f"{'.'.join(map(str, e.path))} shares its line with other content")
    end = value.end_mark.index
    if end > 0 and text[end - 1] != "\n":
        end = _line_end(text, end)
    return line_start, end, ""


def _trim_end(text: str, end: int) -> int:
    """A block collection's end mark may sit after trailing blank lines; keep those."""
    while end > 0 and text[end - 1] == "\n" and end > 1 and text[end - 2] == "\n":
        end -= 1
    return end
