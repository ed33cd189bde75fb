"""The lint gate of ``jsops plan``/``apply``: only errors stop a plan, so only the rules that can
report one run.

A rule reports errors when its severity (the config's, else its own) is ``error``; a rule whose
severity is ``warning`` or ``info`` never does (a violation may lower its severity, never raise it).
The one exception is JS010 unused-suppression: a suppression of a rule the gate skips would look
unused, so when the config makes JS010 an error the gate runs every rule. The errors are exactly
those of :func:`linter.lint_estate` with every selected rule (tested), for a fraction of the time:
the costliest rules are advice.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from linter import Estate, LintResult, Severity, lint_estate

__all__ = ["lint_errors"]

_UNUSED_SUPPRESSION = "JS010"
_DEFAULT: Any = object()


def lint_errors(estate: Estate, config: Any, read_source: Callable[[str], bytes | None] | None = _DEFAULT) -> LintResult:
    """:func:`linter.lint_estate` of ``estate`` with ``config``, running only the rules that can
    report an error (its other findings are incomplete: read only the errors)."""
    from linter.config import Selection, select_rules
    from linter.engine import discover_rules

    registry = discover_rules()
    selection = select_rules(config, registry)
    kw: dict[str, Any] = {} if read_source is _DEFAULT else {"read_source": read_source}
    if selection.severity.get(_UNUSED_SUPPRESSION) is not Severity.ERROR:
        rules = [r for r in selection.rules if selection.severity.get(r.code, r.severity) is Severity.ERROR]
        selection = Selection(rules, selection.options, selection.severity, selection.ignored)
    return lint_estate(estate, registry, config=config, selection=selection, **kw)
