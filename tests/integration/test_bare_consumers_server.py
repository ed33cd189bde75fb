"""Bare consumer configs (natscli's `nats consumer add STREAM --config FILE`; issue 35) against the five
real releases: jsops checks each file without its stream, and what it predicts must be what the
server answers when the file is created on a stream.

Every file of tests/fixtures/bare-consumers is sent as natscli sends it, ``{"stream_name": ...,
"config": <the file>}`` to ``$JS.API.CONSUMER.CREATE.<stream>.<name>`` (``$JS.API.CONSUMER.CREATE.<stream>``
for a file without a name: an ephemeral consumer), on a plain stream made fresh for each file. jsops
lints the file alone (its stream unknown) against ``{server_version: <release>, clustered: false}``.
For each release: a file the server accepts draws no error; a file it refuses draws an error with
the server's err_code. The table in tests/linter/load/test_bare_consumers.py holds the same answers
without a server.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import nats
import pytest
from natsserver import NatsServer, release_binary

from jsops.linter.engine import lint_estate
from jsops.linter.findings import Severity
from jsops.linter.load import load_paths
from jsops.linter.model.target import Target
from jsops.linter.semantics.errcodes import ErrCode
from jsops.linter.semantics.releases import SUPPORTED

pytestmark = pytest.mark.integration

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "bare-consumers"
STREAM = {"name": "ORDERS", "subjects": ["orders.>"], "storage": "file", "num_replicas": 1}


def _subject(stream: str, cfg: dict[str, Any]) -> str:
    name = cfg.get("durable_name") or cfg.get("name")
    return f"$JS.API.CONSUMER.CREATE.{stream}.{name}" if name else f"$JS.API.CONSUMER.CREATE.{stream}"


async def _fresh_stream(nc: Any, base: str) -> str:
    """A plain stream made for one file. On a loaded machine a release may answer 10049 ("error creating store
    for stream", seen on 2.12.8 and 2.14.6) for a store it could not make in time: asked again under another
    name, as the stream is only the stage for the consumer's answer."""
    for attempt in range(5):
        stream = base if attempt == 0 else f"{base}R{attempt}"
        body = json.dumps({**STREAM, "name": stream}).encode()
        made = json.loads((await nc.request(f"$JS.API.STREAM.CREATE.{stream}", body, timeout=10)).data)
        if (made.get("error") or {}).get("err_code") != ErrCode.STREAM_CREATE:
            break
        await asyncio.sleep(0.5)
    assert "error" not in made, made
    return stream


async def _answers(url: str) -> dict[str, int | None]:
    nc = await nats.connect(url)
    out: dict[str, int | None] = {}
    try:
        for n, path in enumerate(sorted(CORPUS.glob("*.json"))):
            # A fresh name per file: a store deleted a moment ago may still be on its way off the disk
            # (2.12.8 answered 10049 for a re-created ORDERS once, on a loaded CI machine).
            stream = await _fresh_stream(nc, f"ORDERS{n}")
            cfg = json.loads(path.read_text())
            ask = json.dumps({"stream_name": stream, "config": cfg}).encode()
            reply = json.loads((await nc.request(_subject(stream, cfg), ask, timeout=10)).data)
            out[path.stem] = (reply.get("error") or {}).get("err_code")
            await nc.request(f"$JS.API.STREAM.DELETE.{stream}", b"", timeout=10)
    finally:
        await nc.close()
    return out


def _predicted(version: str) -> dict[str, tuple[set[int | None], set[int | None]]]:
    """Per file, the err_codes of jsops's rejections and of the one it marks as the server's answer."""
    out: dict[str, tuple[set[int | None], set[int | None]]] = {}
    target = Target(server_version=version, clustered=False)
    for path in sorted(CORPUS.glob("*.json")):
        estate = load_paths([str(path)])
        found = [f for f in lint_estate(estate, target=target).findings if f.severity is Severity.ERROR]
        out[path.stem] = ({f.server_error_code for f in found}, {f.server_error_code for f in found if f.server_answer})
    return out


@pytest.mark.parametrize("version", SUPPORTED)
def test_bare_consumer_files_agree_with_the_server(version: str) -> None:
    binary = release_binary(version)
    if binary is None:
        pytest.skip(f"nats-server {version} was not fetched at install (.ci/fetch-nats-servers)")
    with NatsServer(binary=binary) as server:
        answers = asyncio.run(_answers(server.url))
    predicted = _predicted(version)
    refused = 0
    for stem, code in sorted(answers.items()):
        every, answer = predicted[stem]
        if code is None:
            assert every == set(), (version, stem, "a false alarm", every)
        else:
            refused += 1
            assert answer == {code}, (version, stem, code, "marked", answer, "of", every)
    assert refused >= 20  # the corpus is mostly refused files: the comparison covers server codes
