"""The JSON Schemas in docs/schemas: the profiles schema is the model's own (one home per fact: it is
generated from :class:`jsops.linter.model.profiles.Profiles` and must not drift), and every line the synthetic
telemetry and ``jsops collect``'s gap record produce validates against the telemetry schemas."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from jsops.linter.model.profiles import Profiles
from jsops.profiler.synthetic import default_spec, generate

jsonschema = pytest.importorskip("jsonschema")
referencing = pytest.importorskip("referencing")

SCHEMAS = Path(__file__).resolve().parents[2] / "docs" / "schemas"


def _validator(name: str) -> Any:
    resources = [
        (f"jsops/{p.name}", referencing.Resource.from_contents(json.loads(p.read_text())))
        for p in SCHEMAS.glob("*.schema.json")
    ]
    registry = referencing.Registry().with_resources(resources)
    schema = json.loads((SCHEMAS / name).read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema, registry=registry, format_checker=jsonschema.FormatChecker())


def test_the_profiles_schema_is_the_model_s() -> None:
    committed = json.loads((SCHEMAS / "profiles.schema.json").read_text())
    want = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "jsops/profiles.schema.json",
        **Profiles.model_json_schema(),
    }
    assert committed == want, "regenerate docs/schemas/profiles.schema.json from Profiles.model_json_schema()"


def test_synthetic_telemetry_validates_and_a_wrong_line_does_not(tmp_path: Path) -> None:
    generate(tmp_path, default_spec(acks=300, publish_ids=100, seed=5, files=1))
    events = _validator("telemetry-event.schema.json")
    seen: set[str] = set()
    for f in tmp_path.glob("*.jsonl"):
        for line in f.read_text().splitlines():
            doc = json.loads(line)
            errors = list(events.iter_errors(doc))
            assert not errors, (line, errors[0].message)
            seen.add(str(doc.get("type", "snapshot")))
    assert {"io.jsops.publish.v1", "io.nats.jetstream.metric.v1.consumer_ack"} <= seen
    gap = {
        "type": "io.jsops.collect.v1.gap",
        "ts": "2026-11-20T12:00:05Z",
        "start": "2026-11-20T12:00:00Z",
        "end": "2026-11-20T12:00:05Z",
        "gap_ns": 5_000_000_000,
        "server": "nats://127.0.0.1:4222",
    }
    assert not list(events.iter_errors(gap))
    publish = _validator("publish-log.schema.json")
    line = {
        "type": "io.jsops.publish.v1",
        "ts": "2026-11-20T12:00:00Z",
        "stream": "ORDERS",
        "msg_id": "a",
        "attempt": 1,
        "result": "ok",
    }
    assert not list(publish.iter_errors(line))
    for bad in ({**line, "result": "maybe"}, {**line, "attempt": 0}, {k: v for k, v in line.items() if k != "msg_id"}):
        assert list(publish.iter_errors(bad)), bad
