#!/usr/bin/env python3
"""Checking the shape of every listed StreamInfo (jsops.reconciler.client.answers) against decoding it.

A stream list page is decoded (json.loads) and each StreamInfo checked against the StreamConfig
record's field types before anything uses it. Prints the time per StreamInfo of both, and the ratio
of the check to the decode measured in the same run (the check should stay well below the decode).

    python bench/answer_shapes.py [--streams 10000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from jsops.reconciler.client.answers import answer_problem, info_shape


def _info(i: int) -> dict[str, object]:
    return {
        "config": {
            "name": f"S{i}",
            "subjects": [f"s{i}.>"],
            "retention": "limits",
            "max_consumers": -1,
            "max_msgs": -1,
            "max_bytes": -1,
            "max_age": 0,
            "max_msgs_per_subject": -1,
            "max_msg_size": -1,
            "discard": "old",
            "storage": "file",
            "num_replicas": 3,
            "duplicate_window": 120_000_000_000,
            "compression": "none",
            "placement": {"cluster": "C1", "tags": ["az:1"]},
            "allow_direct": True,
            "mirror_direct": False,
            "sealed": False,
            "deny_delete": False,
            "deny_purge": False,
            "allow_rollup_hdrs": False,
            "consumer_limits": {},
            "metadata": {"io.jsops.managed-by": "jsops", "_nats.ver": "2.15.1"},
        },
        "state": {
            "messages": i,
            "bytes": 100 * i,
            "first_seq": 1,
            "first_ts": "2026-01-01T00:00:00Z",
            "last_seq": i,
            "last_ts": "2026-01-01T01:00:00Z",
            "consumer_count": 2,
        },
        "created": "2026-01-01T00:00:00Z",
        "ts": "2026-01-01T01:00:00Z",
    }


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--streams", type=int, default=10_000)
    p.add_argument("--repeat", type=int, default=5)
    args = p.parse_args()
    raw = [json.dumps(_info(i)).encode() for i in range(args.streams)]
    shape = info_shape("StreamConfig")
    decode = check = float("inf")
    for _ in range(args.repeat):
        t = time.perf_counter()
        infos = [json.loads(r) for r in raw]
        decode = min(decode, time.perf_counter() - t)
        t = time.perf_counter()
        bad = [answer_problem(i, shape, "STREAM.LIST") for i in infos]
        check = min(check, time.perf_counter() - t)
        assert not any(bad)
    n = args.streams
    print(f"decode: {decode / n * 1e6:.1f} us per StreamInfo ({decode:.3f} s for {n})")
    print(f"check:  {check / n * 1e6:.1f} us per StreamInfo ({check:.3f} s for {n})")
    print(f"check / decode: {check / decode:.2f}")


if __name__ == "__main__":
    main()
