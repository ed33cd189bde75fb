"""Seeded fuzz corpus: mutated native, NACK and API JSON manifests (metadata included) never crash.

Each case is a mutation of a valid seed manifest: a structural mutation (a value of another type
put anywhere in the document, metadata included; a key added, dropped or renamed; an int blown up)
serialised as YAML or JSON, or a byte-level mutation of the seed's text. Every case goes through
the in-process load path (``load_text`` and the estate checks), every rule (``lint_estate``), the
text and JSON reporters, and the plan's desired-state building (``desired_from_estate``, offline:
no server). Any exception is a failure: bad input must be findings, never a traceback. Seeded
and deterministic.
"""

from __future__ import annotations

import copy
import json
import random
import traceback
from typing import Any

import pytest

from jsops.linter import lint_estate
from jsops.linter.engine import discover_rules
from jsops.linter.load import Estate, check_estate, load_text
from jsops.linter.report.json import render_json
from jsops.linter.report.text import render_text
from jsops.reconciler.plan import desired_from_estate

N_STRUCTURAL = 1600
N_BYTES = 600

SEEDS: list[tuple[str, Any]] = [
    (
        "native-stream.yaml",
        {
            "apiVersion": "jsops/v1",
            "kind": "Stream",
            "metadata": {
                "name": "ORDERS",
                "context": "east",
                "annotations": {"jsops.io/allow-prune": "true"},
                "labels": {"team": "a"},
            },
            "spec": {
                "subjects": ["orders.>"],
                "max_age": "7d",
                "max_bytes": "1GiB",
                "num_replicas": 3,
                "storage": "file",
                "placement": {"cluster": "c1", "tags": ["ssd"]},
                "sources": [{"name": "UP", "filter_subject": "x.>"}],
                "metadata": {"owner": "t"},
                "duplicate_window": "2m",
            },
        },
    ),
    (
        "native-consumer.yaml",
        {
            "apiVersion": "jsops/v1",
            "kind": "Consumer",
            "metadata": {"name": "worker", "stream": "ORDERS", "context": "east"},
            "spec": {
                "ack_policy": "explicit",
                "ack_wait": "30s",
                "max_deliver": 5,
                "backoff": ["1s", "5s"],
                "filter_subjects": ["orders.a", "orders.b"],
                "deliver_policy": "all",
                "max_ack_pending": 1000,
            },
        },
    ),
    (
        "nack-stream.yaml",
        {
            "apiVersion": "jetstream.nats.io/v1beta2",
            "kind": "Stream",
            "metadata": {"name": "orders", "annotations": {"jsops.io/context": "east"}, "labels": {"app": "x"}},
            "spec": {
                "name": "ORDERS",
                "subjects": ["orders.>"],
                "maxAge": "24h",
                "replicas": 3,
                "storage": "file",
                "mirror": {"name": "UP", "externalApiPrefix": "$JS.hub.API"},
                "consumerLimits": {"inactiveThreshold": "5m"},
            },
        },
    ),
    (
        "nack-consumer.yaml",
        {
            "apiVersion": "jetstream.nats.io/v1beta2",
            "kind": "Consumer",
            "metadata": {"name": "worker", "annotations": {"jsops.io/context": "east"}},
            "spec": {
                "streamName": "ORDERS",
                "durableName": "worker",
                "ackPolicy": "explicit",
                "ackWait": "1m",
                "deliverPolicy": "byStartSequence",
                "optStartSeq": 5,
                "backoff": ["1s", "2s"],
            },
        },
    ),
    (
        "stream-info.json",
        {
            "config": {
                "name": "ORDERS",
                "subjects": ["orders.>"],
                "retention": "limits",
                "max_age": 86400000000000,
                "storage": "file",
                "num_replicas": 1,
                "max_bytes": -1,
            },
            "created": "2026-11-21T12:00:00Z",
            "state": {"messages": 0},
        },
    ),
    (
        "consumer-create.json",
        {
            "stream_name": "ORDERS",
            "config": {
                "durable_name": "worker",
                "ack_policy": "explicit",
                "ack_wait": 30000000000,
                "filter_subject": "orders.a",
                "max_deliver": -1,
            },
        },
    ),
]

ODD_STRINGS = [
    "",
    " ",
    "-",
    "~",
    "null",
    "yes",
    "0x1F",
    "1e400",
    "7d",
    "-1s",
    "1GiB",
    "\u202e",
    "a" * 300,
    "ORDERS",
    "default",
    "\x1b[31m",
    "2026-13-45T99:99:99Z",
    "*",
    ">",
    "a b",
    "µs",
    "1.5h",
    "9" * 40,
]


def _random_value(rng: random.Random, depth: int = 0) -> Any:
    choice = rng.randrange(12 if depth < 2 else 8)
    if choice == 0:
        return None
    if choice == 1:
        return rng.choice([True, False])
    if choice == 2:
        return rng.choice([0, -1, 1, 2**63, -(2**63) - 1, 10**30, 255, 256, 3])
    if choice == 3:
        return rng.choice([0.5, -1.5, 1e300, float("inf"), float("nan")]) if rng.random() < 0.5 else 1.0
    if choice in (4, 5, 6, 7):
        return rng.choice(ODD_STRINGS)
    if choice in (8, 9):
        return [_random_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {
        rng.choice(ODD_STRINGS + ["name", "context", "stream", "annotations"]): _random_value(rng, depth + 1)
        for _ in range(rng.randrange(4))
    }


def _paths(value: Any, here: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [here]
    if isinstance(value, dict):
        for k, v in value.items():
            out.extend(_paths(v, here + (k,)))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out.extend(_paths(v, here + (i,)))
    return out


def _set(doc: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    parent = doc
    for step in path[:-1]:
        parent = parent[step]
    parent[path[-1]] = value
    return doc


def _mutate(rng: random.Random, seed: Any) -> Any:
    doc = copy.deepcopy(seed)
    for _ in range(rng.randint(1, 3)):
        paths = _paths(doc)
        # Metadata is where the crashes were: aim there a third of the time.
        meta = [p for p in paths if p[:1] == ("metadata",)]
        path = rng.choice(meta) if meta and rng.random() < 0.33 else rng.choice(paths)
        op = rng.randrange(5)
        target: Any = doc
        for step in path:
            target = target[step]
        if op == 0 or not path:
            doc = _set(doc, path, _random_value(rng))
        elif op == 1 and isinstance(target, dict):
            target[rng.choice(ODD_STRINGS + ["context", "stream", "name", "labels"])] = _random_value(rng)
        elif op == 2 and isinstance(target, dict) and target:
            target.pop(rng.choice(list(target)))
        elif op == 3 and isinstance(target, dict) and target:
            key = rng.choice(list(target))
            target[key.upper() if key != key.upper() else key.lower() + "x"] = target.pop(key)
        else:
            doc = _set(doc, path, rng.choice([[target], {"x": target}, [target, target], str(target)[:50], 10**20]))
    return doc


def _yaml(value: Any, indent: int = 0) -> str:
    """Block-style YAML (scalars as JSON, which YAML reads), so positions are real lines."""
    pad = " " * indent
    if isinstance(value, dict) and value:
        lines = []
        for k, v in value.items():
            key = json.dumps(str(k))
            if isinstance(v, (dict, list)) and v:
                lines.append(f"{pad}{key}:\n{_yaml(v, indent + 2)}")
            else:
                lines.append(f"{pad}{key}: {_scalar(v)}")
        return "\n".join(lines)
    if isinstance(value, list) and value:
        lines = []
        for v in value:
            if isinstance(v, (dict, list)) and v:
                lines.append(f"{pad}-\n{_yaml(v, indent + 2)}")
            else:
                lines.append(f"{pad}- {_scalar(v)}")
        return "\n".join(lines)
    return pad + _scalar(value)


def _scalar(v: Any) -> str:
    if isinstance(v, float) and (v != v or v in (float("inf"), float("-inf"))):
        return ".nan" if v != v else (".inf" if v > 0 else "-.inf")
    return (
        json.dumps(v, ensure_ascii=False)
        if not isinstance(v, (dict, list))
        else ("{}" if isinstance(v, dict) else "[]")
    )


def _byte_mutation(rng: random.Random, data: bytes) -> bytes:
    b = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        op = rng.randrange(4)
        i = rng.randrange(len(b) + 1)
        if op == 0 and b:
            b[min(i, len(b) - 1)] = rng.choice(b":-[]{}&*!|>'\"\n #,?%@`\t\x00\xff0aZ")
        elif op == 1:
            b[i:i] = rng.choice(
                [b"\n---\n", b": ", b"- ", b"&a ", b"*a", b"!!binary ", b"{", b"[", b"\xef\xbb\xbf", b"\xc3"]
            )
        elif op == 2 and b:
            del b[i : i + rng.randint(1, 20)]
        else:
            j = rng.randrange(len(b) + 1)
            b[i:i] = b[j : j + rng.randint(1, 40)]
    return bytes(b)


def _corpus() -> list[tuple[str, bytes]]:
    rng = random.Random(20261123)
    cases: list[tuple[str, bytes]] = []
    for n in range(N_STRUCTURAL):
        name, seed = SEEDS[n % len(SEEDS)]
        doc = _mutate(rng, seed)
        as_json = name.endswith(".json") or rng.random() < 0.2
        text = json.dumps(doc, ensure_ascii=False, allow_nan=True) if as_json else _yaml(doc) + "\n"
        cases.append(
            (
                f"s{n}-{name}" if not as_json or name.endswith(".json") else f"s{n}-{name}.json",
                text.encode("utf-8", "surrogatepass"),
            )
        )
    for n in range(N_BYTES):
        name, seed = SEEDS[n % len(SEEDS)]
        text = json.dumps(seed) if name.endswith(".json") else _yaml(seed) + "\n"
        cases.append((f"b{n}-{name}", _byte_mutation(rng, text.encode())))
    return cases


def _run(cases: list[tuple[str, bytes]]) -> list[str]:
    """Load, lint and build desired state for each case; the tracebacks of those that crash."""
    crashes = []
    rules = discover_rules()
    for name, data in cases:
        try:
            estate = Estate()
            load_text(data, name, estate)
            check_estate(estate)
            result = lint_estate(estate, rules, read_source=None)
            assert all(f.file == name and f.line >= 1 and f.column >= 1 for f in result.findings), name
            lines = data.decode("utf-8", "replace").splitlines()
            render_text(result, source=lambda _, lines=lines: lines)  # the reporters too: excerpts at every position
            json.loads(render_json(result, "0"))
            contexts = {r.context for r in estate.resources}
            desired_from_estate(estate, contexts=contexts, root="/")
        except Exception:  # collected and reported below
            crashes.append(f"{name}: {data[:300]!r}\n{traceback.format_exc(limit=4)}")
    return crashes


def test_corpus_is_big_enough_and_deterministic() -> None:
    first, second = _corpus(), _corpus()
    assert len(first) >= 2000
    assert first == second
    assert len({data for _, data in first}) > 1900  # mutations, not copies
    joined = b"\n".join(d for _, d in first)
    for dialect in (b"jsops/v1", b"jetstream.nats.io/v1beta2", b"stream_name", b'"config"'):
        assert joined.count(dialect) > 200


def test_seeds_are_valid_manifests() -> None:
    """The seeds load clean: the mutations start from real manifests."""
    for name, seed in SEEDS:
        for text, file in ((json.dumps(seed), name + ".json"), (_yaml(seed) + "\n", name + ".yaml")):
            estate = Estate()
            load_text(text.encode(), file, estate)
            assert [f.message for f in estate.findings] == [] and len(estate.resources) == 1, name


def test_metadata_of_every_type_is_a_finding_not_a_crash() -> None:
    """The reported crash: metadata.context (and every other metadata field) of each YAML type."""
    values = [["a", "b"], {"a": 1}, 5, True, None, "", 1.5, "x" * 2000]
    bad = 0
    for field in ("context", "name", "stream", "annotations", "labels"):
        for value in values:
            for seed_name in ("native-stream.yaml", "native-consumer.yaml"):
                doc = copy.deepcopy(dict(SEEDS)[seed_name])
                doc["metadata"][field] = value
                text = _yaml(doc) + "\n"
                estate = Estate()
                load_text(text.encode(), seed_name, estate)
                check_estate(estate)
                desired_from_estate(estate, contexts={r.context for r in estate.resources}, root="/")
                for r in estate.resources:
                    assert isinstance(r.context, str) and r.context
                found = [f for f in estate.findings if f.rule != "JS006"]  # a consumer alone: its stream is elsewhere
                if found:
                    bad += 1
                    f = found[0]
                    key_line = (
                        text.split("\n").index(
                            f'  "{field}":'
                            + ("" if isinstance(value, (list, dict)) and value else f" {_scalar(value)}")
                        )
                        + 1
                    )
                    value_line = key_line + 1 if isinstance(value, (list, dict)) and value else key_line
                    assert f.rule == "JS005" and f"metadata.{field}" in f.message, (field, value, f.message)
                    # At the value (or its key, or the metadata mapping for a null that is "missing").
                    assert f.line in (key_line, value_line) or (value is None and f.line == 4), (
                        field,
                        value,
                        f.line,
                        key_line,
                    )
    assert bad >= 40


def test_nack_annotations_of_every_type() -> None:
    # jsops's own reading: JS005; kube-apiserver also refuses annotations that are not strings (JS030)
    cases = (
        (["a"], True),
        ({"jsops.io/context": ["east"]}, True),
        ({"jsops.io/context": {"a": 1}}, True),
        ({"jsops.io/context": ""}, False),
        (7, True),
    )
    for value, refused in cases:
        doc = copy.deepcopy(dict(SEEDS)["nack-stream.yaml"])
        doc["metadata"]["annotations"] = value
        estate = Estate()
        load_text((_yaml(doc) + "\n").encode(), "n.yaml", estate)
        assert not estate.resources and [f.rule for f in estate.findings if f.rule != "JS030"] == ["JS005"], value
        assert [f.rule for f in estate.findings if f.rule == "JS030"] == (["JS030"] if refused else []), value


@pytest.mark.parametrize("part", range(4))
def test_fuzz_corpus_never_crashes(part: int) -> None:
    cases = _corpus()[part::4]
    crashes = _run(cases)
    assert not crashes, f"{len(crashes)} of {len(cases)} cases crashed; first:\n" + "\n".join(crashes[:3])
