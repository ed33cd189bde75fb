"""natscli's monitoring thresholds, evaluated by audit: the ``io.nats.monitor.*`` metadata of a stream (JS540)
or a consumer (JS541) as ``nats server check stream|consumer`` reads it (jsm.go's monitor package; read,
not copied), on what one listing shows.

Each threshold has natscli's meaning: ``msgs-warn``/``msgs-critical`` are floors (a stream holding that many
messages or fewer); ``subjects-warn``/``subjects-critical`` are ceilings when warn < critical and floors
otherwise; ``min-sources``/``max-sources`` bound the number of sources; ``lag-critical`` is how far a source or
the mirror may lag (set on a stream that neither sources nor mirrors, natscli answers "not mirrored");
``peer-expect`` is the number of peers of a replicated stream, ``peer-lag-critical`` and ``peer-seen-critical``
how far and how long ago its replicas may be (natscli reads ``seen-critical`` into the same replica
threshold). On a consumer: ``outstanding-ack-critical``, ``waiting-critical``, ``unprocessed-critical``,
``redelivery-critical`` are ceilings on num_ack_pending, num_waiting, num_pending and num_redelivered;
``last-delivery-critical`` and ``last-ack-critical`` the longest time since the last delivery or acknowledgement
(never: critical); ``pinned`` asks every priority group to have a pinned client.

natscli's CRITICAL is an error, its WARNING a warning. natscli stops at a value it cannot read (the check
fails): so does audit, with one error naming the key. The cluster checks are made when one of the peer keys
is set; ``enabled: false`` turns an object's checks off.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from functools import partial
from typing import Any

from jsops.linter import Severity
from jsops.linter.api import SECOND, approx_duration, monitor_keys, monitor_metadata, parse_monitor_value

from ..live import parse_ts
from .read import AuditState
from .registry import Hit, register

__all__: list[str] = []

ERROR, WARNING = Severity.ERROR, Severity.WARNING
_PEER_KEYS = ("peer-expect", "peer-lag-critical", "peer-seen-critical", "seen-critical")


def _int(v: object) -> int:
    return v if isinstance(v, int) and not isinstance(v, bool) else 0


def _thresholds(kind: str, metadata: Mapping[str, str] | None) -> tuple[dict[str, int | bool], str | None]:
    """The object's thresholds by key (durations in ns), or the first value natscli cannot read."""
    known = monitor_keys(kind)
    out: dict[str, int | bool] = {}
    for key, text in monitor_metadata(metadata).items():
        value_kind = known.get(key)
        if value_kind is None:
            continue  # a key natscli does not read
        value = parse_monitor_value(value_kind, text)
        if value is None:
            return (
                out,
                f"io.nats.monitor.{key} {text[:40]!r} is not {value_kind} as natscli reads it: `nats server check` fails on this object",
            )
        out[key] = value
    return out, None


def _pos(t: Mapping[str, int | bool], key: str) -> int:
    v = t.get(key, 0)
    return v if isinstance(v, int) and not isinstance(v, bool) and v > 0 else 0


def _monitored(
    kind: str,
    metadata: Mapping[str, str] | None,
    hit: Callable[[str, Severity], Hit],
    judge: Callable[[Mapping[str, int | bool]], Iterator[Hit]],
) -> Iterator[Hit]:
    """The thresholds an object's io.nats.monitor.* metadata sets, judged; a broken threshold is its one finding."""
    t, problem = _thresholds(kind, metadata)
    if problem is not None:
        yield hit(problem, ERROR)
    elif t and t.get("enabled") is not False:
        yield from judge(t)


def _hit_for(stream: str, consumer: str | None) -> Callable[[str, Severity], Hit]:
    def hit(message: str, severity: Severity) -> Hit:
        return Hit(stream, consumer, f"{message} (natscli's io.nats.monitor thresholds)", severity)

    return hit


@register(
    "JS540",
    "live-monitor-stream",
    Severity.ERROR,
    "a stream is past a threshold its io.nats.monitor.* metadata sets, as `nats server check stream` reads it",
)
def monitor_stream(state: AuditState, _opts: object) -> Iterator[Hit]:
    for name, ls in state.live.streams.items():
        hit = _hit_for(name, None)
        info = state.streams.get(name) or {}
        judge = partial(_stream_hits, info=info, replicas=ls.config.num_replicas, hit=hit)
        yield from _monitored("Stream", ls.config.metadata, hit, judge)


def _stream_hits(
    t: Mapping[str, int | bool], info: Mapping[str, Any], replicas: int, hit: Callable[[str, Severity], Hit]
) -> Iterator[Hit]:
    st = info.get("state") or {}
    msgs, subjects = _int(st.get("messages")), _int(st.get("num_subjects"))
    crit, warn = _pos(t, "msgs-critical"), _pos(t, "msgs-warn")
    if crit and msgs <= crit:
        yield hit(f"{msgs} messages, at or below msgs-critical {crit}", ERROR)
    elif warn and msgs <= warn:
        yield hit(f"{msgs} messages, at or below msgs-warn {warn}", WARNING)
    yield from _subject_hits(t, subjects, hit)
    yield from _source_hits(t, info, hit)
    if any(k in t for k in _PEER_KEYS):
        yield from _cluster_hits(t, info.get("cluster"), replicas, hit)


def _subject_hits(t: Mapping[str, int | bool], subjects: int, hit: Callable[[str, Severity], Hit]) -> Iterator[Hit]:
    s_warn, s_crit = _int(t.get("subjects-warn")), _int(t.get("subjects-critical"))
    if s_warn > 0 or s_crit > 0:
        above = s_warn < s_crit  # natscli: ceilings when warn < critical, floors otherwise
        if above and subjects >= s_crit or not above and subjects <= s_crit:
            yield hit(
                f"{subjects} subjects, {'at or above' if above else 'at or below'} subjects-critical {s_crit}", ERROR
            )
        elif above and subjects >= s_warn or not above and subjects <= s_warn:
            yield hit(
                f"{subjects} subjects, {'at or above' if above else 'at or below'} subjects-warn {s_warn}", WARNING
            )


def _source_hits(
    t: Mapping[str, int | bool], info: Mapping[str, Any], hit: Callable[[str, Severity], Hit]
) -> Iterator[Hit]:
    """The sources' count and the lag of the sources or the mirror."""
    sources = [s for s in info.get("sources") or () if isinstance(s, dict)]
    low, high = _pos(t, "min-sources"), _pos(t, "max-sources")
    if low and len(sources) < low:
        yield hit(f"{len(sources)} sources, fewer than min-sources {low}", ERROR)
    elif high and len(sources) > high:
        yield hit(f"{len(sources)} sources, more than max-sources {high}", ERROR)
    lag = _pos(t, "lag-critical")
    if lag:
        mirror = info.get("mirror")
        if sources:
            lagged = sum(1 for s in sources if _int(s.get("lag")) >= lag)
            if lagged:
                yield hit(f"{lagged} of {len(sources)} sources lag by lag-critical {lag} operations or more", ERROR)
        elif isinstance(mirror, dict):
            if _int(mirror.get("lag")) >= lag:
                yield hit(
                    f"the mirror lags by {_int(mirror.get('lag'))} operations, at or above lag-critical {lag}", ERROR
                )
        else:
            yield hit(
                "lag-critical is set but the stream neither mirrors nor sources: natscli answers 'not mirrored'", ERROR
            )


def _cluster_hits(
    t: Mapping[str, int | bool], cluster: object, replicas: int, hit: Callable[[str, Severity], Hit]
) -> Iterator[Hit]:
    expect = _int(t.get("peer-expect"))
    if not isinstance(cluster, dict) or replicas <= 1:
        if expect > 0:
            yield hit("the stream is not clustered", ERROR)
        return
    if not cluster.get("leader"):
        yield hit("the stream has no leader", ERROR)
        return
    peers = [p for p in cluster.get("replicas") or () if isinstance(p, dict)]
    if len(peers) + 1 != expect:
        yield hit(f"{len(peers) + 1} peers, peer-expect is {expect}", ERROR)
        return
    offline = sum(1 for p in peers if p.get("offline"))
    if offline:
        yield hit(f"{offline} replicas offline", ERROR)
    lag = _pos(t, "peer-lag-critical")
    lagged = sum(1 for p in peers if _int(p.get("lag")) > lag) if lag else 0
    if lagged:
        yield hit(f"{lagged} replicas lag by more than peer-lag-critical {lag} operations", ERROR)
    seen = _pos(t, "peer-seen-critical") or _pos(t, "seen-critical")  # natscli reads both into one threshold
    quiet = sum(1 for p in peers if _int(p.get("active")) > seen) if seen else 0
    if quiet:
        yield hit(f"{quiet} replicas not seen for more than {approx_duration(seen)}", ERROR)


_CEILINGS = (
    ("outstanding-ack-critical", "num_ack_pending", "messages delivered and not acknowledged"),
    ("waiting-critical", "num_waiting", "pull requests waiting"),
    ("unprocessed-critical", "num_pending", "messages not yet delivered"),
    ("redelivery-critical", "num_redelivered", "messages redelivered"),
)


@register(
    "JS541",
    "live-monitor-consumer",
    Severity.ERROR,
    "a consumer is past a threshold its io.nats.monitor.* metadata sets, as `nats server check consumer` reads it",
)
def monitor_consumer(state: AuditState, _opts: object) -> Iterator[Hit]:
    for (stream, name), lc in state.live.consumers.items():
        hit = _hit_for(stream, name)
        info = state.consumers.get((stream, name)) or {}
        pinning = (lc.config.priority_policy, list(lc.config.priority_groups))
        judge = partial(_consumer_judged, info=info, read_at=state.read_at, pinning=pinning, hit=hit)
        yield from _monitored("Consumer", lc.config.metadata, hit, judge)


def _consumer_judged(
    t: Mapping[str, int | bool],
    info: Mapping[str, Any],
    read_at: float,
    pinning: tuple[object, list[str]],
    hit: Callable[[str, Severity], Hit],
) -> Iterator[Hit]:
    yield from _consumer_hits(t, info, read_at, hit)
    if t.get("pinned") is True:
        yield from _pinned(*pinning, info, hit)


def _consumer_hits(
    t: Mapping[str, int | bool], info: Mapping[str, Any], read_at: float, hit: Callable[[str, Severity], Hit]
) -> Iterator[Hit]:
    """The ceilings on a consumer's counts, and the time since its last delivery and acknowledgement."""
    for key, field, what in _CEILINGS:
        limit, value = _pos(t, key), _int(info.get(field))
        if limit and value >= limit:
            yield hit(f"{value} {what}, at or above {key} {limit}", ERROR)
    for key, part, what in (
        ("last-delivery-critical", "delivered", "delivery"),
        ("last-ack-critical", "ack_floor", "acknowledgement"),
    ):
        limit = _pos(t, key)
        if not limit:
            continue
        last = parse_ts((info.get(part) or {}).get("last_active"))
        if last is None:
            yield hit(f"no {what} yet, {key} is {approx_duration(limit)}", ERROR)
        elif (read_at - last) * SECOND >= limit:
            yield hit(
                f"last {what} {approx_duration(int((read_at - last) * SECOND))} ago, {key} is {approx_duration(limit)}",
                ERROR,
            )


def _pinned(
    policy: object, groups: list[str], info: Mapping[str, Any], hit: Callable[[str, Severity], Hit]
) -> Iterator[Hit]:
    live = [g for g in info.get("priority_groups") or () if isinstance(g, dict)]
    if not live or not groups or policy != "pinned_client":
        yield hit("pinned is set but the consumer is not in pinned-client priority mode", ERROR)
        return
    pinned = sum(1 for g in live if g.get("pinned_client_id"))
    if pinned != len(groups):
        yield hit(f"{pinned} of {len(groups)} priority groups have a pinned client", ERROR)
