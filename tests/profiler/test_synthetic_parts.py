"""Synthetic data sets written in parts: the union is one set of distinct events, each part is
deterministic per seed, and the cache key changes with every generator parameter and version."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

import jsops.profiler.synthetic_sets as sets
from jsops.profiler.synthetic import ACK_TYPE, ADV, GENERATOR_VERSION, PUBLISH_TYPE, default_spec, generate, part_range
from jsops.profiler.synthetic_sets import dataset_key, generate_parts

SPEC = default_spec(acks=3_000, publish_ids=600, duration_s=600, seed=13, files=2)

#: sha256 of the files of ``generate(d, default_spec(acks=500, publish_ids=100, seed=7, files=1))`` per
#: generator version: a change of the generator's output must come with a new GENERATOR_VERSION (the
#: bench's cached sets are keyed by it), and then a new line here.
OUTPUT_DIGEST = {3: "d5e3befc784af0b6a485086db48486b8d231e42c0091765fb6f984540406fdaa"}


def _events(d: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for f in sorted(d.glob("*.jsonl")) for line in f.read_text().splitlines()]


def _digest(d: Path) -> str:
    h = hashlib.sha256()
    for f in sorted(d.iterdir()):
        h.update(f.name.encode() + b"\0" + f.read_bytes())
    return h.hexdigest()


def test_part_ranges_cover_every_index_once() -> None:
    for n in (0, 1, 7, 1000, 1001):
        for parts in (1, 2, 3, 10):
            got = [i for k in range(parts) for i in part_range(n, k, parts)]
            assert got == list(range(n)), (n, parts)
    with pytest.raises(ValueError, match="part 3 is not in 0..2"):
        part_range(10, 3, 3)


def test_the_parts_together_are_one_set_of_distinct_events(tmp_path: Path) -> None:
    counts = generate_parts(tmp_path, SPEC, parts=3)
    events = _events(tmp_path)
    acks = [e for e in events if e.get("type") == ACK_TYPE]
    assert counts["ack"] == len(acks) == 3_000
    # every consumer's sequence numbers 1..n exactly once, every sample id once
    for c in SPEC.consumers:
        seqs = sorted(e["consumer_seq"] for e in acks if e["consumer"] == c.name)
        assert seqs == list(range(1, c.acks + 1)), c.name
    assert len({e["id"] for e in acks}) == len(acks)
    # the parts are not copies of each other: (almost) every ack time is a value of its own
    assert len({e["ack_time"] for e in acks}) > 0.99 * len(acks)
    # each msg id is published first exactly once, as in a set written whole
    firsts = Counter((e["stream"], e["msg_id"]) for e in events if e.get("type") == PUBLISH_TYPE and e["attempt"] == 1)
    assert len(firsts) == sum(s.publish_ids for s in SPEC.streams) and set(firsts.values()) == {1}
    # one create action per consumer, the snapshots once (part 0), advisories as the spec asks
    creates = [e for e in events if e.get("type") == ADV + "consumer_action"]
    assert sorted(e["consumer"] for e in creates) == sorted(c.name for c in SPEC.consumers)
    naks = Counter(e["consumer"] for e in events if e.get("type") == ADV + "nak")
    assert naks == Counter({c.name: c.naks for c in SPEC.consumers if c.naks})
    whole = generate(tmp_path / "whole", SPEC)
    assert {k: counts[k] for k in ("stream_info", "consumer_info")} == {
        k: whole[k] for k in ("stream_info", "consumer_info")
    }
    assert sorted(p.name for p in tmp_path.glob("*.jsonl"))[:2] == [
        "synthetic-p000-000.jsonl",
        "synthetic-p000-001.jsonl",
    ]


def test_a_part_is_deterministic_per_seed_and_parallel_equals_serial(tmp_path: Path) -> None:
    generate(tmp_path / "a", SPEC, part=1, parts=3)
    generate(tmp_path / "b", SPEC, part=1, parts=3)
    generate(tmp_path / "c", replace(SPEC, seed=14), part=1, parts=3)
    assert _digest(tmp_path / "a") == _digest(tmp_path / "b") != _digest(tmp_path / "c")
    generate_parts(tmp_path / "serial", SPEC, parts=3, workers=1)
    generate_parts(tmp_path / "parallel", SPEC, parts=3, workers=2)
    assert _digest(tmp_path / "serial") == _digest(tmp_path / "parallel")


def test_the_whole_set_output_is_pinned_to_the_generator_version(tmp_path: Path) -> None:
    generate(tmp_path, default_spec(acks=500, publish_ids=100, seed=7, files=1))
    assert _digest(tmp_path) == OUTPUT_DIGEST[GENERATOR_VERSION]


def test_the_cache_key_changes_with_every_parameter_and_the_version(monkeypatch: pytest.MonkeyPatch) -> None:
    key = dataset_key(SPEC, 10)
    assert dataset_key(default_spec(acks=3_000, publish_ids=600, duration_s=600, seed=13, files=2), 10) == key
    others = [
        dataset_key(SPEC, 1),
        dataset_key(replace(SPEC, seed=14), 10),
        dataset_key(replace(SPEC, duration_s=3600), 10),
        dataset_key(replace(SPEC, files=4), 10),
        dataset_key(default_spec(acks=3_001, publish_ids=600, duration_s=600, seed=13, files=2), 10),
        dataset_key(default_spec(acks=3_000, publish_ids=601, duration_s=600, seed=13, files=2), 10),
    ]
    monkeypatch.setattr(sets, "GENERATOR_VERSION", GENERATOR_VERSION + 1)
    others.append(dataset_key(SPEC, 10))
    assert key not in others and len(set(others)) == len(others)


def test_parts_must_be_positive(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="parts must be at least 1"):
        generate_parts(tmp_path, SPEC, parts=0)
