"""JSON text of a report: byte for byte what ``json.dumps(doc, indent=2, ensure_ascii=False)``
writes, in a third of its time.

With ``indent`` the standard library gives up its C encoder for a pure-Python one built from
nested generators (0.12 s for 8,000 findings, most of a ``--format json`` report of a large
estate). A report is plain data (mappings with string keys, lists, strings, integers, booleans,
null, finite floats), so it is written here by one recursive function that escapes strings with the
standard library's C escaper and joins the parts once. Anything else in the document (a tuple, a
non-string key, a float that is not finite, a mapping nested too deep) is written by
``json.dumps`` itself, so the text is always the standard library's.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["dumps_indented"]

_MAX_DEPTH = 200  # deeper documents are left to json.dumps (and its own recursion checks)
_INDENT = "  "
_ESCAPE = json.encoder.encode_basestring  # the C escaper when the _json extension is there (ensure_ascii=False)


class _Other(Exception):
    """A value this writer does not write: the whole document goes to ``json.dumps``."""


def dumps_indented(doc: Any) -> str:
    """``json.dumps(doc, indent=2, ensure_ascii=False)``."""
    parts: list[str] = []
    try:
        text = _scalar(doc)
        if text is not None:
            return text
        _write(doc, 0, parts)
    except _Other:
        return json.dumps(doc, indent=2, ensure_ascii=False)
    return "".join(parts)


def _scalar(v: Any) -> str | None:
    """The text of a scalar, None for a mapping or a list; :class:`_Other` for anything else."""
    t = type(v)
    if t is str:
        return _ESCAPE(v)
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if t is int:
        return int.__repr__(v)
    if t is float and v - v == 0.0:  # finite (NaN and infinities are json.dumps's to spell)
        return float.__repr__(v)
    if t is dict or t is list:
        return None
    raise _Other


def _write(v: Any, level: int, out: list[str]) -> None:
    """A mapping or a list at ``level``; scalar members are written in place, containers recursively."""
    if not v:
        out.append("{}" if type(v) is dict else "[]")
        return
    if level >= _MAX_DEPTH:
        raise _Other
    inner = ",\n" + _INDENT * (level + 1)
    if type(v) is dict:
        out.append("{")
        sep = inner[1:]
        for key, child in v.items():
            if type(key) is not str:
                raise _Other
            text = _scalar(child)
            if text is None:
                out.append(f"{sep}{_ESCAPE(key)}: ")
                _write(child, level + 1, out)
            else:
                out.append(f"{sep}{_ESCAPE(key)}: {text}")
            sep = inner
        out.append("\n" + _INDENT * level + "}")
        return
    out.append("[")
    sep = inner[1:]
    for child in v:
        text = _scalar(child)
        if text is None:
            out.append(sep)
            _write(child, level + 1, out)
        else:
            out.append(sep + text)
        sep = inner
    out.append("\n" + _INDENT * level + "]")
