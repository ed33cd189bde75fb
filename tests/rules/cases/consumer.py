"""Pass and fail cases for the consumer create-time rejection rules (JS201-JS227).

Shared by the one rule case driver (tests/rules/test_cases.py) and the real-server agreement tests
(tests/integration/test_rules_consumer_server.py). A fail case holds exactly one rejected
condition and names the err_code nats-server answers for it; a pass case is a consumer the server
accepts. Every case carries its parent stream.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from jsops.linter.load import Estate, Resource, check_estate, load_text
from jsops.linter.model.target import Target
from jsops.linter.testing import RuleCase

STREAM = {"subjects": ["t.>"]}
WQ = {"subjects": ["t.>"], "retention": "workqueue"}


@dataclass(frozen=True)
class Case:
    id: str
    rule: str
    spec: dict[str, Any]
    code: int | None  # predicted err_code; None: the server accepts it and the rule is silent
    stream_spec: dict[str, Any] = field(default_factory=lambda: dict(STREAM))
    name: str = ""  # consumer name; default derived from the id
    dialect: str = "native"  # "native" (omitted ack_policy = explicit) or "api" (omitted = none)
    legacy: bool = False  # send through the legacy ephemeral API (name in the body only)
    server: bool = True  # False: needs a cluster or server limits; unit-tested only
    target: Target = field(default_factory=Target)

    @property
    def stream(self) -> str:
        return "S_" + self.id.replace("-", "_")

    @property
    def consumer(self) -> str:
        return self.name or "c_" + self.id.replace("-", "_")

    def manifest(self) -> str:
        stream = {
            "apiVersion": "jsops/v1",
            "kind": "Stream",
            "metadata": {"name": self.stream},
            "spec": self.stream_spec,
        }
        if self.dialect == "api":
            cfg = {"durable_name": self.consumer, **self.spec}
            consumer: dict[str, Any] = {"stream_name": self.stream, "config": cfg}
        else:
            consumer = {
                "apiVersion": "jsops/v1",
                "kind": "Consumer",
                "metadata": {"name": self.consumer, "stream": self.stream},
                "spec": self.spec,
            }
        return json.dumps(stream) + "\n---\n" + json.dumps(consumer) + "\n"

    def rule_case(self) -> RuleCase:
        """The case as data for the one rule case driver (tests/rules/test_cases.py)."""
        return RuleCase(self.id, self.rule, self.manifest(), self.code, target=self.target)


def load(case: Case) -> tuple[Estate, Resource, Resource]:
    estate = Estate()
    load_text(case.manifest().encode(), f"{case.id}.yaml", estate)
    check_estate(estate)
    assert estate.findings == [], estate.findings
    stream = next(estate.streams())
    consumer = next(estate.consumers())
    return estate, stream, consumer


def _push(**kw: Any) -> dict[str, Any]:
    return {"deliver_subject": "d.out", **kw}


CASES: list[Case] = [
    # JS201 consumer-name-invalid
    Case("name-dot", "JS201", {}, 10052, name="orders.shipper", legacy=True),
    Case("name-space", "JS201", {}, 10052, name="orders shipper", legacy=True),
    Case("name-tab", "JS201", {}, 10052, name="orders\tshipper", legacy=True),
    Case("name-star", "JS201", {}, 10052, name="a*"),
    Case("name-gt", "JS201", {}, 10052, name="a>"),
    Case("name-slash", "JS201", {}, 10127, name="a/b"),
    Case("name-backslash", "JS201", {}, 10127, name="a\\b"),
    Case("name-ok", "JS201", {}, None, name="ship-er_1=X"),
    # JS202 consumer-name-too-long
    Case("durable-256", "JS202", {}, 10102, name="x" * 256),
    Case("durable-multibyte", "JS202", {}, 10102, name="é" * 128),
    Case("durable-255", "JS202", {}, None, name="x" * 255),
    Case("ephemeral-256", "JS202", {"name": "y" * 256}, 10012, name="y" * 256),
    Case("ephemeral-255", "JS202", {"name": "y" * 255}, None, name="y" * 255),
    # JS203 consumer-replicas-invalid
    Case("replicas-negative", "JS203", {"num_replicas": -1}, 10133),
    Case("replicas-standalone-2", "JS203", {"num_replicas": 2}, 10074, target=Target(clustered=False)),
    # the target says nothing about clustering: only the sign is decidable
    Case("replicas-2-target-silent", "JS203", {"num_replicas": 2}, None, server=False),
    Case("replicas-3-on-r1-target-silent", "JS203", {"num_replicas": 3}, None, server=False),
    Case(
        "replicas-1-on-r3-interest-target-silent",
        "JS203",
        {"num_replicas": 1},
        None,
        stream_spec={**STREAM, "retention": "interest", "num_replicas": 3},
        server=False,
    ),
    Case(
        "replicas-cluster-size-exceeds",
        "JS203",
        {"num_replicas": 3},
        10126,
        server=False,
        target=Target(cluster_size=3),
    ),
    Case("replicas-1", "JS203", {"num_replicas": 1}, None),
    Case("replicas-0", "JS203", {"num_replicas": 0}, None),
    Case("replicas-wq-1", "JS203", {"num_replicas": 1}, None, stream_spec=WQ),
    Case("replicas-cluster-exceeds", "JS203", {"num_replicas": 3}, 10126, server=False, target=Target(clustered=True)),
    Case(
        "replicas-cluster-interest",
        "JS203",
        {"num_replicas": 1},
        10134,
        stream_spec={**STREAM, "retention": "interest", "num_replicas": 3},
        server=False,
        target=Target(clustered=True),
    ),
    Case(
        "replicas-cluster-ok",
        "JS203",
        {"num_replicas": 1},
        None,
        stream_spec={**STREAM, "num_replicas": 3},
        server=False,
    ),
    # JS204 consumer-ack-wait-negative
    Case("ack-wait-negative", "JS204", {"ack_wait": "-30s"}, 10183),
    Case("backoff-negative", "JS204", {"backoff": ["-1s"]}, 10184),
    Case("backoff-second-negative", "JS204", {"backoff": ["1s", "-2s"], "max_deliver": 3}, 10184),
    Case("ack-wait-overridden-by-backoff", "JS204", {"ack_wait": "-1s", "backoff": ["1s"]}, None),
    Case("ack-wait-ok", "JS204", {"ack_wait": "30s"}, None),
    # JS205 consumer-flow-control-ack-policy-invalid
    Case("fc-ack-pull", "JS205", {"ack_policy": "flow_control"}, 10218),
    Case("fc-ack-no-pending", "JS205", _push(ack_policy="flow_control", max_ack_pending=-1), 10220),
    Case("fc-ack-ack-wait", "JS205", _push(ack_policy="flow_control", ack_wait="30s"), 10221),
    Case("fc-ack-backoff", "JS205", _push(ack_policy="flow_control", backoff=["1s"]), 10221),
    Case("fc-ack-max-deliver", "JS205", _push(ack_policy="flow_control", max_deliver=5), 10222),
    Case("fc-ack-ok", "JS205", _push(ack_policy="flow_control"), None),
    Case("fc-ack-ok-small-hb", "JS205", _push(ack_policy="flow_control", idle_heartbeat="50ms"), None),
    # JS206 consumer-backoff-exceeds-max-deliver
    Case("backoff-gt-max-deliver", "JS206", {"max_deliver": 2, "backoff": ["1s", "2s", "3s"]}, 10116),
    Case("backoff-eq-max-deliver", "JS206", {"max_deliver": 3, "backoff": ["1s", "2s", "3s"]}, None),
    Case("backoff-unlimited", "JS206", {"max_deliver": -1, "backoff": ["1s", "2s", "3s"]}, None),
    Case("backoff-no-max-deliver", "JS206", {"backoff": ["1s", "2s", "3s"]}, None),
    # JS207 consumer-description-too-long
    Case("desc-4097", "JS207", {"description": "d" * 4097}, 10107),
    Case("desc-multibyte", "JS207", {"description": "é" * 2049}, 10107),
    Case("desc-4096", "JS207", {"description": "d" * 4096}, None),
    # JS208 consumer-deliver-subject-invalid
    Case("deliver-star", "JS208", {"deliver_subject": "d.*"}, 10079),
    Case("deliver-gt", "JS208", {"deliver_subject": "d.>"}, 10079),
    Case("deliver-empty-token", "JS208", {"deliver_subject": "d..x"}, 10112),
    Case("deliver-space", "JS208", {"deliver_subject": "d.a b"}, 10112),
    Case("deliver-cycle", "JS208", {"deliver_subject": "t.audit"}, 10081),
    Case("deliver-cycle-star", "JS208", {"deliver_subject": "x.y"}, 10081, stream_spec={"subjects": ["x.*"]}),
    Case("deliver-stream-prefix", "JS208", {"deliver_subject": "t"}, None),
    Case("deliver-star-in-token", "JS208", {"deliver_subject": "d.*x"}, None),
    Case("deliver-ok", "JS208", {"deliver_subject": "d.audit"}, None),
    # JS229 consumer-direct-invalid
    Case("direct-pull", "JS229", {"direct": True}, 10090),
    Case("direct-push-durable", "JS229", _push(direct=True), 10091),
    Case("direct-false", "JS229", {"direct": False}, None),
    # JS209 consumer-push-max-waiting
    Case("push-max-waiting", "JS209", _push(max_waiting=10), 10080),
    Case("push-max-waiting-negative", "JS209", _push(max_waiting=-1), None),
    Case("pull-max-waiting", "JS209", {"max_waiting": 10}, None),
    # JS210 consumer-push-max-ack-pending-without-ack
    Case("push-none-pending", "JS210", _push(ack_policy="none", max_ack_pending=10), 10082),
    Case(
        "push-none-inherited",
        "JS210",
        _push(ack_policy="none"),
        10082,
        stream_spec={**STREAM, "consumer_limits": {"max_ack_pending": 50}},
    ),
    Case(
        "push-api-default-none-inherited",
        "JS210",
        _push(),
        10082,
        stream_spec={**STREAM, "consumer_limits": {"max_ack_pending": 50}},
        dialect="api",
    ),
    Case("push-none-ok", "JS210", _push(ack_policy="none"), None),
    Case(
        "push-explicit-inherited",
        "JS210",
        _push(),
        None,
        stream_spec={**STREAM, "consumer_limits": {"max_ack_pending": 50}},
    ),
    Case("pull-none-pending", "JS210", {"ack_policy": "none", "max_ack_pending": 10}, None),
    # JS211 consumer-heartbeat-too-small
    Case("push-hb-50ms", "JS211", _push(idle_heartbeat="50ms"), 10083),
    Case("push-hb-100ms", "JS211", _push(idle_heartbeat="100ms"), None),
    # JS212 consumer-workqueue-requires-explicit-ack
    Case("wq-pull-none", "JS212", {"ack_policy": "none"}, 10084, stream_spec=WQ),
    Case("wq-pull-api-default", "JS212", {}, 10084, stream_spec=WQ, dialect="api"),
    Case("wq-push-none", "JS212", _push(ack_policy="none"), 10098, stream_spec=WQ),
    Case("wq-pull-all", "JS212", {"ack_policy": "all"}, 10098, stream_spec=WQ),
    Case("wq-pull-explicit", "JS212", {"ack_policy": "explicit"}, None, stream_spec=WQ),
    Case("wq-push-explicit", "JS212", _push(), None, stream_spec=WQ),
    Case("limits-pull-none", "JS212", {"ack_policy": "none"}, None),
    # JS213 consumer-pull-push-only-option
    Case("pull-rate-limit", "JS213", {"rate_limit_bps": 1000}, 10086),
    Case("pull-heartbeat", "JS213", {"idle_heartbeat": "5s"}, 10088),
    Case("pull-flow-control", "JS213", {"flow_control": True}, 10089),
    Case("push-rate-limit", "JS213", _push(rate_limit_bps=1000), None),
    # JS214 consumer-max-expires-too-small
    Case("pull-expires-500ns", "JS214", {"max_expires": 500}, 10115),
    Case("pull-expires-1ms", "JS214", {"max_expires": "1ms"}, None),
    Case("push-expires-500ns", "JS214", _push(max_expires=500), None),
    # JS215 consumer-filter-subject-and-subjects
    Case("filter-both", "JS215", {"filter_subject": "t.a", "filter_subjects": ["t.b"]}, 10136),
    Case("filter-many", "JS215", {"filter_subjects": ["t.a", "t.b"]}, None),
    # JS216 consumer-filter-subject-invalid
    Case("filter-empty-token", "JS216", {"filter_subject": "t..a"}, 10052),
    Case("filter-gt-not-last", "JS216", {"filter_subjects": ["t.>.a"]}, 10052),
    Case("filter-empty-entry", "JS216", {"filter_subjects": ["t.a", ""]}, 10139),
    Case("filter-wildcard-ok", "JS216", {"filter_subject": "t.*"}, None),
    Case("filter-outside-stream-ok", "JS216", {"filter_subject": "other.a"}, None),
    # JS217 consumer-filter-subjects-overlap
    Case("filters-contained", "JS217", {"filter_subjects": ["t.>", "t.a"]}, 10138),
    Case("filters-duplicate", "JS217", {"filter_subjects": ["t.a", "t.a"]}, 10138),
    Case("filters-disjoint", "JS217", {"filter_subjects": ["t.a", "t.b"]}, None),
    Case("filters-collide-not-subset", "JS217", {"filter_subjects": ["t.*.a", "t.b.*"]}, None),
    # JS218 consumer-deliver-policy-start-conflict
    Case("dp-all-seq", "JS218", {"opt_start_seq": 10}, 10094),
    Case("dp-new-time", "JS218", {"deliver_policy": "new", "opt_start_time": "2024-01-01T00:00:00Z"}, 10094),
    Case("dp-last-seq", "JS218", {"deliver_policy": "last", "opt_start_seq": 10}, 10094),
    Case("dp-lps-no-filter", "JS218", {"deliver_policy": "last_per_subject"}, 10094),
    Case("dp-lps-filter", "JS218", {"deliver_policy": "last_per_subject", "filter_subject": "t.a"}, None),
    Case("dp-seq-missing", "JS218", {"deliver_policy": "by_start_sequence"}, 10094),
    Case(
        "dp-seq-and-time",
        "JS218",
        {"deliver_policy": "by_start_sequence", "opt_start_seq": 5, "opt_start_time": "2024-01-01T00:00:00Z"},
        10094,
    ),
    Case("dp-seq-ok", "JS218", {"deliver_policy": "by_start_sequence", "opt_start_seq": 5}, None),
    Case("dp-time-missing", "JS218", {"deliver_policy": "by_start_time"}, 10094),
    Case(
        "dp-time-and-seq",
        "JS218",
        {"deliver_policy": "by_start_time", "opt_start_seq": 5, "opt_start_time": "2024-01-01T00:00:00Z"},
        10094,
    ),
    Case("dp-time-ok", "JS218", {"deliver_policy": "by_start_time", "opt_start_time": "2024-01-01T00:00:00Z"}, None),
    # JS219 consumer-sample-freq-invalid
    Case("sample-fraction", "JS219", {"sample_freq": "12.5%"}, 10095),
    Case("sample-negative", "JS219", {"sample_freq": "-1"}, 10095),
    Case("sample-word", "JS219", {"sample_freq": "abc"}, 10095),
    Case("sample-percent-only", "JS219", {"sample_freq": "%"}, 10095),
    Case("sample-double-percent", "JS219", {"sample_freq": "10%%"}, 10095),
    Case("sample-150", "JS219", {"sample_freq": "150%"}, None),
    Case("sample-plain", "JS219", {"sample_freq": "10"}, None),
    Case("sample-plus", "JS219", {"sample_freq": "+5%"}, None),
    Case("sample-int", "JS219", {"sample_freq": 20}, None),
    # JS220 consumer-flow-control-without-heartbeat
    Case("push-fc-no-hb", "JS220", _push(flow_control=True), 10108),
    Case("push-fc-hb", "JS220", _push(flow_control=True, idle_heartbeat="5s"), None),
    # JS221 consumer-metadata-too-large
    Case("meta-131057", "JS221", {"metadata": {"k": "v" * 131056}}, 10135),
    Case("meta-131056", "JS221", {"metadata": {"k": "v" * 131055}}, None),
    # 2.10 measures the manifest's metadata alone (no _nats.req.level entry yet): 131072 is its last byte
    Case("meta-131072", "JS221", {"metadata": {"k": "v" * 131071}}, 10135),
    Case("meta-131073", "JS221", {"metadata": {"k": "v" * 131072}}, 10135),
    # JS222 consumer-priority-policy-on-push
    Case("prio-push", "JS222", _push(priority_policy="overflow", priority_groups=["jobs"]), 10178),
    Case("prio-pull", "JS222", {"priority_policy": "overflow", "priority_groups": ["jobs"]}, None),
    # JS223 consumer-priority-groups-invalid
    Case("prio-no-groups", "JS223", {"priority_policy": "pinned_client"}, 10159),
    Case("prio-empty-group", "JS223", {"priority_policy": "overflow", "priority_groups": [""]}, 10161),
    Case("prio-group-dot", "JS223", {"priority_policy": "overflow", "priority_groups": ["a.b"]}, 10162),
    Case("prio-group-17", "JS223", {"priority_policy": "overflow", "priority_groups": ["g" * 17]}, 10162),
    Case("prio-group-paren", "JS223", {"priority_policy": "overflow", "priority_groups": ["a)"]}, 10162),
    Case(
        "prio-group-16", "JS223", {"priority_policy": "prioritized", "priority_groups": ["g" * 16, "a/b=c_d-e"]}, None
    ),
    # JS224 consumer-priority-settings-without-policy
    Case("prio-groups-no-policy", "JS224", {"priority_groups": ["jobs"]}, 10196),
    Case("prio-groups-policy-none", "JS224", {"priority_policy": "none", "priority_groups": ["jobs"]}, 10196),
    Case("prio-timeout-no-policy", "JS224", {"priority_timeout": "1m"}, 10197),
    Case(
        "prio-timeout-overflow",
        "JS224",
        {"priority_policy": "overflow", "priority_groups": ["jobs"], "priority_timeout": "1m"},
        None,
    ),
    # JS225 consumer-exceeds-consumer-limits
    Case(
        "limit-pending",
        "JS225",
        {"max_ack_pending": 100},
        10121,
        stream_spec={**STREAM, "consumer_limits": {"max_ack_pending": 50}},
    ),
    Case(
        "limit-pending-eq",
        "JS225",
        {"max_ack_pending": 50},
        None,
        stream_spec={**STREAM, "consumer_limits": {"max_ack_pending": 50}},
    ),
    Case(
        "limit-pending-inherited", "JS225", {}, None, stream_spec={**STREAM, "consumer_limits": {"max_ack_pending": 50}}
    ),
    Case(
        "limit-inactive",
        "JS225",
        {"inactive_threshold": "20s"},
        10153,
        stream_spec={**STREAM, "consumer_limits": {"inactive_threshold": "10s"}},
    ),
    Case(
        "limit-inactive-eq",
        "JS225",
        {"inactive_threshold": "10s"},
        None,
        stream_spec={**STREAM, "consumer_limits": {"inactive_threshold": "10s"}},
    ),
    Case(
        "limit-server-pending",
        "JS225",
        {"max_ack_pending": 200},
        10121,
        server=False,
        target=Target.model_validate({"limits": {"max_ack_pending": 100}}),
    ),
    Case(
        "limit-account-pending",
        "JS225",
        {"max_ack_pending": 30},
        10121,
        server=False,
        target=Target.model_validate({"account": {"max_ack_pending": 20}}),
    ),
    # JS226 consumer-workqueue-requires-deliver-all
    Case("wq-deliver-new", "JS226", {"deliver_policy": "new"}, 10101, stream_spec=WQ),
    Case("wq-deliver-last", "JS226", {"deliver_policy": "last"}, 10101, stream_spec=WQ),
    Case("wq-deliver-seq", "JS226", {"deliver_policy": "by_start_sequence", "opt_start_seq": 1}, 10101, stream_spec=WQ),
    Case("wq-deliver-all", "JS226", {"deliver_policy": "all"}, None, stream_spec=WQ),
    Case("limits-deliver-new", "JS226", {"deliver_policy": "new"}, None),
]

# JS227 consumer-pedantic-rejected: judged with a pedantic target and sent with "pedantic": true
# (tests/integration/test_rules_pedantic_server.py), so not part of the plain server run.
PEDANTIC = Target(pedantic=True)
_LIMITED = {**STREAM, "consumer_limits": {"max_ack_pending": 50, "inactive_threshold": "1h"}}
_FC = {"deliver_subject": "d.out", "ack_policy": "flow_control", "max_ack_pending": 10}


def _ped(id: str, spec: dict[str, Any], code: int | None, **kw: Any) -> Case:
    return Case(id, "JS227", spec, code, server=False, target=PEDANTIC, **kw)


CASES += [
    _ped("ped-max-deliver", {"max_deliver": -5}, 10157),
    _ped("ped-max-waiting", {"max_waiting": -1}, 10157),
    _ped("ped-max-ack-pending", {"max_ack_pending": -2}, 10157),
    _ped("ped-max-batch", {"max_batch": -1}, 10157),
    _ped("ped-max-expires", {"max_expires": "-1s"}, 10157),
    _ped("ped-max-bytes", {"max_bytes": -1}, 10157),
    _ped("ped-heartbeat", _push(idle_heartbeat="-1s"), 10157),
    _ped("ped-inactive", {"inactive_threshold": "-1s"}, 10157),
    _ped(
        "ped-priority-timeout",
        {"priority_policy": "overflow", "priority_groups": ["g"], "priority_timeout": "-1s"},
        10157,
    ),
    _ped("ped-backoff-default-ack-wait", {"max_deliver": 3, "backoff": ["1s", "10s"]}, 10157),
    _ped("ped-backoff-ack-wait-differs", {"max_deliver": 3, "ack_wait": "5s", "backoff": ["1s", "10s"]}, 10157),
    _ped("ped-stream-limit-max-ack-pending", {"inactive_threshold": "1m"}, 10157, stream_spec=_LIMITED),
    _ped("ped-stream-limit-inactive", {"max_ack_pending": 20}, 10157, stream_spec=_LIMITED),
    _ped("ped-fc-without-flow-control", {**_FC, "idle_heartbeat": "1s"}, 10219),
    _ped("ped-fc-heartbeat", {**_FC, "flow_control": True}, 10052),
    _ped("ped-ok-plain", {}, None),
    _ped("ped-ok-limits-written", {"max_ack_pending": 20, "inactive_threshold": "1m"}, None, stream_spec=_LIMITED),
    _ped("ped-ok-backoff", {"max_deliver": 3, "ack_wait": "1s", "backoff": ["1s", "10s"]}, None),
    _ped("ped-ok-flow-control", {**_FC, "flow_control": True, "idle_heartbeat": "1s"}, None),
    _ped("ped-ok-minus-one", {"max_deliver": -1, "max_ack_pending": -1, "max_waiting": 0}, None),
    # the same config without a pedantic target: the server adjusts it, jsops stays silent here
    Case("ped-silent-without-target", "JS227", {"max_deliver": -5}, None),
]
