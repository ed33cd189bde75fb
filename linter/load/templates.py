"""Manifest templates: ``*.yaml.j2`` files rendered with per-environment values.

A template is rendered with the values of ``environments/<name>.yaml`` (the nearest
``environments/`` directory above the template, or the one given) in a sandboxed jinja2
environment (:class:`jinja2.sandbox.ImmutableSandboxedEnvironment`) with ``StrictUndefined`` and
no loader: a template cannot reach Python internals, cannot read files (``include``, ``import``
and ``extends`` fail), cannot use an undefined value, and cannot build huge strings or lists.
Everything that goes wrong is a :class:`TemplateProblem` with the template's file and line; this
module never raises for bad input.

Rendered text comes with a line map: for each rendered line, the template line that produced it.
jinja2 is imported only when a template is rendered (``jsops lint`` without templates stays fast).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import LinterError
from .discovery import ENVIRONMENTS_DIR, TEMPLATE_SUFFIXES, escapes
from .reading import read_regular, unreadable

if TYPE_CHECKING:  # jinja2 is imported when a template is rendered
    from jinja2 import Environment, Template
    from jinja2.nodes import Node

__all__ = [
    "TEMPLATE_SUFFIXES",
    "ENVIRONMENTS_DIR",
    "EnvironmentError_",
    "TemplateProblem",
    "Rendered",
    "is_template",
    "find_environments_dir",
    "environments_of",
    "EVERY_ENV",
    "load_values",
    "render_template",
    "render_file",
]

# Bounds on what one template may produce (the sandbox stops escapes, these stop blow-ups).
MAX_RENDERED_BYTES = 64 * 1024 * 1024
MAX_RENDER_SECONDS = 10.0  # wall time of one template's render
# Bounds on each value a template builds are in jsops.linter.load._template_bounds (imported with jinja2).
_ENV_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$")


class EnvironmentError_(LinterError):  # not the builtin EnvironmentError
    """An environment that cannot be used at all (bad name, no values file): the tool cannot run."""


@dataclass(frozen=True)
class TemplateProblem:
    """Something that stopped a template (or an environment's values) from rendering."""

    code: str  # a load code name: "template-error", or the values file's "manifest-syntax-error", ...
    message: str
    file: str
    line: int
    column: int = 1


@dataclass
class Rendered:
    """A rendered template: its text, and for each rendered line (1-based index ``i - 1``) the
    template line that produced it and whether the mapping is exact (the rendered line starts
    with template text written on that line) or only the nearest line jinja2 can tell (the rendered
    line comes from the multi-line output of an expression, a macro or a filter block)."""

    file: str
    env: str
    text: str = ""
    lines: list[tuple[int, bool]] = field(default_factory=list)
    values_file: str | None = None
    problems: list[TemplateProblem] = field(default_factory=list)

    def template_line(self, rendered_line: int) -> tuple[int, bool]:
        """``(template line, exact)`` of a 1-based rendered line."""
        if 1 <= rendered_line <= len(self.lines):
            return self.lines[rendered_line - 1]
        if self.lines:  # past the end (a problem at end of input): the last line
            return self.lines[-1][0], False
        return rendered_line, False


def is_template(path: str) -> bool:
    return path.endswith(TEMPLATE_SUFFIXES)


# ---------------------------------------------------------------------------------------------
# environments


def find_environments_dir(template: str, *, stop: str | None = None) -> str | None:
    """The ``environments/`` directory that applies to ``template``: the nearest one in the
    template's directory or above it. The walk stops at a directory holding ``.git`` (the
    repository root), at ``stop``, or at the file system root."""
    here = os.path.dirname(os.path.abspath(template))
    stop_at = os.path.abspath(stop) if stop else None
    while True:
        candidate = os.path.join(here, ENVIRONMENTS_DIR)
        if os.path.isdir(candidate):
            return candidate
        if here == stop_at or os.path.exists(os.path.join(here, ".git")):
            return None
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def _values_file(env_dir: str, env: str) -> str | None:
    for suffix in (".yaml", ".yml"):
        path = os.path.join(env_dir, env + suffix)
        if os.path.isfile(path):
            return path
    return None


def available_environments(env_dir: str) -> list[str]:
    try:
        names = os.listdir(env_dir)
    except OSError:
        return []
    return sorted({n.rsplit(".", 1)[0] for n in names if n.endswith((".yaml", ".yml")) and not n.startswith(".")})


EVERY_ENV = "*"
"""``--env '*'``: every environment the templates' ``environments/`` directories define (not a valid
environment name, so it names no environment of its own)."""


def environments_of(files: Iterable[str]) -> list[str]:
    """The environments defined for the templates among ``files`` (the union over their nearest
    ``environments/`` directories), sorted; empty when no file is a template or none has values."""
    found: set[str] = set()
    for env_dir in {find_environments_dir(f) for f in files if is_template(f)}:
        if env_dir is not None:
            found.update(available_environments(env_dir))
    return sorted(found)


def check_env_name(env: str) -> None:
    if not _ENV_NAME.match(env):
        raise EnvironmentError_(f"invalid environment name {env!r}: letters, digits, '.', '_' and '-' only")


def load_values(path: str, *, shown: str | None = None) -> tuple[dict[str, Any], list[TemplateProblem]]:
    """The values mapping of an environment file (YAML, read with jsops's safe, bounded reader)."""
    from .documents import read_documents

    shown = shown or path
    try:
        data = read_regular(path, MAX_RENDERED_BYTES + 1)
    except OSError as exc:
        raise EnvironmentError_(unreadable(shown, exc)) from None
    docs, problems = read_documents(data)
    codes = {"too-complex": "manifest-too-complex", "duplicate-key": "duplicate-key"}
    out = [
        TemplateProblem(codes.get(p.code, "manifest-syntax-error"), p.message, shown, p.line, p.column)
        for p in problems
    ]
    for d in docs:
        out.extend(
            TemplateProblem(codes.get(p.code, "manifest-syntax-error"), p.message, shown, p.line, p.column)
            for p in d.problems
        )
    if out:
        return {}, out
    real = [d for d in docs if d.value is not None]
    if not real:
        return {}, []  # an empty values file: templates that use no value still render
    if len(real) > 1:
        return {}, [
            TemplateProblem(
                "template-error",
                "an environment file holds one mapping of values, not several documents",
                shown,
                real[1].line,
            )
        ]
    value = real[0].value
    if not isinstance(value, dict):
        return {}, [
            TemplateProblem(
                "template-error",
                f"an environment file must be a mapping of values, got {type(value).__name__}",
                shown,
                real[0].line,
            )
        ]
    bad = [k for k in value if not isinstance(k, str) or not k.isidentifier()]
    if bad:
        return {}, [
            TemplateProblem(
                "template-error", f"value names must be identifiers, got {str(bad[0])[:60]!r}", shown, real[0].line
            )
        ]
    return value, []


# ---------------------------------------------------------------------------------------------
# rendering

# Line markers: private-use characters that never appear in a manifest (YAML and the loader
# would not read them as names anyway); inserted into the template's literal text at the start of
# each template line, found and removed after rendering.
_MARK_OPEN = "\ue000"
_MARK_CLOSE = "\ue001"
_MARKER = re.compile(_MARK_OPEN + r"(\d+)" + _MARK_CLOSE)


def _mark(line: int) -> str:
    return f"{_MARK_OPEN}{line}{_MARK_CLOSE}"


_SANDBOX: Environment | None = None


def _sandbox() -> Environment:
    global _SANDBOX
    if _SANDBOX is None:
        _SANDBOX = _make_sandbox()
    return _SANDBOX


def _make_sandbox() -> Environment:
    from jinja2 import StrictUndefined
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    from ._template_bounds import bounded_sandbox_class, check_size

    _Sandbox = bounded_sandbox_class(ImmutableSandboxedEnvironment)

    def yaml_scalar(value: object) -> object:  # {{ x }} of a null or a boolean, spelled as YAML spells them
        if value is None:
            return "null"
        if value is True or value is False:
            return "true" if value else "false"
        return check_size(value, "printing a value") if not isinstance(value, str) else value

    # No loader: include/import/extends cannot read anything. trim_blocks and lstrip_blocks
    # let block tags sit on their own lines without leaving blank lines or indentation behind.
    sandbox: Environment = _Sandbox(
        undefined=StrictUndefined,
        finalize=yaml_scalar,
        loader=None,
        autoescape=False,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        auto_reload=False,
        cache_size=0,
    )
    return sandbox


def _instrument(tree: Node) -> None:
    """Put a line marker before each line of literal template text and before each expression
    output, except inside macros, call blocks, filter blocks and block assignments (where the text
    is a value the template may compare or transform)."""
    from jinja2 import nodes

    opaque = (nodes.Macro, nodes.CallBlock, nodes.FilterBlock, nodes.AssignBlock)

    def visit(node: Node) -> None:
        if isinstance(node, opaque):
            return
        if isinstance(node, nodes.Output):
            new: list[Any] = []
            for child in node.nodes:
                if isinstance(child, nodes.TemplateData):
                    line = child.lineno
                    parts = child.data.split("\n")
                    data = _mark(line) + parts[0]
                    for part in parts[1:]:
                        line += 1
                        data += "\n" + _mark(line) + part
                    child.data = data
                    new.append(child)
                else:
                    new.append(nodes.TemplateData(_mark(child.lineno), lineno=child.lineno))
                    new.append(child)
            node.nodes = new
            return
        for sub in node.iter_child_nodes():
            visit(sub)

    visit(tree)


def _split(marked: str) -> tuple[str, list[tuple[int, bool]]]:
    """Remove the markers; map each rendered line to its template line."""
    out_lines: list[str] = []
    mapping: list[tuple[int, bool]] = []
    last: int | None = None
    for raw in marked.split("\n"):
        pos = 0
        lead: int | None = None
        while True:  # markers before the line's first character
            m = _MARKER.match(raw, pos)
            if not m:
                break
            lead = int(m.group(1))
            pos = m.end()
        markers = _MARKER.findall(raw)
        if lead is not None:
            mapping.append((lead, True))
        elif last is not None:
            mapping.append((last, False))
        else:
            mapping.append((len(mapping) + 1, False))
        if markers:
            last = int(markers[-1])
        out_lines.append(_MARKER.sub("", raw) if markers else raw)
    return "\n".join(out_lines), mapping


def _runtime_line(exc: BaseException, template: Template, code_file: str) -> int | None:
    """The template line of the innermost template frame in ``exc``'s traceback."""
    line = None
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == code_file:
            line = template.get_corresponding_lineno(tb.tb_lineno)
        tb = tb.tb_next
    return line


def _describe(exc: BaseException) -> str:
    from jinja2 import TemplateNotFound, UndefinedError
    from jinja2.exceptions import SecurityError

    text = str(exc).strip() or type(exc).__name__
    text = text if len(text) <= 300 else text[:297] + "..."
    if isinstance(exc, UndefinedError):
        return (
            f"undefined value: {text} (define it in the environment's values or give a default with `| default(...)`)"
        )
    if isinstance(exc, SecurityError):
        return f"refused by the template sandbox: {text}"
    if isinstance(exc, TemplateNotFound) or (isinstance(exc, TypeError) and "no loader" in text):
        return "templates cannot include, import or extend other files (jsops renders each template on its own)"
    if isinstance(exc, RecursionError):
        return "template recursion too deep"
    if isinstance(exc, MemoryError):
        return "template needs too much memory"
    if type(exc).__name__ == "RenderTimeout":
        return "template took too long to render (the time bound is reached; a loop runs too many times)"
    return f"template error: {type(exc).__name__}: {text}"


def render_template(
    source: str,
    file: str,
    env: str,
    values: dict[str, Any],
    *,
    max_bytes: int = MAX_RENDERED_BYTES,
    max_seconds: float = MAX_RENDER_SECONDS,
) -> Rendered:
    """Render template text; problems point at ``file`` and the template's line."""
    from jinja2 import TemplateSyntaxError

    result = Rendered(file, env)
    sandbox = _sandbox()
    code_file = f"<jsops template {file}>"
    try:
        tree = sandbox.parse(source, name=file, filename=code_file)
    except TemplateSyntaxError as exc:
        result.problems.append(
            TemplateProblem("template-error", f"template syntax error: {exc.message}", file, exc.lineno or 1)
        )
        return result
    except (RecursionError, MemoryError) as exc:
        result.problems.append(TemplateProblem("template-error", _describe(exc), file, 1))
        return result
    _instrument(tree)
    try:
        code = sandbox.compile(tree, name=file, filename=code_file)
        template = sandbox.template_class.from_code(sandbox, code, sandbox.make_globals(None))
    except TemplateSyntaxError as exc:  # checks done while generating code (e.g. a bad filter name)
        result.problems.append(
            TemplateProblem("template-error", f"template syntax error: {exc.message}", file, exc.lineno or 1)
        )
        return result
    except (RecursionError, MemoryError) as exc:
        result.problems.append(TemplateProblem("template-error", _describe(exc), file, 1))
        return result
    variables = {"environment": env, **values}
    from ._template_bounds import deadline, render_budget

    chunks: list[str] = []
    size = 0
    try:
        with deadline(max_seconds), render_budget():
            for chunk in template.root_render_func(template.new_context(variables)):
                size += len(chunk)
                if size > max_bytes:
                    result.problems.append(
                        TemplateProblem("template-error", f"rendered text is larger than {max_bytes} bytes", file, 1)
                    )
                    return result
                chunks.append(chunk)
    except Exception as exc:  # every template failure is a finding, never a traceback
        line = _runtime_line(exc, template, code_file) or 1
        result.problems.append(TemplateProblem("template-error", _describe(exc), file, line))
        return result
    result.text, result.lines = _split("".join(chunks))
    return result


def render_file(
    path: str,
    env: str,
    *,
    environments_dir: str | None = None,
    max_bytes: int = MAX_RENDERED_BYTES,
    values_cache: dict[str, tuple[dict[str, Any], list[TemplateProblem]]] | None = None,
) -> Rendered:
    """Render the template at ``path`` for ``env``.

    A values file is read only when it resolves inside the directory holding the ``environments/``
    directory found (at or below the repository root), or inside ``environments_dir`` when given:
    a values file or an ``environments/`` directory that is a link out of it is a
    ``link-outside-tree`` problem, never read (its values would reach the rendered manifests,
    their findings and ``jsops render``'s output).

    Raises :class:`EnvironmentError_` when the environment cannot be found (no ``environments/``
    directory, or no ``<env>.yaml`` in it) or the template cannot be read; everything else is a
    problem in the result."""
    check_env_name(env)
    env_dir = environments_dir or find_environments_dir(path)
    if env_dir is None or not os.path.isdir(env_dir):
        where = environments_dir or f"an environments/ directory next to {path} or above it"
        raise EnvironmentError_(f"{path}: no environment values for --env {env}: {where} not found")
    values_path = _values_file(env_dir, env)
    if values_path is None:
        known = available_environments(env_dir)
        listed = f" (known: {', '.join(known)})" if known else ""
        shown_dir = env_dir if os.path.isabs(path) else os.path.relpath(env_dir)
        raise EnvironmentError_(f"unknown environment {env!r}: no {os.path.join(shown_dir, env)}.yaml{listed}")
    shown_values = os.path.relpath(values_path) if not os.path.isabs(path) else values_path
    cache = values_cache if values_cache is not None else {}
    if values_path not in cache:
        inside = os.path.realpath(environments_dir or os.path.dirname(os.path.abspath(env_dir)))
        if escapes(values_path, inside):
            # Never read (its values would reach the rendered manifests and their findings).
            cache[values_path] = (
                {},
                [
                    TemplateProblem(
                        "link-outside-tree",
                        "the environment's values lead out of the tree through a symbolic link (the values "
                        "file or its environments/ directory); jsops does not follow links out of the tree and did not read them",
                        shown_values,
                        1,
                    )
                ],
            )
        else:
            cache[values_path] = load_values(values_path, shown=shown_values)
    values, problems = cache[values_path]
    if problems:
        result = Rendered(path, env, values_file=shown_values)
        result.problems.extend(problems)
        return result
    try:
        data = read_regular(path, max_bytes + 1)
    except OSError as exc:
        raise EnvironmentError_(unreadable(path, exc)) from None
    if len(data) > max_bytes:
        return Rendered(
            path,
            env,
            problems=[TemplateProblem("manifest-too-complex", f"template larger than {max_bytes} bytes", path, 1)],
        )
    try:
        source = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        return Rendered(
            path, env, problems=[TemplateProblem("manifest-syntax-error", "template is not UTF-8 text", path, line)]
        )
    result = render_template(source, path, env, values, max_bytes=max_bytes)
    result.values_file = shown_values
    return result


def render_files(paths: Iterable[str], env: str, **kwargs: Any) -> list[Rendered]:
    cache: dict[str, tuple[dict[str, Any], list[TemplateProblem]]] = {}
    return [render_file(p, env, values_cache=cache, **kwargs) for p in paths]
