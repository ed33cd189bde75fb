"""Every rule: unique code and name, complete docs, and its docstring examples behave as documented (as the
docs show them: a consumer example of the undeclared stream ORDERS after the example stream)."""

import json
import re

import pytest

from jsops.linter.docs import rule_doc
from jsops.linter.engine import discover_rules, lint_estate
from jsops.linter.load import Estate, check_estate, load_text
from jsops.linter.model.profiles import Profiles
from jsops.linter.model.target import Target
from jsops.linter.testing import check_fix_availability

RULES = discover_rules()
SECTIONS = ("## What it does", "## Why is this bad?", "## Example", "## Use instead", "## Fix")


def _lint_yaml(text: str, rule, profiles=None):
    estate = Estate()
    load_text(text.encode(), "example.yaml", estate)
    check_estate(estate)
    assert estate.findings == [], estate.findings  # doc examples must at least load cleanly
    target = Target(**getattr(rule, "example_target", {}))
    findings = lint_estate(estate, [rule], target=target, profiles=profiles).findings
    check_fix_availability([rule], findings)  # the findings carry fixes as the rule declares
    return findings


def _doc_profiles(doc: str):
    """A profile-driven rule documents the measured figures its examples are judged against under
    ``## Profile`` (a ```json block in the contract §4 shape); both examples use it."""
    if "## Profile" not in doc:
        return None
    part = doc.split("## Profile", 1)[1]
    m = re.search(r"```json\n(.*?)```", part, re.S)
    assert m, "no json block under ## Profile"
    return Profiles.model_validate(json.loads(m.group(1)))


def _block(doc: str, heading: str) -> str:
    part = doc.split(heading, 1)[1]
    m = re.search(r"```yaml\n(.*?)```", part, re.S)
    assert m, f"no yaml block under {heading}"
    lines = m.group(1).splitlines()
    indent = min((len(l) - len(l.lstrip()) for l in lines if l.strip()), default=0)
    return "\n".join(l[indent:] for l in lines) + "\n"


def test_registry_is_consistent():
    assert RULES, "no rules registered through the jsops.rules entry point"
    codes = [r.code for r in RULES]
    names = [r.name for r in RULES]
    assert len(set(codes)) == len(codes)
    assert len(set(names)) == len(names)
    for r in RULES:
        assert re.fullmatch(r"JS[1-9]\d\d", r.code), r.code
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)+", r.name), r.name


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_rule_docs_have_every_section(rule):
    doc = rule.__doc__ or ""
    for section in SECTIONS:
        assert section in doc, f"{rule.code} docstring lacks {section!r}"


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_rule_doc_examples_run(rule):
    doc = rule_doc(rule)
    profiles = _doc_profiles(doc)
    bad = _lint_yaml(_block(doc, "## Example"), rule, profiles)
    assert [f.rule for f in bad] == [rule.code]
    good = _lint_yaml(_block(doc, "## Use instead"), rule, profiles)
    assert good == []


STREAM = "apiVersion: jsops/v1\nkind: Stream\nmetadata: {{name: S}}\nspec: {{subjects: [s.>]{extra}}}\n"


@pytest.mark.parametrize(
    "extra,fires",
    [
        (", max_age: 1m, duplicate_window: 2m", True),
        (", max_age: 1m, duplicate_window: 1m", False),
        (", max_age: 1m", False),  # the server caps its default window to max_age
        (", duplicate_window: 1h", False),  # no max_age: unlimited
        (", max_age: 90s, duplicate_window: 90001ms", True),
    ],
)
def test_js102_cases(extra, fires):
    rule = next(r for r in RULES if r.code == "JS102")
    found = _lint_yaml(STREAM.format(extra=extra), rule)
    assert bool(found) is fires
    if fires:
        f = found[0]
        assert f.server_error_code == 10052
        assert (f.line, f.column) == (
            4,
            STREAM.format(extra=extra).splitlines()[3].index("duplicate_window:") + len("duplicate_window: ") + 1,
        )
        assert f.fix is not None and f.fix.applicability == "safe"
