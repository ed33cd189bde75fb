"""Synthetic telemetry in the exact wire shapes of docs/formats.md, with known distributions.

For tests, benchmarks and the demo: ack samples (lognormal ``ack_time``), advisories (max_deliver, nak,
terminated, consumer_action), StreamInfo / ConsumerInfo snapshots on an interval, and publisher attempt
logs with retried ``msg_id`` s. Deterministic for a given seed. Pure Python (no numpy, no Spark).

A large set can be written as ``parts`` parts (``generate(..., part=k, parts=n)``, in parallel processes
if wanted: :mod:`jsops.profiler.synthetic_sets`): part k holds the k-th slice of every consumer's ack
samples and advisories and of every stream's msg ids, drawn from its own random stream, so the union of
the parts is one data set of distinct events over the same window (snapshots are written by part 0).

    python -m jsops.profiler.synthetic OUT_DIR [--acks N] [--publish-ids N] [--duration-s S] [--gzip] [--seed N]
    python -m jsops.profiler.synthetic OUT_DIR --estate manifests [--acks N] [--publish-ids N] ...

With ``--estate PATH`` the telemetry describes the streams and consumers of the manifests under PATH
(names, subjects and stored configs from the manifests; ``--acks`` per sampled consumer and
``--publish-ids`` per stream): see :func:`estate_spec`.
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import random
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import IO

from jsops.profiler.synthetic_spec import (
    ConsumerSpec,
    StreamSpec,
    SyntheticSpec,
    default_spec,
    estate_spec,
    lognormal,
)

__all__ = [
    "GENERATOR_VERSION",
    "ConsumerSpec",
    "StreamSpec",
    "SyntheticSpec",
    "default_spec",
    "estate_spec",
    "generate",
    "format_ts",
    "lognormal",
    "main",
    "part_range",
]

#: Bump whenever what :func:`generate` writes for a given spec changes: cached data sets carry it in their key.
GENERATOR_VERSION = 3

ACK_TYPE = "io.nats.jetstream.metric.v1.consumer_ack"
ADV = "io.nats.jetstream.advisory.v1."
PUBLISH_TYPE = "io.jsops.publish.v1"
_ALPHA = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


_sec_cache: dict[int, str] = {}


def format_ts(ns: int, digits: int = 9) -> str:
    """RFC 3339 UTC as Go prints time.Time (RFC3339Nano: trailing fractional zeros trimmed)."""
    sec, frac = divmod(ns, 1_000_000_000)
    base = _sec_cache.get(sec)
    if base is None:
        base = datetime.fromtimestamp(sec, UTC).strftime("%Y-%m-%dT%H:%M:%S")
        if len(_sec_cache) > 100_000:
            _sec_cache.clear()
        _sec_cache[sec] = base
    if digits < 9:
        frac -= frac % 10 ** (9 - digits)
    if frac == 0:
        return base + "Z"
    return f"{base}.{frac:09d}".rstrip("0") + "Z"


def _nuid(rng: random.Random) -> str:
    return "".join(rng.choices(_ALPHA, k=22))


class _Out:
    def __init__(self, out: Path, spec: SyntheticSpec, tag: str = "") -> None:
        out.mkdir(parents=True, exist_ok=True)
        suffix = ".jsonl.gz" if spec.gzip else ".jsonl"
        self.files: list[IO[str]] = []
        for i in range(max(1, spec.files)):
            path = out / f"synthetic-{tag}{i:03d}{suffix}"
            self.files.append(
                gzip.open(path, "wt", encoding="utf-8", compresslevel=1)
                if spec.gzip
                else open(path, "w", encoding="utf-8")
            )
        self.i = 0
        self.buf: list[list[str]] = [[] for _ in self.files]

    def write(self, line: str) -> None:
        b = self.buf[self.i]
        b.append(line)
        if len(b) >= 20_000:
            self.files[self.i].write("\n".join(b) + "\n")
            b.clear()
        self.i = (self.i + 1) % len(self.files)

    def close(self) -> None:
        for f, b in zip(self.files, self.buf):
            if b:
                f.write("\n".join(b) + "\n")
            f.close()


def part_range(n: int, part: int, parts: int) -> range:
    """The indexes ``0 <= i < n`` that part ``part`` of ``parts`` writes (consecutive slices, all of them once)."""
    if not 0 <= part < parts:
        raise ValueError(f"part {part} is not in 0..{parts - 1}")
    return range(n * part // parts, n * (part + 1) // parts)


def generate(
    out_dir: str | Path, spec: SyntheticSpec | None = None, *, part: int = 0, parts: int = 1
) -> dict[str, int]:
    """Write the telemetry files into ``out_dir``; returns how many events of each kind were written.

    With ``parts > 1`` only part ``part``: its slice (:func:`part_range`) of the ack samples,
    advisories, msg ids and extra lines, from a random stream of its own (seeded by seed, part and
    parts), into files named ``synthetic-pPPP-NNN``; the snapshots and each consumer's ``create``
    action only in part 0. ``parts == 1`` is the whole set, as it always was for a given seed."""
    spec = spec or default_spec()
    rng = random.Random(spec.seed if parts == 1 else f"jsops-synthetic/{spec.seed}/{part}/{parts}")
    start_ns = int(spec.start.timestamp()) * 1_000_000_000
    span_ns = spec.duration_s * 1_000_000_000
    out = _Out(Path(out_dir), spec, "" if parts == 1 else f"p{part:03d}-")
    counts = {"ack": 0, "advisory": 0, "stream_info": 0, "consumer_info": 0, "publish": 0, "unknown": 0, "bad": 0}
    try:
        for c in spec.consumers:
            acks = part_range(c.acks, part, parts)
            _acks(out, rng, c, start_ns, span_ns, acks)
            counts["ack"] += len(acks)
            counts["advisory"] += _advisories(out, rng, c, start_ns, span_ns, part, parts)
        for s in spec.streams:
            counts["publish"] += _publishes(out, rng, s, start_ns, span_ns, part_range(s.publish_ids, part, parts))
        if part == 0:
            counts["stream_info"], counts["consumer_info"] = _snapshots(out, rng, spec, start_ns, span_ns)
        for _ in part_range(spec.extra.get("unknown", 0), part, parts):
            out.write(
                json.dumps(
                    {
                        "type": "io.example.v1.something_else",
                        "id": _nuid(rng),
                        "timestamp": format_ts(start_ns + rng.randrange(span_ns)),
                    }
                )
            )
            counts["unknown"] += 1
        bad = [
            "{not json",
            '{"type": "io.nats.jetstream.metric.v1.consumer_ack", "ack_time": ',
            "[1, 2, 3]",
            "\x00\x01garbage",
        ]
        for i in part_range(spec.extra.get("bad_lines", 0), part, parts):
            out.write(bad[i % len(bad)])
            counts["bad"] += 1
    finally:
        out.close()
    return counts


def _acks(out: _Out, rng: random.Random, c: ConsumerSpec, start_ns: int, span_ns: int, ids: range) -> None:
    prefix = f'{{"type":"{ACK_TYPE}","id":"'
    mid = f'","stream":"{c.stream}","consumer":"{c.name}","consumer_seq":'
    for i in ids:
        ts = start_ns + rng.randrange(span_ns)
        ack = max(1, int(rng.lognormvariate(c.ack_mu, c.ack_sigma) * 1e9))
        deliveries = 1
        if c.redelivered > 0 and rng.random() < c.redelivered:
            deliveries = rng.randint(2, max(2, c.max_deliver))
        out.write(
            f'{prefix}{_nuid(rng)}","timestamp":"{format_ts(ts)}{mid}{i + 1},"stream_seq":{i + 1},"ack_time":{ack},"deliveries":{deliveries}}}'
        )


def _advisories(
    out: _Out, rng: random.Random, c: ConsumerSpec, start_ns: int, span_ns: int, part: int, parts: int
) -> int:
    n = 0
    base = {"stream": c.stream, "consumer": c.name}
    if part == 0:
        out.write(
            json.dumps(
                {
                    "type": ADV + "consumer_action",
                    "id": _nuid(rng),
                    "timestamp": format_ts(start_ns),
                    **base,
                    "action": "create",
                },
                separators=(",", ":"),
            )
        )
        n += 1
    for kind, count in (("nak", c.naks), ("terminated", c.terminated), ("max_deliver", c.max_deliver_advisories)):
        for _ in part_range(count, part, parts):
            ev: dict[str, object] = {
                "type": ADV + kind,
                "id": _nuid(rng),
                "timestamp": format_ts(start_ns + rng.randrange(span_ns)),
                **base,
            }
            if kind != "max_deliver":
                ev["consumer_seq"] = rng.randrange(1, 10**6)
            ev["stream_seq"] = rng.randrange(1, 10**6)
            ev["deliveries"] = c.max_deliver if kind == "max_deliver" else rng.randint(1, c.max_deliver)
            if kind == "terminated":
                ev["reason"] = "bad payload"
            out.write(json.dumps(ev, separators=(",", ":")))
            n += 1
    return n


def _publishes(out: _Out, rng: random.Random, s: StreamSpec, start_ns: int, span_ns: int, ids: range) -> int:
    n = 0
    for i in ids:
        t = start_ns + rng.randrange(span_ns)
        msg_id = f"{s.name.lower()}-{i:08d}"
        attempts = 1
        if rng.random() < s.retry_ratio:
            attempts = rng.randint(2, max(2, s.max_attempts))
        stored_first = rng.random() < 0.5  # a timed-out first attempt may still have been stored
        for a in range(1, attempts + 1):
            if a == attempts:
                result = "duplicate" if stored_first and attempts > 1 else "ok"
            else:
                result = "timeout"
            size = max(1, int(rng.gauss(s.msg_bytes, s.msg_bytes * 0.1)))
            out.write(
                f'{{"type":"{PUBLISH_TYPE}","ts":"{format_ts(t, 6)}","stream":"{s.name}",'
                f'"subject":"{s.subject}","msg_id":"{msg_id}","attempt":{a},"bytes":{size},'
                f'"result":"{result}"}}'
            )
            n += 1
            # the timeout, then an exponential backoff
            t += int(s.retry_timeout_s * 1e9) + int(rng.expovariate(1.0) * s.retry_backoff_s * 1e9)
    return n


def _snapshots(out: _Out, rng: random.Random, spec: SyntheticSpec, start_ns: int, span_ns: int) -> tuple[int, int]:
    step = int(spec.snapshot_interval_s * 1e9)
    created = format_ts(start_ns - 3_600_000_000_000)
    last_seq = {s.name: 1000 for s in spec.streams}
    delivered = {(c.stream, c.name): 0 for c in spec.consumers}
    by_name = {s.name: s for s in spec.streams}
    ns = nc = 0
    t = start_ns
    while t <= start_ns + span_ns:
        for s in spec.streams:
            last_seq[s.name] += _poisson(rng, s.ingest_per_s * spec.snapshot_interval_s) if t > start_ns else 0
            msgs = min(last_seq[s.name], s.max_msgs)
            first_seq = last_seq[s.name] - msgs + 1
            per_msg = s.msg_bytes + 22 + len(s.subject) + 8 + 60
            age = int(msgs / max(s.ingest_per_s, 1e-9) * 1e9)
            config = s.config or {
                "name": s.name,
                "subjects": [s.subject],
                "retention": "limits",
                "max_msgs": s.max_msgs,
                "storage": "file",
                "num_replicas": 1,
                "duplicate_window": 120_000_000_000,
            }
            info = {
                "config": config,
                "created": created,
                "state": {
                    "messages": msgs,
                    "bytes": msgs * per_msg,
                    "first_seq": first_seq,
                    "first_ts": format_ts(t - age),
                    "last_seq": last_seq[s.name],
                    "last_ts": format_ts(t - rng.randrange(1, 50_000_000)),
                    "consumer_count": 2,
                },
                "ts": format_ts(t),
            }
            out.write(json.dumps(info, separators=(",", ":")))
            ns += 1
        for c in spec.consumers:
            key = (c.stream, c.name)
            if t > start_ns:
                delivered[key] += _poisson(rng, c.deliveries_per_s * spec.snapshot_interval_s)
            ci = {
                "stream_name": c.stream,
                "name": c.name,
                "created": created,
                "config": c.config
                or {
                    "durable_name": c.name,
                    "ack_policy": "explicit",
                    "max_deliver": c.max_deliver,
                    "sample_freq": "100%",
                },
                "delivered": {
                    "consumer_seq": delivered[key],
                    "stream_seq": delivered[key],
                    "last_active": format_ts(t),
                },
                "ack_floor": {"consumer_seq": max(0, delivered[key] - 3), "stream_seq": max(0, delivered[key] - 3)},
                "num_ack_pending": 3,
                "num_redelivered": 0,
                "num_waiting": 1,
                "num_pending": by_name[c.stream].max_msgs if c.stream in by_name else 0,
                "ts": format_ts(t),
            }
            out.write(json.dumps(ci, separators=(",", ":")))
            nc += 1
        t += step
    return ns, nc


def _poisson(rng: random.Random, lam: float) -> int:
    if lam <= 0:
        return 0
    if lam > 50:
        return max(0, int(round(rng.gauss(lam, math.sqrt(lam)))))
    k, p, limit = 0, 1.0, math.exp(-lam)
    while True:
        p *= rng.random()
        if p <= limit:
            return k
        k += 1


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m jsops.profiler.synthetic", description=__doc__.splitlines()[0])
    ap.add_argument("out_dir")
    ap.add_argument(
        "--estate",
        nargs="+",
        metavar="PATH",
        help="manifests (files or directories): telemetry for their streams and consumers",
    )
    ap.add_argument("--acks", type=int, default=20_000, help="ack samples in all (per sampled consumer with --estate)")
    ap.add_argument(
        "--publish-ids", type=int, default=5_000, help="publisher msg ids in all (per stream with --estate)"
    )
    ap.add_argument("--duration-s", type=int, default=None, help="window (default 600; a day with --estate)")
    ap.add_argument("--files", type=int, default=2)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--gzip", action="store_true")
    a = ap.parse_args(list(sys.argv[1:] if argv is None else argv))
    if a.estate:
        from jsops.linter import LoadError

        try:
            spec = estate_spec(
                a.estate,
                acks=a.acks,
                publish_ids=a.publish_ids,
                duration_s=a.duration_s or 86_400,
                seed=a.seed,
                gzip_files=a.gzip,
                files=a.files,
            )
        except LoadError as exc:
            print(f"jsops.profiler.synthetic: error: {exc}", file=sys.stderr)
            return 2
        if not spec.streams:
            print(f"jsops.profiler.synthetic: error: no streams in {' '.join(a.estate)}", file=sys.stderr)
            return 2
    else:
        spec = default_spec(a.acks, a.publish_ids, a.duration_s or 600, a.seed, a.gzip, a.files)
    counts = generate(a.out_dir, spec)
    print(json.dumps(counts))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
