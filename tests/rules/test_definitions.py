"""Rule classes are checked when they are defined: a malformed rule fails at import."""

from __future__ import annotations

import sys
import types

import pytest

from jsops.linter.api import FixAvailability, Rule, RuleDefinitionError, StreamRule, Theme, rule_groups
from jsops.linter.engine import discover_rules
from jsops.linter.errors import LinterError

DOC = """Summary.

## What it does
x

## Why is this bad?
x

## Example
x

## Use instead
x
"""


@pytest.fixture
def theme_module(monkeypatch: pytest.MonkeyPatch) -> str:
    """A throwaway theme package ``acme_rules.widgets`` (prefix ``widget``, JS901-JS909)."""
    pkg = types.ModuleType("acme_rules.widgets")
    pkg.THEME = Theme(name="widgets", prefix="widget", groups=frozenset({"widget"}), codes=((901, 909),))  # type: ignore[attr-defined]  # a module built at run time
    monkeypatch.setitem(sys.modules, "acme_rules.widgets", pkg)
    return "acme_rules.widgets.too_big"


def _define(module: str, cls_name: str, **attrs: object) -> type[Rule]:
    return type(cls_name, (StreamRule,), {"__module__": module, "__doc__": DOC, **attrs})


def test_a_good_rule_is_accepted_and_grouped(theme_module: str) -> None:
    rule = _define(theme_module, "WidgetTooBig", code="JS901", name="widget-too-big")
    assert rule_groups(rule) == {"all", "widget"}


@pytest.mark.parametrize(
    "cls_name,attrs,message",
    [
        ("WidgetTooBig", {"code": "JS91", "name": "widget-too-big"}, "not JS followed by three digits"),
        (
            "WidgetTooBig",
            {"code": "JS101", "name": "widget-too-big"},
            "outside the widgets theme's codes (JS901-JS909)",
        ),
        ("WidgetTooBig", {"code": "JS901", "name": "widget_too_big"}, "not kebab-case"),
        (
            "WidgetTooLarge",
            {"code": "JS901", "name": "widget-too-large"},
            "does not match its module: expected widget-too-big",
        ),
        ("TooBig", {"code": "JS901", "name": "widget-too-big"}, "class name should be WidgetTooBig"),
        (
            "WidgetTooBig",
            {"code": "JS901", "name": "widget-too-big", "fix_availability": "always"},
            "is not a FixAvailability",
        ),
        (
            "WidgetTooBig",
            {"code": "JS901", "name": "widget-too-big", "fix_availability": FixAvailability.ALWAYS},
            "lacks '## Fix'",
        ),
        (
            "WidgetTooBig",
            {"code": "JS901", "name": "widget-too-big", "__doc__": "Summary only."},
            "lacks '## What it does'",
        ),
    ],
)
def test_a_bad_rule_fails_when_defined(
    theme_module: str, cls_name: str, attrs: dict[str, object], message: str
) -> None:
    with pytest.raises(RuleDefinitionError, match=message.replace("(", r"\(").replace(")", r"\)")) as err:
        _define(theme_module, cls_name, **attrs)
    assert isinstance(err.value, LinterError)


def test_bases_without_a_code_are_not_checked() -> None:
    assert "code" not in StreamRule.__dict__


def test_every_builtin_rule_lives_in_its_theme_package() -> None:
    for r in discover_rules():
        parts = r.__module__.removeprefix("jsops.").split(".")
        assert parts[0] == "rules" and len(parts) == 3, r.__module__
        package = sys.modules["jsops." + ".".join(parts[:2])]
        theme: Theme = package.THEME
        assert theme.owns(r.code) and r.name.startswith(theme.prefix + "-")
        assert rule_groups(r) >= theme.groups


def test_ops_group_is_the_same_set() -> None:
    ops = {r.code for r in discover_rules() if "ops" in rule_groups(r)}
    assert ops == {f"JS{n}" for n in (*range(401, 411), *range(431, 448), 460)}
