"""The JSON Schema of native manifests (docs/schema/jsops-v1.schema.json): generated from the model and
committed up to date, valid itself, accepting every example manifest, and rejecting the type errors
``jsops lint`` rejects (and only those: on a table of documents, the schema and the loader agree).
Its duration and size patterns accept exactly the strings the unit parsers accept."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Any

import pytest
import yaml
from jsonschema import Draft202012Validator

from jsops.linter.load.json_schema import DURATION_PATTERN, SIZE_PATTERN, manifest_schema
from jsops.linter.semantics.units import UnitError, parse_duration, parse_size
from jsops.linter.testing import estate_from_text, manifest

ROOT = Path(__file__).resolve().parents[2]
SCHEMA_FILE = ROOT / "docs" / "schema" / "jsops-v1.schema.json"
VALIDATOR = Draft202012Validator(json.loads(SCHEMA_FILE.read_text()))


def test_committed_schema_is_up_to_date() -> None:
    fresh = json.dumps(manifest_schema(), indent=2, ensure_ascii=False) + "\n"
    if os.environ.get("JSOPS_UPDATE_GOLDEN") == "1":
        SCHEMA_FILE.write_text(fresh)
    assert SCHEMA_FILE.read_text() == fresh, "the model changed: rerun with JSOPS_UPDATE_GOLDEN=1 and review the diff"
    Draft202012Validator.check_schema(json.loads(fresh))


def _examples() -> list[tuple[str, dict[str, Any]]]:
    from jsops.linter.cli.render import render_estate

    out = [
        (f"{f.name}#{i}", d)
        for f in sorted((ROOT / "manifests").rglob("*.y*ml"))
        for i, d in enumerate(yaml.safe_load_all(f.read_text()))
        if d
    ]
    for env in ("dev", "prod"):
        text, findings = render_estate([str(ROOT / "docs" / "examples" / "environments")], env)
        assert not findings
        out += [(f"examples/{env}#{i}", d) for i, d in enumerate(yaml.safe_load_all(text)) if d]
    return [(n, d) for n, d in out if d.get("apiVersion") == "jsops/v1"]


def test_every_example_manifest_validates() -> None:
    examples = _examples()
    assert len(examples) >= 20 and {d["kind"] for _, d in examples} >= {"Stream", "Consumer", "KeyValue"}
    errors = {name: [e.message for e in VALIDATOR.iter_errors(doc)] for name, doc in examples}
    assert {n: e for n, e in errors.items() if e} == {}


def _doc(kind: str, spec: dict[str, Any], **meta: Any) -> dict[str, Any]:
    d = manifest(
        kind,
        "ORDERS" if kind == "Stream" else "carts" if kind in ("KeyValue", "ObjectStore") else "shipper",
        spec,
        stream="ORDERS" if kind == "Consumer" else None,
    )
    d["metadata"].update(meta)
    return d


CASES: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    ("Stream", {"subjects": ["orders.>"], "max_age": "30d", "max_bytes": "10GiB", "duplicate_window": "2m"}, {}),
    ("Stream", {"max_age": 3_600_000_000_000, "max_msg_size": 1048576, "num_replicas": 3}, {}),
    ("Stream", {"max_age": "1 hour"}, {}),
    ("Stream", {"max_age": True}, {}),
    ("Stream", {"max_age": "90"}, {}),
    ("Stream", {"max_bytes": "10XB"}, {}),
    ("Stream", {"max_bytes": "1.5GiB"}, {}),
    ("Stream", {"num_replicas": "3"}, {}),
    ("Stream", {"num_replicas": 2.5}, {}),
    ("Stream", {"subjects": "orders.>"}, {}),
    ("Stream", {"retention": "work"}, {}),
    ("Stream", {"storage": "disk"}, {}),
    ("Stream", {"sealed": "yes"}, {}),
    ("Stream", {"max_age_days": 3}, {}),
    ("Stream", {"placement": {"cluster": "east", "tags": ["ssd"]}}, {}),
    ("Stream", {"placement": {"cluster": 1}}, {}),
    ("Stream", {"placement": {"zone": "a"}}, {}),
    ("Stream", {"metadata": {"team": "shop"}}, {}),
    ("Stream", {"metadata": {"team": 1}}, {}),
    ("Stream", {"sources": [{"name": "A", "filter_subject": "a.>"}]}, {}),
    ("Stream", {"sources": [{"name": "A", "opt_start_seq": "1"}]}, {}),
    ("Stream", {}, {"annotations": {"jsops.io/allow-prune": "true"}}),
    ("Stream", {}, {"annotations": {"jsops.io/allow-prune": True}}),
    ("Stream", {}, {"context": "west"}),
    ("Stream", {}, {"context": ""}),
    ("Stream", {}, {"owner": "me"}),
    (
        "Consumer",
        {
            "ack_wait": "30s",
            "max_deliver": 5,
            "backoff": ["1s", "5s", 30_000_000_000],
            "filter_subject": "orders.created",
        },
        {},
    ),
    ("Consumer", {"ack_wait": "30 s"}, {}),
    ("Consumer", {"backoff": "1s"}, {}),
    ("Consumer", {"backoff": ["1s", "soon"]}, {}),
    ("Consumer", {"ack_policy": "manual"}, {}),
    ("Consumer", {"deliver_policy": "by_start_time", "opt_start_time": "2026-01-01T00:00:00Z"}, {}),
    ("Consumer", {"max_ack_pending": "1000"}, {}),
    ("Consumer", {"sample_freq": "100%"}, {}),
    ("Consumer", {"sample_freq": 10}, {}),
    ("Consumer", {"headers_only": 1}, {}),
    ("KeyValue", {"history": 3, "ttl": "7d", "max_bytes": "64MiB", "max_value_size": "64KiB"}, {}),
    ("KeyValue", {"history": "3"}, {}),
    ("KeyValue", {"ttl": "forever"}, {}),
    ("KeyValue", {"compression": "s2"}, {}),
    ("ObjectStore", {"max_bytes": "1GiB", "storage": "file", "replicas": 1}, {}),
    ("ObjectStore", {"chunk_size": 1024}, {}),
]


@pytest.mark.parametrize(
    ("kind", "spec", "meta"), CASES, ids=[f"{k}-{json.dumps(s)}-{json.dumps(m)}" for k, s, m in CASES]
)
def test_schema_rejects_what_lint_rejects(kind: str, spec: dict[str, Any], meta: dict[str, Any]) -> None:
    doc = _doc(kind, spec, **meta)
    estate = estate_from_text(yaml.safe_dump(doc), clean=False)
    lint_invalid = [f.message for f in estate.findings if f.rule == "JS005"]
    schema_errors = [e.message for e in VALIDATOR.iter_errors(doc)]
    assert bool(schema_errors) == bool(lint_invalid), (schema_errors, lint_invalid)


def test_cases_cover_both_outcomes() -> None:
    judged = [bool(list(VALIDATOR.iter_errors(_doc(k, s, **m)))) for k, s, m in CASES]
    assert 10 <= sum(judged) <= len(judged) - 8


def _accepts(parse: Any, text: str) -> bool:
    """Whether ``parse`` accepts the spelling of ``text`` (a value too large for 64 bits is a
    spelling the pattern accepts: the same text with smaller numbers parses)."""
    import re

    for candidate in (text, re.sub(r"[0-9]+", "1", text)):
        try:
            parse(candidate)
        except UnitError:
            continue
        return True
    return False


def _corpus(alphabet: str, fixed: list[str], n: int = 4000) -> list[str]:
    rng = random.Random(26)
    return fixed + ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 8))) for _ in range(n)]


def test_duration_pattern_matches_the_parser() -> None:
    import re

    pattern = re.compile(DURATION_PATTERN)
    fixed = [
        "0",
        "-0",
        "+0",
        "00",
        "90s",
        "1h30m",
        "1.5s",
        ".5s",
        "5.s",
        "1ms",
        "1m1s",
        "7d",
        "2w",
        "1µs",
        "1us",
        "1ns",
        " 1s ",
        "1",
        "s",
        "",
        ".",
        "1.s",
        "1 s",
        "1x",
        "-1s",
        "+1s",
        "1s-1s",
        "1e3s",
        "+",
        "-",
        " - ",
    ]
    corpus = _corpus("0123456789.smhdwnuµ+- ", fixed)
    wrong = [t for t in corpus if bool(pattern.search(t)) != _accepts(parse_duration, t)]
    assert wrong == []


def test_size_pattern_matches_the_parser() -> None:
    import re

    pattern = re.compile(SIZE_PATTERN)
    fixed = ["10GiB", "10gib", "10G", "10 GB", "1B", "1", "-1", "1.5GiB", "GiB", "10KI", "10XB", " 5 MiB ", "5MiBs", ""]
    corpus = _corpus("0123456789.-kKmMgGtTiIbBx ", fixed)
    wrong = [t for t in corpus if bool(pattern.search(t)) != _accepts(parse_size, t)]
    assert wrong == []


# What an editor shows: the best error is at the field, with the field's own reason.
WHERE: list[tuple[str, dict[str, Any], tuple[str | int, ...], str]] = [
    (
        "Consumer",
        {"deliver_policy": "sometimes"},
        ("spec", "deliver_policy"),
        "'by_start_time'",
    ),  # the values are listed
    ("Stream", {"retention": "work"}, ("spec", "retention"), "'workqueue'"),
    ("Stream", {"max_age": "1 hour"}, ("spec", "max_age"), "does not match"),
    ("Stream", {"num_replicas": "3"}, ("spec", "num_replicas"), "is not of type"),
    ("Stream", {"placement": {"cluster": 1}}, ("spec", "placement", "cluster"), "is not of type"),
    (
        "Stream",
        {"sources": [{"name": "A", "opt_start_seq": "1"}]},
        ("spec", "sources", 0, "opt_start_seq"),
        "is not of type",
    ),
    ("Consumer", {"backoff": ["1s", "soon"]}, ("spec", "backoff", 1), "does not match"),
    ("KeyValue", {"ttl": "forever"}, ("spec", "ttl"), "does not match"),
]


@pytest.mark.parametrize(
    ("kind", "spec", "path", "words"), WHERE, ids=[f"{k}-{'.'.join(map(str, p[1:]))}" for k, _, p, _ in WHERE]
)
def test_the_best_error_names_the_field_and_its_reason(
    kind: str, spec: dict[str, Any], path: tuple[str | int, ...], words: str
) -> None:
    from jsonschema.exceptions import best_match

    error = best_match(VALIDATOR.iter_errors(_doc(kind, spec)))
    assert error is not None
    assert tuple(error.absolute_path) == path, (error.message, list(error.absolute_path))
    assert words in error.message and "any of the given schemas" not in error.message


def test_null_stays_accepted_where_the_model_takes_it() -> None:
    for kind, spec in (
        ("Stream", {"max_age": None, "placement": None, "retention": None}),
        ("Consumer", {"backoff": None, "ack_policy": None}),
    ):
        assert list(VALIDATOR.iter_errors(_doc(kind, spec))) == []
    assert list(VALIDATOR.iter_errors({**_doc("Stream", {}), "spec": None})) == []


def test_the_documented_ci_check_validates_each_document(tmp_path: Path) -> None:
    import re
    import subprocess
    import sys

    text = (ROOT / "docs" / "manifest-files.md").read_text()
    (script,) = re.findall(r"```sh\n(python -c .*?) manifests/\*\.yaml\n```", text, re.S)
    code = script[len("python -c '") : -1]
    good = yaml.safe_dump(_doc("Stream", {"subjects": ["a"]}))
    bad = yaml.safe_dump(_doc("Stream", {"retention": "work"}))
    (tmp_path / "m.yaml").write_text(good + "---\n" + bad)
    path = str(tmp_path / "m.yaml")
    run = subprocess.run([sys.executable, "-c", code, path], cwd=ROOT, capture_output=True, text=True, check=False)
    assert run.returncode == 1 and run.stdout.startswith(f"{path}#1: $.spec.retention: 'work' is not one of"), (
        run.stdout + run.stderr
    )
