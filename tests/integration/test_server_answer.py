"""The server's first answer, measured on every supported release (issue 35, item 4).

nats-server stops at its first failed check and answers that check's err_code. Each case here carries two faults
(every pair of the faults below that can be written together, a stream's or a consumer's) or the issue's example
(a mirror with subjects and sources, three replicas on a standalone server, and a duplicate window longer than
its max_age: jsops named 10074, 10034, 10031, the servers answer 10052). Each is sent to a standalone server of
every supported release, all running at once; the finding jsops marks ``server_answer`` must carry the code the
server answers, and an object the server accepts must draw no rejection. The closing note per release gives how
often the first rejection listed (what a reader took as the answer before) and the marked one match.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Iterator
from typing import Any

import nats
import pytest
from natsserver import NatsServer, release_binary

from jsops.linter.engine import lint_estate
from jsops.linter.findings import Severity
from jsops.linter.load import Estate, check_estate, load_text
from jsops.linter.model.target import Target
from jsops.linter.semantics.releases import SUPPORTED
from tests.rules.test_estate import RULES

from .test_rules_estate_server import apply_estate, delete_all

pytestmark = pytest.mark.integration

Doc = dict[str, Any]
ORIGIN: Doc = {
    "apiVersion": "jsops/v1",
    "kind": "Stream",
    "metadata": {"name": "ORIGIN"},
    "spec": {"subjects": ["o.>"], "max_msg_size": 2048},
}
LONG = "d" * 5000
BIG = {"k": "v" * 140000}

# One fault each, as a spec patch (None removes the key); the comment: what the server answers alone.
STREAM_FAULTS: dict[str, Doc] = {
    "desc_long": {"description": LONG},  # 10052
    "replicas6": {"num_replicas": 6},  # 10052
    "replicas3": {"num_replicas": 3},  # 10074 on a standalone server
    "max_age_small": {"max_age": "50ms"},  # 10052
    "dup_gt_age": {"max_age": "1s", "duplicate_window": "2s"},  # 10052
    "dup_small": {"duplicate_window": "50ms"},  # 10052
    "purge_rollup": {"deny_purge": True, "allow_rollup_hdrs": True},  # 10052
    "discard_per": {"discard_new_per_subject": True, "max_msgs_per_subject": 5},  # 10052
    "mirror_subjects": {"mirror": {"name": "ORIGIN"}},  # 10034
    "mirror_sources": {"mirror": {"name": "ORIGIN"}, "sources": [{"name": "ORIGIN"}], "subjects": None},  # 10031
    "mirror_firstseq": {"mirror": {"name": "ORIGIN"}, "first_seq": 5, "subjects": None},  # 10143
    "bad_subject": {"subjects": ["a..b"]},  # 10052
    "dup_subject": {"subjects": ["z.a", "z.a"]},  # 10052
    "fwc_ack": {"subjects": [">"]},  # 10052
    "overlap_other": {"subjects": ["o.x"]},  # 10065
    "sdm_small": {"subject_delete_marker_ttl": "500ms", "allow_msg_ttl": True, "allow_rollup_hdrs": True},  # 2.11+
    "preferred": {"placement": {"preferred": "n1"}},  # 10052 from 2.11
    "mirror_direct": {"mirror_direct": True},  # 10052
    "sealed": {"sealed": True},  # 10052
    "src_dup": {"sources": [{"name": "ORIGIN"}, {"name": "ORIGIN"}]},  # 10140
    "republish_bad": {"republish": {"src": "q.>", "dest": "q.{{wildcard(3)}}"}},  # 10052
    "transform_bad": {"subject_transform": {"src": "y.*", "dest": "y.{{wildcard(2)}}"}},  # 10156; 10049 on 2.10
    "meta_big": {"metadata": BIG},  # 10052
}
CONSUMER_FAULTS: dict[str, Doc] = {
    "push_maxwaiting": {"deliver_subject": "dx", "max_waiting": 5},  # 10080
    "pull_rate": {"rate_limit_bps": 100},  # 10086
    "pull_hb": {"idle_heartbeat": "5s"},  # 10088
    "pull_fc": {"flow_control": True},  # 10089
    "fc_nohb": {"deliver_subject": "dx", "flow_control": True},  # 10108
    "replicas3": {"num_replicas": 3},  # 10074 on a standalone server
    "backoff_md": {"backoff": ["1s", "2s", "3s"], "max_deliver": 2},  # 10116
    "desc_long": {"description": LONG},  # 10107
    "meta_big": {"metadata": BIG},  # 10135
    "deliver_wild": {"deliver_subject": "dx.*"},  # 10079
    "deliver_cycle": {"deliver_subject": "o.a"},  # 10081
    "sample_bad": {"sample_freq": "abc"},  # 10095
    "hb_small": {"deliver_subject": "dx", "idle_heartbeat": "50ms"},  # 10083
    "prio_push": {"deliver_subject": "dx", "priority_groups": ["g"], "priority_policy": "pinned_client"},  # 10178
    "prio_nogroup": {"priority_policy": "overflow"},  # 10159 from 2.11
    "expires_small": {"max_expires": "500us"},  # 10115
    "filters_overlap": {"filter_subjects": ["o.a", "o.*"]},  # 10138
    "filters_dup": {"filter_subjects": ["o.b", "o.b"]},  # 10138
    "startseq_missing": {"deliver_policy": "by_start_sequence"},  # 10094
    "maxack_none": {"ack_policy": "none", "max_ack_pending": 10, "deliver_subject": "dx"},  # 10082
}
# A source with both a filter and transforms (10144) into a stream whose max_msg_size is below the origin's
# (10046): before 2.12 the size is checked first.
SOURCE_SIZE_AND_FILTERS: Doc = {
    "sources": [{"name": "ORIGIN", "filter_subject": "o.a", "subject_transforms": [{"src": "o.b", "dest": "x.b"}]}],
    "max_msg_size": 1024,
}
ISSUE_EXAMPLE: Doc = {
    "mirror": {"name": "ORIGIN"},
    "subjects": ["t.>"],
    "sources": [{"name": "ORIGIN"}],
    "num_replicas": 3,
    "max_age": "1m",
    "duplicate_window": "2m",
}


def _merged(base: Doc, patches: list[Doc]) -> Doc | None:
    """``base`` with every patch applied (None removes a key); None when two patches set one key apart."""
    out: Doc = {}
    for patch in patches:
        for key, value in patch.items():
            if key in out and out[key] != value:
                return None  # two faults on one key: not both writable
            out[key] = value
    return {k: v for k, v in {**base, **out}.items() if v is not None}


def _stream(spec: Doc) -> Doc:
    return {"apiVersion": "jsops/v1", "kind": "Stream", "metadata": {"name": "T"}, "spec": spec}


def _consumer(spec: Doc) -> Doc:
    spec = {"durable_name": "C", "ack_policy": "explicit", **spec}
    return {"apiVersion": "jsops/v1", "kind": "Consumer", "metadata": {"name": "C", "stream": "ORIGIN"}, "spec": spec}


def cases() -> list[tuple[str, list[Doc], tuple[str, str]]]:
    """(id, documents, the object judged) for every pair of faults that can be written together."""
    out: list[tuple[str, list[Doc], tuple[str, str]]] = [
        ("S:issue-example", [ORIGIN, _stream(ISSUE_EXAMPLE)], ("Stream", "T")),
        ("S:source-size-and-filters", [ORIGIN, _stream(SOURCE_SIZE_AND_FILTERS)], ("Stream", "T")),
    ]
    for a, b in itertools.combinations(sorted(STREAM_FAULTS), 2):
        spec = _merged({"subjects": ["t.>"]}, [STREAM_FAULTS[a], STREAM_FAULTS[b]])
        if spec is not None:
            out.append((f"S:{a}+{b}", [ORIGIN, _stream(spec)], ("Stream", "T")))
    for a, b in itertools.combinations(sorted(CONSUMER_FAULTS), 2):
        spec = _merged({}, [CONSUMER_FAULTS[a], CONSUMER_FAULTS[b]])
        if spec is not None:
            out.append((f"C:{a}+{b}", [ORIGIN, _consumer(spec)], ("Consumer", "C")))
    return out


Row = tuple[str, int | None, list[tuple[int | None, bool]]]  # id, the server's code, jsops's rejections (code, answer)


async def _run(url: str, release: str, todo: list[tuple[str, list[Doc], tuple[str, str]]]) -> list[Row]:
    target = Target.model_validate({"server_version": release, "clustered": False})
    rows: list[Row] = []
    nc = await nats.connect(url)
    try:
        await delete_all(nc)
        for cid, docs, key in todo:
            estate = Estate()
            load_text(("\n---\n".join(json.dumps(d) for d in docs) + "\n").encode(), "estate.yaml", estate)
            check_estate(estate)
            mine = [
                (f.server_error_code, f.server_answer)
                for f in lint_estate(estate, RULES, target=target).findings
                if f.severity is Severity.ERROR and f.object is not None and (f.object.kind, f.object.name) == key
            ]
            results, _ = await apply_estate(nc, estate, timeout=15.0)
            await delete_all(nc)
            assert results.get(("Stream", "ORIGIN")) is None, (cid, "the origin stream was refused")
            rows.append((cid, results.get(key), mine))
    finally:
        await nc.close()
    return rows


@pytest.fixture(scope="module")
def release_servers() -> Iterator[dict[str, NatsServer | str]]:
    running: dict[str, NatsServer | str] = {}
    try:
        for release in SUPPORTED:
            binary = release_binary(release)
            running[release] = (
                NatsServer(binary=binary).start()
                if binary is not None
                else f"nats-server {release} was not fetched at install (.ci/fetch-nats-servers)"
            )
        yield running
    finally:
        for srv in running.values():
            if isinstance(srv, NatsServer):
                srv.stop()


@pytest.fixture(scope="module")
def answers(release_servers: dict[str, NatsServer | str]) -> dict[str, list[Row]]:
    todo = cases()
    live = {r: s for r, s in release_servers.items() if isinstance(s, NatsServer)}

    async def every_release() -> dict[str, list[Row]]:
        runs = await asyncio.gather(*(_run(s.url, r, todo) for r, s in live.items()))
        return dict(zip(live, runs))

    return asyncio.run(every_release())


def test_cases_are_many() -> None:
    todo = cases()
    assert sum(c[0].startswith("S:") for c in todo) >= 200 and sum(c[0].startswith("C:") for c in todo) >= 150


@pytest.mark.parametrize("release", SUPPORTED)
def test_server_answer_is_the_servers(
    release: str, release_servers: dict[str, NatsServer | str], answers: dict[str, list[Row]]
) -> None:
    if isinstance(release_servers[release], str):
        pytest.skip(str(release_servers[release]))
    rows = answers[release]
    refused = [(cid, code, mine) for cid, code, mine in rows if code is not None]
    listed_first = sum(1 for _, code, mine in refused if mine and mine[0][0] == code)
    marked = sum(1 for _, code, mine in refused if [c for c, answer in mine if answer] == [code])
    print(
        f"\nserver answer, nats-server {release}: {len(rows)} configs with two faults, {len(refused)} refused; "
        f"the first rejection listed is the server's code on {listed_first}/{len(refused)}, "
        f"the server_answer one on {marked}/{len(refused)}"
    )
    problems = [f"{cid}: server accepted, jsops predicted {mine}" for cid, code, mine in rows if code is None and mine]
    problems += [
        f"{cid}: server answered {code}, jsops marked {[c for c, a in mine if a]} of {[c for c, _ in mine]}"
        for cid, code, mine in refused
        if [c for c, answer in mine if answer] != [code]
    ]
    assert not problems, "\n".join(problems[:20])
    example = next(mine for cid, _, mine in rows if cid == "S:issue-example")
    assert [c for c, answer in example if answer] == [10052] and {10034, 10031, 10074} <= {c for c, _ in example}
    size = next((code, mine) for cid, code, mine in rows if cid == "S:source-size-and-filters")
    assert size[0] == (10046 if release < "2.12" else 10144) and {c for c, _ in size[1]} == {10046, 10144}
