"""Renderers of lint results; they only present, never compute. Each format is its own module and
is imported only when chosen.

:data:`REPORTERS` maps each ``jsops lint --format`` name to its renderer; the flag's choices, its
help and the shell completion come from it. Adding a format is one module and one entry here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..findings import Severity

if TYPE_CHECKING:
    from ..api import Rule
    from ..result import LintResult

__all__ = ["FORMATS", "REPORTERS", "RenderContext", "Renderer", "render_result"]


@dataclass(frozen=True)
class RenderContext:
    """What a renderer may need besides the result: the jsops version, the rules that ran (SARIF
        lists them), whether to colour (text on a terminal) and the ``--fail-on`` threshold (JUnit counts
        only the findings at or above it as failures, as the exit code does), and whether text lists every finding
    of a rule that has many (``--show-all``)."""

    version: str
    rules: Sequence[type[Rule]] = ()
    color: bool = False
    fail_on: Severity = Severity.ERROR
    show_all: bool = False  # text: every finding of a rule, not its first few and a count


Renderer = Callable[["LintResult", RenderContext], str]


def _text(result: LintResult, ctx: RenderContext) -> str:
    from .text import render_text, source_reader

    return render_text(result, color=ctx.color, source=source_reader(), show_all=ctx.show_all)


def _json(result: LintResult, ctx: RenderContext) -> str:
    from .json import render_json

    return render_json(result, ctx.version)


def _sarif(result: LintResult, ctx: RenderContext) -> str:
    from ..docs import rule_infos
    from .sarif import render_sarif

    return render_sarif(result, ctx.version, rule_infos(ctx.rules))


def _junit(result: LintResult, ctx: RenderContext) -> str:
    from .junit import render_junit

    return render_junit(result, ctx.fail_on)


def _github(result: LintResult, ctx: RenderContext) -> str:
    from .github import render_github

    return render_github(result)


REPORTERS: dict[str, Renderer] = {
    "text": _text,
    "json": _json,
    "sarif": _sarif,
    "junit": _junit,
    "github": _github,
}
"""Format name -> renderer, in the order ``--help`` lists them."""

FORMATS = tuple(REPORTERS)


def render_result(result: LintResult, fmt: str, ctx: RenderContext) -> str:
    """``result`` in format ``fmt`` (one of :data:`FORMATS`; ``KeyError`` otherwise)."""
    return REPORTERS[fmt](result, ctx)
