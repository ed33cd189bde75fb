"""Pass and fail cases for the stream create-time rejection rules (JS101, JS103-JS126).

Shared by the one rule case driver (tests/rules/test_cases.py) and the real-server agreement tests
(tests/integration/test_rules_stream_server.py). A fail case holds exactly one rejected condition
and names the err_code nats-server answers for it; a pass case is a config the server accepts.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from jsops.linter.testing import RuleCase


@dataclass(frozen=True)
class Case:
    id: str
    rule: str
    spec: dict[str, Any]
    code: int | None  # predicted err_code; None: the server accepts it and the rule is silent
    name: str = ""  # stream name; default derived from the id
    unroutable: bool = False  # the create request reaches no handler (name with '.' or whitespace)
    findings: int = field(default=1)

    @property
    def stream(self) -> str:
        return self.name or "T_" + self.id.replace("-", "_")

    def manifest(self) -> str:
        doc = {"apiVersion": "jsops/v1", "kind": "Stream", "metadata": {"name": self.stream}, "spec": self.spec}
        return json.dumps(doc)

    def rule_case(self) -> RuleCase:
        """The case as data for the one rule case driver (tests/rules/test_cases.py)."""
        return RuleCase(self.id, self.rule, self.manifest(), self.code, findings=self.findings)


S = {"subjects": ["t.>"]}


def _s(**kw: Any) -> dict[str, Any]:
    return {**S, **kw}


CASES: list[Case] = [
    # JS101 stream-invalid-name
    Case("name-dot", "JS101", S, 10052, name="orders.v1", unroutable=True),
    Case("name-space", "JS101", S, 10052, name="orders v1", unroutable=True),
    Case("name-tab", "JS101", S, 10052, name="orders\tv1", unroutable=True),
    Case("name-star", "JS101", S, 10052, name="a*"),
    Case("name-gt", "JS101", S, 10052, name="a>"),
    Case("name-slash", "JS101", S, 10128, name="a/b"),
    Case("name-backslash", "JS101", S, 10128, name="a\\b"),
    Case("name-too-long", "JS101", S, 10052, name="N" * 256),
    Case("name-255", "JS101", S, None, name="M" * 255),
    Case("name-ok", "JS101", S, None, name="orders-v1_X"),
    # JS103 stream-description-too-long
    Case("desc-4097", "JS103", _s(description="d" * 4097), 10052),
    Case("desc-multibyte", "JS103", _s(description="é" * 2049), 10052),
    Case("desc-4096", "JS103", _s(description="d" * 4096), None),
    # JS104 stream-metadata-too-large
    Case("meta-131057", "JS104", _s(metadata={"k": "v" * 131056}), 10052),
    Case("meta-131056", "JS104", _s(metadata={"k": "v" * 131055}), None),
    # 2.10 measures the manifest's metadata alone (no _nats.req.level entry yet): 131072 is its last byte
    Case("meta-131072", "JS104", _s(metadata={"k": "v" * 131071}), 10052),
    Case("meta-131073", "JS104", _s(metadata={"k": "v" * 131072}), 10052),
    # JS105 stream-replicas-out-of-range
    Case("replicas-6", "JS105", _s(num_replicas=6), 10052),
    Case("replicas-neg", "JS105", _s(num_replicas=-1), 10133),
    Case("replicas-1", "JS105", _s(num_replicas=1), None),
    # JS106 stream-max-age-invalid
    Case("max-age-neg", "JS106", _s(max_age="-1s"), 10052),
    Case("max-age-50ms", "JS106", _s(max_age="50ms"), 10052),
    Case("max-age-100ms", "JS106", _s(max_age="100ms"), None),
    # JS107 stream-duplicate-window-invalid
    Case("dup-neg", "JS107", _s(duplicate_window="-1s"), 10052),
    Case("dup-10ms", "JS107", _s(duplicate_window="10ms"), 10052),
    Case("dup-neg-mirror", "JS107", {"mirror": {"name": "ORIGIN"}, "duplicate_window": "-5s"}, 10052),
    Case("dup-100ms", "JS107", _s(duplicate_window="100ms"), None),
    # JS108 stream-rollup-requires-purge
    Case("rollup-deny-purge", "JS108", _s(allow_rollup_hdrs=True, deny_purge=True), 10052),
    Case("rollup-ok", "JS108", _s(allow_rollup_hdrs=True, deny_delete=True), None),
    # JS109 stream-counter-incompatible
    Case("counter-discard-new", "JS109", _s(allow_msg_counter=True, discard="new"), 10052),
    Case("counter-ttl", "JS109", _s(allow_msg_counter=True, allow_msg_ttl=True), 10052),
    Case("counter-schedules", "JS109", _s(allow_msg_counter=True, allow_msg_schedules=True), 10052),
    Case("counter-interest", "JS109", _s(allow_msg_counter=True, retention="interest"), 10052),
    Case("counter-workqueue", "JS109", _s(allow_msg_counter=True, retention="workqueue"), 10052),
    Case("counter-ok", "JS109", _s(allow_msg_counter=True, retention="limits"), None),
    # JS110 stream-discard-new-per-subject-invalid
    Case("dnps-discard-old", "JS110", _s(discard_new_per_subject=True, max_msgs_per_subject=5), 10052),
    Case("dnps-no-limit", "JS110", _s(discard_new_per_subject=True, discard="new"), 10052),
    Case("dnps-ok", "JS110", _s(discard_new_per_subject=True, discard="new", max_msgs_per_subject=5), None),
    # JS111 stream-subject-delete-marker-ttl-invalid
    Case("sdm-500ms", "JS111", _s(subject_delete_marker_ttl="500ms"), 10052),
    Case("sdm-neg", "JS111", _s(subject_delete_marker_ttl="-1s"), 10052),
    Case("sdm-1s", "JS111", _s(subject_delete_marker_ttl="1s"), None),
    # JS112 stream-schedules-discard-new
    Case("schedules-discard-new", "JS112", _s(allow_msg_schedules=True, discard="new"), 10052),
    Case("schedules-ok", "JS112", _s(allow_msg_schedules=True), None),
    # JS113 stream-async-persist-invalid
    Case("async-memory", "JS113", _s(persist_mode="async", storage="memory"), 10052),
    Case("async-r3", "JS113", _s(persist_mode="async", num_replicas=3), 10052),
    Case("async-atomic", "JS113", _s(persist_mode="async", allow_atomic=True), 10052),
    Case("async-ok", "JS113", _s(persist_mode="async", storage="file"), None),
    # JS114 stream-sealed-on-create
    Case("sealed", "JS114", _s(sealed=True), 10052),
    Case("sealed-false", "JS114", _s(sealed=False), None),
    # JS115 stream-mirror-direct-without-mirror
    Case("mirror-direct-alone", "JS115", _s(mirror_direct=True), 10052),
    Case("mirror-direct-on-mirror", "JS115", {"mirror": {"name": "ORIGIN"}, "mirror_direct": True}, None),
    # JS116 stream-invalid-subjects
    Case("subj-empty-token", "JS116", {"subjects": ["a..b"]}, 10052),
    Case("subj-fwc-middle", "JS116", {"subjects": ["a.>.b"]}, 10052),
    Case("subj-space", "JS116", {"subjects": ["a b"]}, 10052),
    Case("subj-duplicate", "JS116", {"subjects": ["dup", "dup"]}, 10052),
    Case("subj-overlap", "JS116", {"subjects": ["ov.*", "ov.bar"]}, 10052),
    Case("subj-overlap-fwc", "JS116", {"subjects": ["ov.a.b", "ov.>"]}, 10052),
    Case("subj-many-overlap", "JS116", {"subjects": [f"m.{i}" for i in range(40)] + ["m.*"]}, 10052),
    Case("subj-many-ok", "JS116", {"subjects": [f"m.{i}.>" for i in range(40)]}, None),
    Case("subj-ok", "JS116", {"subjects": ["a.*", "b.>", "a"]}, None),
    # JS117 stream-subjects-require-no-ack
    Case("fwc-ack", "JS117", {"subjects": [">"]}, 10052),
    Case("fwc-r3", "JS117", {"subjects": [">"], "no_ack": True, "num_replicas": 3}, 10052),
    Case("js-api", "JS117", {"subjects": ["$JS.API.>"]}, 10052),
    Case("jsc", "JS117", {"subjects": ["$JSC.>"]}, 10052),
    Case("nrg", "JS117", {"subjects": ["$NRG.>"]}, 10052),
    Case("star-fwc", "JS117", {"subjects": ["*.>"]}, 10052),
    Case("star-star", "JS117", {"subjects": ["*.*"]}, 10052),
    Case("sys", "JS117", {"subjects": ["$SYS.REQ.>"]}, 10052),
    Case("fwc-no-ack", "JS117", {"subjects": [">"], "no_ack": True}, None),
    Case("js-api-no-ack", "JS117", {"subjects": ["$JS.API.>"], "no_ack": True}, None),
    Case("js-event", "JS117", {"subjects": ["$JS.EVENT.>"]}, None),
    Case("sys-account", "JS117", {"subjects": ["$SYS.ACCOUNT.>"]}, None),
    Case("star-token", "JS117", {"subjects": ["*"]}, None),
    # JS118 stream-mirror-invalid
    Case("mirror-first-seq", "JS118", {"mirror": {"name": "ORIGIN"}, "first_seq": 10}, 10143),
    Case("mirror-bad-filter", "JS118", {"mirror": {"name": "ORIGIN", "filter_subject": "a b"}}, 10049),
    Case("mirror-subjects", "JS118", {"mirror": {"name": "ORIGIN"}, "subjects": ["m.>"]}, 10034),
    Case("mirror-sources", "JS118", {"mirror": {"name": "ORIGIN"}, "sources": [{"name": "OTHER"}]}, 10031),
    Case("mirror-counter", "JS118", {"mirror": {"name": "ORIGIN"}, "allow_msg_counter": True}, 10173),
    Case("mirror-atomic", "JS118", {"mirror": {"name": "ORIGIN"}, "allow_atomic": True}, 10198),
    Case("mirror-batched", "JS118", {"mirror": {"name": "ORIGIN"}, "allow_batched": True}, 10209),
    Case("mirror-schedules", "JS118", {"mirror": {"name": "ORIGIN"}, "allow_msg_schedules": True}, 10186),
    Case("mirror-sdm", "JS118", {"mirror": {"name": "ORIGIN"}, "subject_delete_marker_ttl": "1s"}, 10052),
    Case("mirror-bad-name", "JS118", {"mirror": {"name": "OR*IGIN"}}, 10142),
    Case(
        "mirror-filter-and-transforms",
        "JS118",
        {"mirror": {"name": "ORIGIN", "filter_subject": "a.>", "subject_transforms": [{"src": "b.>", "dest": "c.>"}]}},
        10150,
    ),
    Case(
        "mirror-consumer-bad-name",
        "JS118",
        {"mirror": {"name": "ORIGIN", "consumer": {"name": "a.b", "deliver_subject": "dlv.x"}}},
        10213,
    ),
    Case(
        "mirror-consumer-wild-deliver",
        "JS118",
        {"mirror": {"name": "ORIGIN", "consumer": {"name": "c1", "deliver_subject": "dlv.*"}}},
        10213,
    ),
    Case(
        "mirror-consumer-start-seq",
        "JS118",
        {"mirror": {"name": "ORIGIN", "opt_start_seq": 5, "consumer": {"name": "c1", "deliver_subject": "dlv.x"}}},
        10213,
    ),
    Case("mirror-ok", "JS118", {"mirror": {"name": "ORIGIN", "filter_subject": "a.>"}, "max_age": "1h"}, None),
    Case(
        "mirror-external-ok",
        "JS118",
        {"mirror": {"name": "ORIGIN", "external": {"api": "$JS.hub.API", "deliver": "dlv.hub"}}},
        None,
    ),
    Case(
        "mirror-transform-bad-src",
        "JS118",
        {"mirror": {"name": "ORIGIN", "subject_transforms": [{"src": "a..b", "dest": "x"}]}},
        10151,
    ),
    Case(
        "mirror-transforms-overlap",
        "JS118",
        {
            "mirror": {
                "name": "ORIGIN",
                "subject_transforms": [{"src": "a.>", "dest": "x.>"}, {"src": "a.b", "dest": "y.b"}],
            }
        },
        10152,
    ),
    Case(
        "mirror-transforms-ok",
        "JS118",
        {
            "mirror": {
                "name": "ORIGIN",
                "subject_transforms": [{"src": "a.>", "dest": "x.>"}, {"src": "b.>", "dest": "y.>"}],
            }
        },
        None,
    ),
    # JS119 stream-republish-cycle
    Case("republish-cycle", "JS119", {"subjects": ["rp.>"], "republish": {"src": ">", "dest": "rp.copy.>"}}, 10052),
    Case("republish-cycle-default-subject", "JS119", {"republish": {"src": ">", "dest": ">"}}, 10052),
    Case("republish-ok", "JS119", {"subjects": ["rp.>"], "republish": {"src": "rp.>", "dest": "out.rp.>"}}, None),
    Case(
        "republish-implicit-ok",
        "JS119",
        {
            "subjects": ["in.>"],
            "subject_transform": {"src": "in.>", "dest": "out.>"},
            "republish": {"src": ">", "dest": ">"},
        },
        None,
    ),
    # JS120 stream-placement-preferred
    Case("placement-preferred", "JS120", _s(placement={"preferred": "n1"}), 10052),
    Case("placement-tags", "JS120", _s(placement={"tags": ["ssd"]}), None),
    # JS121 stream-sources-invalid
    Case("sources-schedules", "JS121", {"sources": [{"name": "A"}], "allow_msg_schedules": True}, 10187),
    Case("sources-bad-name", "JS121", {"sources": [{"name": "A.B"}]}, 10141),
    Case("sources-bad-filter", "JS121", {"sources": [{"name": "A", "filter_subject": "a..b"}]}, 10049),
    Case(
        "sources-duplicate",
        "JS121",
        {"sources": [{"name": "A", "filter_subject": "x.>"}, {"name": "A", "filter_subject": "x.>"}]},
        10140,
    ),
    Case(
        "sources-duplicate-unfiltered",
        "JS121",
        {"sources": [{"name": "A"}, {"name": "A", "filter_subject": ">"}]},
        10140,
    ),
    Case(
        "sources-filter-and-transforms",
        "JS121",
        {"sources": [{"name": "A", "filter_subject": "x.>", "subject_transforms": [{"src": "y.>", "dest": "z.>"}]}]},
        10144,
    ),
    Case(
        "sources-transform-bad-src",
        "JS121",
        {"sources": [{"name": "A", "subject_transforms": [{"src": "a.>.b", "dest": "z"}]}]},
        10145,
    ),
    Case(
        "sources-transforms-overlap",
        "JS121",
        {
            "sources": [
                {
                    "name": "A",
                    "subject_transforms": [{"src": "a.*", "dest": "x.{{wildcard(1)}}"}, {"src": "a.b", "dest": "y.b"}],
                }
            ]
        },
        10147,
    ),
    Case("sources-consumer-no-deliver", "JS121", {"sources": [{"name": "A", "consumer": {"name": "c1"}}]}, 10215),
    Case(
        "sources-consumer-filter",
        "JS121",
        {"sources": [{"name": "A", "filter_subject": "x.>", "consumer": {"name": "c1", "deliver_subject": "dlv.a"}}]},
        10215,
    ),
    Case(
        "sources-consumer-reused",
        "JS121",
        {
            "sources": [
                {
                    "name": "A",
                    "subject_transforms": [{"src": "x.>", "dest": "x.>"}],
                    "consumer": {"name": "c1", "deliver_subject": "dlv.a"},
                },
                {
                    "name": "A",
                    "subject_transforms": [{"src": "y.>", "dest": "y.>"}],
                    "consumer": {"name": "c1", "deliver_subject": "dlv.b"},
                },
            ]
        },
        10216,
    ),
    Case(
        "sources-ok",
        "JS121",
        {
            "sources": [
                {"name": "A", "filter_subject": "x.>"},
                {"name": "A", "filter_subject": "y.>"},
                {
                    "name": "B",
                    "subject_transforms": [{"src": "a.*", "dest": "x.{{wildcard(1)}}"}, {"src": "b.>", "dest": "y.>"}],
                },
                {"name": "C", "consumer": {"name": "c1", "deliver_subject": "dlv.c"}},
                {"name": "D", "external": {"api": "$JS.leaf.API", "deliver": "dlv.leaf"}},
            ]
        },
        None,
    ),
    # JS123 stream-subject-transform-invalid
    Case(
        "transform-bad-src",
        "JS123",
        {"subjects": ["tr.>"], "subject_transform": {"src": "tr..x", "dest": "u.>"}},
        10155,
    ),
    Case(
        "transform-index-range",
        "JS123",
        {"subjects": ["tr.*"], "subject_transform": {"src": "tr.*", "dest": "u.{{wildcard(2)}}"}},
        10156,
    ),
    Case(
        "transform-dollar-range",
        "JS123",
        {"subjects": ["tr.*.*"], "subject_transform": {"src": "tr.*.*", "dest": "u.$3"}},
        10156,
    ),
    Case(
        "transform-dest-star",
        "JS123",
        {"subjects": ["tr.*"], "subject_transform": {"src": "tr.*", "dest": "u.*"}},
        10156,
    ),
    Case(
        "transform-fwc-mismatch",
        "JS123",
        {"subjects": ["tr.>"], "subject_transform": {"src": "tr.>", "dest": "u.x"}},
        10156,
    ),
    Case(
        "transform-fwc-added",
        "JS123",
        {"subjects": ["tr.x"], "subject_transform": {"src": "tr.x", "dest": "u.>"}},
        10156,
    ),
    Case(
        "transform-unknown-fn",
        "JS123",
        {"subjects": ["tr.*"], "subject_transform": {"src": "tr.*", "dest": "u.{{upper(1)}}"}},
        10156,
    ),
    Case(
        "transform-wildcard-no-src-wc",
        "JS123",
        {"subjects": ["tr.x"], "subject_transform": {"src": "tr.x", "dest": "u.$1"}},
        10156,
    ),
    Case(
        "transform-split-no-delim",
        "JS123",
        {"subjects": ["tr.*"], "subject_transform": {"src": "tr.*", "dest": "u.{{split(1)}}"}},
        10156,
    ),
    Case(
        "transform-partition-bad-arg",
        "JS123",
        {"subjects": ["tr.*"], "subject_transform": {"src": "tr.*", "dest": "u.{{partition(x,1)}}"}},
        10156,
    ),
    Case(
        "transform-empty-token",
        "JS123",
        {"subjects": ["tr.*"], "subject_transform": {"src": "tr.*", "dest": "u..$1"}},
        10156,
    ),
    Case(
        "transform-whitespace",
        "JS123",
        {"subjects": ["tr.*"], "subject_transform": {"src": "tr.*", "dest": "u v.$1"}},
        10156,
    ),
    Case(
        "transform-empty-src-literal-dest",
        "JS123",
        {"subjects": ["tr.>"], "subject_transform": {"src": "", "dest": "u.x"}},
        10156,
    ),
    Case(
        "transform-ok-wildcard",
        "JS123",
        {"subjects": ["tr.*"], "subject_transform": {"src": "tr.*", "dest": "u.{{ Wildcard( 1 ) }}"}},
        None,
    ),
    Case(
        "transform-ok-partition",
        "JS123",
        {"subjects": ["tr.*.*"], "subject_transform": {"src": "tr.*.*", "dest": "u.{{partition(4,1,2)}}.$2"}},
        None,
    ),
    Case(
        "transform-ok-literal-partition",
        "JS123",
        {"subjects": ["tr.x"], "subject_transform": {"src": "tr.x", "dest": "u.{{partition(3)}}.{{random(5)}}"}},
        None,
    ),
    Case(
        "transform-ok-split-fns",
        "JS123",
        {
            "subjects": ["tr.*"],
            "subject_transform": {
                "src": "tr.*",
                "dest": "u.{{split(1,-)}}.{{splitFromLeft(1,2)}}.{{sliceFromRight(1,3)}}.{{left(1,2)}}",
            },
        },
        None,
    ),
    Case(
        "transform-ok-fwc",
        "JS123",
        {"subjects": ["tr.*.>"], "subject_transform": {"src": "tr.*.>", "dest": "u.$1.>"}},
        None,
    ),
    Case(
        "transform-ok-dollar-word",
        "JS123",
        {"subjects": ["tr.x"], "subject_transform": {"src": "tr.x", "dest": "u.$x"}},
        None,
    ),
    Case(
        "transform-ok-empty-dest",
        "JS123",
        {"subjects": ["tr.*"], "subject_transform": {"src": "tr.*", "dest": ""}},
        None,
    ),
    # JS124 stream-mirror-transform-invalid
    Case(
        "mirror-transform-range",
        "JS124",
        {"mirror": {"name": "ORIGIN", "subject_transforms": [{"src": "a.*", "dest": "b.$2"}]}},
        10154,
    ),
    Case(
        "mirror-transform-fwc",
        "JS124",
        {"mirror": {"name": "ORIGIN", "subject_transforms": [{"src": "a.>", "dest": "b"}]}},
        10154,
    ),
    Case(
        "mirror-transform-second",
        "JS124",
        {
            "mirror": {
                "name": "ORIGIN",
                "subject_transforms": [{"src": "a.*", "dest": "b.$1"}, {"src": "c.*", "dest": "d.{{random()}}"}],
            }
        },
        10154,
    ),
    Case(
        "mirror-transform-ok",
        "JS124",
        {"mirror": {"name": "ORIGIN", "subject_transforms": [{"src": "a.*.*", "dest": "b.$2.{{wildcard(1)}}"}]}},
        None,
    ),
    # JS125 stream-source-transform-invalid
    Case(
        "source-transform-range",
        "JS125",
        {"sources": [{"name": "A", "subject_transforms": [{"src": "a.*", "dest": "b.{{partition(2,1,2)}}"}]}]},
        10146,
    ),
    Case(
        "source-transform-star",
        "JS125",
        {"sources": [{"name": "A", "subject_transforms": [{"src": "a.*", "dest": "b.*"}]}]},
        10146,
    ),
    Case(
        "source-transform-empty-src",
        "JS125",
        {"sources": [{"name": "A", "subject_transforms": [{"src": "", "dest": "b.c"}]}]},
        10146,
    ),
    Case(
        "source-transform-ok",
        "JS125",
        {
            "sources": [
                {"name": "A", "subject_transforms": [{"src": "", "dest": "a.>"}]},
                {"name": "B", "subject_transforms": [{"src": "b.*", "dest": "x.{{splitFromRight(1,1)}}"}]},
            ]
        },
        None,
    ),
    # JS126 stream-republish-transform-invalid
    Case(
        "republish-transform-fwc",
        "JS126",
        {"subjects": ["rt.>"], "republish": {"src": "rt.>", "dest": "out.rt"}},
        10052,
    ),
    Case(
        "republish-transform-range",
        "JS126",
        {"subjects": ["rt.*"], "republish": {"src": "rt.*", "dest": "out.$2"}},
        10052,
    ),
    Case(
        "republish-transform-star",
        "JS126",
        {"subjects": ["rt.*"], "republish": {"src": "rt.*", "dest": "out.*"}},
        10052,
    ),
    Case("republish-transform-empty-src", "JS126", {"subjects": ["rt.x"], "republish": {"dest": "out.x"}}, 10052),
    Case(
        "republish-transform-ok",
        "JS126",
        {"subjects": ["rt.*"], "republish": {"src": "rt.*", "dest": "out.{{wildcard(1)}}.{{right(1,2)}}"}},
        None,
    ),
    Case(
        "republish-transform-ok-whitespace",
        "JS126",
        {"subjects": ["rt.*"], "republish": {"src": "rt.*", "dest": "out x.$1"}},
        None,
    ),
    # JS122 stream-external-prefix-invalid
    Case(
        "external-deliver-wildcard",
        "JS122",
        {"mirror": {"name": "A", "external": {"api": "$JS.leaf.API", "deliver": "dlv.*"}}},
        10024,
    ),
    Case("external-api-wildcard", "JS122", {"sources": [{"name": "A", "external": {"api": "$JS.*.API"}}]}, 10052),
    Case("external-api-local", "JS122", {"sources": [{"name": "A", "external": {"api": "$JS.API"}}]}, 10021),
    Case(
        "external-ok",
        "JS122",
        {"sources": [{"name": "A", "external": {"api": "$JS.leaf.API", "deliver": "dlv.leaf"}}]},
        None,
    ),
]


def load(case: Case):
    """The case's loaded estate (asserting it loads cleanly) and its one Stream resource."""
    from jsops.linter.load import Estate, check_estate, load_text

    estate = Estate()
    load_text(case.manifest().encode(), f"{case.id}.yaml", estate)
    check_estate(estate)
    assert estate.findings == [], estate.findings
    (res,) = estate.resources
    return estate, res


# JS317 target-stream-placement-unsatisfiable: judged against a target that describes the 3-node
# test cluster (tests/natsserver.py NatsCluster: cluster C1, servers tagged az:1, az:2, az:3) and
# checked on that cluster (tests/integration/test_rules_placement_cluster.py). Each entry:
# (id, placement, num_replicas, predicted err_code, target described).
CLUSTER_TARGET: dict[str, Any] = {
    "clustered": True,
    "cluster_name": "C1",
    "servers": [{"name": f"n{i}", "tags": [f"az:{i}"]} for i in (1, 2, 3)],
}
PLACEMENT_CASES: list[tuple[str, dict[str, Any], int, int | None, bool]] = [
    ("cluster-unknown", {"cluster": "C9"}, 1, 10005, True),
    ("cluster-case", {"cluster": "c1"}, 1, 10005, True),
    ("cluster-ok", {"cluster": "C1"}, 3, None, True),
    ("tag-one-server-r3", {"tags": ["az:1"]}, 3, 10005, True),
    ("tag-missing", {"tags": ["gpu"]}, 1, 10005, True),
    ("tags-two-none-has-both", {"tags": ["az:1", "az:2"]}, 1, 10005, True),
    ("tag-excluded-r3", {"tags": ["!az:1"]}, 3, 10005, True),
    ("tag-empty-string", {"tags": [""]}, 1, 10005, True),
    ("cluster-and-tag-r2", {"cluster": "C1", "tags": ["az:2"]}, 2, 10005, True),
    ("tag-ok", {"tags": ["az:1"]}, 1, None, True),
    ("tag-case-insensitive", {"tags": ["AZ:2"]}, 1, None, True),
    ("tag-trimmed", {"tags": [" az:3"]}, 1, None, True),
    ("tag-excluded-r2", {"tags": ["!az:1"]}, 2, None, True),
    ("cluster-and-tag-ok", {"cluster": "C1", "tags": ["az:2"]}, 1, None, True),
    ("tags-empty-list", {"tags": []}, 3, None, True),
    # the target does not describe its cluster: silent (the server would refuse these)
    ("silent-tag-missing", {"tags": ["gpu"]}, 1, None, False),
    ("silent-cluster-unknown", {"cluster": "C9"}, 1, None, False),
]


def placement_manifest(case_id: str, placement: dict[str, Any], replicas: int) -> tuple[str, str]:
    name = "P_" + case_id.replace("-", "_")
    spec = {"subjects": [name.lower() + ".>"], "num_replicas": replicas, "placement": placement}
    return name, json.dumps({"apiVersion": "jsops/v1", "kind": "Stream", "metadata": {"name": name}, "spec": spec})


# JS127 stream-pedantic-rejected: judged with the target {pedantic: true} and sent with
# "pedantic": true (tests/integration/test_rules_pedantic_server.py).
PEDANTIC_CASES: list[Case] = [
    Case("ped-max-msgs", "JS127", _s(max_msgs=-5), 10157),
    Case("ped-max-msgs-per-subject", "JS127", _s(max_msgs_per_subject=-2), 10157),
    Case("ped-max-bytes", "JS127", _s(max_bytes=-3), 10157),
    Case("ped-max-msg-size", "JS127", _s(max_msg_size=-2), 10157),
    Case("ped-max-consumers", "JS127", _s(max_consumers=-9), 10157),
    Case("ped-dup-window-omitted-short-max-age", "JS127", _s(max_age="1m"), 10157),
    Case("ped-sdm-without-ttl", "JS127", _s(subject_delete_marker_ttl="5s", allow_rollup_hdrs=True), 10052),
    Case("ped-sdm-without-rollup", "JS127", _s(subject_delete_marker_ttl="5s", allow_msg_ttl=True), 10052),
    Case("ped-schedules-without-rollup", "JS127", _s(allow_msg_schedules=True), 10052),
    Case("ped-republish-no-src", "JS127", {"subjects": ["pr.>"], "republish": {"dest": "out.pr.>"}}, 10157),
    Case(
        "ped-republish-implicit",
        "JS127",
        {
            "subjects": ["pr.x"],
            "subject_transform": {"src": "pr.x", "dest": "tr.x"},
            "republish": {"src": ">", "dest": ">"},
        },
        10157,
    ),
    Case("ped-ok-plain", "JS127", S, None),
    Case("ped-ok-minus-one", "JS127", _s(max_msgs=-1, max_bytes=-1, max_consumers=-1), None),
    Case("ped-ok-short-max-age-with-window", "JS127", _s(max_age="1m", duplicate_window="1m"), None),
    Case("ped-ok-long-max-age", "JS127", _s(max_age="1h"), None),
    Case("ped-ok-sdm", "JS127", _s(subject_delete_marker_ttl="5s", allow_msg_ttl=True, allow_rollup_hdrs=True), None),
    Case("ped-ok-schedules", "JS127", _s(allow_msg_schedules=True, allow_rollup_hdrs=True), None),
    Case("ped-ok-republish", "JS127", {"subjects": ["pr.>"], "republish": {"src": "pr.>", "dest": "out.pr.>"}}, None),
    Case("ped-ok-mirror-short-max-age", "JS127", {"mirror": {"name": "ORIGIN"}, "max_age": "1m"}, None),
]
