"""Agreement of the stream create-time rejection rules with a real nats-server.

Every case of tests/rules/cases/stream.py is sent as ``$JS.API.STREAM.CREATE.<name>`` with the
stream's effective config (what jsops would apply). A fail case must come back with the
err_code the rule predicts; a pass case must be accepted (and is deleted again).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import nats
import pytest
from natsserver import NatsServer

from jsops.linter.engine import discover_rules, lint_estate
from jsops.linter.semantics.effective import effective_stream
from jsops.linter.semantics.effective_types import api_json
from tests.rules.cases.stream import CASES, Case, load

pytestmark = pytest.mark.integration

RULES = {r.code: r for r in discover_rules()}


@pytest.fixture(scope="module")
def server():
    with NatsServer() as srv:
        yield srv


async def _create(url: str, name: str, config: dict[str, Any]) -> dict[str, Any]:
    nc = await nats.connect(url)
    try:
        msg = await nc.request(f"$JS.API.STREAM.CREATE.{name}", json.dumps(config).encode(), timeout=5)
        resp = json.loads(msg.data)
        if "error" not in resp:
            await nc.request(f"$JS.API.STREAM.DELETE.{name}", b"", timeout=5)
        return resp
    finally:
        await nc.close()


@pytest.mark.parametrize("case", [c for c in CASES if not c.unroutable], ids=lambda c: c.id)
def test_server_agrees(server: NatsServer, case: Case):
    estate, res = load(case)
    predicted = [f.server_error_code for f in lint_estate(estate, [RULES[case.rule]]).findings]
    config = api_json(effective_stream(res.config, name=res.name))  # type: ignore[arg-type]
    resp = asyncio.run(_create(server.url, res.name, config))
    if case.code is None:
        assert "error" not in resp, resp
        assert predicted == []
    else:
        assert "error" in resp, f"server accepted a config {case.rule} rejects: {resp}"
        assert predicted and all(code == resp["error"]["err_code"] for code in predicted), (predicted, resp["error"])


@pytest.mark.parametrize("case", [c for c in CASES if c.unroutable], ids=lambda c: c.id)
def test_unroutable_names_are_flagged(case: Case):
    """Names with '.' or whitespace never reach a handler (the request times out): not sent."""
    estate, _ = load(case)
    found = lint_estate(estate, [RULES[case.rule]]).findings
    assert [f.server_error_code for f in found] == [case.code]
    assert "reaches no handler" in found[0].message
