"""libyaml's reader, scanner and parser errors as problems with a position and a plain message."""

from __future__ import annotations

from .messages import short
from .parsed import ReadProblem

__all__ = ["error_problem"]

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


def error_problem(exc: BaseException, text: str = "") -> ReadProblem:
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
        return ReadProblem(
            "yaml-syntax", f"YAML syntax error: {short(first[0] if first else type(exc).__name__, 200)}", line, col
        )
    message = f"YAML syntax error: {problem}"
    if (
        mark is not None
        and mark.column >= 1024
        and problem
        in (
            "mapping values are not allowed in this context",
            "could not find expected ':'",
            "did not find expected ',' or '}'",
        )
    ):
        return ReadProblem(
            "yaml-syntax",
            "YAML syntax error: a mapping key longer than 1024 characters (YAML's limit for keys)",
            line,
            col,
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
            f"YAML syntax error: {what} that starts at line {context_mark.line + 1}, column {context_mark.column + 1} is not closed{expected}",
            line,
            col,
        )
    if context and context != "while scanning for the next token":
        where = ""
        if (
            context_mark is not None
            and mark is not None
            and (context_mark.line, context_mark.column) != (mark.line, mark.column)
        ):
            where = f" that starts at line {context_mark.line + 1}, column {context_mark.column + 1}"
        message += f", {context}{where}"
    return ReadProblem("yaml-syntax", message, line, col)
