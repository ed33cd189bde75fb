"""What a PromQL expression reads: its metric names and the label names it uses (a small lexer
for the expressions of the monitoring pack; the syntax itself is checked by the real ``promtool``).

Metric names are the identifiers that are not function or aggregation calls, keywords, label names
(inside ``{...}``, ``by``/``without``/``on``/``ignoring``/``group_left``/``group_right`` lists) or
durations (inside ``[...]`` or after ``offset``)."""

from __future__ import annotations

import re

__all__ = ["metric_names", "label_names", "grafana_expr"]

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|`[^`]*`')
_GROUPING = re.compile(r"\b(?:by|without|on|ignoring|group_left|group_right)\s*\(([^)]*)\)")
_MATCHERS = re.compile(r"\{([^}]*)\}")
_RANGE = re.compile(r"\[[^\]]*\]")
_IDENT = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*")
_KEYWORDS = {
    "and",
    "or",
    "unless",
    "bool",
    "offset",
    "by",
    "without",
    "on",
    "ignoring",
    "group_left",
    "group_right",
    "inf",
    "nan",
    "Inf",
    "NaN",
}


def _bare(expr: str) -> str:
    return _STRING.sub('""', expr)


def metric_names(expr: str) -> set[str]:
    """The metric names ``expr`` selects."""
    text = _RANGE.sub(" ", _MATCHERS.sub(" ", _GROUPING.sub(" ", _bare(expr))))
    text = re.sub(r"\boffset\s+\S+", " ", text)
    names = set()
    for m in _IDENT.finditer(text):
        if m.group() in _KEYWORDS or re.match(r"\s*\(", text[m.end() :]):
            continue
        if m.start() and (text[m.start() - 1].isdigit() or text[m.start() - 1] == "."):
            continue  # the exponent of a number such as 1e3
        names.add(m.group())
    return names


def label_names(expr: str) -> set[str]:
    """The label names ``expr`` matches on or groups by."""
    bare = _bare(expr)
    names = {n.strip() for group in _GROUPING.findall(bare) for n in group.split(",") if n.strip()}
    for matchers in _MATCHERS.findall(bare):
        names |= set(re.findall(r"([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)", matchers))
    return names


def grafana_expr(expr: str, variables: dict[str, str]) -> str:
    """A dashboard query as Prometheus receives it: ``$name`` and ``${name}`` replaced by the
    variable's value (every one must be known; Grafana's ``$__rate_interval`` and friends too)."""

    def one(m: re.Match[str]) -> str:
        name = m.group(1) or m.group(2)
        if name not in variables:
            raise KeyError(f"unknown dashboard variable ${name} in {expr!r}")
        return variables[name]

    return re.sub(r"\$\{(\w+)\}|\$(\w+)", one, expr)
