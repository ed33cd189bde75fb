"""Request bodies as clients send them, labelled by every supported release (issue 24).

tests/fixtures/request-bodies/ holds NATS API JSON files as natscli and client traces keep them:
type errors (a number written as a string, a list as a string, a float, an unknown enum value, a bad
time), request envelopes ($JS.API.CONSUMER.CREATE's ``stream_name``, ``config``, ``action``,
``pedantic``, and stray keys beside them; a stream body's ``pedantic``), and release adjustments
that must not hide another check (an unknown field on an R3 stream of a standalone server).
``labels.json`` records what each release answers (err_code, or null: accepted), measured on the
binaries; ``JSOPS_UPDATE_LABELS=1`` measures them again and rewrites it.

For every release and file: the server still answers as labelled, and jsops (target
``{server_version: <release>, clustered: false}``) predicts exactly that: an error finding with the
server's err_code when it refuses, no error finding when it accepts.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import nats
import pytest
from natsserver import NatsServer, release_binary

from jsops.linter.config import Config
from jsops.linter.engine import discover_rules, lint_estate
from jsops.linter.findings import Severity
from jsops.linter.load import Estate, check_estate, load_text
from jsops.linter.model.target import Target
from jsops.linter.semantics.releases import SUPPORTED

pytestmark = pytest.mark.integration

CORPUS = Path(__file__).parent.parent / "fixtures" / "request-bodies"
LABELS = CORPUS / "labels.json"
STREAM = "S0.json"  # the stream the consumer bodies are for


def _files() -> list[Path]:
    return sorted(p for p in CORPUS.glob("*.json") if p.name not in (STREAM, LABELS.name))


def _subject(body: dict[str, Any]) -> str:
    if "config" in body:
        return f"$JS.API.CONSUMER.CREATE.{body['stream_name']}.{body['config']['durable_name']}"
    return f"$JS.API.STREAM.CREATE.{body['name']}"


async def _answers(url: str) -> dict[str, int | None]:
    nc = await nats.connect(url)
    out: dict[str, int | None] = {}
    try:
        await nc.request("$JS.API.STREAM.CREATE.S0", (CORPUS / STREAM).read_bytes(), timeout=10)
        for f in _files():
            raw = f.read_bytes()
            msg = await nc.request(_subject(json.loads(raw)), raw, timeout=10)
            out[f.name] = (json.loads(msg.data).get("error") or {}).get("err_code")
    finally:
        await nc.close()
    return out


def _predicted(version: str) -> tuple[dict[str, set[int | None]], dict[str, set[int | None]]]:
    """Per file: the err_codes of jsops's error findings (None for an error without one; empty: accepted), and
    those of the findings it marks as the server's answer (one per object)."""
    estate = Estate()
    for f in [CORPUS / STREAM, *_files()]:
        load_text(f.read_bytes(), f.name, estate)
    check_estate(estate)
    result = lint_estate(
        estate,
        discover_rules(),
        config=Config(target=Target(server_version=version, clustered=False)),
        read_source=None,
    )
    out: dict[str, set[int | None]] = {f.name: set() for f in _files()}
    answered: dict[str, set[int | None]] = {f.name: set() for f in _files()}
    for finding in result.findings:
        if finding.severity is Severity.ERROR and finding.file in out:
            out[finding.file].add(finding.server_error_code)
            if finding.server_answer:
                answered[finding.file].add(finding.server_error_code)
    return out, answered


@pytest.mark.parametrize("version", SUPPORTED)
def test_jsops_predicts_what_each_release_answers(version: str) -> None:
    binary = release_binary(version)
    if binary is None:
        pytest.skip(f"nats-server {version} was not fetched at install (.ci/fetch-nats-servers)")
    server = NatsServer(binary=binary).start()
    try:
        answers = asyncio.run(_answers(server.url))
    finally:
        server.stop()
    labels = json.loads(LABELS.read_text()) if LABELS.exists() else {}
    if os.environ.get("JSOPS_UPDATE_LABELS") == "1":
        for name, code in answers.items():
            labels.setdefault(name, {})[version] = code
        LABELS.write_text(json.dumps(labels, indent=2, sort_keys=True) + "\n")
    assert answers == {name: by_release[version] for name, by_release in labels.items()}, (
        "the release answers differently from its labels"
    )
    predicted, answered = _predicted(version)
    wrong = {
        name: (code, sorted(predicted[name], key=str), sorted(answered[name], key=str))
        for name, code in answers.items()
        if (code is None and predicted[name]) or (code is not None and answered[name] != {code})
    }
    assert wrong == {}, (
        f"nats-server {version}: file -> (server's err_code, jsops's predicted codes, its server_answer)"
    )
