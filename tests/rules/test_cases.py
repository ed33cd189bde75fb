"""The one driver of the data-driven rule cases (tables under tests/rules/cases/).

Every case is a :class:`jsops.linter.testing.RuleCase`: manifests, the rule, the err_code nats-server
answers (None: it accepts them and the rule is silent). The same tables run against real servers
in tests/integration/test_rules_*_server.py.
"""

from __future__ import annotations

import pytest

from jsops.linter.engine import discover_rules
from jsops.linter.testing import RuleCase, estate_from_text, lint_text, run_case
from tests.rules.cases import consumer, stream

RULES = discover_rules()
# the create-time rejection rules; JS230 warns on consumers the server accepts (filter-outside-stream-ok is
# one: tests/rules/test_consumer_filter_matches_no_subject.py)
CONSUMER_RULES = [r for r in RULES if r.code.startswith("JS2") and "Consumer" in r.kinds and r.code != "JS230"]
STREAM_CASES = [c.rule_case() for c in stream.CASES]
CONSUMER_CASES = [c.rule_case() for c in consumer.CASES]


def test_case_ids_unique_and_every_rule_covered():
    for table in (STREAM_CASES, CONSUMER_CASES):
        assert len({c.id for c in table}) == len(table)
    ours = (
        {"JS101"}
        | {f"JS{n}" for n in range(103, 127)}
        | {r.code for r in CONSUMER_RULES if 201 <= int(r.code[2:]) <= 227}
    )
    assert ours <= {r.code for r in RULES}
    cases = STREAM_CASES + CONSUMER_CASES
    failing = {c.rule for c in cases if c.err_code is not None}
    passing = {c.rule for c in cases if c.err_code is None}
    assert ours <= failing & passing, sorted(ours - (failing & passing))


@pytest.mark.parametrize("case", STREAM_CASES, ids=lambda c: c.id)
def test_stream_case(case: RuleCase):
    run_case(case)


@pytest.mark.parametrize("case", STREAM_CASES, ids=lambda c: c.id)
def test_stream_case_holds_one_condition(case: RuleCase):
    """Across every rule, only the case's own rule predicts a rejection (so the server's answer
    for the case is the answer for that condition alone)."""
    predicted = [f for f in lint_text(case.docs, RULES) if f.server_error_code is not None]
    if case.err_code is None:
        assert predicted == []
    else:
        assert {f.rule for f in predicted} == {case.rule}


@pytest.mark.parametrize("case", CONSUMER_CASES, ids=lambda c: c.id)
def test_consumer_case(case: RuleCase):
    """Exactly the case's rule fires among the consumer rules (no other), on the consumer
    document (not the stream's), with the predicted err_code."""
    for f in run_case(case, CONSUMER_RULES):
        assert f.object is not None and f.object.kind == "Consumer"
        assert f.line >= 3


def test_stream_cases_load_cleanly():
    for case in STREAM_CASES:
        (res,) = estate_from_text(case.docs).resources
        assert res.kind == "Stream"
