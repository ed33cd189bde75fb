"""The differential suite's seeded estate generator (tests/integration/test_differential.py).

Valid estates (streams with mirrors and sources, workqueue streams with partitioned consumers,
push and pull consumers) and estates that carry exactly one mutation: rule cases, estate-level
mutations, random fields, subject transforms, the features the supported releases disagree on,
and (for the pedantic run) pedantic cases and fields.
"""

from __future__ import annotations

import copy
import json
import random
from dataclasses import dataclass
from typing import Any

from tests.rules.cases import consumer as consumer_rule_cases
from tests.rules.cases import stream as stream_rule_cases
from tests.rules.test_estate import CASES as ESTATE_CASES
from tests.rules.test_estate import C, S

SEED = 20261121
VALID = 100
MUTATED = 400
PEDANTIC_SEED = 20261122
PEDANTIC_VALID = 50
PEDANTIC_MUTATED = 150


@dataclass
class Generated:
    id: str
    text: str
    mutated: bool


def _dump(docs: list[dict[str, Any]]) -> str:
    return "\n---\n".join(json.dumps(d) for d in docs) + "\n"


# ------------------------------------------------------------------------------------------
# valid estates


def _stream_spec(rng: random.Random, i: int) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    spec["subjects"] = [f"s{i}.>"] if rng.random() < 0.6 else [f"s{i}.a", f"s{i}.b.*"]
    spec["retention"] = rng.choice(["limits", "limits", "interest", "workqueue"])
    if rng.random() < 0.3:
        spec["storage"] = "memory"
    if rng.random() < 0.4:
        spec["max_age"] = rng.choice(["1h", "24h", "90s", "7d"])
        if rng.random() < 0.5:
            spec["duplicate_window"] = rng.choice(["1s", "30s", "90s"])
    elif rng.random() < 0.3:
        spec["duplicate_window"] = rng.choice(["10s", "5m"])
    if rng.random() < 0.3:
        spec["max_msg_size"] = rng.choice([1024, 4096, "64KiB"])
    if rng.random() < 0.3:
        spec["max_bytes"] = rng.choice(["1MiB", "16MiB"])
    if rng.random() < 0.2:
        spec["max_msgs"] = rng.choice([100, 10_000])
    if rng.random() < 0.3:
        spec["allow_direct"] = True
    if rng.random() < 0.2:
        spec["discard"] = "new"
        if rng.random() < 0.5:
            spec["discard_new_per_subject"] = True
            spec["max_msgs_per_subject"] = 5
    if rng.random() < 0.2:
        spec["description"] = f"stream {i}"
    if rng.random() < 0.2:
        spec["metadata"] = {"owner": f"team-{i}"}
    if rng.random() < 0.15:
        spec["compression"] = "s2"
    if rng.random() < 0.15:
        spec["deny_delete"] = True
    if rng.random() < 0.15 and spec["retention"] == "limits":
        spec["allow_rollup_hdrs"] = True
    if rng.random() < 0.1:
        spec["allow_msg_ttl"] = True
        if rng.random() < 0.5:
            spec["subject_delete_marker_ttl"] = "5s"
            spec["allow_rollup_hdrs"] = True
    if rng.random() < 0.1:
        spec["consumer_limits"] = {"max_ack_pending": 500, "inactive_threshold": "1h"}
    if rng.random() < 0.1:
        spec["max_consumers"] = 10
    if rng.random() < 0.1:
        spec["placement"] = {"tags": ["ssd"]}
    return spec


def _consumer_spec(rng: random.Random, i: int, j: int, stream: dict[str, Any]) -> dict[str, Any]:
    wq = stream.get("retention") == "workqueue"
    base = f"s{i}.b" if stream.get("subjects") != [f"s{i}.>"] else f"s{i}"
    spec: dict[str, Any] = {}
    push = not wq and rng.random() < 0.3
    if push:
        spec["deliver_subject"] = f"dl.{i}.{j}"
        if rng.random() < 0.3:
            spec["idle_heartbeat"] = "5s"
            if rng.random() < 0.5:
                spec["flow_control"] = True
        if rng.random() < 0.2:
            spec["deliver_group"] = f"g{j}"
    if wq:
        spec["filter_subject"] = f"{base}.c{j}"
    elif rng.random() < 0.4:
        if rng.random() < 0.5:
            spec["filter_subject"] = f"{base}.c{j}"
        else:
            spec["filter_subjects"] = [f"{base}.c{j}", f"{base}.d{j}"]
    if not wq:
        ack = rng.choice(["explicit", "explicit", "all", "none"])
        if ack == "none" and push and stream.get("consumer_limits"):
            ack = "explicit"
        spec["ack_policy"] = ack
        if rng.random() < 0.3:
            spec["deliver_policy"] = rng.choice(["new", "last", "all"])
        if rng.random() < 0.1 and spec.get("filter_subject"):
            spec["deliver_policy"] = "last_per_subject"
        if rng.random() < 0.1:
            spec["deliver_policy"] = "by_start_sequence"
            spec["opt_start_seq"] = 10
    if spec.get("ack_policy", "explicit") != "none":
        if rng.random() < 0.4:
            spec["ack_wait"] = rng.choice(["10s", "1m"])
        if rng.random() < 0.3:
            spec["max_deliver"] = 5
            if rng.random() < 0.6:
                spec["backoff"] = ["1s", "5s", "30s"]
                spec["ack_wait"] = "1s"
        if rng.random() < 0.3:
            spec["max_ack_pending"] = rng.choice([10, 100])
    if not push and rng.random() < 0.3:
        spec["max_batch"] = 10
        spec["max_expires"] = "30s"
        if rng.random() < 0.5:
            spec["max_waiting"] = 64
    if rng.random() < 0.2:
        spec["description"] = f"consumer {j}"
    if rng.random() < 0.1:
        spec["inactive_threshold"] = "10m"
    if rng.random() < 0.1 and not push:
        spec["priority_policy"] = "pinned_client"
        spec["priority_groups"] = ["jobs"]
    if rng.random() < 0.1:
        spec["replay_policy"] = "original"
    if rng.random() < 0.1:
        spec["sample_freq"] = "50%"
    return spec


def _valid(rng: random.Random) -> list[dict[str, Any]]:
    docs: list[dict[str, Any]] = []
    normal: list[tuple[str, dict[str, Any]]] = []
    consumers: list[dict[str, Any]] = []
    for i in range(rng.randint(1, 4)):
        name = f"S{i}"
        roll = rng.random()
        if normal and roll < 0.15:
            origin, ospec = rng.choice(normal)
            spec: dict[str, Any] = {"mirror": {"name": origin}}
            if rng.random() < 0.5:
                spec["mirror_direct"] = bool(ospec.get("allow_direct"))
            if rng.random() < 0.3:
                spec["max_msg_size"] = "1MiB"
            docs.append(S(name, **spec))
            continue
        if normal and roll < 0.35:
            origin, ospec = rng.choice(normal)
            src: dict[str, Any] = {"name": origin}
            if rng.random() < 0.5:
                src["filter_subject"] = ospec["subjects"][0]
            spec = {"sources": [src]}
            if rng.random() < 0.5:
                spec["subjects"] = [f"s{i}.>"]
            docs.append(S(name, **spec))
            continue
        spec = _stream_spec(rng, i)
        docs.append(S(name, **spec))
        normal.append((name, spec))
        for j in range(rng.randint(0, 3)):
            consumers.append(C(f"c{i}_{j}", name, **_consumer_spec(rng, i, j, spec)))
    return docs + consumers


# ------------------------------------------------------------------------------------------
# mutations: each returns (label, docs) with exactly one rejected condition (or a random change)


def _streams(docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [d for d in docs if d["kind"] == "Stream"]


def _insert_stream(docs: list[dict[str, Any]], doc: dict[str, Any]) -> list[dict[str, Any]]:
    k = max((n + 1 for n, d in enumerate(docs) if d["kind"] == "Stream"), default=0)
    return docs[:k] + [doc] + docs[k:]


STREAM_CASES = [c for c in stream_rule_cases.CASES if c.code is not None and not c.unroutable]
CONSUMER_CASES = [
    c
    for c in consumer_rule_cases.CASES
    if c.code is not None and c.server and not c.legacy and c.target == consumer_rule_cases.Target()
]
ESTATE_REJECTED = [c for c in ESTATE_CASES if c.server == "plain" and c.rejected]


def m_stream_case(rng: random.Random, docs: list[dict[str, Any]]) -> tuple[str, str]:
    case = rng.choice(STREAM_CASES)
    return f"stream-case-{case.id}", _dump(_insert_stream(docs, json.loads(case.manifest())))


def m_consumer_case(rng: random.Random, docs: list[dict[str, Any]]) -> tuple[str, str]:
    case = rng.choice(CONSUMER_CASES)
    stream_doc, consumer_text = case.manifest().split("\n---\n", 1)
    return f"consumer-case-{case.id}", _dump(_insert_stream(docs, json.loads(stream_doc))) + "---\n" + consumer_text


def m_estate_case(rng: random.Random, docs: list[dict[str, Any]]) -> tuple[str, str]:
    """An estate case whose names and subjects are moved out of the base estate's way."""
    case = rng.choice(ESTATE_REJECTED)
    moved = json.loads(
        json.dumps(case.docs)
        .replace('"A"', '"XA"')
        .replace('"B"', '"XB"')
        .replace('"C"', '"XC"')
        .replace('"X"', '"XX"')
        .replace('"M"', '"XM"')
        .replace('"W"', '"XW"')
    )
    extra_streams = [d for d in moved if d["kind"] == "Stream"]
    extra_consumers = [d for d in moved if d["kind"] == "Consumer"]
    out = list(docs)
    for d in extra_streams:
        out = _insert_stream(out, d)
    return f"estate-case-{case.id}", _dump(out + extra_consumers)


def m_overlap(rng: random.Random, docs: list[dict[str, Any]]) -> tuple[str, str] | None:
    owners = [d for d in _streams(docs) if d["spec"].get("subjects")]
    if not owners:
        return None
    owner = rng.choice(owners)
    subject = rng.choice(owner["spec"]["subjects"])
    mine = subject.replace(">", "x.y").replace("*", "z") if rng.random() < 0.5 else subject.split(".")[0] + ".*.*"
    return "overlap", _dump(_insert_stream(docs, S("OVER", subjects=[mine])))


def m_workqueue(rng: random.Random, docs: list[dict[str, Any]]) -> tuple[str, str]:
    first = rng.choice(
        [{}, {"filter_subject": "wqx.a"}, {"filter_subject": "wqx.*"}, {"filter_subjects": ["wqx.b", "wqx.c.>"]}]
    )
    second = rng.choice(
        [{}, {"filter_subject": "wqx.a"}, {"filter_subject": "wqx.>"}, {"filter_subjects": ["wqx.d", "wqx.c.e"]}]
    )
    extra = [C("wq_first", "WQX", **first), C("wq_second", "WQX", **second)]
    return "workqueue", _dump(_insert_stream(docs, S("WQX", subjects=["wqx.>"], retention="workqueue")) + extra)


def m_cycle(rng: random.Random, docs: list[dict[str, Any]]) -> tuple[str, str] | None:
    streams = [d for d in _streams(docs) if d["spec"].get("subjects")]
    if not streams:
        return None
    docs = copy.deepcopy(docs)
    wanted = rng.choice(streams)["metadata"]["name"]
    head = next(d for d in docs if d["kind"] == "Stream" and d["metadata"]["name"] == wanted)
    filt = rng.choice(["", head["spec"]["subjects"][0], "zz.>"])
    src: dict[str, Any] = {"name": "ZCYC"}
    head["spec"].setdefault("sources", []).append(src)
    back: dict[str, Any] = {"name": head["metadata"]["name"]}
    if filt:
        back["filter_subject"] = filt
    closing = S("ZCYC", sources=[back]) if rng.random() < 0.5 else S("ZCYC", subjects=["zcyc.>"], sources=[back])
    if rng.random() < 0.3:
        closing = S("ZCYC", mirror={"name": head["metadata"]["name"]})
    return f"cycle-{filt or 'all'}", _dump(_insert_stream(docs, closing))


def m_msg_size(rng: random.Random, docs: list[dict[str, Any]]) -> tuple[str, str] | None:
    origin = S("BIG", subjects=["big.>"], max_msg_size=rng.choice([2048, 8192]))
    copy_ = (
        S("SMALL", mirror={"name": "BIG"}, max_msg_size=rng.choice([1024, 8192]))
        if rng.random() < 0.5
        else S("SMALL", subjects=["small.>"], sources=[{"name": "BIG"}], max_msg_size=rng.choice([1024, 4096, 16384]))
    )
    return "msg-size", _dump(_insert_stream(_insert_stream(docs, origin), copy_))


def m_max_consumers(rng: random.Random, docs: list[dict[str, Any]]) -> tuple[str, str]:
    n = rng.randint(1, 3)
    extra = [
        C(f"mc{k}", "MAXC", **({"deliver_subject": f"dlm.{k}"} if k % 2 else {})) for k in range(rng.randint(1, 4))
    ]
    return f"max-consumers-{n}", _dump(_insert_stream(docs, S("MAXC", subjects=["maxc.>"], max_consumers=n)) + extra)


def m_replicas(rng: random.Random, docs: list[dict[str, Any]]) -> tuple[str, str] | None:
    docs = copy.deepcopy(docs)
    pick = rng.choice(docs)
    pick["spec"]["num_replicas"] = rng.choice([2, 3, 5])
    return f"replicas-{pick['kind'].lower()}", _dump(docs)


STREAM_FIELDS: list[tuple[str, list[Any]]] = [
    ("max_age", ["-1s", "50ms", "100ms", "1h", "1s"]),
    ("duplicate_window", ["-1s", "10ms", "1s", "5m", "48h"]),
    ("num_replicas", [-1, 0, 1, 6]),
    ("max_msgs_per_subject", [-5, 0, 10]),
    ("max_msg_size", [-3, 0, 100]),
    ("discard", ["new"]),
    ("discard_new_per_subject", [True]),
    ("deny_purge", [True]),
    ("allow_rollup_hdrs", [True]),
    ("allow_msg_counter", [True]),
    ("allow_msg_ttl", [True]),
    ("subject_delete_marker_ttl", ["500ms", "2s", "-1s"]),
    ("allow_msg_schedules", [True]),
    ("persist_mode", ["async", "default"]),
    ("allow_atomic", [True]),
    ("allow_batched", [True]),
    ("sealed", [True]),
    ("mirror_direct", [True]),
    ("no_ack", [True]),
    (
        "placement",
        [{"preferred": "n1"}, {"cluster": "east"}, {}, {"tags": ["gpu"]}, {"cluster": "C1", "tags": ["az:1"]}],
    ),
    ("description", ["d" * 4097, "ok"]),
    ("first_seq", [5]),
    ("subjects", [["a..b"], ["q.>", "q.a"], [">"], ["$JS.API.>"], ["$JS.EVENT.>"], []]),
    (
        "republish",
        [
            {"src": ">", "dest": "rp.>"},
            {"src": "s0.>", "dest": "out.>"},
            {"src": "s0.>", "dest": "out"},
            {"dest": "out.>"},
            {"src": "s0.*", "dest": "out.$2"},
            {"src": ">", "dest": ">"},
        ],
    ),
    (
        "subject_transform",
        [
            {"src": "s9.>", "dest": "u.>"},
            {"src": "s9.*", "dest": "u.{{wildcard(2)}}"},
            {"src": "s9.*", "dest": "u.*"},
            {"src": "", "dest": "u.>"},
            {"src": "s9.*.*", "dest": "u.{{partition(5,1,2)}}.$2"},
            {"src": "s9..x", "dest": "u"},
        ],
    ),
    ("consumer_limits", [{"max_ack_pending": 5}, {"inactive_threshold": "1s"}]),
    ("retention", ["interest", "workqueue", "limits"]),
    ("storage", ["memory"]),
    ("max_consumers", [1, -1]),
    ("metadata", [{"k": "v" * 131056}]),
]
CONSUMER_FIELDS: list[tuple[str, list[Any]]] = [
    ("ack_wait", ["-1s", "1s"]),
    ("backoff", [["1s", "-1s"], ["1s", "2s", "3s", "4s", "5s", "6s"]]),
    ("max_deliver", [1, 2, -1, 0]),
    ("deliver_policy", ["new", "last", "by_start_sequence", "by_start_time", "last_per_subject"]),
    ("opt_start_seq", [5]),
    ("opt_start_time", ["2024-01-01T00:00:00Z"]),
    ("ack_policy", ["none", "all", "explicit", "flow_control"]),
    ("rate_limit_bps", [1000]),
    ("max_waiting", [10, -1]),
    ("idle_heartbeat", ["50ms", "1s"]),
    ("flow_control", [True]),
    ("max_expires", ["100us", "1s"]),
    ("max_batch", [-1, 5]),
    ("sample_freq", ["50%", "x", "-1", "150%"]),
    ("filter_subject", ["a..b", "zz.>", ""]),
    ("filter_subjects", [["q.a", "q.>"], ["q.a", ""], ["q.a", "q.b"]]),
    ("deliver_subject", ["dd.*", "dd.x", "s0.x"]),
    ("priority_policy", ["overflow", "pinned_client", "prioritized", "none"]),
    ("priority_groups", [["g"], ["bad.name"], ["x" * 17]]),
    ("priority_timeout", ["1s"]),
    ("description", ["d" * 4097]),
    ("headers_only", [True]),
    ("max_ack_pending", [-1, 0, 5, 1000]),
    ("num_replicas", [-1, 1, 3]),
    ("replay_policy", ["original"]),
    ("inactive_threshold", ["1s", "2h"]),
    ("mem_storage", [True]),
    ("metadata", [{"k": "v" * 131056}]),
    ("name", ["other"]),
]


def m_random_field(rng: random.Random, docs: list[dict[str, Any]]) -> tuple[str, str]:
    docs = copy.deepcopy(docs)
    pick = rng.choice(docs)
    table = STREAM_FIELDS if pick["kind"] == "Stream" else CONSUMER_FIELDS
    field, values = rng.choice(table)
    value = rng.choice(values)
    pick["spec"][field] = value
    return f"field-{pick['kind'].lower()}-{field}", _dump(docs)


# Transform grid: every source with every destination, in each of the four places.
TRANSFORM_SRCS = ["", "a.*", "a.*.*", "a.>", "a.*.>", "a.x", "a..x"]
TRANSFORM_DESTS = [
    "",
    "b.x",
    "b.>",
    "b.$1",
    "b.$2",
    "b.$1.>",
    "b.{{wildcard(1)}}",
    "b.{{Wildcard( 2 )}}",
    "b.{{wildcard(3)}}",
    "b.*",
    "b.{{partition(3,1)}}",
    "b.{{partition(3)}}",
    "b.{{partition(3,1,2)}}.>",
    "b.{{split(1,-)}}",
    "b.{{split(1)}}",
    "b.{{random(4)}}",
    "b.{{random()}}",
    "b.{{splitFromLeft(1,2)}}",
    "b.{{sliceFromRight(1)}}",
    "b.{{left(1,2)}}",
    "b.{{right(1,x)}}",
    "b.{{nope(1)}}",
    "b c.x",
    "b..c",
    "b.>.c",
    "b.$x",
    "b.{{wildcard(1)}}-{{wildcard(1)}}",
]


def m_transform(rng: random.Random, docs: list[dict[str, Any]]) -> tuple[str, str]:
    src, dest = rng.choice(TRANSFORM_SRCS), rng.choice(TRANSFORM_DESTS)
    place = rng.choice(["stream", "source", "mirror", "republish"])
    origin = _streams(docs)[0]["metadata"]["name"]  # S0: always a normal stream
    if place == "stream":
        doc = S("XT", subjects=["xt.>"], subject_transform={"src": src, "dest": dest})
    elif place == "source":
        doc = S("XT", subjects=["xt.>"], sources=[{"name": origin, "subject_transforms": [{"src": src, "dest": dest}]}])
    elif place == "mirror":
        doc = S("XT", mirror={"name": origin, "subject_transforms": [{"src": src, "dest": dest}]})
    else:
        doc = S("XT", subjects=["xt.>"], republish={"src": src, "dest": dest})
    return f"transform-{place}", _dump(_insert_stream(docs, doc))


# Features the supported releases disagree on (linter/semantics/releases.py, linter/semantics/transforms.py): fields a
# release does not know, checks added in later releases, limits 2.12+ normalises and older releases
# refuse, and transform functions and sources validated differently.
RELEASE_STREAM_FEATURES: list[dict[str, Any]] = [
    {"allow_msg_ttl": True},
    {"allow_msg_ttl": True, "subject_delete_marker_ttl": "5s", "allow_rollup_hdrs": True},
    {"subject_delete_marker_ttl": "500ms"},
    {"allow_msg_counter": True},
    {"allow_msg_counter": True, "allow_msg_ttl": True},
    {"allow_atomic": True},
    {"allow_msg_schedules": True},
    {"allow_msg_schedules": True, "discard": "new"},
    {"allow_msg_counter": True, "allow_msg_schedules": True},
    {"persist_mode": "async"},
    {"allow_batched": True},
    {"metadata": {"k": "v" * 131060}},
    {"compression": "s2"},
    {"consumer_limits": {"max_ack_pending": 5}},
]
RELEASE_CONSUMER_FEATURES: list[dict[str, Any]] = [
    {"priority_policy": "overflow", "priority_groups": ["g"]},
    {"priority_groups": ["g"]},
    {"priority_timeout": "1s"},
    {"priority_policy": "pinned_client", "priority_groups": ["g"], "priority_timeout": "30s"},
    {"priority_policy": "prioritized", "priority_groups": ["g"]},
    {"pause_until": "2030-01-01T00:00:00Z"},
    {"max_waiting": -1},
    {"max_batch": -1},
    {"max_expires": "-1s"},
    {"ack_wait": "-1s"},
    {"inactive_threshold": "-1s"},
    {"backoff": ["1s", "-1s"], "max_deliver": 5},
    {"max_ack_pending": -5},
    {"max_deliver": -5},
    {"max_bytes": -1},
    {"ack_policy": "flow_control"},
    {"metadata": {"k": "v" * 131060}},
    {"filter_subjects": ["fz.a", "fz.b"]},
]
RELEASE_TRANSFORM_SRCS = ["", "a.*", "a.*.*", "a.x", "a.>"]
RELEASE_TRANSFORM_DESTS = [
    "b.>",
    "b.x",
    "b.{{left(1,2)}}",
    "b.{{right(1,2)}}",
    "b.{{random(4)}}",
    "b.{{partition(3)}}",
    "b.{{partition(3,1)}}",
    "b c.x",
    "b.$1",
    "b.{{wildcard(1)}}",
]


def m_release_feature(rng: random.Random, docs: list[dict[str, Any]]) -> tuple[str, str]:
    roll = rng.random()
    if roll < 0.3:
        src, dest = rng.choice(RELEASE_TRANSFORM_SRCS), rng.choice(RELEASE_TRANSFORM_DESTS)
        origin = _streams(docs)[0]["metadata"]["name"]
        place = rng.choice(["stream", "source", "mirror", "republish"])
        if place == "stream":
            doc = S("XR", subjects=["xr.>"], subject_transform={"src": src, "dest": dest})
        elif place == "source":
            doc = S(
                "XR", subjects=["xr.>"], sources=[{"name": origin, "subject_transforms": [{"src": src, "dest": dest}]}]
            )
        elif place == "mirror":
            doc = S("XR", mirror={"name": origin, "subject_transforms": [{"src": src, "dest": dest}]})
        else:
            doc = S("XR", subjects=["xr.>"], republish={"src": src, "dest": dest})
        return f"release-transform-{place}", _dump(_insert_stream(docs, doc))
    docs = copy.deepcopy(docs)
    consumers = [d for d in docs if d["kind"] == "Consumer"]
    if consumers and roll < 0.65:
        pick = rng.choice(consumers)
        feature = rng.choice(RELEASE_CONSUMER_FEATURES)
    else:
        pick = rng.choice(_streams(docs))
        feature = rng.choice(RELEASE_STREAM_FEATURES)
    pick["spec"].update(copy.deepcopy(feature))
    return f"release-{pick['kind'].lower()}-{'-'.join(sorted(feature))}", _dump(docs)


_EXT = {"api": "$JS.hub.API"}


def m_release_check(rng: random.Random, docs: list[dict[str, Any]]) -> tuple[str, str]:
    """A check one release makes and another does not, or that jsops once missed on every release
    (docs/server-checks.md): external sources (only built before 2.12), '/' in a sourced or mirrored
    name, an invalid source or mirror filter, colliding filter_subjects, direct consumers, an
    external delivery prefix over a sourced stream's subjects."""
    origin = _streams(docs)[0]["metadata"]["name"]
    kind = rng.choice(
        [
            "ext-transform",
            "ext-filter-transforms",
            "ext-overlap",
            "slash",
            "filter",
            "collide",
            "direct",
            "deliver-prefix",
        ]
    )
    extra: list[dict[str, Any]] = []
    if kind == "ext-transform":
        t = {"src": rng.choice(RELEASE_TRANSFORM_SRCS), "dest": rng.choice(RELEASE_TRANSFORM_DESTS)}
        doc = S("XC", subjects=["xc.>"], sources=[{"name": "REMOTE", "external": _EXT, "subject_transforms": [t]}])
    elif kind == "ext-filter-transforms":
        doc = S(
            "XC",
            subjects=["xc.>"],
            sources=[
                {
                    "name": "REMOTE",
                    "external": _EXT,
                    "filter_subject": "r.a",
                    "subject_transforms": [{"src": "r.b", "dest": "r.c"}],
                }
            ],
        )
    elif kind == "ext-overlap":
        doc = S(
            "XC",
            subjects=["xc.>"],
            sources=[
                {
                    "name": "REMOTE",
                    "external": _EXT,
                    "subject_transforms": [{"src": "r.>", "dest": "s.>"}, {"src": "r.x", "dest": "t"}],
                }
            ],
        )
    elif kind == "slash":
        doc = rng.choice(
            [S("XC", subjects=["xc.>"], sources=[{"name": "RE/MOTE"}]), S("XC", mirror={"name": "RE/MOTE"})]
        )
    elif kind == "filter":
        bad = rng.choice(["r..x", "r x", "r.>.x"])
        doc = rng.choice(
            [
                S("XC", subjects=["xc.>"], sources=[{"name": origin, "filter_subject": bad}]),
                S("XC", mirror={"name": origin, "filter_subject": bad}),
            ]
        )
    elif kind == "collide":
        doc = S("XC", subjects=["xc.>"])
        extra = [C("xcc", "XC", filter_subjects=rng.choice([["xc.*.x", "xc.y.*"], ["xc.>", "xc.a"], ["xc.a", "xc.b"]]))]
    elif kind == "direct":
        doc = S("XC", subjects=["xc.>"])
        extra = [C("xcd", "XC", direct=True, **rng.choice([{}, {"deliver_subject": "dl.xcd"}]))]
    else:
        doc = S(
            "XC",
            sources=[{"name": origin}, {"name": "REMOTE", "external": {**_EXT, "deliver": rng.choice(["xd", "dlv"])}}],
        )
    out = _insert_stream(docs, doc) + extra
    return f"release-check-{kind}", _dump(out)


MUTATIONS = [
    (m_stream_case, 5),
    (m_consumer_case, 6),
    (m_estate_case, 3),
    (m_overlap, 2),
    (m_workqueue, 2),
    (m_cycle, 2),
    (m_msg_size, 1),
    (m_max_consumers, 1),
    (m_replicas, 1),
    (m_random_field, 8),
    (m_transform, 3),
    (m_release_feature, 8),
    (m_release_check, 4),
]

# pedantic run: the pedantic rule cases and fields the server normalises unless pedantic
PEDANTIC_STREAM_CASES = [c for c in stream_rule_cases.PEDANTIC_CASES if c.code is not None]
PEDANTIC_CONSUMER_CASES = [c for c in consumer_rule_cases.CASES if c.target.pedantic and c.code is not None]
PEDANTIC_STREAM_FIELDS: list[tuple[str, list[Any]]] = [
    ("max_msgs", [-5, -1]),
    ("max_bytes", [-2]),
    ("max_consumers", [-3]),
    ("max_age", ["30s", "1m", "10m"]),
    ("subject_delete_marker_ttl", ["5s"]),
    ("allow_msg_schedules", [True]),
    ("republish", [{"dest": "pout.>"}]),
    ("mirror_direct", [True, False]),
]
PEDANTIC_CONSUMER_FIELDS: list[tuple[str, list[Any]]] = [
    ("max_deliver", [-5, -1]),
    ("max_waiting", [-1]),
    ("max_ack_pending", [-2, -1]),
    ("max_batch", [-1]),
    ("max_expires", ["-1s"]),
    ("inactive_threshold", ["-1s"]),
    ("backoff", [["1s", "5s"], ["30s", "1m"]]),
    ("ack_policy", ["flow_control"]),
    ("idle_heartbeat", ["-1s", "1s"]),
]


def m_pedantic_case(rng: random.Random, docs: list[dict[str, Any]]) -> tuple[str, str]:
    if rng.random() < 0.5:
        case = rng.choice(PEDANTIC_STREAM_CASES)
        return f"pedantic-stream-case-{case.id}", _dump(_insert_stream(docs, json.loads(case.manifest())))
    ccase = rng.choice(PEDANTIC_CONSUMER_CASES)
    stream_doc, consumer_text = ccase.manifest().split("\n---\n", 1)
    return f"pedantic-consumer-case-{ccase.id}", _dump(
        _insert_stream(docs, json.loads(stream_doc))
    ) + "---\n" + consumer_text


def m_pedantic_field(rng: random.Random, docs: list[dict[str, Any]]) -> tuple[str, str]:
    docs = copy.deepcopy(docs)
    pick = rng.choice(docs)
    table = PEDANTIC_STREAM_FIELDS if pick["kind"] == "Stream" else PEDANTIC_CONSUMER_FIELDS
    field, values = rng.choice(table)
    pick["spec"][field] = rng.choice(values)
    return f"pedantic-field-{pick['kind'].lower()}-{field}", _dump(docs)


PEDANTIC_MUTATIONS = MUTATIONS + [(m_pedantic_case, 8), (m_pedantic_field, 8)]


def pedantic_clean(docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A valid estate made acceptable to pedantic requests as well: write the values the server
    would otherwise fill in (duplicate window for a short max_age, the stream's consumer limits,
    mirror_direct from the origin), so that a mutation is the estate's only problem."""
    streams = {d["metadata"]["name"]: d["spec"] for d in docs if d["kind"] == "Stream"}
    for d in docs:
        spec = d["spec"]
        if d["kind"] == "Stream":
            if spec.get("max_age") == "90s" and "duplicate_window" not in spec:
                spec["duplicate_window"] = "90s"
            if "mirror" in spec:
                spec["mirror_direct"] = bool(streams.get(spec["mirror"]["name"], {}).get("allow_direct"))
            continue
        limits = streams.get(d["metadata"]["stream"], {}).get("consumer_limits") or {}
        if limits.get("max_ack_pending"):
            spec.setdefault("max_ack_pending", limits["max_ack_pending"])
        if limits.get("inactive_threshold"):
            spec.setdefault("inactive_threshold", limits["inactive_threshold"])
    return docs


def generate(
    seed: int = SEED,
    valid: int = VALID,
    mutated: int = MUTATED,
    mutations: list[Any] = MUTATIONS,
    pedantic: bool = False,
) -> list[Generated]:
    rng = random.Random(seed)
    clean = pedantic_clean if pedantic else (lambda docs: docs)
    out: list[Generated] = []
    for k in range(valid):
        out.append(Generated(f"{k:03d}-valid", _dump(clean(_valid(rng))), False))
    funcs = [f for f, w in mutations for _ in range(w)]
    while len(out) < valid + mutated:
        base = clean(_valid(rng))
        made = rng.choice(funcs)(rng, base)
        if made is None:
            continue
        label, text = made
        out.append(Generated(f"{len(out):03d}-{label}", text, True))
    return out
