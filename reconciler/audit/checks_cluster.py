"""Live rules on replication: replicas lagging or offline, streams without a leader, mirrors and
sources that lag or fail (from the ``cluster``, ``mirror`` and ``sources`` parts of a StreamInfo)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

from jsops.linter import Severity
from jsops.linter.api import MINUTE, SECOND, Duration, RuleOptions, approx_duration, option

from .read import AuditState
from .registry import Hit, register

__all__: list[str] = []


class ReplicaLag(RuleOptions):
    max_lag: int = option(default=1_000, ge=0, description="operations a replica may be behind its leader")
    max_silence: Duration = option(default=30 * SECOND, description="time since the leader last heard from a replica")


class LeaderSkew(RuleOptions):
    max_factor: float = option(
        default=2.0, gt=1.0, description="times its fair share of a cluster's stream leaders one server may lead"
    )
    min_excess: int = option(default=3, ge=1, description="leaders over the fair share before a server is skewed")


class SourceLag(RuleOptions):
    max_lag: int = option(default=1_000, ge=0, description="messages a mirror or source may be behind its origin")
    max_silence: Duration = option(
        default=MINUTE, description="time since the mirror or source last heard from its origin"
    )


def _int(v: Any) -> int:
    return v if isinstance(v, int) and not isinstance(v, bool) else 0


def _replicas(state: AuditState) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for name, info in state.streams.items():
        cluster = info.get("cluster") or {}
        for r in cluster.get("replicas") or []:
            if isinstance(r, dict):
                yield name, str(cluster.get("leader") or ""), r


@register(
    "JS510",
    "live-replica-lagging",
    Severity.WARNING,
    "a stream replica is not current, or is more than max_lag operations or max_silence behind its leader",
    ReplicaLag,
)
def replica_lagging(state: AuditState, opts: ReplicaLag) -> Iterator[Hit]:
    silence = int(opts.max_silence)
    for stream, leader, r in _replicas(state):
        if r.get("offline"):
            continue  # JS511
        lag, active = _int(r.get("lag")), _int(r.get("active"))
        why = []
        if not r.get("current"):
            why.append("not current")
        if lag > opts.max_lag:
            why.append(f"{lag} operations behind")
        if active > silence:
            why.append(f"last heard from {approx_duration(active)} ago")
        if why:
            yield Hit(
                stream,
                None,
                f"replica {r.get('name')!r} lags leader {leader!r}: {', '.join(why)} (thresholds: {opts.max_lag} operations, {approx_duration(silence)})",
            )


@register(
    "JS511",
    "live-replica-offline",
    Severity.ERROR,
    "a stream replica is offline: the stream runs with fewer copies, and loses its quorum when more go",
)
def replica_offline(state: AuditState, _opts: RuleOptions) -> Iterator[Hit]:
    for stream, leader, r in _replicas(state):
        if r.get("offline"):
            active = _int(r.get("active"))
            seen = f", last heard from {approx_duration(active)} ago" if active else ""
            size = len((state.streams[stream].get("cluster") or {}).get("replicas") or []) + 1
            yield Hit(
                stream,
                None,
                f"replica {r.get('name')!r} is offline{seen}; R{size} with leader {leader!r} keeps its quorum only while a majority of {size} is up",
            )


@register(
    "JS512",
    "live-stream-no-leader",
    Severity.ERROR,
    "a replicated stream has no current leader, or no leader answered the listing: it takes no writes",
)
def no_leader(state: AuditState, _opts: RuleOptions) -> Iterator[Hit]:
    for name in state.missing:
        yield Hit(
            name, None, "no leader answered the stream listing in time: it may have no leader (no writes) or be moving"
        )
    for name, info in state.streams.items():
        cluster = info.get("cluster")
        replicas = state.live.streams[name].config.num_replicas or 1
        if isinstance(cluster, dict) and replicas > 1 and not cluster.get("leader"):
            yield Hit(
                name,
                None,
                f"R{replicas} stream without a current leader: writes and consumer deliveries wait for an election",
            )


@register(
    "JS516",
    "live-leader-skew",
    Severity.WARNING,
    "one server leads far more than its share of a cluster's replicated streams: their writes all pass through it",
    LeaderSkew,
)
def leader_skew(state: AuditState, opts: LeaderSkew) -> Iterator[Hit]:
    for cluster, (servers, led) in sorted(_leaders(state).items()):
        total = sum(led.values())
        fair = total / len(servers)
        for server, count in led.most_common():
            if count > opts.max_factor * fair and count - fair >= opts.min_excess:
                yield Hit(
                    None,
                    None,
                    f"server {server!r} leads {count} of the {total} replicated streams of cluster {cluster!r} "
                    f"({len(servers)} servers, about {fair:.0f} each when balanced): their writes all pass through "
                    "it; a leader step-down of some of them (`nats stream cluster step-down STREAM`) spreads them",
                )


def _leaders(state: AuditState) -> dict[str, tuple[set[str], Counter[str]]]:
    """Per cluster: the servers its replicated streams are placed on, and how many each leads."""
    clusters: dict[str, tuple[set[str], Counter[str]]] = {}
    for info in state.streams.values():
        cluster = info.get("cluster") or {}
        leader = cluster.get("leader")
        peers = [str(r.get("name")) for r in cluster.get("replicas") or [] if isinstance(r, dict)]
        if not leader or not peers:
            continue
        servers, led = clusters.setdefault(str(cluster.get("name") or ""), (set(), Counter()))
        servers.update([str(leader), *peers])
        led[str(leader)] += 1
    return clusters


def _origins(info: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    mirror = info.get("mirror")
    if isinstance(mirror, dict):
        yield "mirror", mirror
    for src in info.get("sources") or []:
        if isinstance(src, dict):
            yield "source", src


@register(
    "JS513",
    "live-mirror-lagging",
    Severity.WARNING,
    "a mirror or source is more than max_lag messages behind its origin, silent for max_silence, or failing",
    SourceLag,
)
def mirror_lagging(state: AuditState, opts: SourceLag) -> Iterator[Hit]:
    silence = int(opts.max_silence)
    for name, info in state.streams.items():
        for what, src in _origins(info):
            origin = src.get("name")
            err = src.get("error")
            if isinstance(err, dict) and err:
                yield Hit(
                    name,
                    None,
                    f"{what} of {origin!r} fails: {err.get('description', 'error')} ({err.get('err_code')})",
                    Severity.ERROR,
                )
                continue
            lag, active = _int(src.get("lag")), src.get("active")
            why = []
            if lag > opts.max_lag:
                why.append(f"{lag} messages behind")
            if isinstance(active, int) and (active < 0 or active > silence):
                why.append(
                    "never heard from its origin"
                    if active < 0
                    else f"last heard from its origin {approx_duration(active)} ago"
                )
            if why:
                yield Hit(
                    name,
                    None,
                    f"{what} of {origin!r} lags: {', '.join(why)} (thresholds: {opts.max_lag} messages, {approx_duration(silence)})",
                )
