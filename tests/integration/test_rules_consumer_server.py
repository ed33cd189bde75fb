"""Agreement of the consumer create-time rejection rules with a real nats-server.

For every case of tests/rules/cases/consumer.py the parent stream is created with its effective
config (``$JS.API.STREAM.CREATE.<stream>``), then the consumer is sent as a client would send it:
``$JS.API.CONSUMER.CREATE.<stream>.<consumer>`` with ``{"stream_name": ..., "config": ...}``,
where the config is the manifest's model dumped without unset fields (durations in
nanoseconds), so the server applies its own defaults. A fail case must come back with the
err_code the rule predicts; a pass case must be accepted. The stream is deleted after each case.

Names with '.' or whitespace cannot travel in the request subject intact; those cases go
through the legacy ephemeral API (``$JS.API.CONSUMER.CREATE.<stream>``) with the name in the
body, which is where the server's name check answers.
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
from tests.rules.cases.consumer import CASES, Case, load

pytestmark = pytest.mark.integration

RULES = {r.code: r for r in discover_rules()}


@pytest.fixture(scope="module")
def server():
    with NatsServer() as srv:
        yield srv


async def _apply(
    url: str, stream: str, stream_cfg: dict[str, Any], subject: str, body: dict[str, Any]
) -> dict[str, Any]:
    nc = await nats.connect(url)
    try:
        msg = await nc.request(f"$JS.API.STREAM.CREATE.{stream}", json.dumps(stream_cfg).encode(), timeout=5)
        created = json.loads(msg.data)
        assert "error" not in created, f"parent stream rejected: {created['error']}"
        try:
            msg = await nc.request(subject, json.dumps(body).encode(), timeout=5)
            return json.loads(msg.data)
        finally:
            await nc.request(f"$JS.API.STREAM.DELETE.{stream}", b"", timeout=5)
    finally:
        await nc.close()


def _request(case: Case) -> tuple[str, dict[str, Any], str, dict[str, Any]]:
    _, stream, consumer = load(case)
    stream_cfg = api_json(effective_stream(stream.config, name=stream.name))  # type: ignore[arg-type]
    config = consumer.config.model_dump(mode="json", exclude_none=True)
    if case.legacy:
        config.pop("durable_name", None)
        config["name"] = consumer.name
        subject = f"$JS.API.CONSUMER.CREATE.{stream.name}"
    else:
        subject = f"$JS.API.CONSUMER.CREATE.{stream.name}.{consumer.name}"
    return stream.name, stream_cfg, subject, {"stream_name": stream.name, "config": config}


@pytest.mark.parametrize("case", [c for c in CASES if c.server], ids=lambda c: c.id)
def test_server_agrees(server: NatsServer, case: Case):
    estate, _, _ = load(case)
    predicted = [f.server_error_code for f in lint_estate(estate, [RULES[case.rule]], target=case.target).findings]
    resp = asyncio.run(_apply(server.url, *_request(case)))
    if case.code is None:
        assert "error" not in resp, resp
        assert predicted == []
    else:
        assert "error" in resp, f"server accepted a consumer {case.rule} rejects: {resp}"
        assert predicted == [resp["error"]["err_code"]], (predicted, resp["error"])
