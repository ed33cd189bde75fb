"""Agreement of JS317 (placement the target cannot satisfy) with a real 3-node cluster.

The target describes the test cluster (tests/rules/cases/stream.py CLUSTER_TARGET: cluster C1,
servers tagged az:1, az:2, az:3). Each placement case is sent as a stream create request; the
server must refuse exactly the cases jsops predicts, with the predicted err_code. Cases whose
target does not describe the cluster are silent by design and are only checked to be refused
for the reason the rule would have given, had it been told.
"""

from __future__ import annotations

import asyncio
import json

import nats
import pytest
from natsserver import NatsCluster

from jsops.linter.engine import discover_rules, lint_estate
from jsops.linter.load import Estate, check_estate, load_text
from jsops.linter.model.target import Target
from tests.rules.cases import stream as stream_rule_cases

pytestmark = pytest.mark.integration

RULES = discover_rules()


@pytest.fixture(scope="module")
def cluster():
    with NatsCluster(3, name="C1") as c:
        yield c


def _predict(text: str, described: bool) -> list[int | None]:
    estate = Estate()
    load_text(text.encode(), "p.yaml", estate)
    check_estate(estate)
    target = Target.model_validate(stream_rule_cases.CLUSTER_TARGET if described else {"clustered": True})
    return [
        f.server_error_code
        for f in lint_estate(estate, RULES, target=target).findings
        if f.server_error_code is not None
    ]


async def _create_all(urls: list[str], bodies: list[tuple[str, dict]]) -> list[int | None]:
    nc = await nats.connect(urls)
    out: list[int | None] = []
    try:
        for name, cfg in bodies:
            msg = await nc.request(
                f"$JS.API.STREAM.CREATE.{name}", json.dumps({**cfg, "name": name}).encode(), timeout=10
            )
            resp = json.loads(msg.data)
            err = resp.get("error")
            out.append(err["err_code"] if err else None)
            if not err:
                await nc.request(f"$JS.API.STREAM.DELETE.{name}", b"", timeout=10)
    finally:
        await nc.close()
    return out


def test_placement_cases_agree_with_cluster(cluster: NatsCluster):
    bodies, cases = [], stream_rule_cases.PLACEMENT_CASES
    for case_id, placement, replicas, code, described in cases:
        name, text = stream_rule_cases.placement_manifest(case_id, placement, replicas)
        bodies.append((name, json.loads(text)["spec"]))
        got = _predict(text, described)
        assert got == ([code] if code else []), case_id
    answers = asyncio.run(_create_all(cluster.urls, bodies))
    for (case_id, _, _, code, described), answer in zip(cases, answers):
        if described:
            assert answer == code, (case_id, answer)
        else:
            assert answer == 10005, (case_id, answer)  # refused; jsops was not told about the cluster
