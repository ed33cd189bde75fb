"""Agreement of the estate-wide, target and rewrite rules with a real nats-server.

Every case of tests/test_rules_estate.py with a ``server`` is applied to a fresh state of the
named server in order, streams then consumers, as raw API requests whose bodies are the
manifests' configs without unset fields (the server applies its own defaults). The objects the
server refuses, and their err_codes, must be exactly the ones jsops predicts. For the silent
rewrites, the stored config must show the effective value the warning names.

Servers: ``plain`` (standalone, no limits), ``limits`` (``jetstream.limits`` and an account with
JetStream limits, matching ``LIMITS``), ``required`` (an account with ``max_bytes_required``).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import nats
import pytest
from natsserver import NatsServer

from jsops.linter.findings import Finding, Severity
from jsops.linter.load import Estate, Resource
from tests.rules.test_estate import CASES, EstateCase, load_estate, predict

pytestmark = pytest.mark.integration

MiB = 1 << 20
ACCOUNT = "no_auth_user: a\naccounts {{ A {{ jetstream {{ {limits} }}\n users = [{{user: a, password: a}}] }} }}\n"
SERVERS = {
    "plain": {},
    "limits": {
        "jetstream_config": 'limits { duplicate_window: "1m", max_request_batch: 50, max_ack_pending: 100 }',
        "extra_config": ACCOUNT.format(
            limits=f"max_mem: {4 * MiB}, max_file: {3 * MiB}, max_streams: 4, max_consumers: 3, "
            f"mem_max_stream_bytes: {MiB}, disk_max_stream_bytes: {MiB}, max_ack_pending: 20"
        ),
    },
    "required": {
        "extra_config": ACCOUNT.format(limits=f"max_mem: {64 * MiB}, max_file: {64 * MiB}, max_bytes_required: true")
    },
}

Key = tuple[str, str]  # (kind, name)


def stream_body(res: Resource) -> dict[str, Any]:
    cfg = res.config.model_dump(mode="json", exclude_none=True)
    cfg["name"] = res.name
    return cfg


def consumer_body(res: Resource) -> dict[str, Any]:
    return {"stream_name": res.stream, "config": res.config.model_dump(mode="json", exclude_none=True)}


async def apply_estate(
    nc: Any,
    estate: Estate,
    timeout: float = 5.0,
    pedantic: bool = False,
) -> tuple[dict[Key, int | None], dict[Key, dict[str, Any]]]:
    """Create the estate's streams, then its consumers, in order. Returns each object's err_code
    (None when created; consumers of a refused stream are not sent) and the stored configs.
    ``pedantic`` sends every create request with ``"pedantic": true``."""
    extra = {"pedantic": True} if pedantic else {}
    results: dict[Key, int | None] = {}
    stored: dict[Key, dict[str, Any]] = {}
    created: set[str] = set()
    for res in estate.resources:
        if res.kind != "Stream":
            continue
        body = json.dumps({**stream_body(res), **extra}).encode()
        for attempt in range(20):
            msg = await nc.request(f"$JS.API.STREAM.CREATE.{res.name}", body, timeout=timeout)
            resp = json.loads(msg.data)
            err = resp.get("error")
            # Re-creating a file stream right after deleting one of the same name can race the
            # removal of the old store directory; that is not an answer about the config.
            if not err or err["err_code"] != 10049 or "error creating store" not in err.get("description", ""):
                break
            await asyncio.sleep(0.05 * (attempt + 1))
        results[("Stream", res.name)] = err["err_code"] if err else None
        if not err:
            created.add(res.name)
            stored[("Stream", res.name)] = resp["config"]
    for res in estate.resources:
        if res.kind != "Consumer" or res.stream not in created:
            continue
        subject = f"$JS.API.CONSUMER.CREATE.{res.stream}.{res.name}"
        msg = await nc.request(subject, json.dumps({**consumer_body(res), **extra}).encode(), timeout=timeout)
        resp = json.loads(msg.data)
        err = resp.get("error")
        results[("Consumer", res.name)] = err["err_code"] if err else None
        if not err:
            stored[("Consumer", res.name)] = resp["config"]
    return results, stored


async def delete_all(nc: Any, timeout: float = 5.0) -> None:
    while True:
        msg = await nc.request("$JS.API.STREAM.NAMES", b"{}", timeout=timeout)
        names = json.loads(msg.data).get("streams") or []
        if not names:
            return
        for name in names:
            await nc.request(f"$JS.API.STREAM.DELETE.{name}", b"", timeout=timeout)


def predicted_errors(findings: list[Finding]) -> dict[Key, list[int | None]]:
    out: dict[Key, list[int | None]] = {}
    for f in findings:
        if f.severity is Severity.ERROR and f.object is not None:
            out.setdefault((f.object.kind, f.object.name), []).append(f.server_error_code)
    return out


def server_answers(findings: list[Finding]) -> dict[Key, int | None]:
    """Per object, the err_code of the finding jsops marks as the server's answer (``server_answer``)."""
    return {(f.object.kind, f.object.name): f.server_error_code for f in findings if f.server_answer and f.object}


@pytest.fixture(scope="module")
def servers():
    running: dict[str, NatsServer] = {}
    try:
        for name, kw in SERVERS.items():
            running[name] = NatsServer(**kw).start()
        yield running
    finally:
        for srv in running.values():
            srv.stop()


async def _run(url: str, estate: Estate):
    nc = await nats.connect(url)
    try:
        await delete_all(nc)
        try:
            return await apply_estate(nc, estate)
        finally:
            await delete_all(nc)
    finally:
        await nc.close()


@pytest.mark.parametrize("case", [c for c in CASES if c.server], ids=lambda c: c.id)
def test_server_agrees(servers: dict[str, NatsServer], case: EstateCase):
    estate = load_estate(case.text())
    findings = predict(estate, case.target)
    predicted = predicted_errors(findings)
    results, stored = asyncio.run(_run(servers[case.server].url, estate))
    refused = {name: code for (_, name), code in results.items() if code is not None}
    assert refused == {name: code for name, (_, code) in case.rejected.items()}, (refused, case.rejected)
    for (kind, name), code in results.items():
        if code is None:
            assert (kind, name) not in predicted, f"false alarm on {kind} {name}: {predicted[(kind, name)]}"
        else:
            answer = server_answers(findings).get((kind, name))
            assert code == answer, (kind, name, code, answer, predicted.get((kind, name)))
    # silent rewrites: the stored config holds the effective value the warning names
    for f in findings:
        key = (f.object.kind, f.object.name) if f.object is not None else None
        if f.severity is Severity.WARNING and f.rule in REWRITES and key in stored:
            REWRITES[f.rule](stored[(f.object.kind, f.object.name)], estate, f.object.name)


def _res(estate: Estate, name: str) -> Resource:
    return next(r for r in estate.resources if r.name == name)


def _subjects(cfg: dict[str, Any], estate: Estate, name: str) -> None:
    assert cfg["subjects"] == [name]


def _dup(cfg: dict[str, Any], estate: Estate, name: str) -> None:
    res = _res(estate, name)
    assert cfg["duplicate_window"] < 120_000_000_000
    assert cfg["duplicate_window"] in (res.config.max_age, 60_000_000_000)  # type: ignore[union-attr]


def _ttl(cfg: dict[str, Any], estate: Estate, name: str) -> None:
    assert cfg["allow_rollup_hdrs"] is True and cfg["deny_purge"] is False
    if cfg.get("subject_delete_marker_ttl"):
        assert cfg["allow_msg_ttl"] is True


def _mirror_direct(cfg: dict[str, Any], estate: Estate, name: str) -> None:
    origin = _res(estate, cfg["mirror"]["name"])
    assert cfg["mirror_direct"] is bool(origin.config.allow_direct)  # type: ignore[union-attr]
    assert cfg["mirror_direct"] is not bool(_res(estate, name).config.mirror_direct)  # type: ignore[union-attr]


def _ack_wait(cfg: dict[str, Any], estate: Estate, name: str) -> None:
    assert cfg["ack_wait"] == cfg["backoff"][0] != _res(estate, name).config.ack_wait  # type: ignore[union-attr]


def _flow_control(cfg: dict[str, Any], estate: Estate, name: str) -> None:
    assert cfg["flow_control"] is True and cfg["idle_heartbeat"] == 1_000_000_000


REWRITES = {
    "JS321": _subjects,
    "JS322": _dup,
    "JS323": _ttl,
    "JS324": _mirror_direct,
    "JS325": _ack_wait,
    "JS326": _flow_control,
}
