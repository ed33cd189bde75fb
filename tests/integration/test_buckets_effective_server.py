"""The stream a bucket really is: jsops' computed config of each bucket kind equals, field by field,
the stream nats-py's create_key_value / create_object_store makes on a real nats-server, for every
release binary present (2.15.1 always; others under .venv/share/nats-servers/<version>/)."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nats
import natsserver
import pytest
from nats.js import api
from natsserver import NatsServer

from jsops.linter.model.buckets import KeyValueConfig, ObjectStoreConfig, kv_stream, object_stream
from jsops.linter.model.config import StreamConfig
from jsops.linter.semantics.effective import effective_stream, strip_server_metadata
from jsops.linter.semantics.effective_types import api_json

SHARE = Path(sys.executable).parent.parent / "share" / "nats-servers"
RELEASES = (
    ["2.15.1"] + sorted(p.name for p in SHARE.glob("*") if (p / "nats-server").exists() and p.name != "2.15.1")
    if SHARE.exists()
    else ["2.15.1"]
)

# (bucket config for jsops, the same for nats-py)
KV_CASES: list[tuple[dict[str, Any], dict[str, Any]]] = [
    ({}, {}),
    (
        {"history": 10, "ttl": "30s", "max_bytes": 1048576, "max_value_size": 4096, "description": "d"},
        {"history": 10, "ttl": 30, "max_bytes": 1048576, "max_value_size": 4096, "description": "d"},
    ),
    (
        {"storage": "memory", "direct": True, "ttl": "1h"},
        {"storage": api.StorageType.MEMORY, "direct": True, "ttl": 3600},
    ),
    (
        {"republish": {"src": ">", "dest": "repub.>"}, "history": 64},
        {"republish": api.RePublish(src=">", dest="repub.>"), "history": 64},
    ),
]
OBJ_CASES: list[tuple[dict[str, Any], dict[str, Any]]] = [
    ({}, {}),
    (
        {"ttl": "2h", "max_bytes": 8388608, "storage": "memory", "description": "o"},
        {"ttl": 7200, "max_bytes": 8388608, "storage": api.StorageType.MEMORY, "description": "o"},
    ),
]


@pytest.fixture(params=RELEASES, scope="module")
def release_server(request: pytest.FixtureRequest) -> Iterator[tuple[str, NatsServer]]:
    version = request.param
    binary = natsserver.server_binary() if version == "2.15.1" else str(SHARE / version / "nats-server")
    saved = natsserver.server_binary
    natsserver.server_binary = lambda: binary  # the helper starts whatever this returns
    try:
        s = NatsServer().start()
    finally:
        natsserver.server_binary = saved
    try:
        yield version, s
    finally:
        s.stop()


def _created(url: str, kind: str, bucket: str, params: dict[str, Any]) -> dict[str, Any]:
    async def go() -> dict[str, Any]:
        nc = await nats.connect(url)
        try:
            js = nc.jetstream()
            if kind == "KeyValue":
                await js.create_key_value(api.KeyValueConfig(bucket=bucket, **params))
                name = "KV_" + bucket
            else:
                await js.create_object_store(bucket, api.ObjectStoreConfig(**params))
                name = "OBJ_" + bucket
            msg = await nc.request(f"$JS.API.STREAM.INFO.{name}", b"", timeout=5)
            import json

            return json.loads(msg.data)["config"]
        finally:
            await nc.close()

    return asyncio.run(go())


def _compare(ours: dict[str, Any], theirs: dict[str, Any]) -> list[str]:
    """Field-by-field differences; a field the server omits equals our false/empty/zero value."""
    theirs = strip_server_metadata(theirs)
    diffs = []
    for key in sorted(set(ours) | set(theirs)):
        a, b = ours.get(key), theirs.get(key)
        if key not in theirs and a in (False, None, {}, [], 0, "none"):
            continue
        if key not in ours and b in (False, None, {}, [], 0, "none"):
            continue
        if a != b:
            diffs.append(f"{key}: jsops {a!r} != server {b!r}")
    return diffs


@pytest.mark.parametrize("case", range(len(KV_CASES)))
def test_kv_stream_equals_nats_py(release_server: tuple[str, NatsServer], case: int) -> None:
    version, server = release_server
    ours_cfg, py_params = KV_CASES[case]
    bucket = f"kv{case}"
    sent = kv_stream(KeyValueConfig.model_validate(ours_cfg), bucket, client="nats-py")
    ours = api_json(effective_stream(StreamConfig.model_validate(sent)))
    if version < "2.11":  # nats-py sends allow_msg_ttl; servers before 2.11 do not know the field
        ours.pop("allow_msg_ttl", None)
    theirs = _created(server.url, "KeyValue", bucket, py_params)
    assert _compare(ours, theirs) == []
    # and the fields jsops computes are there, not defaults by accident
    assert theirs["subjects"] == [f"$KV.{bucket}.>"] and theirs["deny_delete"] is True and theirs["discard"] == "new"


@pytest.mark.parametrize("case", range(len(OBJ_CASES)))
def test_object_stream_equals_nats_py(release_server: tuple[str, NatsServer], case: int) -> None:
    _, server = release_server
    ours_cfg, py_params = OBJ_CASES[case]
    bucket = f"ob{case}"
    sent = object_stream(ObjectStoreConfig.model_validate(ours_cfg), bucket, client="nats-py")
    ours = api_json(effective_stream(StreamConfig.model_validate(sent)))
    theirs = _created(server.url, "ObjectStore", bucket, py_params)
    assert _compare(ours, theirs) == []
    assert sorted(theirs["subjects"]) == sorted([f"$O.{bucket}.C.>", f"$O.{bucket}.M.>"])


def test_go_shape_accepted_as_is(release_server: tuple[str, NatsServer]) -> None:
    """The Go client's KV and Object Store streams (what jsops applies) are stored exactly as computed."""
    import json

    version, server = release_server
    kv = KeyValueConfig.model_validate({"history": 5, "ttl": "10m", "compression": True, "metadata": {"team": "a"}})
    ob = ObjectStoreConfig.model_validate({"compression": True, "max_bytes": 1048576})
    mirror = KeyValueConfig.model_validate({"mirror": {"name": "gokv"}, "history": 5})
    sourcing = KeyValueConfig.model_validate({"sources": [{"name": "gokv"}], "history": 5})
    for sent in (
        kv_stream(kv, "gokv"),
        object_stream(ob, "goob"),
        kv_stream(mirror, "gomirror"),
        kv_stream(sourcing, "gosrc"),
    ):

        async def go(sent: dict[str, Any] = sent) -> dict[str, Any]:
            nc = await nats.connect(server.url)
            try:
                msg = await nc.request(f"$JS.API.STREAM.CREATE.{sent['name']}", json.dumps(sent).encode(), timeout=5)
                return json.loads(msg.data)
            finally:
                await nc.close()

        resp = asyncio.run(go())
        assert "error" not in resp, resp
        assert _compare(api_json(effective_stream(StreamConfig.model_validate(sent))), resp["config"]) == []
