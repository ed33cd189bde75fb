"""Per-release semantics (linter/semantics/releases.py): pure functions, and the engine applying them."""

from __future__ import annotations

import json
from typing import Any

import pytest

from jsops.linter.engine import lint_estate
from jsops.linter.findings import Severity
from jsops.linter.model.target import Target
from jsops.linter.semantics.releases import (
    CHECK_SINCE,
    CODE_BEFORE,
    NEWEST,
    SUPPORTED,
    ReleaseAnswer,
    advice_message,
    check_since,
    code_for,
    field_decoded,
    parse_version,
    release_answer,
    release_view,
    target_release,
)
from tests.rules.test_estate import RULES, C, S, load_estate


def _lint(docs: list[dict[str, Any]], version: str | None) -> list[Any]:
    text = "\n---\n".join(json.dumps(d) for d in docs) + "\n"
    target = Target(server_version=version, clustered=False)
    return lint_estate(load_estate(text), RULES, target=target, read_source=None).findings


def test_supported_releases_are_ordered_and_the_newest_is_the_default():
    versions = [parse_version(v) for v in SUPPORTED]
    assert versions == sorted(versions) and versions[-1] == NEWEST
    assert target_release(None) == NEWEST and target_release(Target()) == NEWEST
    assert target_release(Target(server_version="v2.10.26")) == (2, 10, 26)
    assert target_release(Target(server_version="main")) == NEWEST


def test_check_since_is_keyed_by_kind_err_code_and_field():
    assert check_since("Consumer", 10183, "ack_wait") == (2, 12, 0)
    assert check_since("Stream", 10052, "allow_msg_schedules:counter") == (2, 14, 0)
    assert (
        check_since("Stream", 10052, "allow_msg_schedules") is None
    )  # the pedantic roll-up check: every release that knows the field
    assert check_since("Stream", 10052, "allow_msg_ttl") is None  # other counter checks: every release
    assert check_since("Consumer", 10052, "metadata") is None  # the stream's metadata check, not the consumer's
    assert all(v <= NEWEST for v in CHECK_SINCE.values())


def test_code_for_older_releases():
    assert code_for("Consumer", 10052, "name", (2, 11, 11)) == 10103
    assert code_for("Consumer", 10052, "durable_name", (2, 12, 0)) == 10052
    assert code_for("Stream", 10156, "subject_transform", (2, 10, 26)) == 10049
    assert code_for("Stream", 10156, "subject_transform", (2, 11, 0)) == 10156
    assert code_for("Stream", 10052, "name", (2, 10, 0)) == 10052
    assert all(before <= NEWEST for entries in CODE_BEFORE.values() for before, _ in entries)


def test_release_answer_is_advice_before_the_check_and_the_older_code_after():
    assert release_answer("Consumer", 10183, "ack_wait", (2, 11, 11)) == ReleaseAnswer(None, (2, 12, 0))
    assert release_answer("Consumer", 10183, "ack_wait", (2, 12, 8)) == ReleaseAnswer(10183)
    assert release_answer("Stream", 10154, "mirror", (2, 10, 26)) == ReleaseAnswer(10049)


def test_advice_message_names_both_releases_and_the_code():
    text = advice_message("ack_wait is negative", 10183, (2, 12, 0), (2, 10, 26))
    assert text == "nats-server 2.10.26 accepts this; 2.12.0+ refuses it (10183): ack_wait is negative"


def test_release_view_drops_unknown_fields_before_strict_decoding_only():
    estate = load_estate(
        "\n---\n".join(
            json.dumps(d)
            for d in [
                S(
                    "A",
                    subjects=["a.>"],
                    allow_msg_ttl=True,
                    allow_batched=True,
                    placement={"preferred": "n1", "tags": ["x"]},
                ),
                S("B", sources=[{"name": "A", "consumer": {"name": "c", "deliver_subject": "d.x"}}]),
                C("c", "A", priority_policy="overflow", priority_groups=["g"]),
            ]
        )
        + "\n"
    )
    old = release_view(estate, (2, 10, 26))
    a, b, c = old.resources
    assert "allow_msg_ttl" not in a.config.model_fields_set and "allow_batched" not in a.config.model_fields_set
    assert list(a.config.placement.tags) == ["x"] and "preferred" not in a.config.placement.model_fields_set
    assert "consumer" not in b.config.sources[0].model_fields_set
    assert "priority_policy" not in c.config.model_fields_set
    assert a.document == estate.resources[0].document and a.file == estate.resources[0].file  # still located
    mid = release_view(estate, (2, 11, 11)).resources
    assert "allow_msg_ttl" in mid[0].config.model_fields_set and "allow_batched" not in mid[0].config.model_fields_set
    assert release_view(estate, (2, 12, 8)) is estate  # strict: the server refuses instead (JS311, 10025)
    assert release_view(estate, NEWEST) is estate


def test_engine_turns_a_later_check_into_advice():
    docs = [S("A", subjects=["a.>"]), C("c", "A", ack_policy="explicit", ack_wait="-1s")]
    new = [f for f in _lint(docs, None) if f.rule == "JS204"]
    assert [(f.severity, f.server_error_code) for f in new] == [(Severity.ERROR, 10183)]
    old = [f for f in _lint(docs, "2.11.11") if f.rule == "JS204"]
    assert [(f.severity, f.server_error_code) for f in old] == [(Severity.WARNING, None)]
    assert old[0].message.startswith("nats-server 2.11.11 accepts this; 2.12.0+ refuses it (10183): ")


def test_engine_uses_the_older_err_code():
    docs = [S("A", subjects=["a.>"]), C("a*", "A", ack_policy="explicit")]
    codes = {v: [f.server_error_code for f in _lint(docs, v) if f.rule == "JS201"] for v in ("2.10.26", "2.12.8")}
    assert codes == {"2.10.26": [10103], "2.12.8": [10052]}


def test_dropped_field_is_a_warning_and_other_rules_do_not_judge_it():
    # priority_groups without a policy: 10196 from 2.12; 2.10 does not even know the fields
    docs = [S("A", subjects=["a.>"]), C("c", "A", ack_policy="explicit", priority_groups=["g"])]
    by_release = {
        v: sorted(
            (f.rule, f.severity.value, f.server_error_code) for f in _lint(docs, v) if f.rule in ("JS224", "JS311")
        )
        for v in ("2.10.26", "2.11.11", "2.12.8")
    }
    assert by_release["2.10.26"] == [("JS311", "warning", None)]
    assert by_release["2.11.11"] == [("JS224", "warning", None)]
    assert by_release["2.12.8"] == [("JS224", "error", 10196)]


@pytest.mark.parametrize(("version", "codes"), [("2.11.11", [10087, 10114, 10115]), ("2.12.8", [])])
def test_negative_pull_limits_are_refused_before_2_12(version: str, codes: list[int]):
    docs = [
        S("A", subjects=["a.>"]),
        C("c", "A", ack_policy="explicit", max_waiting=-1, max_batch=-1, max_expires="-1s"),
    ]
    assert sorted(f.server_error_code for f in _lint(docs, version) if f.rule == "JS228") == codes


def test_workqueue_copy_is_advice_before_2_14_only():
    docs = [
        S("W", subjects=["w.>"], retention="workqueue"),
        S("M", mirror={"name": "W"}),
        C("a", "W", ack_policy="explicit", filter_subject="w.a"),
    ]
    old = [(f.severity, f.server_error_code, f.object.name) for f in _lint(docs, "2.12.8") if f.rule == "JS302"]
    assert old == [(Severity.WARNING, None, "a")]
    assert [f for f in _lint(docs, "2.14.6") if f.rule == "JS302"] == []
    filtered = docs[:1] + [S("M", sources=[{"name": "W", "filter_subject": "w.b"}])] + docs[2:]
    assert [f for f in _lint(filtered, "2.12.8") if f.rule == "JS302"] == []  # the copy's filter is disjoint


@pytest.mark.parametrize(
    ("version", "expected"),
    [
        ("2.10.26", []),
        ("2.11.11", []),
        ("2.12.8", []),
        ("2.14.6", [("JS311", "error", 10025)]),
        ("2.15.1", [("JS311", "error", 10025)]),
        (None, [("JS311", "error", 10025)]),  # no target: the newest release's answer
    ],
)
def test_a_field_past_its_last_release_is_refused_and_known_before(version: str | None, expected: list[Any]):
    """``template_owner`` is decoded up to 2.12 and an unknown field from 2.14 (the catalog's last release,
    measured: tests/integration/test_field_releases.py); no release calls it unknown where it decodes it."""
    docs = [S("A", subjects=["a.>"], template_owner="TPL")]
    found = [f for f in _lint(docs, version) if f.server_error_code == 10025 or f.rule in ("JS005", "JS311")]
    assert sorted((f.rule, f.severity.value, f.server_error_code) for f in found) == expected
    if expected:
        assert found[0].message.startswith("field template_owner was removed in nats-server 2.14.0; the target runs")
    empty = [f for f in _lint([S("A", subjects=["a.>"], template_owner="")], version) if f.rule == "JS311"]
    assert empty == []  # an empty one is left out of the request (omitempty)


def test_field_decoded_reads_both_ends_of_the_catalog_range():
    assert field_decoded("Stream", "template_owner", (2, 12, 8))
    assert not field_decoded("Stream", "template_owner", (2, 14, 0))
    assert not field_decoded("Stream", "allow_batched", (2, 12, 8)) and field_decoded("Stream", "allow_batched", NEWEST)
