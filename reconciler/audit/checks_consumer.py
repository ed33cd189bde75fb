"""Live rules on consumers: stalled at max_ack_pending, backlog, redeliveries, inactivity, leftovers."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from jsops.linter import EffectiveConsumer, Severity
from jsops.linter.api import HOUR, SECOND, Duration, RuleOptions, approx_duration, option

from ..live import parse_ts
from .read import AuditState
from .registry import Hit, register

__all__: list[str] = []


class AckPending(RuleOptions):
    warn_at: float = option(default=0.9, gt=0, le=1, description="the fraction of max_ack_pending at which to warn")


class Backlog(RuleOptions):
    max_pending: int = option(
        default=100_000, ge=1, description="messages not yet delivered (num_pending) at which to warn"
    )


class Redelivering(RuleOptions):
    ratio: float = option(
        default=0.1, gt=0, le=1, description="num_redelivered over the deliveries made (delivered.consumer_seq)"
    )
    min_redelivered: int = option(default=5, ge=1, description="fewer redelivered messages than this are not reported")


class Inactive(RuleOptions):
    inactive_for: Duration = option(default=24 * HOUR, description="no delivery for this long while messages wait")


class Leftover(RuleOptions):
    idle_for: Duration = option(default=HOUR, description="an ephemeral consumer nobody has used for this long")


def _consumers(state: AuditState) -> Iterator[tuple[str, str, EffectiveConsumer, dict[str, Any]]]:
    for (stream, name), c in state.live.consumers.items():
        yield stream, name, c.config, state.consumers.get((stream, name)) or {}


def _int(v: Any) -> int:
    return v if isinstance(v, int) and not isinstance(v, bool) else 0


@register(
    "JS505",
    "live-consumer-ack-pending-full",
    Severity.WARNING,
    "a consumer has at least warn_at of max_ack_pending messages delivered and not acknowledged",
    AckPending,
)
def ack_pending_full(state: AuditState, opts: AckPending) -> Iterator[Hit]:
    for stream, name, cfg, info in _consumers(state):
        limit = cfg.max_ack_pending
        pending = _int(info.get("num_ack_pending"))
        if limit > 0 and pending >= opts.warn_at * limit:
            stalled = (
                "it is stalled: the server delivers nothing more until some are acknowledged"
                if pending >= limit
                else "at the limit the server stops delivering until some are acknowledged"
            )
            waiting = _int(info.get("num_pending"))
            yield Hit(
                stream,
                name,
                f"{pending} of max_ack_pending {limit} messages are delivered and not acknowledged ({pending / limit:.0%}; {waiting} more waiting); {stalled}",
            )


@register(
    "JS506",
    "live-consumer-backlog",
    Severity.WARNING,
    "a consumer has at least max_pending messages not yet delivered",
    Backlog,
)
def backlog(state: AuditState, opts: Backlog) -> Iterator[Hit]:
    for stream, name, _cfg, info in _consumers(state):
        pending = _int(info.get("num_pending"))
        if pending >= opts.max_pending:
            last = parse_ts((info.get("delivered") or {}).get("last_active"))
            since = (
                f"; last delivery {approx_duration(int((state.read_at - last) * SECOND))} ago"
                if last
                else "; nothing delivered yet"
            )
            yield Hit(stream, name, f"{pending} messages wait to be delivered (threshold {opts.max_pending}){since}")


@register(
    "JS507",
    "live-consumer-redelivering",
    Severity.WARNING,
    "a consumer's unacknowledged messages that were redelivered are at least ratio of its deliveries",
    Redelivering,
)
def redelivering(state: AuditState, opts: Redelivering) -> Iterator[Hit]:
    for stream, name, cfg, info in _consumers(state):
        redelivered = _int(info.get("num_redelivered"))
        delivered = _int((info.get("delivered") or {}).get("consumer_seq"))
        if redelivered < opts.min_redelivered or delivered <= 0 or redelivered / delivered < opts.ratio:
            continue
        ack_wait = cfg.ack_wait
        why = (
            f"ack_wait {approx_duration(ack_wait)} may be shorter than the processing, or they are nak'ed"
            if ack_wait
            else "they are nak'ed or time out"
        )
        yield Hit(
            stream,
            name,
            f"{redelivered} unacknowledged messages were delivered more than once, against {delivered} deliveries ({redelivered / delivered:.0%}): {why}",
        )


@register(
    "JS508",
    "live-consumer-inactive",
    Severity.WARNING,
    "a consumer delivered nothing for inactive_for while messages wait for it",
    Inactive,
)
def inactive(state: AuditState, opts: Inactive) -> Iterator[Hit]:
    limit = int(opts.inactive_for) / SECOND
    for stream, name, _cfg, info in _consumers(state):
        pending = _int(info.get("num_pending"))
        if pending <= 0:
            continue
        last = parse_ts((info.get("delivered") or {}).get("last_active")) or parse_ts(info.get("created"))
        if last is not None and state.read_at - last >= limit:
            yield Hit(
                stream,
                name,
                f"nothing delivered for {approx_duration(int((state.read_at - last) * SECOND))} while "
                f"{pending} messages wait (threshold {approx_duration(int(opts.inactive_for))})",
            )


@register(
    "JS509",
    "live-consumer-ephemeral-leftover",
    Severity.WARNING,
    "an ephemeral consumer with no client attached, unused for idle_for",
    Leftover,
)
def ephemeral_leftover(state: AuditState, opts: Leftover) -> Iterator[Hit]:
    limit = int(opts.idle_for) / SECOND
    for stream, name, cfg, info in _consumers(state):
        if cfg.durable_name or info.get("push_bound") or _int(info.get("num_waiting")):
            continue
        delivered = parse_ts((info.get("delivered") or {}).get("last_active"))
        acked = parse_ts((info.get("ack_floor") or {}).get("last_active"))
        last = max((t for t in (delivered, acked, parse_ts(info.get("created"))) if t is not None), default=None)
        if last is not None and state.read_at - last >= limit:
            threshold = cfg.inactive_threshold
            keep = f"inactive_threshold {approx_duration(threshold)}" if threshold else "no inactive_threshold"
            yield Hit(
                stream,
                name,
                f"ephemeral consumer unused for {approx_duration(int((state.read_at - last) * SECOND))} with no client "
                f"attached ({keep}): it holds server resources (and, on an interest or workqueue stream, messages)",
            )
