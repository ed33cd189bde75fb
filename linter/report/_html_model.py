"""The HTML report's data model: what the page shows, computed from estate + profiles + findings.

Pure: no I/O, no HTML. Figures the profile lacks stay ``None`` (shown as "no data", never zero).
All durations are integer nanoseconds, rates per second, sizes bytes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from ..findings import Finding, ObjectRef, Severity
from ..load import Estate, Resource
from ..model.profiles import AckTimeProfile, ConsumerProfile, Profiles, StreamProfile
from ..semantics.effective_types import EffectiveConsumer, EffectiveStream
from ..semantics.units import SECOND
from ._html_finding import FindingRow

if TYPE_CHECKING:
    from ._html_live import LiveTarget

__all__ = [
    "AckExceed",
    "AckPoint",
    "ConsumerReport",
    "FileFindings",
    "Fill",
    "ObjectFindings",
    "Rate",
    "ReportData",
    "StreamReport",
    "ack_exceed",
    "ack_points",
    "build_report",
    "fill_times",
    "stream_rates",
]

# The percentiles contract §4 gives, in order, with the quantile each stands for.
QUANTILES: tuple[tuple[str, str, float], ...] = (
    ("p50", "p50", 0.5),
    ("p90", "p90", 0.9),
    ("p99", "p99", 0.99),
    ("p999", "p99.9", 0.999),
    ("max", "max", 1.0),
)


@dataclass(frozen=True)
class AckPoint:
    """One known point of the ack-time distribution: ``quantile`` of the sampled acks took <= ``ns``."""

    label: str
    quantile: float
    ns: int


@dataclass(frozen=True)
class AckExceed:
    """Bounds on the share of sampled acks slower than ack_wait, as far as the percentiles tell.

    ``low`` <= share <= ``high``; ``some`` is True when at least one sample is known to be slower
    (max > ack_wait) even if ``low`` is 0.
    """

    low: float
    high: float
    some: bool

    @property
    def none(self) -> bool:
        return not self.some


@dataclass(frozen=True)
class ObjectFindings:
    label: str  # "Stream ORDERS", "Consumer ORDERS/shipper", or "file" for file-level findings
    anchor: str | None  # id of the object's card in the page, when it has one
    findings: tuple[FindingRow, ...]


@dataclass(frozen=True)
class FileFindings:
    file: str
    objects: tuple[ObjectFindings, ...]

    @property
    def count(self) -> int:
        return sum(len(o.findings) for o in self.objects)


@dataclass(frozen=True)
class ConsumerReport:
    anchor: str
    stream: str
    name: str
    file: str
    line: int
    ack_policy: str
    ack_wait_ns: int | None  # effective (server-defaulted; backoff[0] when backoff is set); None: acks off
    backoff_ns: tuple[int, ...]
    max_deliver: int | None
    samples: int | None  # sampled acks the percentiles come from; None: no ack-time data
    points: tuple[AckPoint, ...]  # empty: no ack-time data
    exceed: AckExceed | None  # None: no data or no ack_wait
    p99_over_ack_wait: float | None
    first_try_ratio: float | None
    redelivered_ratio: float | None
    max_deliveries_seen: int | None
    advisories: tuple[tuple[str, int | None], ...]  # (kind, count) from the profile; None: no data
    delivery_mean_per_s: float | None
    delivery_peak_per_s: float | None
    findings: int
    status: str  # "ok" | "findings" (ok by the profile, but lint has findings) | "warn" | "bad" | "nodata" | "noack"


@dataclass(frozen=True)
class Rate:
    """One ingest rate of a stream: messages/s and bytes/s (``bytes_estimated``: messages x mean size)."""

    label: str  # "mean" | "p99" | "peak"
    msgs_per_s: float | None
    bytes_per_s: float | None
    bytes_estimated: bool
    note: str = ""  # why a figure is left out


@dataclass(frozen=True)
class Fill:
    """Time to fill one limit at one rate, if nothing were removed."""

    limit: str  # "max_bytes" | "max_msgs"
    limit_value: int
    rate: str  # "mean" | "p99" | "peak"
    state: str  # "fills" | "never" (rate 0) | "nodata"
    seconds: float | None
    estimated: bool  # the bytes rate is messages/s x mean message size
    before_max_age: bool | None  # fills before max_age expires messages; None: no data / no max_age


@dataclass(frozen=True)
class StreamReport:
    anchor: str
    name: str
    file: str
    line: int
    retention: str
    discard: str
    storage: str
    max_age_ns: int | None  # None: unlimited
    max_bytes: int | None  # None: unlimited
    max_msgs: int | None  # None: unlimited
    messages: int | None  # messages stored during the profile window
    rates: tuple[Rate, ...]
    msg_size_mean: float | None
    fills: tuple[Fill, ...]
    retention_span_ns: int | None
    bytes_at_max_age: float | None  # mean bytes/s x max_age: what the stream holds when age is the bound
    consumers: tuple[ConsumerReport, ...]
    findings: int
    status: str  # "ok" | "warn" (a limit fills before max_age at some rate) | "bad" (at the mean) | "nodata"
    bucket: str = ""  # "KeyValue carts" when the stream is a bucket's


@dataclass(frozen=True)
class ReportData:
    title: str
    sources: tuple[str, ...]
    profiles_source: str | None
    profile_generated_at: datetime | None
    window_start: datetime | None
    window_end: datetime | None
    streams: tuple[StreamReport, ...]
    orphan_consumers: tuple[ConsumerReport, ...]  # consumers whose stream the estate does not declare
    findings: tuple[FileFindings, ...]
    counts: tuple[tuple[str, int], ...]  # (severity, count), error first
    unmatched_profiles: tuple[str, ...]  # profiled streams/consumers the estate does not declare
    live: tuple[LiveTarget, ...] = ()  # jsops audit --html: what each target held when read

    @property
    def consumers(self) -> tuple[ConsumerReport, ...]:
        return tuple(c for s in self.streams for c in s.consumers) + self.orphan_consumers

    @property
    def total_findings(self) -> int:
        return sum(n for _, n in self.counts)


# --- consumers ----------------------------------------------------------------------------------


def ack_points(ack: AckTimeProfile | None) -> tuple[AckPoint, ...]:
    """The known points of an ack-time profile, p50 to max (empty when there is none)."""
    if ack is None:
        return ()
    return tuple(AckPoint(label, q, int(getattr(ack, field))) for field, label, q in QUANTILES)


def ack_exceed(points: Sequence[AckPoint], ack_wait_ns: int) -> AckExceed | None:
    """What the percentiles say about the share of acks slower than ``ack_wait_ns``.

    A point at or under ack_wait caps the share at ``1 - quantile``; a point over it puts at least
    ``1 - quantile`` above (for max: at least one sample).
    """
    if not points:
        return None
    high, low, some = 1.0, 0.0, False
    for p in points:
        if p.ns <= ack_wait_ns:
            high = min(high, 1.0 - p.quantile)
        else:
            low = max(low, 1.0 - p.quantile)
            some = True
    return AckExceed(round(low, 6), round(high, 6), some)


def _consumer_status(ack_wait: int | None, points: tuple[AckPoint, ...]) -> str:
    if ack_wait is None:
        return "noack"
    if not points:
        return "nodata"
    by = {p.label: p.ns for p in points}
    if by["p99"] > ack_wait:
        return "bad"
    if by["max"] > ack_wait or by["p99"] * 2 > ack_wait:
        return "warn"
    return "ok"


def _consumer(
    res: Resource, eff: EffectiveConsumer, prof: ConsumerProfile | None, anchor: str, findings: int
) -> ConsumerReport:
    policy = eff.ack_policy
    ack_wait = (eff.ack_wait or None) if policy != "none" else None  # 0: the server stores no ack wait
    backoff = eff.backoff
    max_deliver = eff.max_deliver
    ack = prof.ack_time_ns if prof else None
    points = ack_points(ack)
    dl = prof.deliveries if prof else None
    adv = prof.advisories if prof else None
    rate = prof.delivery if prof else None
    p99 = next((p.ns for p in points if p.label == "p99"), None)
    return ConsumerReport(
        anchor=anchor,
        stream=res.stream or "",
        name=res.name,
        file=res.file,
        line=res.doc_line,
        ack_policy=policy,
        ack_wait_ns=ack_wait,
        backoff_ns=backoff,
        max_deliver=max_deliver,
        samples=ack.samples if ack else None,
        points=points,
        exceed=ack_exceed(points, ack_wait) if ack_wait is not None else None,
        p99_over_ack_wait=(p99 / ack_wait) if (p99 is not None and ack_wait) else None,
        first_try_ratio=dl.first_try_ratio if dl else None,
        redelivered_ratio=dl.redelivered_ratio if dl else None,
        max_deliveries_seen=dl.max if dl else None,
        advisories=tuple((kind, getattr(adv, kind) if adv else None) for kind in ("max_deliver", "nak", "terminated")),
        delivery_mean_per_s=rate.mean_per_s if rate else None,
        delivery_peak_per_s=rate.peak_per_s if rate else None,
        findings=findings,
        status=_with_findings(_consumer_status(ack_wait, points), findings),
    )


# --- streams ------------------------------------------------------------------------------------


def _limit(value: int) -> int | None:
    """A stream limit; -1 and 0 mean unlimited (the server's encodings)."""
    return value if value > 0 else None


def stream_rates(prof: StreamProfile | None) -> tuple[Rate, ...]:
    """Mean, p99 and peak ingest in messages/s and bytes/s.

    The profile gives bytes/s for mean and peak; any bytes rate it lacks is estimated as
    messages/s x mean stored message size (marked), and stays ``None`` when that is missing too.
    """
    ingest = prof.ingest if prof else None
    nbytes = prof.bytes if prof else None
    size = nbytes.stored_msg_size_mean if nbytes else None
    msgs: dict[str, float | None] = {
        "mean": ingest.mean_per_s if ingest else None,
        "p99": ingest.p99_per_s if ingest else None,
        "peak": float(ingest.peak_per_s) if ingest and ingest.peak_per_s is not None else None,
    }
    direct: dict[str, float | None] = {
        "mean": nbytes.mean_per_s if nbytes else None,
        "p99": None,  # the profile has no p99 of bytes/s
        "peak": float(nbytes.peak_per_s) if nbytes and nbytes.peak_per_s is not None else None,
    }
    note = ""
    if msgs["p99"] is not None and msgs["peak"] is not None and msgs["p99"] > msgs["peak"]:
        # the two come from different samples; a p99 above the peak contradicts it: leave it out
        msgs["p99"], note = None, "above the measured peak (different samples): left out"
    out = []
    for label in ("mean", "p99", "peak"):
        m, b, est = msgs[label], direct[label], False
        if b is None and m is not None and size is not None:
            b, est = m * size, True
        if label == "p99" and est and b is not None and direct["peak"] is not None and b > direct["peak"]:
            # p99 messages/s x the mean size is no measurement: it never reads above the measured byte peak
            b, note = direct["peak"], note or "bytes/s estimated above the measured peak: shown at the peak"
        out.append(Rate(label, m, b, est, note if label == "p99" else ""))
    return tuple(out)


def fill_times(
    rates: Sequence[Rate], max_bytes: int | None, max_msgs: int | None, max_age_ns: int | None
) -> tuple[Fill, ...]:
    """Time to fill each set limit at each rate, compared with max_age."""
    out: list[Fill] = []
    for limit, value in (("max_bytes", max_bytes), ("max_msgs", max_msgs)):
        if value is None:
            continue
        for r in rates:
            per_s = r.bytes_per_s if limit == "max_bytes" else r.msgs_per_s
            est = r.bytes_estimated if limit == "max_bytes" else False
            if per_s is None:
                out.append(Fill(limit, value, r.label, "nodata", None, False, None))
            elif per_s <= 0:
                out.append(Fill(limit, value, r.label, "never", None, est, False if max_age_ns else None))
            else:
                secs = value / per_s
                before = (secs * SECOND < max_age_ns) if max_age_ns else None
                out.append(Fill(limit, value, r.label, "fills", secs, est, before))
    return tuple(out)


def _stream_status(fills: Sequence[Fill], has_profile: bool) -> str:
    if not has_profile or all(f.state == "nodata" for f in fills) and fills:
        return "nodata"
    if any(f.before_max_age and f.rate == "mean" for f in fills):
        return "bad"
    if any(f.before_max_age for f in fills):
        return "warn"
    return "ok"


def _stream(
    res: Resource,
    eff: EffectiveStream,
    prof: StreamProfile | None,
    anchor: str,
    consumers: tuple[ConsumerReport, ...],
    findings: int,
) -> StreamReport:
    max_age = _limit(eff.max_age)
    max_bytes = _limit(eff.max_bytes)
    max_msgs = _limit(eff.max_msgs)
    rates = stream_rates(prof)
    fills = fill_times(rates, max_bytes, max_msgs, max_age)
    nbytes = prof.bytes if prof else None
    return StreamReport(
        anchor=anchor,
        name=res.name,
        file=res.file,
        line=res.doc_line,
        retention=eff.retention,
        discard=eff.discard,
        storage=eff.storage,
        max_age_ns=max_age,
        max_bytes=max_bytes,
        max_msgs=max_msgs,
        messages=prof.ingest.messages if prof and prof.ingest else None,
        rates=rates,
        msg_size_mean=nbytes.stored_msg_size_mean if nbytes else None,
        fills=fills,
        retention_span_ns=prof.retention_span_ns if prof else None,
        bytes_at_max_age=(rates[0].bytes_per_s * max_age / SECOND)
        if (max_age and rates[0].bytes_per_s is not None)
        else None,
        consumers=consumers,
        findings=findings,
        status=_with_findings(
            _stream_status(fills, prof is not None and (prof.ingest is not None or prof.bytes is not None)), findings
        ),
        bucket=f"{res.bucket} {res.name.split('_', 1)[1]}" if res.bucket else "",
    )


def _with_findings(status: str, findings: int) -> str:
    """A card with findings never says "ok": its badge sends the reader to them instead."""
    return "findings" if status == "ok" and findings else status


# --- findings -----------------------------------------------------------------------------------


def _object_key(ref: ObjectRef | None) -> tuple[str, str, str | None] | None:
    return (ref.kind, ref.name, ref.stream) if ref is not None else None


def _group_findings(
    findings: Sequence[Finding], anchors: dict[tuple[str, str, str | None], str]
) -> tuple[FileFindings, ...]:
    by_file: dict[str, dict[tuple[str, str, str | None] | None, list[Finding]]] = {}
    for f in sorted(findings, key=Finding.sort_key):
        by_file.setdefault(f.file, {}).setdefault(_object_key(f.object), []).append(f)
    out = []
    for file in sorted(by_file):
        groups = []
        for key, items in by_file[file].items():  # in order of first line in the file
            label = "file" if key is None else str(items[0].object)
            ordered = sorted(items, key=lambda f: (-f.severity.rank, f.sort_key()))  # the most severe first
            rows = tuple(
                FindingRow(f.severity.value, f.rule, f.name, f.message, f.file, f.line, f.column) for f in ordered
            )
            groups.append(ObjectFindings(label, anchors.get(key) if key else None, rows))
        out.append(FileFindings(file, tuple(groups)))
    return tuple(out)


# --- the whole report ---------------------------------------------------------------------------


def build_report(
    estate: Estate,
    profiles: Profiles | None,
    findings: Sequence[Finding],
    effective: Callable[[Resource], EffectiveStream | EffectiveConsumer],
    *,
    sources: Sequence[str] = (),
    profiles_source: str | None = None,
    title: str = "jsops report",
) -> ReportData:
    """The report's data: every stream with its consumers, their profile figures against their
    effective limits, and the findings grouped by file and object.

    ``effective`` returns a resource's effective (server-defaulted) config, e.g.
    ``RuleContext(estate, target).effective``.
    """
    streams = sorted((r for r in estate.resources if r.kind == "Stream"), key=lambda r: (r.name, r.context, r.file))
    consumers = sorted(
        (r for r in estate.resources if r.kind == "Consumer"), key=lambda r: (r.stream or "", r.name, r.context, r.file)
    )
    per_object = _findings_per_object(findings)
    built = _consumer_reports(consumers, profiles, effective, per_object)
    declared = {r.name for r in streams}
    generated_at, window_start, window_end = _profile_header(profiles)
    return ReportData(
        title=title,
        sources=tuple(sources),
        profiles_source=profiles_source,
        profile_generated_at=generated_at,
        window_start=window_start,
        window_end=window_end,
        streams=_stream_reports(streams, built, profiles, effective, per_object),
        orphan_consumers=tuple(c for c in built if c.stream not in declared),
        findings=_group_findings(findings, _anchors(streams, consumers)),
        counts=tuple(
            (s.value, sum(1 for f in findings if f.severity is s))
            for s in (Severity.ERROR, Severity.WARNING, Severity.INFO)
        ),
        unmatched_profiles=_unmatched(profiles, declared, built),
    )


def _anchors(streams: Sequence[Resource], consumers: Sequence[Resource]) -> dict[tuple[str, str, str | None], str]:
    """The anchor of each object's section (the first of its name, in report order)."""
    anchors: dict[tuple[str, str, str | None], str] = {}
    for i, r in enumerate(streams):
        anchors.setdefault(("Stream", r.name, None), f"s{i}")
    for i, r in enumerate(consumers):
        anchors.setdefault(("Consumer", r.name, r.stream), f"c{i}")
    return anchors


def _findings_per_object(findings: Sequence[Finding]) -> dict[tuple[str, str, str | None], int]:
    per_object: dict[tuple[str, str, str | None], int] = {}
    for f in findings:
        key = _object_key(f.object)
        if key is not None:
            per_object[key] = per_object.get(key, 0) + 1
    return per_object


def _consumer_reports(
    consumers: Sequence[Resource],
    profiles: Profiles | None,
    effective: Callable[[Resource], EffectiveStream | EffectiveConsumer],
    per_object: dict[tuple[str, str, str | None], int],
) -> list[ConsumerReport]:
    out = []
    for i, r in enumerate(consumers):
        prof = profiles.consumer(r.stream or "", r.name) if profiles else None
        eff = effective(r)
        if not isinstance(eff, EffectiveConsumer):
            raise TypeError(f"{r.name} is not a consumer")
        out.append(_consumer(r, eff, prof, f"c{i}", per_object.get(("Consumer", r.name, r.stream), 0)))
    return out


def _stream_reports(
    streams: Sequence[Resource],
    built: Sequence[ConsumerReport],
    profiles: Profiles | None,
    effective: Callable[[Resource], EffectiveStream | EffectiveConsumer],
    per_object: dict[tuple[str, str, str | None], int],
) -> tuple[StreamReport, ...]:
    out = []
    for i, r in enumerate(streams):
        own = tuple(c for c in built if c.stream == r.name)
        prof = profiles.stream(r.name) if profiles else None
        eff = effective(r)
        if not isinstance(eff, EffectiveStream):
            raise TypeError(f"{r.name} is not a stream")
        out.append(_stream(r, eff, prof, f"s{i}", own, per_object.get(("Stream", r.name, None), 0)))
    return tuple(out)


def _profile_header(profiles: Profiles | None) -> tuple[datetime | None, datetime | None, datetime | None]:
    """When the profiles were made and the window they measure (None without profiles)."""
    if profiles is None:
        return None, None, None
    window = profiles.window
    return profiles.generated_at, window.start if window else None, window.end if window else None


def _unmatched(profiles: Profiles | None, declared: set[str], built: Sequence[ConsumerReport]) -> tuple[str, ...]:
    """The profiled streams and consumers the estate does not declare."""
    if profiles is None:
        return ()
    known = {f"{c.stream}/{c.name}" for c in built}
    return (
        *(f"stream {name}" for name in sorted(profiles.streams) if name not in declared),
        *(f"consumer {key}" for key in sorted(profiles.consumers) if key not in known),
    )
