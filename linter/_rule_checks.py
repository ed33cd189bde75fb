"""What a rule class must be, checked when the class is defined (``Rule.__init_subclass__``).

Every rule: a ``JS`` + three digits code, a kebab-case name, a :class:`FixAvailability`. A rule in
a theme package (one whose ``__init__`` declares ``THEME = Theme(...)``, as every built-in rule
package does) also: a code in the theme's ranges, a module named after the rule (the kebab name
without the theme's prefix, in snake case), a class named after the rule (CamelCase of the name),
and a docstring with the documentation sections (``## Fix`` when the rule has fixes).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from typing import Any

from .errors import LinterError
from .findings import Severity

__all__ = ["FixAvailability", "Theme", "RuleDefinitionError", "check_rule_class", "camel_case", "DOC_SECTIONS"]

_CODE = re.compile(r"JS[0-9]{3}")
_NAME = re.compile(r"[a-z0-9]+(-[a-z0-9]+)+")
DOC_SECTIONS = ("## What it does", "## Why is this bad?", "## Example", "## Use instead")
FIX_SECTION = "## Fix"


class FixAvailability(Enum):
    """Whether a rule's findings carry a fix (edits ``--fix`` applies, or a described change),
    like ruff's fix availability: never, on some findings, or on every finding."""

    NONE = "none"
    SOMETIMES = "sometimes"
    ALWAYS = "always"


class RuleDefinitionError(LinterError, TypeError):
    """A rule class breaks the rule conventions (raised when its module is imported)."""


@dataclass(frozen=True)
class Theme:
    """A rule theme package: its name, the prefix of its rules' names, the groups its rules are in
    (users select them) and the code ranges (inclusive) its rules take their codes from."""

    name: str
    prefix: str
    groups: frozenset[str]
    codes: tuple[tuple[int, int], ...]

    def owns(self, code: str) -> bool:
        number = int(code[2:])
        return any(lo <= number <= hi for lo, hi in self.codes)

    def ranges_text(self) -> str:
        return ", ".join(f"JS{lo}-JS{hi}" if lo != hi else f"JS{lo}" for lo, hi in self.codes)


def camel_case(name: str) -> str:
    """``stream-invalid-name`` -> ``StreamInvalidName``."""
    return "".join(part[:1].upper() + part[1:] for part in name.split("-"))


def _problems(cls: type[Any], theme: Theme | None) -> list[str]:
    code, name = cls.__dict__.get("code"), getattr(cls, "name", None)
    out: list[str] = []
    if not isinstance(code, str) or not _CODE.fullmatch(code):
        out.append(f"code {code!r} is not JS followed by three digits")
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        return [*out, f"name {name!r} is not kebab-case (words joined by '-')"]
    if not isinstance(cls.fix_availability, FixAvailability):
        out.append(f"fix_availability {cls.fix_availability!r} is not a FixAvailability")
    if not isinstance(cls.severity, Severity):
        out.append(f"severity {cls.severity!r} is not a Severity")
    if theme is None:
        return out
    if isinstance(code, str) and _CODE.fullmatch(code) and not theme.owns(code):
        out.append(f"code {code} is outside the {theme.name} theme's codes ({theme.ranges_text()})")
    stem = cls.__module__.rpartition(".")[2]
    if name != f"{theme.prefix}-{stem.replace('_', '-')}":
        out.append(f"name {name!r} does not match its module: expected {theme.prefix}-{stem.replace('_', '-')}")
    if cls.__name__ != camel_case(name):
        out.append(f"class name should be {camel_case(name)}")
    doc = cls.__doc__ or ""
    needed = DOC_SECTIONS + ((FIX_SECTION,) if cls.fix_availability is not FixAvailability.NONE else ())
    missing = [s for s in needed if s not in doc]
    if missing:
        out.append("docstring lacks " + ", ".join(repr(s) for s in missing))
    return out


def check_rule_class(cls: type[Any], theme: Theme | None) -> None:
    """Raise :class:`RuleDefinitionError` naming every convention ``cls`` breaks."""
    problems = _problems(cls, theme)
    if problems:
        raise RuleDefinitionError(f"rule {cls.__module__}.{cls.__qualname__}: " + "; ".join(problems))
