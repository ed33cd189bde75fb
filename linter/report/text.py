"""``--format text``: one line per finding, ``file:line:col: severity CODE message [name]``, then the
source line and a caret under the column, then the fix when there is one (with the flag that applies it, when ``--fix`` can).

A source line is shown only for a finding that allows it (``Finding.excerpt``: not for a file that
holds no manifest, nor for a link out of the tree) and only from a file the run linted
(``LintResult.paths``): a file jsops was told not to read (an ``environments/`` values file linked
from outside the tree, which may hold a password) is never opened for an excerpt.

A rule with more than :data:`GROUP_ABOVE` findings shows its first :data:`EXAMPLES` (in file order), then
one ``... and N more`` line; a tally of every rule with its count closes the list (``show_all`` prints every
finding, as ``--show-all`` asks). JSON, SARIF, JUnit and GitHub output always carry every finding.

Colored (ANSI) only when asked: the CLI asks when stdout is a terminal and ``NO_COLOR`` is unset.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable

from ..findings import Applicability, Finding, ObjectRef, Severity
from ..load.reading import read_manifest_bytes
from ..result import LintResult

__all__ = ["render_text", "SourceLines", "finding_line", "read_lines", "source_reader", "GROUP_ABOVE", "EXAMPLES"]

SourceLines = Callable[[str], "list[str] | None"]
_MAX_EXCERPT = 160
_COLORS = {"error": "31", "warning": "33", "info": "36"}
GROUP_ABOVE = 10
"""A rule with more findings than this is grouped (its first :data:`EXAMPLES`, then a count)."""
EXAMPLES = 3


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def read_lines(file: str) -> list[str] | None:
    """The lines of a file for excerpts (None if it cannot be read). Not cached: a render reads each file once
    (:func:`source_reader`); a file read for another render (a later lint in the same process, another
    working directory) is read again."""
    # Past the loader's size bound there is no excerpt (and no reading the rest).
    data = read_manifest_bytes(file)
    return data.decode("utf-8", errors="replace").splitlines() if data is not None else None


def source_reader() -> SourceLines:
    """:func:`read_lines` with each file read at most once: one per render."""
    return functools.lru_cache(maxsize=None)(read_lines)


def _printable(text: str) -> str:
    return "".join(c if c.isprintable() else ("\u2192" if c == "\t" else "?") for c in text)


def _excerpt(f: Finding, source: SourceLines, paint: Callable[[str, str], str]) -> list[str]:
    lines = source(f.file)
    if not lines or not 1 <= f.line <= len(lines):
        return []
    text = _printable(lines[f.line - 1].rstrip("\r\n"))
    col = max(f.column - 1, 0)
    start = 0
    if len(text) > _MAX_EXCERPT:  # keep a window around the column
        start = max(0, min(col - _MAX_EXCERPT // 2, len(text) - _MAX_EXCERPT))
        text = (
            ("\u2026" if start else "")
            + text[start : start + _MAX_EXCERPT]
            + ("\u2026" if start + _MAX_EXCERPT < len(text) else "")
        )
        col = col - start + (1 if start else 0)
    gutter = f"{f.line:>5} | "
    blank = " " * (len(gutter) - 2) + "| "
    return [paint("2", gutter) + text, paint("2", blank) + " " * col + paint(_COLORS[f.severity.value] + ";1", "^")]


def _plain(code: str, text: str) -> str:
    return text


_ORDER_WORDS = {"": "", "first": ", answered first", "next": " once the first refusal is fixed"}


def finding_line(f: Finding, paint: Callable[[str, str], str] = _plain, *, order: str = "") -> str:
    """A finding on one line as ``jsops lint`` prints it: ``file:line:col: severity CODE message [name]``
    and the err_code the server would answer; of an object's several rejections (``order``), the one the server
    answers (``"first"``, :func:`jsops.linter.server_answer.mark_server_answers`) and what follows once it is
    fixed (``"next"``)."""
    code = f.server_error_code
    extra = f" (nats-server err_code {code}{_ORDER_WORDS[order]})" if code else ""
    sev = paint(_COLORS[f.severity.value] + ";1", f.severity.value)
    return f"{paint('1', _printable(f.where()) + ':')} {sev} {paint('1', f.rule)} {f.message} {paint('2', f'[{f.name}]')}{extra}"


def _answer_order(f: Finding, refusals: Counter[ObjectRef | None], answered: set[ObjectRef | None]) -> str:
    """``finding_line``'s ``order`` of a rejection of an object the server refuses for several reasons."""
    if (
        f.object is None
        or f.severity is not Severity.ERROR
        or not f.server_error_code
        or refusals[f.object] < 2
        or f.object not in answered
    ):
        return ""
    return "first" if f.server_answer else "next"


def _finding_lines(
    f: Finding, source: SourceLines | None, paint: Callable[[str, str], str], order: str = ""
) -> list[str]:
    lines = [finding_line(f, paint, order=order)]
    if source is not None and f.excerpt:
        lines.extend(_excerpt(f, source, paint))
    if f.fix is not None:
        how = ("" if f.fix.applicability is Applicability.SAFE else " --unsafe-fixes") if f.fix.edits else None
        hint = f" (jsops lint --fix{how})" if how is not None else ""
        lines.append(f"    {paint('32', f'fix ({f.fix.applicability})')}: {f.fix.description}{hint}")
    return lines


def _tally(findings: list[Finding], shown: int) -> list[str]:
    """Every rule with its count by severity, most findings first (when some findings were not listed)."""
    by_rule: dict[tuple[str, str], Counter[Severity]] = {}
    for f in findings:
        by_rule.setdefault((f.rule, f.name), Counter())[f.severity] += 1
    out = [f"By rule ({shown} of {len(findings)} findings listed; --show-all lists every one):"]
    for (rule, name), sev in sorted(by_rule.items(), key=lambda kv: (-kv[1].total(), kv[0])):
        counts = ", ".join(
            _plural(sev[s], s.value) if s is not Severity.INFO else f"{sev[s]} info" for s in Severity if sev[s]
        )
        out.append(f"  {rule} {name}: {counts}")
    return out


def _summary(result: LintResult) -> list[str]:
    """The run's last lines: what was linted and what was found (and the release the err_codes are for)."""
    out: list[str] = []
    e, w, i = (result.count(s) for s in (Severity.ERROR, Severity.WARNING, Severity.INFO))
    scope = f"{_plural(result.objects, 'object')} in {_plural(result.files, 'file')}"
    if result.skipped:
        scope += f"; {_plural(result.skipped, 'other Kubernetes object')} skipped"
    if result.not_jetstream:
        n = result.not_jetstream
        scope += f"; {_plural(n, 'file')} that {'is not a JetStream config' if n == 1 else 'are not JetStream configs'} skipped"
    if not result.findings and not result.files:
        out.append(
            "No manifests found: nothing was linted (0 files)."
            if not (result.skipped or result.not_jetstream)
            else f"No manifests found: nothing was linted ({scope})."
        )
    elif not result.findings:
        out.append(f"All clean: {scope}.")
    else:
        out.append(f"Found {_plural(e, 'error')}, {_plural(w, 'warning')}, {i} info ({scope}).")
        if result.assumed_release and any(f.server_error_code for f in result.findings):
            out.append(
                f"Predicted err_codes are for nats-server {result.assumed_release}; set target.server_version to check the release you run."
            )
    return out


def render_text(
    result: LintResult, *, color: bool = False, source: SourceLines | None = None, show_all: bool = False
) -> str:
    def paint(code: str, text: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if color else text

    lines = []
    linted = set(result.paths)
    per_rule = Counter(f.rule for f in result.findings)
    shown: Counter[str] = Counter()
    answered = {f.object for f in result.findings if f.server_answer}  # objects with a marked server answer
    refusals = Counter(f.object for f in result.findings if f.severity is Severity.ERROR and f.server_error_code)
    for f in result.findings:
        grouped = not show_all and per_rule[f.rule] > GROUP_ABOVE
        if grouped and shown[f.rule] >= EXAMPLES:
            continue
        shown[f.rule] += 1
        order = _answer_order(f, refusals, answered)
        lines.extend(_finding_lines(f, source if f.file in linted else None, paint, order))
        if grouped and shown[f.rule] == EXAMPLES:
            more = per_rule[f.rule] - EXAMPLES
            lines.append(
                f"    {paint('2', f'... and {more} more {f.rule} [{f.name}] findings (--show-all lists every one)')}"
            )
    if sum(shown.values()) < len(result.findings):
        lines.extend(_tally(result.findings, sum(shown.values())))
    lines.extend(_summary(result))
    return "\n".join(lines) + "\n"
