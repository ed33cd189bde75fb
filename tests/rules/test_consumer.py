"""Pure pass/fail cases of the consumer create-time rejection rules (JS201-JS227).

Each fail case holds one rejected condition: exactly its rule fires (no other consumer rule),
with the predicted err_code. Each pass case: no consumer rule fires at all.
"""

from __future__ import annotations

from jsops.linter.engine import discover_rules, lint_estate
from tests.rules.cases.consumer import CASES, load

CONSUMER_RULES = [r for r in discover_rules() if r.code.startswith("JS2") and "Consumer" in r.kinds]


def test_violation_points_at_field():
    case = next(c for c in CASES if c.id == "backoff-second-negative")
    estate, _, consumer = load(case)
    (f,) = lint_estate(estate, [r for r in CONSUMER_RULES if r.code == "JS204"]).findings
    assert (f.line, f.column) == consumer.locate(("backoff", 1))
    assert "backoff[1]" in f.message


def test_inherited_max_ack_pending_points_at_ack_policy():
    case = next(c for c in CASES if c.id == "push-none-inherited")
    estate, _, consumer = load(case)
    (f,) = lint_estate(estate, [r for r in CONSUMER_RULES if r.code == "JS210"]).findings
    assert (f.line, f.column) == consumer.locate(("ack_policy",))
    assert "inherited" in f.message


def test_missing_stream_does_not_crash():
    from jsops.linter.load import Estate, load_text

    estate = Estate()
    text = '{"apiVersion": "jsops/v1", "kind": "Consumer", "metadata": {"name": "c", "stream": "NOPE"}, "spec": {"deliver_policy": "new", "num_replicas": 3, "max_ack_pending": 5}}\n'
    load_text(text.encode(), "x.yaml", estate)
    from jsops.linter.model.target import Target

    found = lint_estate(estate, CONSUMER_RULES, target=Target(clustered=False)).findings
    assert [f.server_error_code for f in found] == [10074]


def test_name_findings_point_at_metadata_name():
    case = next(c for c in CASES if c.id == "name-star")
    estate, _, consumer = load(case)
    (f,) = lint_estate(estate, [r for r in CONSUMER_RULES if r.code == "JS201"]).findings
    assert (f.line, f.column) == consumer.locate(("metadata", "name"), document_path=True)


def test_target_clustered_false_overrides_replicated_stream():
    from jsops.linter.model.target import Target

    case = next(c for c in CASES if c.id == "replicas-cluster-ok")
    estate, _, _ = load(case)
    found = lint_estate(
        estate, [r for r in CONSUMER_RULES if r.code == "JS203"], target=Target(clustered=False)
    ).findings
    assert [f.server_error_code for f in found] == []  # R1 consumer is fine anywhere
