"""A small renderer of the Go-template subset the jsops-controller chart uses, so the suite can render
the chart without the ``helm`` binary (neither PyPI nor Debian ships it; the suite runs offline).

Supported, with Helm's meaning: ``{{ .Values.a.b }}``, ``.Release.Name``, ``.Release.Namespace``,
``.Chart.Name``/``.Chart.AppVersion`` (any Chart.yaml key, capitalised as Helm does), ``$`` for the
root, ``.`` inside ``range``; ``if``/``else``/``end`` and ``range LIST``/``end``; the functions
``eq``, ``ne``, ``not``, ``default``, ``quote``, ``toYaml``, ``indent``, ``nindent``, ``sha256sum``;
``.Files.Get "PATH"`` (a file of the chart, outside templates/, as it is: not rendered); pipelines
(``x | f a`` is ``f a x``); ``{{-`` and ``-}}`` trimming. Anything else is an error, never a guess:
a chart change that needs more makes this test fail until the renderer learns it (or ``helm
template`` replaces it). A missing value is an error too (Helm would print ``<no value>``).
"""

from __future__ import annotations

import hashlib
import json
import re
import shlex
from pathlib import Path
from typing import Any

import yaml

__all__ = ["render_chart", "render"]

_ACTION = re.compile(r"\{\{(-?)\s*(.*?)\s*(-?)\}\}", re.S)


class TemplateError(Exception):
    pass


def _to_yaml(value: Any) -> str:
    # sigs.k8s.io/yaml (Helm's toYaml) goes through JSON: keys sorted, block style, no trailing newline
    return yaml.safe_dump(value, sort_keys=True, default_flow_style=False).rstrip("\n")


def _indent(n: int, text: str) -> str:
    return "\n".join(" " * n + line for line in str(text).split("\n"))


def _truthy(value: Any) -> bool:
    return value not in (None, False, 0, "", [], {})


FUNCS: dict[str, Any] = {
    "eq": lambda a, b: a == b,
    "ne": lambda a, b: a != b,
    "not": lambda a: not _truthy(a),
    "default": lambda d, v=None: v if _truthy(v) else d,
    "quote": lambda v: json.dumps(str(v)),
    "toYaml": _to_yaml,
    "indent": _indent,
    "nindent": lambda n, text: "\n" + _indent(n, text),
    "sha256sum": lambda text: hashlib.sha256(str(text).encode()).hexdigest(),
}


def _lookup(path: str, dot: Any, root: dict[str, Any]) -> Any:
    if path == ".":
        return dot
    base, rest = (root, path[1:]) if path.startswith("$") else (dot, path)
    value = base
    for key in [k for k in rest.split(".") if k]:
        if not isinstance(value, dict) or key not in value:
            raise TemplateError(f"no value for {path}")
        value = value[key]
    return value


def _operand(token: str, dot: Any, root: dict[str, Any]) -> Any:
    if token.startswith((".", "$")):
        return _lookup(token, dot, root)
    if re.fullmatch(r"-?\d+", token):
        return int(token)
    if token in ("true", "false"):
        return token == "true"
    raise TemplateError(f"unsupported operand {token!r}")


def _command(tokens: list[str], dot: Any, root: dict[str, Any], piped: list[Any]) -> Any:
    head, *args = tokens
    if head in FUNCS:
        values = [_operand(a, dot, root) if not a.startswith('"') else json.loads(a) for a in args]
        return FUNCS[head](*values, *piped)
    value = _operand(head, dot, root)
    if callable(value):  # a method of the root, e.g. .Files.Get
        return value(*[json.loads(a) if a.startswith('"') else _operand(a, dot, root) for a in args], *piped)
    if args or piped:
        raise TemplateError(f"{head!r} is not a function")
    return value


def _pipeline(expr: str, dot: Any, root: dict[str, Any]) -> Any:
    piped: list[Any] = []
    for segment in expr.split("|"):
        lexer = shlex.shlex(segment.strip(), posix=False)
        lexer.whitespace_split = True
        piped = [_command(list(lexer), dot, root, piped)]
    return piped[0]


def _parse(text: str) -> list[Any]:
    """Text and actions as a tree: ("text", s), ("out", expr), ("if", expr, then, else), ("range", expr, body)."""
    pieces: list[tuple[str, str]] = []
    pos = 0
    for m in _ACTION.finditer(text):
        before = text[pos : m.start()]
        if m.group(1):
            before = before.rstrip()
        if pieces and pieces[-1][0] == "trim-next":
            pieces.pop()
            before = before.lstrip()
        pieces.append(("text", before))
        pieces.append(("action", m.group(2)))
        if m.group(3):
            pieces.append(("trim-next", ""))
        pos = m.end()
    tail = text[pos:]
    if pieces and pieces[-1][0] == "trim-next":
        pieces.pop()
        tail = tail.lstrip()
    pieces.append(("text", tail))
    tree, rest = _block(pieces, 0)
    if rest != len(pieces):
        raise TemplateError("unexpected {{ end }} or {{ else }}")
    return tree


def _block(pieces: list[tuple[str, str]], i: int) -> tuple[list[Any], int]:
    out: list[Any] = []
    while i < len(pieces):
        kind, body = pieces[i]
        if kind == "text":
            out.append(("text", body))
            i += 1
            continue
        word = body.split(None, 1)[0] if body else ""
        if body.startswith("/*"):
            i += 1
        elif word in ("end", "else"):
            return out, i
        elif word in ("if", "range"):
            inner, j = _block(pieces, i + 1)
            other: list[Any] = []
            if j < len(pieces) and pieces[j][1] == "else":
                other, j = _block(pieces, j + 1)
            if j >= len(pieces) or pieces[j][1] != "end":
                raise TemplateError(f"{{{{ {body} }}}} has no {{{{ end }}}}")
            out.append((word, body.split(None, 1)[1], inner, other))
            i = j + 1
        else:
            out.append(("out", body))
            i += 1
    return out, i


def _eval(tree: list[Any], dot: Any, root: dict[str, Any]) -> str:
    parts: list[str] = []
    for node in tree:
        if node[0] == "text":
            parts.append(node[1])
        elif node[0] == "out":
            value = _pipeline(node[1], dot, root)
            parts.append("" if value is None else str(value).lower() if isinstance(value, bool) else str(value))
        elif node[0] == "if":
            parts.append(_eval(node[2] if _truthy(_pipeline(node[1], dot, root)) else node[3], dot, root))
        else:  # range
            items = _pipeline(node[1], dot, root)
            parts.append("".join(_eval(node[2], item, root) for item in items) if items else _eval(node[3], dot, root))
    return "".join(parts)


def render(text: str, root: dict[str, Any]) -> str:
    return _eval(_parse(text), root, root)


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for k, v in over.items():
        out[k] = _merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def _chart_file(chart: Path, name: str) -> str:
    """``.Files.Get``: a file of the chart, never one of templates/ or outside the chart (Helm
    returns "" for a missing file; here that is an error)."""
    path = (chart / name).resolve()
    if (
        chart.resolve() not in path.parents
        or path.parts[len(chart.resolve().parts)] == "templates"
        or not path.is_file()
    ):
        raise TemplateError(f".Files.Get: no file {name!r} in the chart")
    return path.read_text()


def render_chart(chart: Path, release: str, namespace: str, values: dict[str, Any] | None = None) -> dict[str, str]:
    """Every template of ``chart`` (``templates/*.yaml``) rendered as ``helm template`` would, with
    ``values`` merged over values.yaml; {template name: text}."""
    meta = yaml.safe_load((chart / "Chart.yaml").read_text())
    root = {
        "Values": _merge(yaml.safe_load((chart / "values.yaml").read_text()) or {}, values or {}),
        "Release": {"Name": release, "Namespace": namespace, "Service": "Helm"},
        "Chart": {k[:1].upper() + k[1:]: v for k, v in meta.items()},
        "Files": {"Get": lambda name: _chart_file(chart, name)},
    }
    return {t.name: render(t.read_text(), root) for t in sorted((chart / "templates").glob("*.yaml"))}
