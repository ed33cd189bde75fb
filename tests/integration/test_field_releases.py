"""Every field's release claim, measured on the binaries (issue 35 item 3).

The field catalog dates each stream and consumer config field (and the fields of the records nested in
them) with the first release whose server decodes it (``Field.since``) and, for a field the server dropped,
the first release that no longer decodes it (``Field.removed``: ``template_owner``, stream templates, gone
from 2.14). For each of the five supported releases this sends every field to a real server and reads
whether the server decodes it:

- from 2.12 the server decodes strictly: a field it does not know is refused with 10025, so the field is
  sent with a value of its own type (the catalog's default, else the type's zero value) and the server
  knows it when the answer is anything but 10025 (another check may refuse the probe; that is fine);
- before 2.12 an unknown field is dropped silently, so the field is sent with a value of the wrong JSON
  type: a field the server knows fails to decode (10025), one it does not know is dropped.

A nested record's field is sent inside the record, on the path the catalog gives (a source: one entry of
``sources``). The claim holds when "known" equals ``since <= release < removed`` for every field and
release (``Field.decoded_by``), and lint predicts exactly that: a field the target no longer decodes is
refused with 10025 from 2.12 (JS311), one it decodes is not reported as unknown.
"""

from __future__ import annotations

import asyncio
import json
import types
import typing
from collections.abc import Iterator
from typing import Any

import nats
import pytest
from natsserver import NatsServer, release_binary

from jsops.linter.model import config as model
from jsops.linter.semantics import catalog
from jsops.linter.semantics.errcodes import ErrCode
from jsops.linter.semantics.releases import STRICT_JSON_DEFAULT, SUPPORTED, parse_version
from jsops.linter.testing import lint_text

pytestmark = pytest.mark.integration

# The catalog's records that are request bodies' parts, by the model class that reads them.
MODELS: dict[str, type[Any]] = {
    "Stream": model.StreamConfig,
    "Consumer": model.ConsumerConfig,
    "StreamSource": model.StreamSource,
    "Placement": model.Placement,
    "Republish": model.Republish,
    "SubjectTransform": model.SubjectTransform,
    "ExternalStream": model.ExternalStream,
    "StreamConsumerSource": model.StreamConsumerSource,
    "StreamConsumerLimits": model.StreamConsumerLimits,
}


def _zero(ann: Any) -> object:
    """A value of the annotation's JSON type that decodes (the type's zero value, an enum's first value)."""
    origin, args = typing.get_origin(ann), typing.get_args(ann)
    if origin in (typing.Union, types.UnionType):
        return _zero(next(a for a in args if a is not type(None)))
    if origin is typing.Annotated:
        return _zero(args[0])
    if origin is typing.Literal:
        return args[0]
    if origin is list:
        return []
    if origin is dict or (isinstance(ann, type) and issubclass(ann, model._Model)):
        return {}
    text = f"{getattr(ann, '__name__', '')} {ann}"
    if "datetime" in text or "Timestamp" in text:
        return "0001-01-01T00:00:00Z"
    if "Bool" in text or ann is bool:
        return False
    if "Int" in text or "Duration" in text or "Size" in text or ann is int:
        return 0
    if "Str" in text or ann is str:
        return ""
    raise TypeError(f"no probe value for {ann!r}")


def _path(record: str) -> tuple[catalog.Field, ...]:
    """The fields leading from Stream to ``record`` (breadth first: the shortest path)."""
    todo: list[tuple[str, tuple[catalog.Field, ...]]] = [("Stream", ())]
    seen = {"Stream"}
    while todo:
        name, path = todo.pop(0)
        if name == record:
            return path
        for f in catalog.RECORDS[name].fields:
            if f.record in MODELS and f.record not in seen:
                seen.add(f.record)
                todo.append((f.record, (*path, f)))
    raise KeyError(record)


def _embed(path: tuple[catalog.Field, ...], inner: dict[str, object]) -> dict[str, object]:
    out: dict[str, object] = inner
    for f in reversed(path):
        if f.record == "StreamSource":
            out = {"name": "ORIGIN", **out}
        out = {f.name: [out] if f.many else out}
    return out


def _probes(strict: bool) -> Iterator[tuple[str, str, dict[str, object]]]:
    """(record, field, the fragment to send) for every field of every record."""
    for record, cls in MODELS.items():
        for f in catalog.RECORDS[record].fields:
            value = _zero(cls.model_fields[f.name].annotation)
            if f.default is not catalog.ABSENT and type(f.default) is type(value):
                value = f.default
            if not strict:
                value = 7 if isinstance(value, str) else "x"
            fragment = {f.name: value} if record in ("Stream", "Consumer") else _embed(_path(record), {f.name: value})
            yield record, f.name, fragment


async def _known(url: str, strict: bool) -> dict[tuple[str, str], bool]:
    nc = await nats.connect(url)
    out: dict[tuple[str, str], bool] = {}
    try:
        made = json.loads(
            (
                await nc.request(
                    "$JS.API.STREAM.CREATE.HOST",
                    b'{"name":"HOST","subjects":["host.>"],"storage":"memory"}',
                    timeout=10,
                )
            ).data
        )
        assert "error" not in made, made
        for n, (record, name, fragment) in enumerate(_probes(strict)):
            if record == "Consumer":
                config: dict[str, object] = {"name": f"P{n}", **fragment}
                if name in ("name", "durable_name") and strict:
                    config = {name: f"P{n}"}
                reply = await nc.request(
                    "$JS.API.CONSUMER.CREATE.HOST",
                    json.dumps({"stream_name": "HOST", "config": config}).encode(),
                    timeout=10,
                )
            else:
                stream = f"S{n}"
                config = {"name": stream, "subjects": [f"s{n}.>"], "storage": "memory", **fragment}
                if record == "Stream" and name == "name" and strict:
                    config["name"] = stream
                reply = await nc.request(f"$JS.API.STREAM.CREATE.{stream}", json.dumps(config).encode(), timeout=10)
            answer = json.loads(reply.data)
            code = (answer.get("error") or {}).get("err_code")
            out[record, name] = code != ErrCode.INVALID_JSON if strict else code == ErrCode.INVALID_JSON
            if record != "Consumer" and "error" not in answer:
                await nc.request(f"$JS.API.STREAM.DELETE.{stream}", b"", timeout=10)
    finally:
        await nc.close()
    return out


@pytest.mark.parametrize("version", SUPPORTED)
def test_each_field_is_decoded_from_the_release_the_catalog_dates_it(version: str) -> None:
    binary = release_binary(version)
    if binary is None:
        pytest.skip(f"nats-server {version} was not fetched at install (.ci/fetch-nats-servers)")
    release = parse_version(version)
    assert release is not None
    with NatsServer(binary=binary) as server:
        known = asyncio.run(_known(server.url, strict=release >= STRICT_JSON_DEFAULT))
    claimed = {(rec, name): catalog.RECORDS[rec][name].decoded_by(release) for rec, name in known}
    wrong = sorted(key for key in known if known[key] != claimed[key])
    assert not wrong, [
        (
            f"{rec}.{name}",
            "decoded" if known[rec, name] else "not decoded",
            catalog.RECORDS[rec][name].since,
            catalog.RECORDS[rec][name].removed,
        )
        for rec, name in wrong
    ]
    # the probe can tell both answers apart on this release: some fields are older and, before the
    # newest release, some are newer
    assert any(known.values())
    if release < (2, 14, 0):
        assert not all(known.values())


REMOVED = sorted((rec, f.name) for rec in MODELS for f in catalog.RECORDS[rec].fields if f.removed is not None)


def test_some_field_has_a_last_release() -> None:
    assert ("Stream", "template_owner") in REMOVED


async def _template_owner_answers(url: str) -> tuple[int | None, int | None, int | None]:
    """The err_codes (None: accepted) of a create naming no template (``""``), of a create naming one, and of an
    update naming one."""
    nc = await nats.connect(url)
    try:
        codes: list[int | None] = []
        for n, owner in enumerate(("", "TPL")):
            config = {"name": f"T{n}", "subjects": [f"t{n}.>"], "storage": "memory", "template_owner": owner}
            reply = await nc.request(f"$JS.API.STREAM.CREATE.T{n}", json.dumps(config).encode(), timeout=10)
            codes.append((json.loads(reply.data).get("error") or {}).get("err_code"))
        base = {"name": "U", "subjects": ["u.>"], "storage": "memory"}
        made = json.loads((await nc.request("$JS.API.STREAM.CREATE.U", json.dumps(base).encode(), timeout=10)).data)
        assert "error" not in made, made
        update = {**base, "template_owner": "TPL"}
        reply = await nc.request("$JS.API.STREAM.UPDATE.U", json.dumps(update).encode(), timeout=10)
        codes.append((json.loads(reply.data).get("error") or {}).get("err_code"))
    finally:
        await nc.close()
    return codes[0], codes[1], codes[2]


@pytest.mark.parametrize("version", SUPPORTED)
def test_template_owner_is_answered_as_lint_predicts(version: str) -> None:
    """Measured: 2.10.26, 2.11.11, 2.12.8 decode ``template_owner`` (an empty one is accepted, one naming a
    template is refused: 10049 on create, 10052 on update); 2.14.6 and 2.15.1 refuse the field itself
    (10025). Lint predicts the code the release answers a create naming a template with: 10025 exactly where
    the catalog's last release says so (JS311), 10049 where the release decodes the field (JS128)."""
    binary = release_binary(version)
    if binary is None:
        pytest.skip(f"nats-server {version} was not fetched at install (.ci/fetch-nats-servers)")
    release = parse_version(version)
    assert release is not None
    with NatsServer(binary=binary) as server:
        empty, named, update = asyncio.run(_template_owner_answers(server.url))
    decoded = catalog.STREAM["template_owner"].decoded_by(release)
    if decoded:
        assert (empty, named, update) == (None, ErrCode.STREAM_CREATE, ErrCode.STREAM_INVALID_CONFIG)
    else:
        assert (empty, named, update) == (ErrCode.INVALID_JSON,) * 3
    text = (
        "apiVersion: jsops/v1\nkind: Stream\nmetadata: {name: T}\n"
        'spec: {subjects: ["t.>"], max_age: 1h, template_owner: TPL}\n'
    )
    findings = lint_text(text, target={"server_version": version})
    predicted = sorted(f.server_error_code for f in findings if f.server_error_code is not None)
    assert predicted == [named], [(f.rule, f.message) for f in findings]  # 10049 (JS128) or 10025 (JS311)
