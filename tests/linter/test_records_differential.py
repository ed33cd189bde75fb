"""jsops.linter.model.records.record: the fast validator and the pydantic model judge every input alike.

Every record validation made while linting the rule cases, the golden inputs, the test corpora
(field files, NACK, natscli outputs, fixtures) and the example manifests is made both ways: the
records' own path (fast when it can judge, else pydantic) and the pydantic model alone. Results
must be the same records (values, their types, set fields) and dump as the pydantic instance
does; failures must be the same errors. Then every field of every model gets a spread of
generated values, alone and nested.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

import jsops.linter.config  # binds the name below
import jsops.linter.model.buckets  # binds the name below
import jsops.linter.model.target  # noqa: F401 (binds the name below)
from jsops import linter
from jsops.linter.engine import discover_rules
from jsops.linter.load import load_paths
from jsops.linter.model.config import ConsumerConfig, StreamConfig
from jsops.linter.model.records import record as records
from jsops.linter.model.records.to_pydantic import _from_pydantic, _to_pydantic
from jsops.linter.testing import lint_text
from tests.rules.cases import consumer, stream

ROOT = Path(__file__).resolve().parents[2]
CORPORA = [ROOT / "tests" / "golden", ROOT / "tests" / "fixtures", ROOT / "manifests"]


def _shape(value: Any) -> Any:
    """A value with every leaf's type spelled out (1 and True, lists and tuples differ)."""
    if isinstance(value, records.Record):
        return (
            type(value).__qualname__,
            sorted(value.model_fields_set),
            [(k, _shape(v)) for k, v in value.__dict__.items()],
        )
    if isinstance(value, list | tuple):
        return (type(value).__name__, [_shape(v) for v in value])
    if isinstance(value, dict):
        return ("dict", [(_shape(k), _shape(v)) for k, v in value.items()])
    return (type(value).__name__, repr(value))


def _pydantic_way(cls: type[records.Record], data: Any) -> tuple[str, Any, Any]:
    try:
        done = records.pydantic_model(cls).model_validate(_to_pydantic(data))
    except ValidationError as exc:
        return "error", json.dumps(exc.errors(include_url=False), default=repr, sort_keys=True), None
    dumps = [done.model_dump(mode=m, exclude_none=n) for m in ("python", "json") for n in (False, True)]
    return "ok", _shape(_from_pydantic(done)), dumps


def _record_way(cls: type[records.Record], data: Any) -> tuple[str, Any, Any]:
    try:
        rec = cls.model_validate(data)
    except ValidationError as exc:
        return "error", json.dumps(exc.errors(include_url=False), default=repr, sort_keys=True), None
    dumps = [rec.model_dump(mode=m, exclude_none=n) for m in ("python", "json") for n in (False, True)]
    return "ok", _shape(rec), dumps


class _Both:
    """Counts of what the fast validator judged, and every disagreement."""

    def __init__(self) -> None:
        self.fast = 0
        self.slow = 0
        self.diffs: list[Any] = []

    def compare(self, cls: type[records.Record], data: Any) -> None:
        try:
            if type(data) is not dict:
                raise records._Unsure
            records._fast(cls, data)
            self.fast += 1
        except records._Unsure:
            self.slow += 1
        mine, theirs = _record_way(cls, data), _pydantic_way(cls, data)
        if mine != theirs:
            self.diffs.append((cls.__qualname__, repr(data)[:300], mine, theirs))


@pytest.fixture
def both(monkeypatch: pytest.MonkeyPatch) -> Iterator[_Both]:
    """Every validation the code makes, compared both ways (the code then goes on as usual)."""
    seen = _Both()
    original = records._validated

    def validated(cls: type[records.Record], data: Any) -> tuple[dict[str, Any], set[str]]:
        monkeypatch.setattr(records, "_validated", original)
        try:
            seen.compare(cls, data)
        finally:
            monkeypatch.setattr(records, "_validated", validated)
        return original(cls, data)

    monkeypatch.setattr(records, "_validated", validated)
    yield seen
    assert seen.diffs == []


def test_rule_cases_validate_alike(both: _Both) -> None:
    for table in (stream.CASES, consumer.CASES):
        for case in (c.rule_case() for c in table):
            lint_text(case.docs, case.rule, target=case.target, profiles=case.profiles)
    assert both.fast > 500


def _corpus_files() -> list[Path]:
    return sorted(
        p for root in CORPORA for p in root.rglob("*") if p.suffix in (".yaml", ".yml", ".json") and p.is_file()
    )


def test_corpora_load_alike(both: _Both) -> None:
    files = _corpus_files()
    assert len(files) > 30
    for file in files:
        load_paths([str(file)])
    assert both.fast > 20


def test_configs_and_targets_alike(both: _Both, tmp_path: Path) -> None:
    for file in [
        ROOT / "tests" / "golden" / "capacity" / "jsops.yaml",
        ROOT / "tests" / "fixtures" / "report" / "small-jsops.yaml",
    ]:
        linter.config.load_config(str(file))
    rules = discover_rules()
    config = linter.config.Config.model_validate(
        {"rules": {"JS433": {"max_bytes": "2GiB"}, "JS402": {"use": "max"}}, "select": ["all"]}
    )
    linter.config.select_rules(config, rules)
    for r in rules:
        r()
    assert both.fast > 10


SAMPLES: list[Any] = [
    None,
    0,
    -1,
    1,
    2**70,
    1.5,
    2.0,
    True,
    False,
    "x",
    "",
    " x ",
    "7d",
    "1GiB",
    "1h30m",
    "-5s",
    "0",
    "10",
    "limits",
    "file",
    "explicit",
    "all",
    "s2",
    "async",
    "p99",
    [],
    ["a"],
    [1],
    ["5s", "1m"],
    [None],
    ("a",),
    {},
    {"a": "b"},
    {"a": 1},
    {"name": "X"},
    [{"name": "X"}],
    [{"src": "a", "dest": "b"}],
    {"env": "V"},
    {"env": "V", "file": "f"},
    "2026-01-02T15:04:05Z",
    datetime(2026, 1, 2, tzinfo=UTC),
    datetime(2026, 1, 2),
    b"x",
]


def _models() -> list[type[records.Record]]:
    discover_rules()
    return [r for r in records.declared_records() if r.model_fields]


def _mutations(cls: type[records.Record]) -> Iterator[Any]:
    yield {}
    yield {"bogus": 1}
    yield "not a mapping"
    yield None
    for name, spec in cls.model_fields.items():
        keys = {name, spec.alias or name}
        for key in keys:
            for sample in SAMPLES:
                yield {key: sample}
        if len(keys) == 2:
            yield {name: None, spec.alias: None}


def test_generated_values_validate_alike() -> None:
    seen = _Both()
    models = _models()
    assert {
        StreamConfig,
        ConsumerConfig,
        linter.model.target.Target,
        linter.config.Config,
        linter.model.buckets.KeyValueConfig,
    } <= set(models)
    for cls in models:
        for data in _mutations(cls):
            seen.compare(cls, data)
    nested = (
        [(StreamConfig, {"placement": {"tags": s}}) for s in SAMPLES]
        + [(StreamConfig, {"sources": [{"name": "A", "opt_start_seq": s}]}) for s in SAMPLES]
        + [(StreamConfig, {"consumer_limits": {"inactive_threshold": s}}) for s in SAMPLES]
        + [(ConsumerConfig, {"backoff": [s]}) for s in SAMPLES]
        + [(ConsumerConfig, {"metadata": {"k": s}}) for s in SAMPLES]
        + [(linter.config.Config, {"contexts": {"prod": {"password": s}}}) for s in SAMPLES]
        + [(linter.config.Config, {"severity": {"JS101": s}, "estate": s}) for s in SAMPLES]
    )
    for cls, data in nested:
        seen.compare(cls, data)
    assert seen.diffs == []
    assert seen.fast > 1000 and seen.slow > 1000
