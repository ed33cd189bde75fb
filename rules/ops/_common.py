"""Helpers shared by the operational rules (``rules/ops/``).

Operational rules warn about configurations nats-server accepts but that hurt in production. The
profile-driven ones read measured figures from ``ctx.profiles`` (contracts §4: streams keyed by
name, consumers by ``"STREAM/consumer"``); without a profile they use what the manifest declares in
``metadata.annotations`` (the keys below), and otherwise stay silent: they never guess.

Annotations (native and NACK manifests; NATS API JSON has no annotations, so there only profiles
count):

- ``jsops.io/processing-time-p99`` (consumer): the P99 time a handler needs from delivery to ack,
  a Go duration (``"4s"``), used by JS401 when no profile measures the consumer.
- ``jsops.io/publish-retry-horizon`` (stream): how long after its first attempt a publisher may
  still retry a message with the same ``Nats-Msg-Id`` (attempts x timeout + backoff), a Go duration,
  used by JS402 and JS404 when no profile measures it.
- ``jsops.io/dead-letter`` (consumer, or its stream for all its consumers): names whatever handles
  the consumer's ``MAX_DELIVERIES`` advisories outside the estate (a service, another account's
  stream), for JS406.
"""

from __future__ import annotations

from typing import Any

from linter.api import MINUTE, SECOND, Resource, RuleContext, UnitError, format_duration, parse_duration

__all__ = [
    "PROCESSING_TIME",
    "PUBLISH_RETRY_HORIZON",
    "DEAD_LETTER",
    "dur",
    "pct",
    "acks",
    "annotation_duration",
    "readable_ceil",
    "readable_floor",
    "written",
    "advisory_subject",
    "retry_horizon",
    "approx_size",
]

PROCESSING_TIME = "jsops.io/processing-time-p99"
PUBLISH_RETRY_HORIZON = "jsops.io/publish-retry-horizon"
DEAD_LETTER = "jsops.io/dead-letter"

MAX_DELIVERIES_PREFIX = "$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES"


def dur(ns: int) -> str:
    """A duration for messages: Go syntax, readable (``8.2s``, ``250ms``, ``1m30s``, ``7d``)."""
    if ns % SECOND == 0 or ns <= 0:
        return format_duration(ns)
    if ns < SECOND:
        return f"{ns / 1_000_000:.3f}".rstrip("0").rstrip(".") + "ms"
    if ns < MINUTE:
        return f"{ns / SECOND:.2f}".rstrip("0").rstrip(".") + "s"
    return format_duration(round(ns / SECOND) * SECOND)


def pct(ratio: float) -> str:
    """``0.034`` -> ``3.4%``; ``0.12`` -> ``12%``."""
    value = ratio * 100
    text = f"{value:.1f}".rstrip("0").rstrip(".")
    return f"{text}%"


def acks(eff: dict[str, Any]) -> bool:
    """The consumer acknowledges messages one by one or cumulatively (``ack_wait`` and
    ``max_deliver`` apply). ``flow_control`` acks ride on flow-control replies: no ack timer."""
    return eff.get("ack_policy") in ("explicit", "all")


def annotation_duration(resource: Resource, key: str) -> tuple[int | None, str | None]:
    """``(nanoseconds, None)`` for a readable positive duration annotation, ``(None, problem)`` for
    one that does not parse, ``(None, None)`` when the manifest does not declare it."""
    raw = resource.annotations.get(key)
    if raw is None:
        return None, None
    try:
        ns = parse_duration(str(raw).strip())
    except UnitError as exc:
        return None, f"annotation {key} is not a duration: {exc}"
    if ns <= 0:
        return None, f"annotation {key} must be a positive duration, not {str(raw)[:40]!r}"
    return ns, None


def _step(ns: int) -> int:
    if ns <= MINUTE:
        return SECOND
    if ns <= 10 * MINUTE:
        return 10 * SECOND
    if ns <= 60 * MINUTE:
        return MINUTE
    return 5 * MINUTE


def readable_ceil(ns: int) -> int:
    """The smallest readable duration at or above ``ns`` (at least 1s): whole seconds up to a
    minute, tens of seconds up to ten minutes (``1m30s``), minutes up to an hour, then five minutes."""
    if ns <= SECOND:
        return SECOND
    step = _step(ns)
    return -(-ns // step) * step


def readable_floor(ns: int) -> int:
    """The largest readable duration at or below ``ns`` (the steps of :func:`readable_ceil`);
    0 below one second."""
    if ns < SECOND:
        return 0
    step = _step(ns)
    return ns // step * step


def written(resource: Resource, name: str) -> bool:
    """The manifest writes this config field (it is not a default)."""
    return getattr(resource.config, name, None) is not None


def advisory_subject(resource: Resource) -> str:
    """The subject of this consumer's max-deliveries advisories."""
    return f"{MAX_DELIVERIES_PREFIX}.{resource.stream}.{resource.name}"


def retry_horizon(resource: Resource, ctx: RuleContext, use: str = "p99") -> tuple[int | None, str, str | None]:
    """``(horizon ns, where it comes from, problem)``: the profile's publish-retry horizon, else the
    declared ``jsops.io/publish-retry-horizon`` annotation; ``problem`` names an unreadable one."""
    prof = ctx.stream_profile(resource)
    retry = prof.publish_retry if prof is not None else None
    if retry is not None and retry.retried_ids > 0:
        value = retry.horizon_max_ns if use == "max" else retry.horizon_p99_ns
        if value is not None:
            label = "longest" if use == "max" else "P99"
            return value, f"the measured {label} publish-retry horizon {dur(value)} ({retry.retried_ids} retried ids)", None
    declared, problem = annotation_duration(resource, PUBLISH_RETRY_HORIZON)
    if declared is not None:
        return declared, f"the declared publish-retry horizon {dur(declared)} ({PUBLISH_RETRY_HORIZON})", None
    return None, "", problem


def approx_size(n: int) -> str:
    """``540000000`` -> ``515 MiB``: an estimate, rounded for reading (1024-based like natscli)."""
    for unit, size in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            value = n / size
            return f"{value:.1f} {unit}" if value < 10 else f"{value:.0f} {unit}"
    return f"{n} B"
