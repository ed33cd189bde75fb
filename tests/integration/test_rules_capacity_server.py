"""What the capacity rules (JS431-JS444) say about nats-server, checked against a real one.

Each test lints a small estate, sends the effective configs to a server started with
``max_payload: 64KiB``, and checks the behaviour the rule's documentation describes: accepted
configs, in-place updates its fixes rely on (or refuse, for JS439), interest streams dropping
messages without consumers, ephemeral consumers going away.
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
from jsops.linter.semantics.effective import effective_consumer, effective_stream
from jsops.linter.semantics.effective_types import api_json

pytestmark = pytest.mark.integration

RULES = {r.code: r for r in discover_rules()}
MAX_PAYLOAD = 64 * 1024


@pytest.fixture(scope="module")
def server():
    with NatsServer(extra_config=f"max_payload: {MAX_PAYLOAD}") as srv:
        yield srv


def _estate(docs: list[dict[str, Any]]) -> Estate:
    estate = Estate()
    load_text(("\n---\n".join(json.dumps(d) for d in docs) + "\n").encode(), "m.yaml", estate)
    check_estate(estate)
    assert estate.findings == []
    return estate


def _codes(estate: Estate, code: str, target: Target | None = None) -> list[str]:
    return [f.rule for f in lint_estate(estate, [RULES[code]], target=target, read_source=None).findings]


def _stream_cfg(estate: Estate, name: str) -> dict[str, Any]:
    r = next(r for r in estate.resources if r.kind == "Stream" and r.name == name)
    return api_json(effective_stream(r.config, name=r.name))  # type: ignore[arg-type]


def _consumer_cfg(estate: Estate, name: str) -> dict[str, Any]:
    r = next(r for r in estate.resources if r.kind == "Consumer" and r.name == name)
    return api_json(effective_consumer(r.config))  # type: ignore[arg-type]


async def _req(nc: Any, subject: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
    msg = await nc.request(subject, json.dumps(body).encode() if body is not None else b"", timeout=5)
    return json.loads(msg.data)


def _run(coro: Any) -> Any:
    return asyncio.run(coro)


def S(name: str, **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "jsops/v1", "kind": "Stream", "metadata": {"name": name}, "spec": spec}


def C(cname: str, stream: str, **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "jsops/v1", "kind": "Consumer", "metadata": {"name": cname, "stream": stream}, "spec": spec}


def test_js442_server_accepts_but_no_publish_can_be_that_large(server: NatsServer) -> None:
    estate = _estate([S("BIG", subjects=["big.>"], max_msg_size="1MiB", max_age="1h")])
    assert _codes(estate, "JS442", Target(max_payload=MAX_PAYLOAD)) == ["JS442"]

    async def go() -> None:
        nc = await nats.connect(server.url)
        try:
            assert nc.max_payload == MAX_PAYLOAD
            resp = await _req(nc, "$JS.API.STREAM.CREATE.BIG", _stream_cfg(estate, "BIG"))
            assert "error" not in resp, resp  # the server does not compare the two
            with pytest.raises(nats.errors.MaxPayloadError):
                await nc.publish("big.x", b"x" * (MAX_PAYLOAD + 1))
            # the safe fix: max_msg_size = max_payload, an in-place update
            fixed = dict(_stream_cfg(estate, "BIG"), max_msg_size=MAX_PAYLOAD)
            resp = await _req(nc, "$JS.API.STREAM.UPDATE.BIG", fixed)
            assert "error" not in resp and resp["config"]["max_msg_size"] == MAX_PAYLOAD, resp
            await _req(nc, "$JS.API.STREAM.DELETE.BIG")
        finally:
            await nc.close()

    _run(go())


def test_js434_js437_fixes_are_in_place_updates(server: NatsServer) -> None:
    from jsops.linter.config import Config

    estate = _estate([S("LOGS", subjects=["logs.>"], max_bytes="8MiB", max_age="1h", num_replicas=1)])
    small = Config(rules={"JS434": {"max_bytes": "1MiB"}})
    found = lint_estate(estate, [RULES["JS434"]], config=small, read_source=None).findings
    assert [f.fix.edits[0].value for f in found if f.fix] == ["s2"]

    async def go() -> None:
        nc = await nats.connect(server.url)
        try:
            cfg = _stream_cfg(estate, "LOGS")
            assert cfg["compression"] == "none" and cfg["allow_direct"] is False
            assert "error" not in await _req(nc, "$JS.API.STREAM.CREATE.LOGS", cfg)
            resp = await _req(nc, "$JS.API.STREAM.UPDATE.LOGS", dict(cfg, compression="s2", allow_direct=True))
            assert "error" not in resp, resp
            assert resp["config"]["compression"] == "s2" and resp["config"]["allow_direct"] is True
            await _req(nc, "$JS.API.STREAM.DELETE.LOGS")
        finally:
            await nc.close()

    _run(go())


def test_js441_interest_stream_without_consumer_drops_messages(server: NatsServer) -> None:
    docs = [S("INT", subjects=["int.>"], retention="interest", max_age="1h")]
    estate = _estate(docs)
    assert _codes(estate, "JS441") == ["JS441"]
    with_consumer = _estate(docs + [C("reader", "INT", filter_subject="int.>")])
    assert _codes(with_consumer, "JS441") == []

    async def go() -> None:
        nc = await nats.connect(server.url)
        js = nc.jetstream()
        try:
            assert "error" not in await _req(nc, "$JS.API.STREAM.CREATE.INT", _stream_cfg(estate, "INT"))
            for i in range(3):
                ack = await js.publish("int.x", b"hello")
                assert ack.seq == i + 1  # the publisher gets a positive ack...
            info = await _req(nc, "$JS.API.STREAM.INFO.INT")
            assert info["state"]["messages"] == 0  # ...for data nobody will read
            cons = _consumer_cfg(with_consumer, "reader")
            resp = await _req(nc, "$JS.API.CONSUMER.CREATE.INT.reader", {"stream_name": "INT", "config": cons})
            assert "error" not in resp, resp
            await js.publish("int.x", b"kept")
            info = await _req(nc, "$JS.API.STREAM.INFO.INT")
            assert info["state"]["messages"] == 1
            await _req(nc, "$JS.API.STREAM.DELETE.INT")
        finally:
            await nc.close()

    _run(go())


def test_js440_ephemeral_consumer_is_deleted_when_idle(server: NatsServer) -> None:
    docs = [S("EPH", subjects=["eph.>"], max_age="1h"), C("temp", "EPH", name="temp", inactive_threshold="1s")]
    estate = _estate(docs)
    assert _codes(estate, "JS440") == ["JS440"]

    async def go() -> None:
        nc = await nats.connect(server.url)
        try:
            assert "error" not in await _req(nc, "$JS.API.STREAM.CREATE.EPH", _stream_cfg(estate, "EPH"))
            cons = _consumer_cfg(estate, "temp")
            assert "durable_name" not in cons
            resp = await _req(nc, "$JS.API.CONSUMER.CREATE.EPH.temp", {"stream_name": "EPH", "config": cons})
            assert "error" not in resp, resp
            gone = False
            for _ in range(100):  # the server sweeps inactive ephemerals; poll up to ~10 s
                info = await _req(nc, "$JS.API.CONSUMER.INFO.EPH.temp")
                if info.get("error", {}).get("err_code") == 10014:  # consumer not found
                    gone = True
                    break
                await asyncio.sleep(0.1)
            assert gone
            await _req(nc, "$JS.API.STREAM.DELETE.EPH")
        finally:
            await nc.close()

    _run(go())


def test_js438_js439_consumer_updates(server: NatsServer) -> None:
    docs = [
        S("PUSH", subjects=["push.>"], max_age="1h"),
        C("pusher", "PUSH", deliver_subject="deliver.pusher", max_ack_pending=-1),
    ]
    estate = _estate(docs)
    assert _codes(estate, "JS438") == ["JS438"]
    assert _codes(estate, "JS439") == ["JS439"]

    async def go() -> None:
        nc = await nats.connect(server.url)
        try:
            assert "error" not in await _req(nc, "$JS.API.STREAM.CREATE.PUSH", _stream_cfg(estate, "PUSH"))
            cons = _consumer_cfg(estate, "pusher")
            resp = await _req(nc, "$JS.API.CONSUMER.CREATE.PUSH.pusher", {"stream_name": "PUSH", "config": cons})
            assert "error" not in resp and resp["config"]["max_ack_pending"] == -1, resp
            # JS438's fix (drop max_ack_pending: the server default) is an in-place update
            fixed = {k: v for k, v in cons.items() if k != "max_ack_pending"}
            resp = await _req(
                nc, "$JS.API.CONSUMER.CREATE.PUSH.pusher", {"stream_name": "PUSH", "config": fixed, "action": "update"}
            )
            assert "error" not in resp and resp["config"]["max_ack_pending"] == 1000, resp
            # JS439's fix is not: heartbeats and flow control need a new consumer (documented as unsafe)
            hb = dict(fixed, idle_heartbeat=15_000_000_000, flow_control=True)
            resp = await _req(
                nc, "$JS.API.CONSUMER.CREATE.PUSH.pusher", {"stream_name": "PUSH", "config": hb, "action": "update"}
            )
            assert "error" in resp, resp
            await _req(nc, "$JS.API.STREAM.DELETE.PUSH")
        finally:
            await nc.close()

    _run(go())
