"""Stream create-time rejection rules (JS101, JS103-JS126): pure pass/fail cases.

The same cases run against a real nats-server in tests/integration/test_rules_stream_server.py; the cases run in tests/rules/test_cases.py.
"""

from __future__ import annotations

import pytest

from jsops.linter.engine import discover_rules, lint_estate
from jsops.linter.semantics.effective import effective_stream
from tests.rules.cases import stream as stream_rule_cases
from tests.rules.cases.stream import CASES, Case, load

RULES = {r.code: r for r in discover_rules()}


def test_every_stream_rule_has_fail_and_pass_cases():
    mine = {"JS101"} | {f"JS{n}" for n in range(103, 127)}
    assert mine <= set(RULES)
    for code in mine:
        assert any(c.rule == code and c.code for c in CASES), code
        assert any(c.rule == code and c.code is None for c in CASES), code


def test_effective_config_of_fail_cases_is_computable():
    for case in CASES:
        _, res = load(case)
        eff = effective_stream(res.config, name=res.name)  # type: ignore[arg-type]
        assert eff.name == case.stream


def _one(text: str, code: str):
    from jsops.linter.load import Estate, check_estate, load_text

    estate = Estate()
    load_text(text.encode(), "s.yaml", estate)
    check_estate(estate)
    return lint_estate(estate, [RULES[code]]).findings


def test_overlap_points_at_the_later_subject():
    text = "apiVersion: jsops/v1\nkind: Stream\nmetadata: {name: S}\nspec:\n  subjects:\n    - ov.*\n    - ov.bar\n"
    (f,) = _one(text, "JS116")
    assert (f.line, f.column) == (7, 7)
    assert "subjects[0]" in f.message


def test_invalid_subject_reported_once_and_not_for_overlap():
    text = "apiVersion: jsops/v1\nkind: Stream\nmetadata: {name: S}\nspec: {subjects: ['a..b', 'a.*', 'a.x', 'a.x']}\n"
    found = _one(text, "JS116")
    assert len(found) == 3  # a..b invalid; a.x overlaps a.* (twice)


def test_subjects_on_mirror_are_js118_not_js116():
    text = "apiVersion: jsops/v1\nkind: Stream\nmetadata: {name: S}\nspec: {mirror: {name: O}, subjects: ['a..b']}\n"
    assert _one(text, "JS116") == []
    assert [f.server_error_code for f in _one(text, "JS118")] == [10034]


def test_no_ack_fast_path_leaves_ordinary_subjects_alone():
    text = "apiVersion: jsops/v1\nkind: Stream\nmetadata: {name: S}\nspec: {subjects: ['orders.>', 'JS.API.x', '$JSX.>']}\n"
    assert _one(text, "JS117") == []


def test_several_conditions_give_several_findings():
    text = (
        "apiVersion: jsops/v1\nkind: Stream\nmetadata: {name: S}\n"
        "spec: {subjects: [c.>], allow_msg_counter: true, discard: new, allow_msg_ttl: true, retention: interest}\n"
    )
    assert [f.server_error_code for f in _one(text, "JS109")] == [10052, 10052, 10052]


@pytest.mark.parametrize(
    "text,expected",
    [
        ('{"name": "a.b", "subjects": ["x"]}', 10052),  # API JSON dialect
        ('{"name": "a/b", "subjects": ["x"]}', 10128),
    ],
)
def test_name_rule_in_api_dialect_points_at_name(text, expected):
    from jsops.linter.load import Estate, load_text

    estate = Estate()
    load_text(text.encode(), "s.json", estate)
    (f,) = lint_estate(estate, [RULES["JS101"]]).findings
    assert f.server_error_code == expected
    assert (f.line, f.column) == (1, 10)


@pytest.mark.parametrize(
    "src,dest,mapping_ok,transform_ok",
    [
        ("a.*", "b.{{wildcard(1)}}", True, True),
        ("a.*", "b.{{wildcard(+1)}}", True, True),  # Go's Atoi takes a sign
        ("a.*", "b.{{wildcard(1_0)}}", False, False),  # ... but no underscores (Python's int() would)
        ("a.*", "b.{{wildcard( 1 )}}", True, True),
        ("a.*", "b.{{wildcard(0)}}", True, True),  # only an index above the wildcard count is refused
        ("a.*", "b.$-1", True, True),
        ("a.*", "b.$x", True, True),  # a '$' token that is not a number is literal
        ("a.*", "b c.$1", False, True),  # whitespace: mapping validation only
        ("a.*", "b.{{splitFromLeft(1,2147483648)}}", False, False),  # 32-bit argument
        ("a.*", "b.{{splitFromLeft(1,2147483647)}}", True, True),
        ("a.*", "b.{{wildcard(1)}}-{{wildcard(1)}}", False, False),  # greedy argument capture, as the server's
        ("a.*", "b.{{}}", True, True),  # too short to be a function: literal
        ("", "x.>", True, True),
        ("a.*", "", True, True),  # no destination: no transform
    ],
)
def test_mapping_functions(src, dest, mapping_ok, transform_ok):
    from jsops.linter.semantics.transforms import mapping_problem, transform_problem

    assert (mapping_problem(src, dest) is None) is mapping_ok
    assert (transform_problem(src, dest) is None) is transform_ok


def _placement_findings(text: str, target: dict):
    from jsops.linter.load import Estate, check_estate, load_text
    from jsops.linter.model.target import Target

    estate = Estate()
    load_text(text.encode(), "p.yaml", estate)
    check_estate(estate)
    found = lint_estate(estate, list(RULES.values()), target=Target.model_validate(target)).findings
    return [f for f in found if f.server_error_code is not None]


@pytest.mark.parametrize("case", stream_rule_cases.PLACEMENT_CASES, ids=lambda c: c[0])
def test_placement_case(case):
    case_id, placement, replicas, code, described = case
    _, text = stream_rule_cases.placement_manifest(case_id, placement, replicas)
    target = stream_rule_cases.CLUSTER_TARGET if described else {"clustered": True}
    predicted = [(f.rule, f.server_error_code) for f in _placement_findings(text, target)]
    assert predicted == ([("JS317", code)] if code else [])


def test_placement_silent_on_standalone_and_for_replicas_js315_owns():
    _, text = stream_rule_cases.placement_manifest("x", {"tags": ["gpu"]}, 1)
    assert _placement_findings(text, {**stream_rule_cases.CLUSTER_TARGET, "clustered": False}) == []
    _, text = stream_rule_cases.placement_manifest("y", {"tags": ["az:1"]}, 5)
    found = _placement_findings(text, {**stream_rule_cases.CLUSTER_TARGET, "cluster_size": 3})
    assert [(f.rule, f.server_error_code) for f in found] == [("JS315", 10005)]


def test_placement_servers_of_other_clusters_and_jetstream_exclusion():
    target = {
        "cluster_name": "EU",
        "servers": [
            {"tags": ["ssd"]},
            {"tags": ["ssd", "!jetstream"]},
            {"cluster": "US", "tags": ["ssd"]},
            {"cluster": "US", "tags": ["ssd"]},
        ],
    }
    _, text = stream_rule_cases.placement_manifest("eu", {"cluster": "EU", "tags": ["ssd"]}, 2)
    assert [f.server_error_code for f in _placement_findings(text, target)] == [10005]  # one usable ssd server in EU
    # without placement.cluster the server tries its own cluster, then the others (measured on every
    # release, tests/integration/test_placement_supercluster.py): US has two ssd servers
    _, text = stream_rule_cases.placement_manifest("any", {"tags": ["ssd"]}, 2)
    assert _placement_findings(text, target) == []
    _, text = stream_rule_cases.placement_manifest("none", {"tags": ["ssd"]}, 3)
    found = _placement_findings(text, target)
    assert [f.server_error_code for f in found] == [10005] and "nor does any other cluster" in found[0].message
    _, text = stream_rule_cases.placement_manifest("us", {"cluster": "US", "tags": ["ssd"]}, 2)
    assert _placement_findings(text, target) == []


@pytest.mark.parametrize("case", stream_rule_cases.PEDANTIC_CASES, ids=lambda c: c.id)
def test_pedantic_case(case: Case):
    from jsops.linter.model.target import Target

    estate, _ = load(case)
    found = lint_estate(estate, list(RULES.values()), target=Target(pedantic=True)).findings
    predicted = [(f.rule, f.server_error_code) for f in found if f.server_error_code is not None]
    assert predicted == ([(case.rule, case.code)] if case.code else [])
    # without a pedantic target the server adjusts these configs: nothing is predicted
    assert [f for f in lint_estate(estate, list(RULES.values())).findings if f.server_error_code is not None] == []


def test_pedantic_duplicate_window_server_limit():
    from jsops.linter.model.target import Target

    case = next(c for c in stream_rule_cases.PEDANTIC_CASES if c.id == "ped-ok-plain")
    estate, _ = load(case)
    target = Target.model_validate({"pedantic": True, "limits": {"duplicate_window": "1m"}})
    found = lint_estate(estate, [RULES["JS127"]], target=target).findings
    assert [f.server_error_code for f in found] == [10157] and "server limit 1m" in found[0].message


def test_pedantic_mirror_direct_differs_from_origin():
    from jsops.linter.load import Estate, check_estate, load_text
    from jsops.linter.model.target import Target

    text = (
        '{"apiVersion": "jsops/v1", "kind": "Stream", "metadata": {"name": "O"}, "spec": {"subjects": ["o.>"], "allow_direct": true}}\n---\n'
        '{"apiVersion": "jsops/v1", "kind": "Stream", "metadata": {"name": "M"}, "spec": {"mirror": {"name": "O"}}}\n---\n'
        '{"apiVersion": "jsops/v1", "kind": "Stream", "metadata": {"name": "N"}, "spec": {"mirror": {"name": "O"}, "mirror_direct": true}}\n'
    )
    estate = Estate()
    load_text(text.encode(), "m.yaml", estate)
    check_estate(estate)
    found = lint_estate(estate, [RULES["JS127"]], target=Target(pedantic=True)).findings
    assert [(f.object.name, f.server_error_code) for f in found] == [("M", 10157)]


def test_mapping_validation_is_linear_on_hostile_destinations():
    """Many unclosed function openings, long whitespace and huge numbers: answered without
    backtracking blow-ups or Python's integer-string limit (no timing assertion: the sizes
    would take minutes with a backtracking expression)."""
    from jsops.linter.semantics.transforms import mapping_problem, transform_problem

    assert mapping_problem("a.*", "b." + "{{wildcard(" * 20_000 + "}}")
    assert mapping_problem("a.*", "b.{{" + " " * 50_000 + "}}")
    assert mapping_problem("a.*", "b.{{wildcard(1)" + ")" * 50_000 + "}}")
    assert transform_problem("a.*", "b.$" + "9" * 10_000) is None  # not a number Go can parse: a literal token
    assert "wildcard index is not an integer" in (mapping_problem("a.*", "b.{{wildcard(" + "9" * 10_000 + ")}}") or "")


def test_pedantic_mirror_direct_origin_in_another_context_is_not_this_servers():
    from jsops.linter.load import Estate, check_estate, load_text
    from jsops.linter.model.target import Target

    text = (
        '{"apiVersion": "jsops/v1", "kind": "Stream", "metadata": {"name": "O", "context": "eu"}, "spec": {"subjects": ["o.>"], "allow_direct": true}}\n---\n'
        '{"apiVersion": "jsops/v1", "kind": "Stream", "metadata": {"name": "M", "context": "us"}, "spec": {"mirror": {"name": "O"}}}\n'
    )
    estate = Estate()
    load_text(text.encode(), "m.yaml", estate)
    check_estate(estate)
    assert lint_estate(estate, [RULES["JS127"]], target=Target(pedantic=True)).findings == []
