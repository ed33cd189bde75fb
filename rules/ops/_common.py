"""Helpers shared by the operational rules (``rules/ops/``).

Operational rules warn about configurations nats-server accepts but that hurt in production. The
profile-driven ones read measured figures from ``ctx.profiles`` (contracts §4: streams keyed by
name, consumers by ``"STREAM/consumer"``); without a profile they use what the manifest declares in
``metadata.annotations``, and otherwise stay silent: they never guess.

The annotations they read (``PROCESSING_TIME`` for JS401, ``PUBLISH_RETRY_HORIZON`` for JS402 and
JS404, ``DEAD_LETTER`` for JS406) are described in :mod:`jsops.linter.semantics.monitor`; NATS API JSON
has no annotations, so there only profiles count.
"""

from __future__ import annotations

from jsops.linter import api

__all__ = [
    "pct",
    "acks",
    "readable_ceil",
    "readable_floor",
    "written",
    "advisory_subject",
    "retry_horizon",
]

MAX_DELIVERIES_PREFIX = "$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES"


def pct(ratio: float) -> str:
    """``0.034`` -> ``3.4%``; ``0.12`` -> ``12%``."""
    value = ratio * 100
    text = f"{value:.1f}".rstrip("0").rstrip(".")
    return f"{text}%"


def acks(eff: api.EffectiveConsumer) -> bool:
    """The consumer acknowledges messages one by one or cumulatively (``ack_wait`` and
    ``max_deliver`` apply). ``flow_control`` acks ride on flow-control replies: no ack timer."""
    return eff.ack_policy in ("explicit", "all")


def _step(ns: int) -> int:
    if ns <= api.MINUTE:
        return api.SECOND
    if ns <= 10 * api.MINUTE:
        return 10 * api.SECOND
    if ns <= 60 * api.MINUTE:
        return api.MINUTE
    return 5 * api.MINUTE


def readable_ceil(ns: int) -> int:
    """The smallest readable duration at or above ``ns`` (at least 1s): whole seconds up to a
    minute, tens of seconds up to ten minutes (``1m30s``), minutes up to an hour, then five minutes."""
    if ns <= api.SECOND:
        return api.SECOND
    step = _step(ns)
    return -(-ns // step) * step


def readable_floor(ns: int) -> int:
    """The largest readable duration at or below ``ns`` (the steps of :func:`readable_ceil`);
    0 below one second."""
    if ns < api.SECOND:
        return 0
    step = _step(ns)
    return ns // step * step


def written(resource: api.Resource, name: str) -> bool:
    """The manifest writes this config field (it is not a default)."""
    return getattr(resource.config, name, None) is not None


def advisory_subject(resource: api.Resource) -> str:
    """The subject of this consumer's max-deliveries advisories."""
    return f"{MAX_DELIVERIES_PREFIX}.{resource.stream}.{resource.name}"


def retry_horizon(resource: api.Resource, ctx: api.RuleContext, use: str = "p99") -> tuple[int | None, str, str | None]:
    """``(horizon ns, where it comes from, problem)``: the profile's publish-retry horizon, else the
    declared ``jsops.io/publish-retry-horizon`` annotation; ``problem`` names an unreadable one."""
    prof = ctx.stream_profile(resource)
    retry = prof.publish_retry if prof is not None else None
    if retry is not None and retry.retried_ids > 0:
        value = retry.horizon_max_ns if use == "max" else retry.horizon_p99_ns
        if value is not None:
            label = "longest" if use == "max" else "P99"
            return (
                value,
                f"the measured {label} publish-retry horizon {api.approx_duration(value)} ({retry.retried_ids} retried ids)",
                None,
            )
    declared, problem = api.annotation_duration(resource.annotations, api.PUBLISH_RETRY_HORIZON)
    if declared is not None:
        return (
            declared,
            f"the declared publish-retry horizon {api.approx_duration(declared)} ({api.PUBLISH_RETRY_HORIZON})",
            None,
        )
    return None, "", problem
