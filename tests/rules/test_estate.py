"""Estate-wide (JS301-JS306), target (JS311-JS316) and silent-rewrite (JS321-JS326) rules.

``CASES`` are whole estates (applied in order: streams, then consumers) with the rejections
nats-server answers for them; tests/integration/test_rules_estate_server.py sends every case
whose ``server`` is set to a real nats-server and checks that the server agrees.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pytest

from jsops.linter.engine import discover_rules, lint_estate
from jsops.linter.findings import Finding, Severity
from jsops.linter.load import Estate, check_estate, load_text
from jsops.linter.model.config import StreamConfig
from jsops.linter.model.target import Target
from jsops.linter.semantics.effective import effective_stream
from jsops.linter.semantics.effective_types import EffectiveStream
from jsops.linter.semantics.subjects import SubjectIndex
from jsops.rules.estate.source_cycle import find_cycle

RULES = discover_rules()
BY_CODE = {r.code: r for r in RULES}
STANDALONE = {"server_version": "2.15.1", "clustered": False}
# The "limits" server of the integration test: jetstream.limits and a limited account.
LIMITS = {
    **STANDALONE,
    "limits": {"duplicate_window": "1m", "max_request_batch": 50, "max_ack_pending": 100},
    "account": {
        "max_mem": "4MiB",
        "max_file": "3MiB",
        "max_streams": 4,
        "max_consumers": 3,
        "mem_max_stream_bytes": "1MiB",
        "disk_max_stream_bytes": "1MiB",
        "max_ack_pending": 20,
    },
}
REQUIRED = {**STANDALONE, "account": {"max_bytes_required": True}}


def S(name: str, **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "jsops/v1", "kind": "Stream", "metadata": {"name": name}, "spec": spec}


def C(name: str, stream: str, **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "jsops/v1", "kind": "Consumer", "metadata": {"name": name, "stream": stream}, "spec": spec}


@dataclass(frozen=True)
class EstateCase:
    id: str
    docs: tuple[dict[str, Any], ...]
    # object name -> (rule, err_code) for each object nats-server refuses; every other object is accepted
    rejected: dict[str, tuple[str, int | None]] = field(default_factory=dict)
    # (rule, object name) warnings expected (rewrite rules); checked in the unit tests only
    warnings: tuple[tuple[str, str], ...] = ()
    target: dict[str, Any] = field(default_factory=lambda: dict(STANDALONE))
    server: str = "plain"  # which integration server: "plain", "limits", "required"; "" = unit only

    def text(self) -> str:
        return "\n---\n".join(json.dumps(d) for d in self.docs) + "\n"


def load_estate(text: str, file: str = "estate.yaml") -> Estate:
    estate = Estate()
    load_text(text.encode(), file, estate)
    check_estate(estate)
    assert estate.findings == [], estate.findings
    return estate


def predict(estate: Estate, target: dict[str, Any]) -> list[Finding]:
    return lint_estate(estate, RULES, target=Target.model_validate(target)).findings


WQ = {"subjects": ["wq.>"], "retention": "workqueue"}

CASES: list[EstateCase] = [
    # JS301 estate-stream-subjects-overlap
    EstateCase("overlap-wildcard", (S("A", subjects=["ov.>"]), S("B", subjects=["ov.*"])), {"B": ("JS301", 10065)}),
    EstateCase(
        "overlap-literal", (S("A", subjects=["ov.*"]), S("B", subjects=["x.y", "ov.a"])), {"B": ("JS301", 10065)}
    ),
    EstateCase(
        "overlap-default-subject",
        (S("A", subjects=["B"]), S("B", max_age="1h")),
        {"B": ("JS301", 10065)},
        warnings=(("JS321", "B"),),
    ),
    EstateCase(
        "overlap-only-first-created",
        (S("A", subjects=["ov.>"]), S("B", subjects=["ov.a"]), S("C", subjects=["ov.a"])),
        {"B": ("JS301", 10065), "C": ("JS301", 10065)},
    ),
    EstateCase(
        "overlap-rejected-not-counted",
        (S("A", subjects=["ov.>"]), S("B", subjects=["ov.a", "p.>"]), S("C", subjects=["p.x"])),
        {"B": ("JS301", 10065)},
    ),
    EstateCase(
        "overlap-partial-wildcard",
        (S("A", subjects=["ov.a.>"]), S("B", subjects=["ov.b.>", "ov.*.c.d"])),
        {"B": ("JS116", 10052)},
    ),
    EstateCase(
        "overlap-across-wildcards",
        (S("A", subjects=["ov.a.>"]), S("B", subjects=["ov.b", "ov.*.c.d"])),
        {"B": ("JS301", 10065)},
    ),
    EstateCase("disjoint", (S("A", subjects=["a.>"]), S("B", subjects=["b.*", "b"]), S("M", mirror={"name": "A"})), {}),
    # JS302 estate-workqueue-consumer-not-unique
    EstateCase("wq-two-unfiltered", (S("W", **WQ), C("c1", "W"), C("c2", "W")), {"c2": ("JS302", 10099)}),
    EstateCase(
        "wq-unfiltered-after-filtered",
        (S("W", **WQ), C("c1", "W", filter_subject="wq.a"), C("c2", "W")),
        {"c2": ("JS302", 10099)},
    ),
    EstateCase(
        "wq-filtered-after-unfiltered",
        (S("W", **WQ), C("c1", "W"), C("c2", "W", filter_subject="wq.a")),
        {"c2": ("JS302", 10100)},
    ),
    EstateCase(
        "wq-overlap",
        (S("W", **WQ), C("c1", "W", filter_subject="wq.*"), C("c2", "W", filter_subject="wq.a")),
        {"c2": ("JS302", 10100)},
    ),
    EstateCase(
        "wq-overlap-subjects",
        (
            S("W", **WQ),
            C("c1", "W", filter_subjects=["wq.a", "wq.b"]),
            C("c2", "W", filter_subjects=["wq.c", "wq.b.>", "wq.b"]),
        ),
        {"c2": ("JS302", 10100)},
    ),
    EstateCase(
        "wq-disjoint",
        (
            S("W", **WQ),
            C("c1", "W", filter_subject="wq.a.>"),
            C("c2", "W", filter_subjects=["wq.b", "wq.c.*"]),
            C("c3", "W", filter_subject="wq.d"),
        ),
        {},
    ),
    EstateCase(
        "wq-rejected-not-counted",
        (S("W", **WQ), C("c0", "W", deliver_policy="new"), C("c1", "W", filter_subject="wq.a")),
        {"c0": ("JS226", 10101)},
    ),
    EstateCase("limits-unfiltered-ok", (S("L", subjects=["l.>"]), C("c1", "L"), C("c2", "L")), {}),
    # JS303 estate-source-cycle
    EstateCase(
        "cycle-two",
        (S("A", subjects=["a.>"], sources=[{"name": "B"}]), S("B", subjects=["b.>"], sources=[{"name": "A"}])),
        {"B": ("JS303", 10052)},
    ),
    EstateCase("cycle-self", (S("A", subjects=["a.>"], sources=[{"name": "A"}]),), {"A": ("JS303", 10052)}),
    EstateCase("cycle-self-no-subjects", (S("A", sources=[{"name": "A", "filter_subject": "a.>"}]),), {}),
    EstateCase(
        "cycle-filtered-away",
        (
            S("A", subjects=["a.>"], sources=[{"name": "B", "filter_subject": "b.>"}]),
            S("B", subjects=["b.>"], sources=[{"name": "A", "filter_subject": "a.>"}]),
        ),
        {},
    ),
    EstateCase(
        "cycle-three",
        (
            S("A", subjects=["a.>"], sources=[{"name": "C"}]),
            S("B", subjects=["b.>"], sources=[{"name": "A"}]),
            S("C", subjects=["c.>"], sources=[{"name": "B"}]),
        ),
        {"C": ("JS303", 10052)},
    ),
    EstateCase(
        "cycle-mirror",
        (S("A", subjects=["a.>"], sources=[{"name": "M"}]), S("M", mirror={"name": "A"})),
        {"M": ("JS303", 10052)},
    ),
    EstateCase(
        "cycle-diamond",
        (
            S("A", subjects=["a.>"]),
            S("B", sources=[{"name": "A"}]),
            S("X", subjects=["x.>"], sources=[{"name": "A"}, {"name": "B"}]),
        ),
        {"X": ("JS303", 10052)},
    ),
    EstateCase(
        "cycle-diamond-filtered",
        (
            S("A", subjects=["a.>"]),
            S("B", sources=[{"name": "A", "filter_subject": "a.b"}]),
            S("X", subjects=["x.>"], sources=[{"name": "B"}, {"name": "A", "filter_subject": "a.c"}]),
        ),
        {},
    ),
    EstateCase(
        "cycle-external-ignored",
        (S("A", subjects=["a.>"], sources=[{"name": "A", "external": {"api": "$JS.hub.API"}}]),),
        {},
    ),
    # JS304 estate-mirror-max-msg-size
    EstateCase(
        "mirror-msg-size",
        (S("A", subjects=["a.>"], max_msg_size=2048), S("M", mirror={"name": "A"}, max_msg_size=1024)),
        {"M": ("JS304", 10030)},
    ),
    EstateCase(
        "source-msg-size",
        (
            S("A", subjects=["a.>"], max_msg_size=2048),
            S("X", subjects=["x.>"], sources=[{"name": "A"}], max_msg_size=1024),
        ),
        {"X": ("JS304", 10046)},
    ),
    EstateCase(
        "msg-size-ok",
        (
            S("A", subjects=["a.>"], max_msg_size=2048),
            S("M", mirror={"name": "A"}, max_msg_size=4096),
            S("X", subjects=["x.>"], sources=[{"name": "A"}]),
            S("Y", subjects=["y.>"], max_msg_size=10, sources=[{"name": "Z"}]),
        ),
        {},
    ),
    # JS305 estate-max-consumers-reached
    EstateCase(
        "max-consumers",
        (S("A", subjects=["a.>"], max_consumers=1), C("c1", "A"), C("c2", "A")),
        {"c2": ("JS305", 10026)},
    ),
    EstateCase("max-consumers-ok", (S("A", subjects=["a.>"], max_consumers=2), C("c1", "A"), C("c2", "A")), {}),
    # JS315 target-stream-replicas-unsupported / JS203 (consumers)
    EstateCase("standalone-r3", (S("A", subjects=["a.>"], num_replicas=3),), {"A": ("JS315", 10074)}),
    EstateCase(
        "standalone-consumer-r3", (S("A", subjects=["a.>"]), C("c1", "A", num_replicas=3)), {"c1": ("JS203", 10074)}
    ),
    EstateCase(
        "cluster-r5-on-3",
        (S("A", subjects=["a.>"], num_replicas=5),),
        {"A": ("JS315", 10005)},
        target={"clustered": True, "cluster_size": 3},
        server="",
    ),
    # target limits (the "limits" and "required" servers)
    EstateCase(
        "limit-dup-window",
        (S("A", subjects=["a.>"], duplicate_window="2m"),),
        {"A": ("JS312", 10052)},
        target=LIMITS,
        server="limits",
    ),
    EstateCase(
        "limit-dup-window-default",
        (S("A", subjects=["a.>"]),),
        {},
        warnings=(("JS322", "A"),),
        target=LIMITS,
        server="limits",
    ),
    EstateCase(
        "limit-max-batch",
        (S("A", subjects=["a.>"]), C("c1", "A", max_batch=51)),
        {"c1": ("JS314", 10125)},
        target=LIMITS,
        server="limits",
    ),
    EstateCase(
        "limit-max-batch-push-ok",
        (S("A", subjects=["a.>"]), C("c1", "A", max_batch=500, deliver_subject="dl.a", max_ack_pending=10)),
        {},
        target=LIMITS,
        server="limits",
    ),
    EstateCase(
        "limit-ack-pending",
        (S("A", subjects=["a.>"]), C("c1", "A", max_ack_pending=50)),
        {"c1": ("JS225", 10121)},
        target=LIMITS,
        server="limits",
    ),
    EstateCase(
        "limit-stream-bytes",
        (S("A", subjects=["a.>"], max_bytes="2MiB"),),
        {"A": ("JS313", 10122)},
        target=LIMITS,
        server="limits",
    ),
    EstateCase(
        "limit-mem-stream-bytes",
        (S("A", subjects=["a.>"], storage="memory", max_bytes="2MiB"),),
        {"A": ("JS313", 10122)},
        target=LIMITS,
        server="limits",
    ),
    EstateCase(
        "limit-stream-max-consumers",
        (S("A", subjects=["a.>"], max_consumers=5),),
        {"A": ("JS316", 10026)},
        target=LIMITS,
        server="limits",
    ),
    EstateCase(
        "limit-account-consumers",
        (S("A", subjects=["a.>"]), C("c1", "A"), C("c2", "A"), C("c3", "A"), C("c4", "A")),
        {"c4": ("JS305", 10026)},
        target=LIMITS,
        server="limits",
    ),
    EstateCase(
        "limit-max-streams",
        tuple(S(f"A{i}", subjects=[f"a{i}.>"], max_bytes="64KiB") for i in range(5)),
        {"A4": ("JS306", 10027)},
        target=LIMITS,
        server="limits",
    ),
    EstateCase(
        "limit-file-reservation",
        tuple(S(f"A{i}", subjects=[f"a{i}.>"], max_bytes="1MiB") for i in range(3))
        + (
            S("B", subjects=["b.>"], max_bytes="1MiB", num_replicas=1),
            S("M", subjects=["m.>"], storage="memory", max_bytes="1MiB"),
        ),
        {"B": ("JS306", 10047)},
        target=LIMITS,
        server="limits",
    ),
    EstateCase(
        "limit-file-full",
        (
            S("A0", subjects=["a0.>"], max_bytes="1MiB"),
            S("A1", subjects=["a1.>"], max_bytes="1MiB"),
            S("A2", subjects=["a2.>"], max_bytes="1MiB"),
            S("A3", subjects=["a3.>"], max_bytes="1KiB"),
        ),
        {"A3": ("JS306", 10047)},
        target=LIMITS,
        server="limits",
    ),
    EstateCase(
        "required-max-bytes",
        (S("A", subjects=["a.>"]), S("B", subjects=["b.>"], max_bytes="1MiB")),
        {"A": ("JS313", 10113)},
        target=REQUIRED,
        server="required",
    ),
    # JS311 target-field-newer-than-server (no server of these versions here)
    # 2.10 and 2.11 decode leniently: the field is dropped (a warning), not refused
    EstateCase(
        "version-ttl-2.10",
        (S("A", subjects=["a.>"], allow_msg_ttl=True),),
        {},
        warnings=(("JS311", "A"),),
        target={"server_version": "2.10.7"},
        server="",
    ),
    EstateCase(
        "version-batched-2.12",
        (S("A", subjects=["a.>"], allow_batched=True),),
        {"A": ("JS311", 10025)},
        target={"server_version": "v2.12.1"},
        server="",
    ),
    EstateCase(
        "version-ack-fc-2.12",
        (S("A", subjects=["a.>"]), C("c", "A", deliver_subject="d.x", ack_policy="flow_control", max_ack_pending=5)),
        {"c": ("JS311", 10025)},
        warnings=(("JS326", "c"),),
        target={"server_version": "2.12.0"},
        server="",
    ),
    EstateCase(
        "version-source-consumer",
        (S("A", subjects=["a.>"], sources=[{"name": "B", "consumer": {"name": "x", "deliver_subject": "d.x"}}]),),
        {"A": ("JS311", 10025)},
        target={"server_version": "2.13.0"},
        server="",
    ),
    EstateCase(
        "version-ok",
        (
            S("A", subjects=["a.>"], allow_msg_ttl=True, allow_direct=True),
            C("c", "A", priority_policy="overflow", priority_groups=["g"]),
        ),
        {},
        target={"server_version": "2.11.0"},
        server="",
    ),
    # silent rewrites: accepted, with a warning
    EstateCase(
        "rewrite-sdm",
        (S("A", subjects=["a.>"], subject_delete_marker_ttl="1m", deny_purge=True),),
        {},
        warnings=(("JS323", "A"),),
    ),
    EstateCase(
        "rewrite-schedules", (S("A", subjects=["a.>"], allow_msg_schedules=True),), {}, warnings=(("JS323", "A"),)
    ),
    EstateCase(
        "rewrite-mirror-direct",
        (S("A", subjects=["a.>"], allow_direct=True), S("M", mirror={"name": "A"})),
        {},
        warnings=(("JS324", "M"),),
    ),
    EstateCase(
        "rewrite-mirror-direct-off",
        (S("A", subjects=["a.>"]), S("M", mirror={"name": "A"}, mirror_direct=True)),
        {},
        warnings=(("JS324", "M"),),
    ),
    EstateCase(
        "rewrite-ack-wait",
        (S("A", subjects=["a.>"]), C("c", "A", ack_wait="30s", backoff=["1s", "5s"], max_deliver=3)),
        {},
        warnings=(("JS325", "c"),),
    ),
    EstateCase(
        "rewrite-flow-control",
        (
            S("A", subjects=["a.>"]),
            C("c", "A", deliver_subject="d.a", ack_policy="flow_control", max_ack_pending=10, idle_heartbeat="5s"),
        ),
        {},
        warnings=(("JS326", "c"),),
    ),
    EstateCase("rewrite-dup-window", (S("A", subjects=["a.>"], max_age="30s"),), {}, warnings=(("JS322", "A"),)),
    EstateCase(
        "rewrite-none",
        (
            S("A", subjects=["a.>"], max_age="30s", duplicate_window="30s", allow_direct=True),
            S("M", mirror={"name": "A"}, mirror_direct=True),
            C("c", "A", ack_wait="1s", backoff=["1s", "5s"], max_deliver=3),
        ),
        {},
    ),
]


def _ids(
    findings: list[Finding], expected: tuple[tuple[str, str], ...] = ()
) -> tuple[dict[str, list[tuple[str, int | None]]], list[tuple[str, str]]]:
    """Errors by object name, and the JS3xx warnings (JS322 only when expected: every stream of a
    target whose duplicate_window limit is below 2m gets it)."""
    errors: dict[str, list[tuple[str, int | None]]] = {}
    warnings = []
    for f in findings:
        if f.severity is Severity.ERROR:
            assert f.object is not None
            errors.setdefault(f.object.name, []).append((f.rule, f.server_error_code))
        elif (
            f.severity is Severity.WARNING
            and f.rule.startswith("JS3")
            and (f.rule != "JS322" or any(r == "JS322" for r, _ in expected))
        ):
            warnings.append((f.rule, f.object.name))
    return errors, sorted(warnings)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_estate_case(case: EstateCase):
    findings = predict(load_estate(case.text()), case.target)
    errors, warnings = _ids(findings, case.warnings)
    # an object the server refuses may draw several findings; the server's answer is among them
    assert set(errors) == set(case.rejected), [str(f) for f in findings]
    for name, expected in case.rejected.items():
        assert expected in errors[name], (name, errors[name])
    assert warnings == sorted(case.warnings), [str(f) for f in findings]


def test_rules_stay_silent_without_target():
    for case in CASES:
        if case.target == STANDALONE or not any(
            code.startswith(("JS31", "JS305", "JS306")) for code, _ in case.rejected.values()
        ):
            continue
        errors, _ = _ids(predict(load_estate(case.text()), {}))
        assert not any(rule.startswith("JS31") or rule == "JS306" for found in errors.values() for rule, _ in found), (
            case.id,
            errors,
        )


def test_findings_point_at_the_field():
    text = "\n---\n".join(json.dumps(d) for d in (S("A", subjects=["ov.>"]), S("B", subjects=["x", "ov.b"]))) + "\n"
    (f,) = [f for f in predict(load_estate(text), {}) if f.rule == "JS301"]
    assert f.line == 3 and text.splitlines()[2][f.column - 1 :].startswith('"ov.b"')
    assert "estate.yaml:1" in f.message


def _eff(name: str, **config: object) -> EffectiveStream:
    return effective_stream(StreamConfig.model_validate(config), name=name)


def test_cycle_paths():
    created = {"A": _eff("A", subjects=["a.>"], sources=[{"name": "B"}]), "B": _eff("B", mirror={"name": "A"})}
    assert find_cycle("C", _eff("C", sources=[{"name": "A"}]), created) == ["C", "A", "B", "A"]
    assert find_cycle("B", _eff("B", sources=[{"name": "A"}]), {"A": created["A"]}) == ["B", "A", "B"]
    assert find_cycle("X", _eff("X", subjects=[], sources=[{"name": "X", "filter_subject": "q"}]), {}) is None


def test_overlap_across_contexts_is_fine():
    a = S("A", subjects=["ov.>"])
    b = S("B", subjects=["ov.>"])
    b["metadata"]["context"] = "other"
    text = json.dumps(a) + "\n---\n" + json.dumps(b) + "\n"
    assert [f for f in predict(load_estate(text), {}) if f.rule == "JS301"] == []


def _estate_of(n: int) -> Estate:
    docs = []
    for i in range(n):
        docs.append(
            S(
                f"S{i}",
                subjects=[f"s.{i}.>", f"t.{i}"],
                retention="workqueue" if i % 2 else "limits",
                **({"sources": [{"name": f"S{i - 1}", "filter_subject": f"s.{i - 1}.x"}]} if i % 10 == 5 else {}),
            )
        )
        docs.extend(C(f"c{j}", f"S{i}", filter_subject=f"s.{i}.c{j}") for j in range(4))
    estate = Estate()
    for k in range(0, len(docs), 5000):
        load_text(("\n---\n".join(json.dumps(d) for d in docs[k : k + 5000]) + "\n").encode(), f"part{k}.yaml", estate)
    check_estate(estate)
    assert estate.findings == []
    return estate


def test_estate_rules_are_not_quadratic():
    """Streams with 4 filtered consumers each on workqueue streams: the estate-wide rules' CPU time
    (this process's own, so other work on the machine does not count) grows linearly with the
    estate. 4 x the streams costs about 4 x the time; a pairwise check would cost 16 x, so the bound
    (9 x) leaves room for noise either way. The speed itself is measured in bench/lint_speed.py."""
    import time

    rules = [r for r in RULES if r.estate_wide]
    target = Target()
    cpu = {}
    for n in (500, 2_000):
        estate = _estate_of(n)
        lint_estate(_estate_of(50), rules, target=target)  # warm: first-use costs are not the estate's
        best = float("inf")
        for _ in range(3):
            t = time.process_time()
            findings = lint_estate(estate, rules, target=target).findings
            best = min(best, time.process_time() - t)
        cpu[n] = best
        # JS409 (ops): the workqueue streams' second subject t.<i> is taken by none of their consumers
        uncovered = [f for f in findings if f.rule == "JS409"]
        assert len(uncovered) == n // 2 and all(f"'t.{f.object.name[1:]}'" in f.message for f in uncovered)
        assert [f for f in findings if f.rule != "JS409"] == []
    assert cpu[2_000] < 9 * cpu[500], cpu


def test_subject_index_used_for_overlap():
    idx: SubjectIndex[int] = SubjectIndex([("a.>", 1), ("b.*", 2)])
    assert [p for _, p in idx.colliding("a.b.c")] == [1]


def test_subject_trie_agrees_with_pairwise_collision():
    import random

    from jsops.linter.semantics.subjects import is_valid_subject, subjects_collide

    rng = random.Random(7)
    tokens = ["a", "b", "c", "*", ">", "*x", ">y", "ab"]

    def subject() -> str:
        n = rng.randint(1, 4)
        toks = [rng.choice(tokens) for _ in range(n)]
        return ".".join(t for t in toks)

    subjects = sorted({s for s in (subject() for _ in range(600)) if is_valid_subject(s)})
    trie: SubjectIndex[int] = SubjectIndex((s, i) for i, s in enumerate(subjects))
    for q in subjects[:200]:
        got = sorted(i for _, i in trie.colliding(q))
        want = sorted(i for i, s in enumerate(subjects) if subjects_collide(q, s))
        assert got == want, q


def test_version_table_covers_every_model_field():
    from jsops.linter.model.config import ConsumerConfig, StreamConfig, StreamSource
    from jsops.linter.semantics.releases import CONSUMER_FIELDS, STREAM_FIELDS, STREAM_SOURCE_FIELDS

    assert set(StreamConfig.model_fields) <= set(STREAM_FIELDS)
    assert set(ConsumerConfig.model_fields) <= set(CONSUMER_FIELDS)
    assert set(StreamSource.model_fields) <= set(STREAM_SOURCE_FIELDS)


@pytest.mark.parametrize(
    "text,version",
    [("2.10.3", (2, 10, 3)), ("v2.11", (2, 11, 0)), ("2.15.0-dev", (2, 15, 0)), ("main", None), ("", None)],
)
def test_parse_version(text, version):
    from jsops.linter.semantics.releases import parse_version

    assert parse_version(text) == version


def test_version_rule_is_silent_without_version_and_on_zero_values():
    docs = (S("A", subjects=["a.>"], allow_msg_ttl=False, allow_batched=True),)
    text = "\n---\n".join(json.dumps(d) for d in docs) + "\n"
    assert [f for f in predict(load_estate(text), {}) if f.rule == "JS311"] == []
    found = [f for f in predict(load_estate(text), {"server_version": "2.10.0"}) if f.rule == "JS311"]
    assert [f.message.split(" needs")[0] for f in found] == ["field allow_batched"]
    assert found[0].server_error_code is None and "silently drops" in found[0].message
    assert found[0].severity.value == "warning"  # nothing is refused: the field is dropped
