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
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from jsops.linter import EffectiveStream

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


@dataclass(frozen=True)
class ConsumerSpec:
    stream: str
    name: str
    acks: int
    ack_mu: float = math.log(0.05)  # lognormal of ack_time in seconds: median 50 ms
    ack_sigma: float = 1.0
    redelivered: float = 0.02  # share of acked samples with deliveries > 1
    max_deliver: int = 5
    naks: int = 0
    terminated: int = 0
    max_deliver_advisories: int = 0
    deliveries_per_s: float = 20.0  # for consumer state snapshots
    config: dict[str, Any] | None = None  # the ConsumerInfo config of snapshots (server JSON shape)


@dataclass(frozen=True)
class StreamSpec:
    name: str
    subject: str
    publish_ids: int = 0  # distinct Nats-Msg-Id values in publisher logs
    retry_ratio: float = 0.05  # share of ids published more than once
    msg_bytes: int = 512
    ingest_per_s: float = 25.0  # for stream state snapshots
    max_msgs: int = 100_000  # snapshots: the stream keeps at most this many messages
    max_attempts: int = 4  # a retried id is published 2..max_attempts times
    retry_timeout_s: float = 2.0  # publisher timeout before each retry
    retry_backoff_s: float = 1.0  # mean of the exponential backoff after each timeout
    config: dict[str, Any] | None = None  # the StreamInfo config of snapshots (server JSON shape)


@dataclass(frozen=True)
class SyntheticSpec:
    streams: tuple[StreamSpec, ...]
    consumers: tuple[ConsumerSpec, ...]
    start: datetime = datetime(2026, 11, 20, 12, 0, 0, tzinfo=UTC)
    duration_s: int = 600
    snapshot_interval_s: float = 10.0
    seed: int = 7
    files: int = 2  # event files are spread round-robin over this many files
    gzip: bool = False
    extra: dict[str, int] = field(default_factory=dict)  # {"bad_lines": n, "unknown": n}


def default_spec(
    acks: int = 20_000,
    publish_ids: int = 5_000,
    duration_s: int = 600,
    seed: int = 7,
    gzip_files: bool = False,
    files: int = 2,
) -> SyntheticSpec:
    """An online-shop estate: ORDERS (two consumers) and PAYMENTS (one), with a slow, retrying consumer."""
    share = (0.5, 0.3, 0.2)
    return SyntheticSpec(
        streams=(
            StreamSpec("ORDERS", "orders.created", publish_ids=int(publish_ids * 0.7), retry_ratio=0.05),
            StreamSpec(
                "PAYMENTS",
                "payments.settled",
                publish_ids=publish_ids - int(publish_ids * 0.7),
                retry_ratio=0.1,
                msg_bytes=256,
                ingest_per_s=8.0,
            ),
        ),
        consumers=(
            ConsumerSpec(
                "ORDERS",
                "shipper",
                int(acks * share[0]),
                math.log(0.12),
                1.1,
                0.03,
                5,
                naks=30,
                terminated=4,
                max_deliver_advisories=12,
            ),
            ConsumerSpec("ORDERS", "billing", int(acks * share[1]), math.log(0.02), 0.6, 0.0, 3),
            ConsumerSpec(
                "PAYMENTS",
                "settler",
                acks - int(acks * share[0]) - int(acks * share[1]),
                math.log(1.5),
                0.8,
                0.1,
                4,
                naks=200,
                max_deliver_advisories=40,
            ),
        ),
        duration_s=duration_s,
        seed=seed,
        files=files,
        gzip=gzip_files,
    )


def lognormal(p50_s: float, p99_s: float) -> tuple[float, float]:
    """``(mu, sigma)`` of the lognormal ack time (seconds) with the given median and 99th percentile."""
    return math.log(p50_s), math.log(p99_s / p50_s) / 2.3263478740408408  # z(0.99)


# Figures for the example estate (manifests/): each deliberate smell gets telemetry that shows it, so the
# profile-driven rules fire on it; everything else gets healthy figures (see estate_spec).
EXAMPLE_ESTATE_SMELLS: dict[str, dict[str, float]] = {
    # ack_wait 5s, but the risk API's P99 is ~4 s: 2 x P99 > ack_wait (JS401)
    "ORDERS/fraud-check": {"p50_s": 1.2, "p99_s": 4.0, "redelivered": 0.04, "naks": 40, "max_deliver_advisories": 25},
    # printers run out of paper: ~15% of deliveries are redeliveries (JS407); ack_wait 2m is long enough
    "SHIPPING/label-printer": {"p50_s": 18.0, "p99_s": 50.0, "redelivered": 0.15, "naks": 300},
    # the checkout client retries up to 6 times, 20 s timeout plus backoff: retry horizon P99 > the
    # stream's 2m duplicate_window (JS402)
    "ORDERS": {"retry_ratio": 0.08, "max_attempts": 6, "retry_timeout_s": 20.0, "retry_backoff_s": 15.0},
    # the payment gateway's webhook retries for up to 10 minutes, inside the 10m duplicate_window
    "PAYMENTS": {"retry_ratio": 0.05, "max_attempts": 4, "retry_timeout_s": 30.0, "retry_backoff_s": 30.0},
    # stock levels: small messages, few updates (max_bytes 64MiB holds 90d of them)
    "INVENTORY": {"publish_share": 0.2, "msg_bytes": 128},
    # only failed messages' advisories land here
    "DLQ": {"ingest_per_s": 0.01, "msg_bytes": 400},
}


def _concrete(subject: str) -> str:
    """A subject a publisher could use for a stream subject filter (wildcards made literal)."""
    return ".".join("x" if tok in ("*", ">") else tok for tok in subject.split("."))


def _stream_spec(
    name: str, cfg: EffectiveStream, extra: dict[str, float], publish_ids: int, duration_s: int
) -> StreamSpec:
    """The telemetry figures of one stream of :func:`estate_spec` (``extra``: its smells)."""
    from jsops.linter import api_json

    subjects = cfg.subjects or (name,)
    publishes = not subjects[0].startswith("$JS.") and cfg.mirror is None
    ids = int(publish_ids * extra.get("publish_share", 1.0)) if publishes else 0
    return StreamSpec(
        name,
        _concrete(subjects[0]),
        publish_ids=ids,
        msg_bytes=int(extra.get("msg_bytes", 512)),
        retry_ratio=extra.get("retry_ratio", 0.05),
        max_attempts=int(extra.get("max_attempts", 4)),
        retry_timeout_s=extra.get("retry_timeout_s", 2.0),
        retry_backoff_s=extra.get("retry_backoff_s", 1.0),
        max_msgs=cfg.max_msgs if cfg.max_msgs > 0 else 100_000,
        ingest_per_s=ids / duration_s if publishes else extra.get("ingest_per_s", 0.01),
        config=api_json(cfg),
    )


def estate_spec(
    paths: Sequence[str],
    *,
    acks: int = 20_000,
    publish_ids: int = 5_000,
    duration_s: int = 86_400,
    seed: int = 7,
    gzip_files: bool = False,
    files: int = 2,
    smells: dict[str, dict[str, float]] | None = None,
) -> SyntheticSpec:
    """Telemetry for the streams and consumers declared in the manifests under ``paths``.

    * Ack samples only for consumers nats-server samples: ``ack_policy: explicit`` with a ``sample_freq``;
      ``acks`` samples each. Healthy consumers get a lognormal ack time whose P99 is a quarter of the
      effective ack wait (``backoff[0]`` when backoff is set) and 1% redeliveries.
    * Publisher logs (``publish_ids`` ids each, 512-byte messages) for every stream that applications
      publish to (not for streams capturing ``$JS.`` subjects); 5% of ids retried with a 2 s timeout.
      The default window is a day, so rates stay low enough for the example estate's max_bytes.
    * State snapshots of every stream and consumer, their ``config`` the one nats-server would store.
    * ``smells`` (default :data:`EXAMPLE_ESTATE_SMELLS`) overrides the figures of named consumers
      (``STREAM/consumer``: p50_s, p99_s, redelivered, naks, terminated, max_deliver_advisories) and
      streams (retry_ratio, max_attempts, retry_timeout_s, retry_backoff_s, msg_bytes, publish_share: a
      factor on ``publish_ids``, ingest_per_s: for streams without publisher logs). Names not in the
      estate are ignored.
    """
    from jsops.linter import api_json, effective_consumer, effective_stream, load_paths

    smells = EXAMPLE_ESTATE_SMELLS if smells is None else smells
    estate = load_paths(list(paths))
    stream_cfgs: dict[str, EffectiveStream] = {}
    streams: list[StreamSpec] = []
    for sr in sorted(estate.streams(), key=lambda r: r.name):
        cfg = effective_stream(sr.config, name=sr.name)
        stream_cfgs[sr.name] = cfg
        streams.append(_stream_spec(sr.name, cfg, smells.get(sr.name, {}), publish_ids, duration_s))
    consumers: list[ConsumerSpec] = []
    for r in sorted(estate.consumers(), key=lambda r: (r.stream or "", r.name)):
        if r.stream not in stream_cfgs:
            continue
        ccfg = effective_consumer(r.config, stream_cfgs[r.stream], durable_name=r.config.durable_name or r.name)
        key = f"{r.stream}/{r.name}"
        extra = smells.get(key, {})
        backoff = ccfg.backoff
        ack_wait_s = (backoff[0] if backoff else ccfg.ack_wait or 30_000_000_000) / 1e9
        sampled = ccfg.ack_policy == "explicit" and str(ccfg.sample_freq or "0").rstrip("%") not in ("", "0")
        max_deliver = ccfg.max_deliver
        mu, sigma = lognormal(extra.get("p50_s", ack_wait_s / 20), extra.get("p99_s", ack_wait_s / 4))
        consumers.append(
            ConsumerSpec(
                r.stream,
                r.name,
                acks if sampled else 0,
                mu,
                sigma,
                redelivered=extra.get("redelivered", 0.01),
                max_deliver=max_deliver if max_deliver > 0 else 5,
                naks=int(extra.get("naks", 0)),
                terminated=int(extra.get("terminated", 0)),
                max_deliver_advisories=int(extra.get("max_deliver_advisories", 0)) if max_deliver > 0 else 0,
                deliveries_per_s=max(acks, 1) / duration_s,
                config=api_json(ccfg),
            )
        )
    return SyntheticSpec(
        streams=tuple(streams),
        consumers=tuple(consumers),
        duration_s=duration_s,
        seed=seed,
        files=files,
        gzip=gzip_files,
        snapshot_interval_s=max(10.0, duration_s / 100),
    )


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
