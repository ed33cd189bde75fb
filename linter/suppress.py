"""Suppressions: ``# jsops: disable=...`` comments and the ``jsops.io/disable`` annotation.

- ``# jsops: disable=JS102,stream-sealed-on-create <reason>`` at the end of a line suppresses those
  rules' findings on that line; on a line of its own it suppresses them on the next line that is not
  blank or a comment.
- ``# jsops: disable-file=JS102 <reason>`` anywhere in a file suppresses them in the whole file.
- ``metadata.annotations`` ``jsops.io/disable: "JS102,JS110 <reason>"`` suppresses them for that
  object (it survives YAML re-serialisation, unlike a comment).

Rules are named by code or name. A suppression that suppresses nothing is itself a finding
(JS010 unused-suppression), and one naming no known rule is JS011 invalid-suppression.

The fast loader drops comments, so comments are found cheaply here: only lines of the raw text
that contain ``jsops:`` are looked at.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from .findings import LOAD_CODES, Finding, ObjectRef
from .load.files import SUPPRESSION_MARKER
from .model.resource import Resource

__all__ = ["Suppression", "ANNOTATION", "scan_comments", "from_annotations", "apply_suppressions"]

ANNOTATION = "jsops.io/disable"
_MARK = SUPPRESSION_MARKER
_DIRECTIVE = re.compile(r"(?:^|\s)#\s*jsops:\s*(?P<body>.*)$")
_BODY = re.compile(
    r"(?P<kind>disable-file|disable)\s*=\s*(?P<rules>[A-Za-z0-9_.-]+(?:\s*,\s*[A-Za-z0-9_.-]+)*)\s*(?P<reason>.*)$"
)
_TOKENS = re.compile(r"(?P<rules>[A-Za-z0-9_.-]+(?:\s*,\s*[A-Za-z0-9_.-]+)*)\s*(?P<reason>.*)$")


@dataclass
class Suppression:
    """One suppression directive: which rules, where it is written, and what it covers."""

    file: str
    line: int
    column: int
    rules: tuple[str, ...]  # as written (codes or names)
    reason: str
    lines: frozenset[int] | None = None  # covered lines; None with obj None: the whole file
    obj: ObjectRef | None = None  # an annotation covers one object's findings
    where: str = "comment"  # "comment" | "file comment" | "annotation"
    used: set[str] = field(default_factory=set)

    def covers(self, f: Finding) -> bool:
        if f.file != self.file:
            return False
        if self.obj is not None:
            return f.object == self.obj
        return self.lines is None or f.line in self.lines


def scan_comments(data: bytes, file: str) -> tuple[list[Suppression], list[Finding]]:
    """Suppression comments in a file's raw bytes, and findings for malformed ones."""
    if _MARK not in data:
        return [], []
    text = data.decode("utf-8", errors="replace")
    lines = text.splitlines()
    out: list[Suppression] = []
    bad: list[Finding] = []
    for i, raw in enumerate(lines):
        if "jsops:" not in raw:
            continue
        m = _DIRECTIVE.search(raw)
        if m is None:
            continue
        column = raw.index("#", m.start()) + 1
        body = _BODY.match(m.group("body").strip())
        if body is None:
            bad.append(
                _invalid(
                    f"malformed jsops comment {m.group(0).strip()[:80]!r}; write '# jsops: disable=CODE[,CODE] reason' or 'disable-file=...'",
                    file,
                    i + 1,
                    column,
                )
            )
            continue
        rules = tuple(t.strip() for t in body.group("rules").split(","))
        reason = body.group("reason").strip()
        if body.group("kind") == "disable-file":
            out.append(Suppression(file, i + 1, column, rules, reason, None, None, "file comment"))
            continue
        own_line = raw.lstrip().startswith("#")
        covered = i + 1
        if own_line:
            j = i + 1
            while j < len(lines) and (not lines[j].strip() or lines[j].lstrip().startswith("#")):
                j += 1
            covered = j + 1
        out.append(Suppression(file, i + 1, column, rules, reason, frozenset({covered})))
    return out, bad


def from_annotations(resources: Iterable[Resource]) -> list[Suppression]:
    out = []
    for r in resources:
        value = r.annotations.get(ANNOTATION) if r.annotations else None
        if value is None:
            continue
        line, col = r.locate(("metadata", "annotations", ANNOTATION), document_path=True)
        m = _TOKENS.match(value.strip())
        rules = tuple(t.strip() for t in m.group("rules").split(",")) if m else ()
        reason = m.group("reason").strip() if m else ""
        out.append(Suppression(r.file, line, col, rules, reason, None, r.ref, "annotation"))
    return out


def _invalid(message: str, file: str, line: int, column: int) -> Finding:
    c = LOAD_CODES["invalid-suppression"]
    return Finding(c.code, c.name, c.severity, message, file, line, column)


def apply_suppressions(
    findings: list[Finding],
    suppressions: list[Suppression],
    resolve: Callable[[str], str | None],
    active: Callable[[str], bool],
) -> tuple[list[Finding], list[Finding]]:
    """Drop suppressed findings; return (kept, findings about the suppressions themselves).

    ``resolve`` maps a code or name to a rule code (None: unknown); ``active`` says whether that rule
    ran, since a suppression of a rule switched off in config is not reported as unused.
    """
    if not suppressions:
        return findings, []
    resolved, notes = _resolved(suppressions, resolve)
    by_file: dict[str, list[tuple[Suppression, dict[str, str]]]] = {}
    for item in resolved:
        by_file.setdefault(item[0].file, []).append(item)
    kept = []
    for f in findings:
        hit = False
        for s, codes in by_file.get(f.file, ()):
            if f.rule in codes and s.covers(f):
                s.used.add(f.rule)
                hit = True
        if not hit:
            kept.append(f)
    return kept, notes + _unused(resolved, active)


def _resolved(
    suppressions: list[Suppression], resolve: Callable[[str], str | None]
) -> tuple[list[tuple[Suppression, dict[str, str]]], list[Finding]]:
    """Each suppression with the codes it names (code -> the token written), and a finding per unknown rule."""
    resolved: list[tuple[Suppression, dict[str, str]]] = []
    notes: list[Finding] = []
    for s in suppressions:
        codes: dict[str, str] = {}
        for token in s.rules:
            code = resolve(token)
            if code is None:
                notes.append(
                    _invalid(
                        f"{s.where} names unknown rule {token!r}; use a code (JS102) or a name (`jsops rules` lists them)",
                        s.file,
                        s.line,
                        s.column,
                    )
                )
            else:
                codes[code] = token
        resolved.append((s, codes))
    return resolved, notes


def _unused(resolved: list[tuple[Suppression, dict[str, str]]], active: Callable[[str], bool]) -> list[Finding]:
    """A finding per suppressed rule that ran and found nothing the suppression covers."""
    unused = LOAD_CODES["unused-suppression"]
    return [
        Finding(
            unused.code,
            unused.name,
            unused.severity,
            f"unused suppression: {s.where} disables {token} but there is no such finding here; remove it",
            s.file,
            s.line,
            s.column,
        )
        for s, codes in resolved
        for code, token in codes.items()
        if code not in s.used and active(code)
    ]
