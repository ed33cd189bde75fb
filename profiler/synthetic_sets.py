"""Large synthetic data sets: written in parts (in parallel processes) and cached by a key of what made them.

A set of ``parts`` parts is the union of ``generate(out, spec, part=k, parts=parts)`` for every k: distinct
events (each part its own slice of the ids and its own random stream) over the spec's one window, so a
10M set holds 10M distinct ack samples, not ten copies of 1M. :func:`dataset_key` names a set by the
spec, the number of parts and :data:`~jsops.profiler.synthetic.GENERATOR_VERSION`: a cache directory
holding another key is stale and must not be reused.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from jsops.profiler.synthetic import GENERATOR_VERSION, SyntheticSpec, generate

__all__ = ["dataset_key", "generate_parts"]


def dataset_key(spec: SyntheticSpec, parts: int = 1) -> str:
    """A short hex digest of every generator parameter (the spec's fields, ``parts``, the generator's
    version): equal keys mean byte-identical files."""
    doc = {"spec": dataclasses.asdict(spec), "parts": parts, "generator": GENERATOR_VERSION}
    text = json.dumps(doc, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _part(out_dir: str, spec: SyntheticSpec, part: int, parts: int) -> dict[str, int]:
    return generate(out_dir, spec, part=part, parts=parts)


def generate_parts(out_dir: str | Path, spec: SyntheticSpec, parts: int, workers: int = 1) -> dict[str, int]:
    """Write all ``parts`` parts of ``spec`` into ``out_dir`` (``workers`` processes at a time; 1: in this
    process); returns the events of each kind written in all."""
    if parts < 1:
        raise ValueError(f"parts must be at least 1, not {parts}")
    total: Counter[str] = Counter()
    if workers <= 1 or parts == 1:
        for k in range(parts):
            total.update(generate(out_dir, spec, part=k, parts=parts))
    else:
        with ProcessPoolExecutor(max_workers=min(workers, parts)) as pool:
            for counts in pool.map(_part, [str(out_dir)] * parts, [spec] * parts, range(parts), [parts] * parts):
                total.update(counts)
    return {
        k: total.get(k, 0) for k in ("ack", "advisory", "stream_info", "consumer_info", "publish", "unknown", "bad")
    }
