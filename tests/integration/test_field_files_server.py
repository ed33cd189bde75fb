"""What jsops says about natscli JSON files agrees with a real nats-server (issue 13).

The files are sent as the request bodies they are (natscli sends them as they are, after putting
the name it was given on its command line): unknown fields and malformed JSON draw 10025, a null
source 10141, and a repeated key is accepted with its last value, as jsops predicts.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import nats
import pytest
from natsserver import NatsServer

from jsops.linter.load import Estate, load_text

pytestmark = pytest.mark.integration

FIELD = Path(__file__).parent.parent / "fixtures" / "field"
BODIES = {
    "unknown-field": b'{"name": "A", "subjects": ["a"], "max_agee": 5}',
    "malformed": b'{"name": "B", "subjects": ["b"],}',
    "null-source": b'{"name": "C", "subjects": ["c"], "sources": [null]}',
    "duplicate-key": (FIELD / "natscli" / "payments.json").read_bytes(),
    "info-dump": (FIELD / "natscli-info" / "orders-info.json").read_bytes(),
}


def _name(body: bytes) -> str:
    for candidate in ("A", "B", "C"):
        if f'"name": "{candidate}"'.encode() in body:
            return candidate
    return "PAYMENTS" if b"PAYMENTS" in body else "AUDIT"


async def _create(url: str, name: str, body: bytes) -> dict[str, Any]:
    nc = await nats.connect(url)
    try:
        msg = await nc.request(f"$JS.API.STREAM.CREATE.{name}", body, timeout=5)
        return json.loads(msg.data)
    finally:
        await nc.close()


def test_predicted_codes_match_the_server() -> None:
    server = NatsServer().start()
    try:
        for case, body in BODIES.items():
            estate = Estate()
            load_text(body, f"{case}.json", estate)
            predicted = {f.server_error_code for f in estate.findings if f.server_error_code}
            if case == "info-dump":  # natscli's `stream info --json`: the config is the body
                body = json.dumps(json.loads(body)["config"]).encode()
            reply = asyncio.run(_create(server.url, _name(body), body))
            code = (reply.get("error") or {}).get("err_code")
            assert (predicted or {None}) == {code}, (case, predicted, reply)
            if case == "duplicate-key":
                (res,) = estate.resources
                assert reply["config"]["max_age"] == res.config.max_age == 604800000000000  # the last value
    finally:
        server.stop()


@pytest.mark.parametrize("version", ["2.10.26", "2.11.11", "2.12.8"])
def test_unknown_field_per_release(version: str) -> None:
    """jsops says 2.10/2.11 drop an unknown field of a request body and 2.12 refuses it (10025)."""
    from natsserver import release_binary

    from jsops.linter.config import Config
    from jsops.linter.engine import lint_estate
    from jsops.linter.model.target import Target

    binary = release_binary(version)
    if binary is None:
        pytest.skip(f"nats-server {version} was not fetched at install (.ci/fetch-nats-servers)")
    body = b'{"name": "A", "subjects": ["a"], "max_agee": 5}'
    estate = Estate()
    load_text(body, "a.json", estate)
    result = lint_estate(estate, config=Config(target=Target(server_version=version)), read_source=None)
    predicted = {f.server_error_code for f in result.findings if f.severity.value == "error"}
    server = NatsServer(binary=binary).start()
    try:
        reply = asyncio.run(_create(server.url, "A", body))
    finally:
        server.stop()
    code = (reply.get("error") or {}).get("err_code")
    assert (predicted or {None}) == {code}, (version, predicted, reply)
