"""How the loader words its findings: finding construction, values shown in messages (short,
escaped, typed), did-you-mean suggestions, and the bounds on how much one object or file reports."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from ..findings import LOAD_CODES, Finding, ObjectRef

__all__ = [
    "MAX_FINDINGS_PER_OBJECT",
    "MAX_FINDINGS_PER_FILE",
    "MAX_NAME_LENGTH",
    "finding",
    "kind_of",
    "type_of",
    "short",
    "shown",
    "did_you_mean",
    "dotted",
    "too_long",
]

# Output stays readable (and small) whatever the input: at most this many findings per object and
# per file are reported one by one; the rest are summed up in one finding.
MAX_FINDINGS_PER_OBJECT = 20
MAX_FINDINGS_PER_FILE = 100
# NATS names are at most 255 characters (JSMaxNameLen); the rules report 256+ with the server's
# error code. Past this bound a "name" is not a name at all, and it is refused before it can reach
# any message or the JSON output.
MAX_NAME_LENGTH = 1024


def finding(
    code_name: str,
    message: str,
    file: str,
    line: int,
    column: int,
    obj: ObjectRef | None = None,
    server_error_code: int | None = None,
    *,
    excerpt: bool = True,
    since: tuple[int, int, int] | None = None,
) -> Finding:
    code = LOAD_CODES[code_name]
    return Finding(
        code.code,
        code.name,
        code.severity,
        message,
        file,
        line,
        column,
        obj,
        server_error_code,
        excerpt=excerpt and code.excerpt,
        since=since,
    )


def kind_of(v: object) -> str:
    if isinstance(v, list):
        return "a list"
    if isinstance(v, str):
        return f"the string {short(v)!r}"
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, (int, float)):
        return f"the number {short(v)}"
    if isinstance(v, dict):
        return "a mapping"
    if v is None:
        return "null"
    return type(v).__name__


def type_of(v: object) -> str:
    """``kind_of`` without the value."""
    if isinstance(v, str):
        return "a string"
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return "a number"
    return kind_of(v)


def short(v: object, limit: int = 60) -> str:
    text = str(v)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def shown(v: object, limit: int = 120) -> str:
    """``short`` for text shown without ``repr``: control characters (terminal escapes) are escaped."""
    text = short(v, limit)
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    if len(word) > 100:  # no field or value is this long; don't spend time on a hostile one
        return ""
    choices = list(choices)
    import difflib  # only for a finding: not imported by a clean lint

    hits = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    if not hits:
        snake = _snake(word)
        if snake in choices:
            hits = [snake]
        else:
            lowered = {c.lower().replace("_", ""): c for c in choices}
            key = word.lower().replace("_", "").replace("-", "")
            if key in lowered:
                hits = [lowered[key]]
    return f"; did you mean {hits[0]!r}?" if hits else ""


def _snake(word: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", word).lower().replace("-", "_")


def too_long(label: str, name: str) -> str:
    return f"{label} is {len(name)} characters long ({short(name, 20)!r}); NATS names are at most 255"


def dotted(path: tuple[Any, ...]) -> str:
    out = ""
    for step in path:
        if isinstance(step, int):
            out += f"[{step}]"
        else:
            out += ("." if out else "") + str(step)
    return out
