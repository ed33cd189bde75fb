"""Agreement of the pedantic-mode rules (JS127 streams, JS227 consumers) with a real nats-server.

Each case is sent as the manifest's config without unset fields (the server applies its own
defaults, or refuses to in pedantic mode) with ``"pedantic": true`` in the create request, and
judged by jsops with the target ``{pedantic: true}``: a fail case must come back with the
predicted err_code, a pass case must be accepted. Consumers' parent streams are created without
pedantic.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import nats
import pytest
from natsserver import NatsServer

from jsops.linter.engine import discover_rules, lint_estate
from jsops.linter.load import Estate, check_estate, load_text
from jsops.linter.model.target import Target
from tests.rules.cases import consumer as consumer_rule_cases
from tests.rules.cases import stream as stream_rule_cases

pytestmark = pytest.mark.integration

RULES = discover_rules()
CONSUMER_CASES = [c for c in consumer_rule_cases.CASES if c.target.pedantic]


@pytest.fixture(scope="module")
def server():
    with NatsServer() as srv:
        yield srv


def _estate(text: str) -> Estate:
    estate = Estate()
    load_text(text.encode(), "p.yaml", estate)
    check_estate(estate)
    assert estate.findings == []
    return estate


def _predict(estate: Estate, target: Target, name: str) -> list[int | None]:
    return [
        f.server_error_code
        for f in lint_estate(estate, RULES, target=target).findings
        if f.server_error_code is not None and f.object is not None and f.object.name == name
    ]


async def _send(url: str, requests: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    """Send each (subject, body) in order; returns the answers. Streams are deleted at the end."""
    nc = await nats.connect(url)
    out = []
    try:
        for subject, body in requests:
            msg = await nc.request(subject, json.dumps(body).encode(), timeout=5)
            out.append(json.loads(msg.data))
    finally:
        names = json.loads((await nc.request("$JS.API.STREAM.NAMES", b"{}", timeout=5)).data).get("streams") or []
        for n in names:
            await nc.request(f"$JS.API.STREAM.DELETE.{n}", b"", timeout=5)
        await nc.close()
    return out


def _stream_request(res: Any, pedantic: bool) -> tuple[str, dict[str, Any]]:
    body = res.config.model_dump(mode="json", exclude_none=True)
    body["name"] = res.name
    if pedantic:
        body["pedantic"] = True
    return f"$JS.API.STREAM.CREATE.{res.name}", body


def _code(resp: dict[str, Any]) -> int | None:
    return resp["error"]["err_code"] if "error" in resp else None


@pytest.mark.parametrize("case", stream_rule_cases.PEDANTIC_CASES, ids=lambda c: c.id)
def test_stream_pedantic_case(server: NatsServer, case: stream_rule_cases.Case):
    estate = _estate(case.manifest())
    (res,) = estate.resources
    predicted = _predict(estate, Target(pedantic=True), res.name)
    (resp,) = asyncio.run(_send(server.url, [_stream_request(res, True)]))
    assert predicted == ([case.code] if case.code else []), predicted
    assert _code(resp) == case.code, resp


@pytest.mark.parametrize("case", CONSUMER_CASES, ids=lambda c: c.id)
def test_consumer_pedantic_case(server: NatsServer, case: consumer_rule_cases.Case):
    estate, stream, consumer = consumer_rule_cases.load(case)
    predicted = _predict(estate, case.target, consumer.name)
    body = {
        "stream_name": stream.name,
        "config": consumer.config.model_dump(mode="json", exclude_none=True),
        "pedantic": True,
    }
    answers = asyncio.run(
        _send(
            server.url,
            [_stream_request(stream, False), (f"$JS.API.CONSUMER.CREATE.{stream.name}.{consumer.name}", body)],
        )
    )
    assert _code(answers[0]) is None, answers[0]
    assert predicted == ([case.code] if case.code else []), predicted
    assert _code(answers[1]) == case.code, answers[1]


@pytest.mark.parametrize("mirror_direct,code", [(None, 10157), (False, 10157), (True, None)])
def test_mirror_direct_differs_from_origin(server: NatsServer, mirror_direct: bool | None, code: int | None):
    mirror: dict[str, Any] = {"mirror": {"name": "PO"}}
    if mirror_direct is not None:
        mirror["mirror_direct"] = mirror_direct
    docs = [
        {
            "apiVersion": "jsops/v1",
            "kind": "Stream",
            "metadata": {"name": "PO"},
            "spec": {"subjects": ["po.>"], "allow_direct": True},
        },
        {"apiVersion": "jsops/v1", "kind": "Stream", "metadata": {"name": "PM"}, "spec": mirror},
    ]
    estate = _estate("\n---\n".join(json.dumps(d) for d in docs))
    origin, copy_ = estate.resources
    predicted = _predict(estate, Target(pedantic=True), "PM")
    answers = asyncio.run(_send(server.url, [_stream_request(origin, True), _stream_request(copy_, True)]))
    assert _code(answers[0]) is None, answers[0]
    assert predicted == ([code] if code else [])
    assert _code(answers[1]) == code, answers[1]


def test_duplicate_window_server_limit():
    case = next(c for c in stream_rule_cases.PEDANTIC_CASES if c.id == "ped-ok-plain")
    estate = _estate(case.manifest())
    (res,) = estate.resources
    target = Target.model_validate({"pedantic": True, "limits": {"duplicate_window": "1m"}})
    with NatsServer(jetstream_config='limits { duplicate_window: "1m" }') as srv:
        answers = asyncio.run(_send(srv.url, [_stream_request(res, True), _stream_request(res, False)]))
    assert _predict(estate, target, res.name) == [10157]
    assert _code(answers[0]) == 10157 and _code(answers[1]) is None  # without pedantic: clamped to 1m
