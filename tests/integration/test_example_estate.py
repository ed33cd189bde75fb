"""Every stream and consumer of the example estate is accepted by a real nats-server.

The effective configs (what jsops computes the server would store) are sent as raw JetStream
API requests, exactly as a client would, to a fresh standalone server.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from natsserver import NatsServer

from jsops import linter

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]
MANIFESTS = str(REPO / "manifests")


async def _request(nc: Any, subject: str, body: dict[str, Any]) -> dict[str, Any]:
    msg = await nc.request(subject, json.dumps(body).encode(), timeout=5)
    return json.loads(msg.data)


async def _apply_estate(url: str) -> list[str]:
    import nats

    estate = linter.load_paths([MANIFESTS])
    assert estate.findings == []
    errors: list[str] = []
    nc = await nats.connect(url)
    try:
        effective: dict[str, linter.EffectiveStream] = {}
        for res in estate.streams():
            eff = linter.effective_stream(res.config, name=res.name)
            effective[res.name] = eff
            reply = await _request(nc, f"$JS.API.STREAM.CREATE.{res.name}", linter.api_json(eff))
            if "error" in reply:
                errors.append(f"stream {res.name}: {reply['error']}")
        for res in estate.consumers():
            stream = res.stream or ""
            ceff = linter.effective_consumer(res.config, effective.get(stream), durable_name=res.name)
            body = {"stream_name": stream, "config": linter.api_json(ceff)}
            reply = await _request(nc, f"$JS.API.CONSUMER.CREATE.{stream}.{res.name}", body)
            if "error" in reply:
                errors.append(f"consumer {stream}/{res.name}: {reply['error']}")
        names = await _request(nc, "$JS.API.STREAM.NAMES", {})
        if sorted(names.get("streams") or []) != sorted(effective):
            errors.append(f"streams on the server {names.get('streams')} != manifests {sorted(effective)}")
    finally:
        await nc.close()
    return errors


def test_example_estate_is_accepted_by_nats_server() -> None:
    with NatsServer() as server:
        errors = asyncio.run(_apply_estate(server.url))
    assert errors == []
