"""Mergeable partial profiles: the state of one time window from which the profile follows, and that adds
up with the state of the next window (no pyspark here: the store merges on the driver).

A :class:`Partial` holds, per consumer, the ack_time distribution as a :class:`Histogram` (the exact value
counts while the group is small enough, and always log-bucketed counts with relative error ``alpha``),
counts that add (deliveries, advisories, publish attempts), maxima, and the first and last snapshot of
every counter so that the interval between two windows counts as it would in one. ``merge`` requires
the windows in time order and disjoint (the store's hours are). ``to_document`` gives the
profiles document, the same figures :func:`jsops.profiler.compute.build_profiles` gives for the same events:
equal where the histograms are exact, within ``alpha`` (relative, on every percentile) where not.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

__all__ = [
    "Histogram",
    "Counter",
    "ConsumerState",
    "StreamState",
    "Partial",
    "merge",
    "to_document",
    "iso",
    "partial_to_json",
    "partial_from_json",
    "DEFAULT_ALPHA",
    "DEFAULT_EXACT_VALUES",
    "bucket_of",
    "gamma",
]

#: relative error of a log-bucketed percentile (bucket width 2 alpha / (1 - alpha))
DEFAULT_ALPHA = 0.005
#: groups of at most this many samples keep their exact values (and exact percentiles)
DEFAULT_EXACT_VALUES = 100_000
_ZERO = -(2**31)  # the bucket of the value 0 (log buckets start at 1 ns)


def gamma(alpha: float) -> float:
    """The ratio of consecutive log-bucket bounds for relative error ``alpha``."""
    return (1 + alpha) / (1 - alpha)


def bucket_of(value: int, alpha: float) -> int:
    """The log bucket holding ``value``: ``floor(ln(v) / ln(gamma))`` (as the Spark job computes it)."""
    return _ZERO if value <= 0 else math.floor(math.log(value) / math.log(gamma(alpha)))


def _bucket_value(index: int, alpha: float) -> float:
    """The value representing bucket ``[g^i, g^(i+1))``: within ``alpha`` (relative) of every value in it."""
    if index == _ZERO:
        return 0.0
    g = gamma(alpha)
    return 2 * g ** (index + 1) / (g + 1)


def _counted(items: Iterable[tuple[float, int]], n: int, qs: Sequence[float]) -> list[float]:
    """numpy's default percentiles (linear interpolation between closest ranks) of a sorted multiset."""
    ranks: list[tuple[int, int]] = []
    for q in qs:
        h = (n - 1) * q
        ranks.append((math.floor(h), math.ceil(h)))
    wanted = sorted({r for pair in ranks for r in pair})
    at: dict[int, float] = {}
    seen, i = 0, 0
    for v, c in items:
        seen += c
        while i < len(wanted) and wanted[i] < seen:
            at[wanted[i]] = v
            i += 1
    out = []
    for q, (lo, hi) in zip(qs, ranks):
        h = (n - 1) * q
        out.append(at[lo] + (h - lo) * (at[hi] - at[lo]))
    return out


@dataclass
class Histogram:
    """A mergeable distribution of non-negative integers: ``n``, ``max``, log-bucket counts and, while
    ``n`` is at most the exact limit, the exact value counts (``exact`` is ``None`` once dropped)."""

    alpha: float
    n: int = 0
    max: int = 0
    buckets: dict[int, int] = field(default_factory=dict)
    exact: dict[int, int] | None = field(default_factory=dict)

    def add(self, value: int, count: int = 1) -> None:
        self.n += count
        self.max = max(self.max, value)
        b = bucket_of(value, self.alpha)
        self.buckets[b] = self.buckets.get(b, 0) + count
        if self.exact is not None:
            self.exact[value] = self.exact.get(value, 0) + count

    def merge(self, other: Histogram, exact_limit: int) -> Histogram:
        if other.alpha != self.alpha:
            raise ValueError(f"cannot merge histograms of relative error {self.alpha} and {other.alpha}")
        out = Histogram(self.alpha, self.n + other.n, max(self.max, other.max), dict(self.buckets), None)
        for b, c in other.buckets.items():
            out.buckets[b] = out.buckets.get(b, 0) + c
        if self.exact is not None and other.exact is not None and out.n <= exact_limit:
            out.exact = dict(self.exact)
            for v, c in other.exact.items():
                out.exact[v] = out.exact.get(v, 0) + c
        return out

    def quantiles(self, qs: Sequence[float]) -> tuple[list[float], bool]:
        """The percentiles and whether they are exact (else within ``alpha``, clamped to ``max``)."""
        if self.exact is not None:
            return _counted(((float(v), self.exact[v]) for v in sorted(self.exact)), self.n, qs), True
        items = ((_bucket_value(b, self.alpha), self.buckets[b]) for b in sorted(self.buckets))
        return [min(v, float(self.max)) for v in _counted(items, self.n, qs)], False

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"n": self.n, "max": self.max, "buckets": _pairs(self.buckets)}
        if self.exact is not None:
            out["exact"] = _pairs(self.exact)
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any], alpha: float) -> Histogram:
        exact = {int(v): int(c) for v, c in data["exact"]} if "exact" in data else None
        return cls(alpha, int(data["n"]), int(data["max"]), {int(b): int(c) for b, c in data["buckets"]}, exact)


def _pairs(d: Mapping[int, int]) -> list[list[int]]:
    return [[k, d[k]] for k in sorted(d)]


@dataclass
class Counter:
    """Deltas of a monotone counter between consecutive snapshots (``d >= 0`` and ``dt > 0`` only): their
    sums and the peak rate, with the first and last snapshot to bridge to the neighbouring windows."""

    total: int = 0
    dt: int = 0
    peak: float | None = None
    first: tuple[int, int] | None = None  # (t in us, value)
    last: tuple[int, int] | None = None

    def merge(self, later: Counter) -> Counter:
        out = Counter(
            self.total + later.total,
            self.dt + later.dt,
            _max(self.peak, later.peak),
            self.first or later.first,
            later.last or self.last,
        )
        if self.last is not None and later.first is not None:
            dt, d = later.first[0] - self.last[0], later.first[1] - self.last[1]
            if dt > 0 and d >= 0:
                out.total, out.dt = out.total + d, out.dt + dt
                out.peak = _max(out.peak, d * 1e6 / dt)
        return out

    def to_json(self) -> list[Any]:
        return [self.total, self.dt, self.peak, self.first, self.last]

    @classmethod
    def from_json(cls, data: Sequence[Any]) -> Counter:
        first = (int(data[3][0]), int(data[3][1])) if data[3] else None
        last = (int(data[4][0]), int(data[4][1])) if data[4] else None
        return cls(int(data[0]), int(data[1]), None if data[2] is None else float(data[2]), first, last)


def _add(a: int | None, b: int | None) -> int | None:
    return b if a is None else a if b is None else a + b


def _max(a: float | None, b: float | None) -> float | None:
    return b if a is None else a if b is None else max(a, b)


_ADVISORY_KINDS = ("max_deliver", "nak", "terminated")


@dataclass
class ConsumerState:
    """One consumer's mergeable figures: ack_time, deliveries (n, first tries, max), advisories, rate."""

    ack: Histogram | None = None
    deliveries: tuple[int, int, int] | None = None
    advisories: dict[str, int] | None = None
    delivery: Counter | None = None

    def merge(self, later: ConsumerState, exact_limit: int) -> ConsumerState:
        out = ConsumerState()
        out.ack = (
            later.ack if self.ack is None else self.ack if later.ack is None else self.ack.merge(later.ack, exact_limit)
        )
        a, b = self.deliveries, later.deliveries
        out.deliveries = b if a is None else a if b is None else (a[0] + b[0], a[1] + b[1], max(a[2], b[2]))
        if self.advisories is not None or later.advisories is not None:
            out.advisories = {
                k: (self.advisories or {}).get(k, 0) + (later.advisories or {}).get(k, 0) for k in _ADVISORY_KINDS
            }
        out.delivery = _merge_counter(self.delivery, later.delivery)
        return out


def _merge_counter(a: Counter | None, b: Counter | None) -> Counter | None:
    return b if a is None else a if b is None else a.merge(b)


@dataclass
class StreamState:
    """One stream's mergeable figures: publisher logs (ok messages per second as a histogram of nonzero
    seconds, bytes, the peak minute, attempts, retry horizons and the ids near the window's edges) and
    StreamInfo snapshots (stored size sums, the latest snapshot, the last_seq counter)."""

    attempts: int = 0
    per_sec: dict[int, int] = field(default_factory=dict)  # ok messages in a second -> seconds
    bytes_total: int = 0
    bytes_peak: int = 0
    bytes_n: int = 0
    peak_min: int = 0
    horizons: Histogram | None = None
    edges: dict[str, tuple[int, int, int]] = field(default_factory=dict)  # msg_id -> (attempts, first, last)
    size: tuple[int | None, int] | None = None  # sum(state.bytes), sum(state.messages), snapshots with messages
    latest: tuple[int, int | None, int | None] | None = None  # (t, first_ts, last_ts) of the latest such one
    seq: Counter | None = None

    def merge(self, later: StreamState, exact_limit: int) -> StreamState:
        out = StreamState(
            self.attempts + later.attempts,
            dict(self.per_sec),
            self.bytes_total + later.bytes_total,
            max(self.bytes_peak, later.bytes_peak),
            self.bytes_n + later.bytes_n,
            max(self.peak_min, later.peak_min),
        )
        for c, secs in later.per_sec.items():
            out.per_sec[c] = out.per_sec.get(c, 0) + secs
        h1, h2 = self.horizons, later.horizons
        out.horizons = h2 if h1 is None else h1 if h2 is None else h1.merge(h2, exact_limit)
        out.edges = dict(self.edges)
        for msg_id, (n, lo, hi) in later.edges.items():
            had = out.edges.get(msg_id)
            out.edges[msg_id] = (n, lo, hi) if had is None else (had[0] + n, min(had[1], lo), max(had[2], hi))
        a, b = self.size, later.size
        out.size = b if a is None else a if b is None else (_add(a[0], b[0]), a[1] + b[1])
        out.latest = (
            later.latest if self.latest is None or (later.latest and later.latest[0] > self.latest[0]) else self.latest
        )
        out.seq = _merge_counter(self.seq, later.seq)
        return out

    def settle(self, start: int, end: int, reach: int, alpha: float, exact_limit: int) -> None:
        """Move the ids no longer within ``reach`` of the window ``[start, end)``'s edges into the horizons."""
        for msg_id, (n, lo, hi) in list(self.edges.items()):
            if lo >= start + reach and hi < end - reach:
                del self.edges[msg_id]
                if n >= 2:
                    self.horizons = self.horizons or Histogram(alpha)
                    self.horizons.add((hi - lo) * 1000)
                    if self.horizons.exact is not None and self.horizons.n > exact_limit:
                        self.horizons.exact = None


@dataclass
class Partial:
    """The mergeable state of the events in ``[start, end)`` (microseconds since the epoch)."""

    start: int
    end: int
    alpha: float = DEFAULT_ALPHA
    exact_limit: int = DEFAULT_EXACT_VALUES
    reach: int = 15 * 60 * 1_000_000  # a retried msg_id's attempts within this many us join across windows
    kinds: dict[str, int] = field(default_factory=dict)
    unknown_types: dict[str, int] = field(default_factory=dict)
    bounds: tuple[int, int] | None = None  # first and last event time (the profile's window)
    publish_bounds: tuple[int, int] | None = None  # first and last publisher-log second
    consumers: dict[str, ConsumerState] = field(default_factory=dict)  # "<stream>/<consumer>"
    streams: dict[str, StreamState] = field(default_factory=dict)

    def stream(self, name: str) -> StreamState:
        return self.streams.setdefault(name, StreamState())

    def consumer(self, key: str) -> ConsumerState:
        return self.consumers.setdefault(key, ConsumerState())

    def merge(self, later: Partial) -> Partial:
        """This window followed by ``later`` (which must start at or after this one's end)."""
        if later.start < self.end:
            raise ValueError(
                f"windows overlap or are out of order: [{self.start}, {self.end}) then [{later.start}, {later.end})"
            )
        if (later.alpha, later.exact_limit, later.reach) != (self.alpha, self.exact_limit, self.reach):
            raise ValueError("cannot merge partial profiles made with different settings")
        out = Partial(self.start, later.end, self.alpha, self.exact_limit, self.reach)
        for mine, theirs, dest in (
            (self.kinds, later.kinds, out.kinds),
            (self.unknown_types, later.unknown_types, out.unknown_types),
        ):
            for k in {*mine, *theirs}:
                dest[k] = mine.get(k, 0) + theirs.get(k, 0)
        out.bounds = _span(self.bounds, later.bounds)
        out.publish_bounds = _span(self.publish_bounds, later.publish_bounds)
        for key in {*self.consumers, *later.consumers}:
            out.consumers[key] = self.consumers.get(key, ConsumerState()).merge(
                later.consumers.get(key, ConsumerState()), self.exact_limit
            )
        for name in {*self.streams, *later.streams}:
            s = self.streams.get(name, StreamState()).merge(later.streams.get(name, StreamState()), self.exact_limit)
            s.settle(out.start, out.end, self.reach, self.alpha, self.exact_limit)
            out.streams[name] = s
        return out


def _span(a: tuple[int, int] | None, b: tuple[int, int] | None) -> tuple[int, int] | None:
    return b if a is None else a if b is None else (min(a[0], b[0]), max(a[1], b[1]))


def merge(partials: Iterable[Partial]) -> Partial | None:
    """The partials merged in time order (``None`` for none)."""
    out: Partial | None = None
    for p in sorted(partials, key=lambda p: p.start):
        out = p if out is None else out.merge(p)
    return out


QUANTILES = (0.5, 0.9, 0.99, 0.999)


def iso(micros: int) -> str:
    """RFC 3339 UTC with as many fractional digits as needed (none for a whole second)."""
    dt = datetime.fromtimestamp(micros // 1_000_000, UTC).replace(microsecond=micros % 1_000_000)
    return dt.strftime("%Y-%m-%dT%H:%M:%S") + (f".{dt.microsecond:06d}".rstrip("0") if dt.microsecond else "") + "Z"


def _ns(v: float) -> int:
    return int(round(v))


def to_document(p: Partial, generated_at: str) -> tuple[dict[str, Any], int, int]:
    """The profiles document (docs/formats.md) of ``p`` and the numbers of consumers with exact and with approximate ack_time percentiles."""
    doc: dict[str, Any] = {"version": 1, "generated_at": generated_at}
    if p.bounds is not None:
        doc["window"] = {"start": iso(p.bounds[0]), "end": iso(p.bounds[1])}
    consumers: dict[str, dict[str, Any]] = {}
    exact = approx = 0
    for key in sorted(p.consumers):
        c = p.consumers[key]
        slot: dict[str, Any] = {}
        if c.ack is not None and c.ack.n > 0:
            q, is_exact = c.ack.quantiles(QUANTILES)
            slot["ack_time_ns"] = {
                "samples": c.ack.n,
                "p50": _ns(q[0]),
                "p90": _ns(q[1]),
                "p99": _ns(q[2]),
                "p999": _ns(q[3]),
                "max": c.ack.max,
            }
            if not is_exact:
                slot["ack_time_ns"]["relative_error"] = p.alpha
            exact, approx = exact + is_exact, approx + (not is_exact)
        if c.deliveries is not None and c.deliveries[0] > 0:
            n, first, mx = c.deliveries
            slot["deliveries"] = {"first_try_ratio": first / n, "redelivered_ratio": (n - first) / n, "max": mx}
        if c.advisories is not None:
            slot["advisories"] = dict(c.advisories)
        if c.delivery is not None and c.delivery.dt > 0:
            slot["delivery"] = {"mean_per_s": c.delivery.total * 1e6 / c.delivery.dt, "peak_per_s": c.delivery.peak}
        if slot:
            consumers[key] = slot
    streams = {name: _stream_doc(p, p.streams[name]) for name in sorted(p.streams)}
    doc["streams"] = {k: v for k, v in streams.items() if v}
    doc["consumers"] = consumers
    return doc, exact, approx


def _stream_doc(p: Partial, s: StreamState) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if p.publish_bounds is not None:
        nsec = p.publish_bounds[1] // 1_000_000 - p.publish_bounds[0] // 1_000_000 + 1
        messages = sum(c * secs for c, secs in s.per_sec.items())
        if s.per_sec:
            counts = {0: nsec - sum(s.per_sec.values()), **s.per_sec}
            p99 = _counted(((float(c), counts[c]) for c in sorted(counts) if counts[c]), nsec, (0.99,))[0]
            out["ingest"] = {
                "messages": messages,
                "mean_per_s": messages / nsec,
                "p99_per_s": p99,
                "peak_per_s": max(s.per_sec),
                "peak_per_min": s.peak_min,
            }
            if s.bytes_n:
                out["bytes"] = {"mean_per_s": s.bytes_total / nsec, "peak_per_s": s.bytes_peak}
        if s.attempts:
            retry: dict[str, Any] = {"attempts": s.attempts, "retried_ids": 0}
            horizons = _closed_horizons(p, s)
            if horizons is not None and horizons.n:
                (q,), is_exact = horizons.quantiles((0.99,))
                retry.update(retried_ids=horizons.n, horizon_p99_ns=_ns(q), horizon_max_ns=horizons.max)
                if not is_exact:
                    retry["relative_error"] = p.alpha
            out["publish_retry"] = retry
    if s.latest is not None:
        _, first, last = s.latest
        if first is not None and last is not None and last >= first:
            out["retention_span_ns"] = (last - first) * 1000
    rate = s.seq if s.seq is not None and s.seq.dt > 0 else None
    if rate is not None and "ingest" not in out:
        out["ingest"] = {"messages": rate.total, "mean_per_s": rate.total * 1e6 / rate.dt}
    if s.size is not None and s.size[0] is not None:
        size = s.size[0] / s.size[1]
        b = out.setdefault("bytes", {})
        b["stored_msg_size_mean"] = size
        if "mean_per_s" not in b and rate is not None:
            b["mean_per_s"] = rate.total * 1e6 / rate.dt * size
    return out


def _closed_horizons(p: Partial, s: StreamState) -> Histogram | None:
    """The retry horizons with every id still waiting at the window's edges counted as it stands."""
    h = (
        Histogram(p.alpha, 0, 0, {}, {})
        if s.horizons is None
        else Histogram(
            p.alpha,
            s.horizons.n,
            s.horizons.max,
            dict(s.horizons.buckets),
            None if s.horizons.exact is None else dict(s.horizons.exact),
        )
    )
    for n, lo, hi in s.edges.values():
        if n >= 2:
            h.add((hi - lo) * 1000)
            if h.exact is not None and h.n > p.exact_limit:
                h.exact = None
    return h


def _opt(h: Histogram | None) -> dict[str, Any] | None:
    return None if h is None else h.to_json()


def _counter(c: Counter | None) -> list[Any] | None:
    return None if c is None else c.to_json()


def partial_to_json(p: Partial) -> dict[str, Any]:
    """A JSON-able form of ``p`` (the store's file format, ``format: 1``)."""
    return {
        "format": 1,
        "start": p.start,
        "end": p.end,
        "alpha": p.alpha,
        "exact_limit": p.exact_limit,
        "reach": p.reach,
        "kinds": p.kinds,
        "unknown_types": p.unknown_types,
        "bounds": p.bounds,
        "publish_bounds": p.publish_bounds,
        "consumers": {
            k: {
                "ack": _opt(c.ack),
                "deliveries": c.deliveries,
                "advisories": c.advisories,
                "delivery": _counter(c.delivery),
            }
            for k, c in p.consumers.items()
        },
        "streams": {
            k: {
                "attempts": s.attempts,
                "per_sec": _pairs(s.per_sec),
                "bytes_total": s.bytes_total,
                "bytes_peak": s.bytes_peak,
                "bytes_n": s.bytes_n,
                "peak_min": s.peak_min,
                "horizons": _opt(s.horizons),
                "edges": [[i, *v] for i, v in sorted(s.edges.items())],
                "size": s.size,
                "latest": s.latest,
                "seq": _counter(s.seq),
            }
            for k, s in p.streams.items()
        },
    }


def _tuple(v: Sequence[Any] | None) -> tuple[Any, ...] | None:
    return None if v is None else tuple(v)


def partial_from_json(data: Mapping[str, Any]) -> Partial:
    """The inverse of :func:`partial_to_json` (raises ``KeyError``/``ValueError`` on a malformed file)."""
    if data.get("format") != 1:
        raise ValueError(f"unknown partial profile format {data.get('format')!r}")
    alpha = float(data["alpha"])
    p = Partial(
        int(data["start"]),
        int(data["end"]),
        alpha,
        int(data["exact_limit"]),
        int(data["reach"]),
        {k: int(v) for k, v in data["kinds"].items()},
        {k: int(v) for k, v in data["unknown_types"].items()},
        _tuple(data["bounds"]),
        _tuple(data["publish_bounds"]),
    )
    for k, c in data["consumers"].items():
        p.consumers[k] = ConsumerState(
            None if c["ack"] is None else Histogram.from_json(c["ack"], alpha),
            _tuple(c["deliveries"]),
            c["advisories"],
            None if c["delivery"] is None else Counter.from_json(c["delivery"]),
        )
    for k, s in data["streams"].items():
        p.streams[k] = StreamState(
            int(s["attempts"]),
            {int(c): int(n) for c, n in s["per_sec"]},
            int(s["bytes_total"]),
            int(s["bytes_peak"]),
            int(s["bytes_n"]),
            int(s["peak_min"]),
            None if s["horizons"] is None else Histogram.from_json(s["horizons"], alpha),
            {str(e[0]): (int(e[1]), int(e[2]), int(e[3])) for e in s["edges"]},
            _tuple(s["size"]),
            _tuple(s["latest"]),
            None if s["seq"] is None else Counter.from_json(s["seq"]),
        )
    return p
