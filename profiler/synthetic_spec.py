"""What a synthetic telemetry data set is made of (:mod:`jsops.profiler.synthetic` writes it): the specs of its
streams and consumers with their figures, the online-shop estate of the tests (:func:`default_spec`) and the
figures for the streams and consumers of manifests (:func:`estate_spec`, with the example estate's smells).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from jsops.linter import EffectiveStream

__all__ = [
    "EXAMPLE_ESTATE_SMELLS",
    "ConsumerSpec",
    "StreamSpec",
    "SyntheticSpec",
    "default_spec",
    "estate_spec",
    "lognormal",
]


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
