"""Live rules on streams, buckets and the account: how full they are, and how soon they fill."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import EffectiveStream, Severity
from jsops.linter.api import SECOND, RuleOptions, approx_duration, human_size, option

from ..live import LiveStream
from .read import AuditState
from .registry import Hit, register

__all__ = ["ingest_rate", "time_to_full"]


class NearLimit(RuleOptions):
    warn_at: float = option(default=0.9, gt=0, le=1, description="the fraction of the limit at which to warn")


class BucketNearLimit(RuleOptions):
    warn_at: float = option(
        default=0.8, gt=0, le=1, description="the fraction of the bucket's max_bytes or max_msgs at which to warn"
    )


def ingest_rate(state: AuditState, s: LiveStream) -> float | None:
    """Messages per second stored since the stream was created (its last sequence over its age at
    the last message), or None when that is not known (no message, no creation time, under 1 s)."""
    created = state.created(s.name)
    if created is None or s.last_ts is None or s.last_seq <= 0:
        return None
    elapsed = s.last_ts - created
    if elapsed < 1.0:
        return None
    return s.last_seq / elapsed


def time_to_full(room: float, rate: float | None) -> str:
    """`` (full in ~D at R/s)`` for ``room`` units left at ``rate`` units per second; empty when unknown."""
    if rate is None or rate <= 0:
        return ""
    return f"; at the average ingest since creation ({rate:.3g}/s) it is full in ~{approx_duration(int(max(room, 0) / rate * SECOND))}"


def _when_full(cfg: EffectiveStream) -> str:
    if cfg.discard == "new":
        return "then publishes are refused (discard: new)"
    return "then the oldest messages are removed to make room (discard: old)"


def _is_bucket(s: LiveStream) -> bool:
    return s.name.startswith(("KV_", "OBJ_"))


@register(
    "JS501", "live-stream-near-max-msgs", Severity.WARNING, "a stream holds at least warn_at of its max_msgs", NearLimit
)
def stream_near_max_msgs(state: AuditState, opts: NearLimit) -> Iterator[Hit]:
    for s in state.live.streams.values():
        limit = s.config.max_msgs or 0
        if limit > 0 and not _is_bucket(s) and s.messages >= opts.warn_at * limit:
            eta = time_to_full(limit - s.messages, ingest_rate(state, s))
            yield Hit(
                s.name,
                None,
                f"holds {s.messages} of max_msgs {limit} messages ({s.messages / limit:.0%}){eta}; {_when_full(s.config)}",
            )


@register(
    "JS502",
    "live-stream-near-max-bytes",
    Severity.WARNING,
    "a stream holds at least warn_at of its max_bytes",
    NearLimit,
)
def stream_near_max_bytes(state: AuditState, opts: NearLimit) -> Iterator[Hit]:
    for s in state.live.streams.values():
        limit = s.config.max_bytes or 0
        if limit > 0 and not _is_bucket(s) and s.bytes >= opts.warn_at * limit:
            rate = ingest_rate(state, s)
            byte_rate = rate * (s.bytes / s.messages) if rate is not None and s.messages else None
            eta = time_to_full(limit - s.bytes, byte_rate)
            yield Hit(
                s.name,
                None,
                f"holds {human_size(s.bytes)} of max_bytes {human_size(limit)} ({s.bytes / limit:.0%}){eta}; {_when_full(s.config)}",
            )


@register(
    "JS503",
    "live-stream-near-max-msgs-per-subject",
    Severity.WARNING,
    "a stream's subjects hold on average at least warn_at of max_msgs_per_subject",
    NearLimit,
)
def stream_near_per_subject(state: AuditState, opts: NearLimit) -> Iterator[Hit]:
    for s in state.live.streams.values():
        limit = s.config.max_msgs_per_subject or 0
        if limit <= 1 or s.num_subjects <= 0 or _is_bucket(s):
            continue
        average = s.messages / s.num_subjects
        if average >= opts.warn_at * limit:
            how = (
                "new messages on a full subject are refused (discard_new_per_subject)"
                if s.config.discard_new_per_subject
                else "each new message on a full subject removes that subject's oldest"
            )
            yield Hit(
                s.name,
                None,
                f"its {s.num_subjects} subjects hold on average {average:.1f} of max_msgs_per_subject {limit} messages ({average / limit:.0%}); {how}",
            )


@register(
    "JS504",
    "live-account-storage-near-limit",
    Severity.WARNING,
    "the account uses at least warn_at of its JetStream memory or file storage",
    NearLimit,
)
def account_near_limit(state: AuditState, opts: NearLimit) -> Iterator[Hit]:
    acct = state.account
    limits = acct.get("limits") or {}
    tiers = acct.get("tiers") or {}
    if not any(isinstance(v, int) and v > 0 for v in limits.values()) and len(tiers) == 1:
        limits = next(iter(tiers.values())).get("limits") or {}
    for used_key, limit_key, what in (("memory", "max_memory", "memory"), ("storage", "max_storage", "file storage")):
        limit, used = limits.get(limit_key), acct.get(used_key)
        if isinstance(limit, int) and limit > 0 and isinstance(used, int) and used >= opts.warn_at * limit:
            yield Hit(
                None,
                None,
                f"the account uses {human_size(used)} of its {human_size(limit)} JetStream {what} "
                f"({used / limit:.0%}); when it is full, stream writes are refused (10047)",
            )


@register(
    "JS514",
    "live-bucket-near-full",
    Severity.WARNING,
    "a Key-Value bucket holds at least warn_at of its max_bytes or max_msgs: puts then fail",
    BucketNearLimit,
)
def bucket_near_full(state: AuditState, opts: BucketNearLimit) -> Iterator[Hit]:
    for s in state.live.streams.values():
        if not s.name.startswith("KV_"):
            continue
        cfg = s.config
        history = cfg.max_msgs_per_subject or 1
        ttl = cfg.max_age or 0
        keep = f"history {history}" + (" and no ttl" if not ttl else f" and ttl {approx_duration(ttl)}")
        outcome = "puts fail (the bucket discards new)" if cfg.discard == "new" else "the oldest revisions are removed"
        for limit, used, what in (
            (cfg.max_bytes or 0, s.bytes, "max_bytes"),
            (cfg.max_msgs or 0, s.messages, "max_msgs"),
        ):
            if limit > 0 and used >= opts.warn_at * limit:
                shown = f"{human_size(used)} of {human_size(limit)}" if what == "max_bytes" else f"{used} of {limit}"
                yield Hit(
                    s.name,
                    None,
                    f"bucket {s.name[3:]!r} holds {shown} ({what}, {used / limit:.0%}); with {keep} old revisions "
                    f"and delete markers keep their space, and when it is full {outcome}",
                )
                break
