"""Effective configuration: what nats-server stores when it accepts a config.

One place fills in exactly the defaults and normalisations nats-server 2.15 applies on create
(server-rules.md §4; ``checkStreamCfgLocked``, ``setConsumerConfigDefaults`` and
``updateInactiveThreshold`` in the server source). The output is typed
(:class:`~jsops.linter.semantics.effective_types.EffectiveStream`, ``EffectiveConsumer``); its JSON
shape (:func:`~jsops.linter.semantics.effective_types.api_json`) compares field by field with what the
server returns once the server-owned ``_nats.*`` metadata keys are stripped (:func:`strip_server_metadata`).

It does not validate: a config the server would reject still gets an effective view, which the
rules use to explain the rejection.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple

from . import catalog
from .effective_types import (
    EMPTY_METADATA,
    EffectiveConsumer,
    EffectiveConsumerLimits,
    EffectiveExternal,
    EffectivePlacement,
    EffectiveRepublish,
    EffectiveSource,
    EffectiveSourceConsumer,
    EffectiveStream,
    EffectiveTransform,
)
from .releases import NORMALISE_NEGATIVE_LIMITS, SOURCES_WITHOUT_DEFAULT_WINDOW, parse_version, target_release
from .units import SECOND

if TYPE_CHECKING:
    from ..model.config import ConsumerConfig, StreamConfig, StreamSource
    from ..model.target import Target

__all__ = [
    "effective_stream",
    "effective_consumer",
    "streamless_consumer",
    "StreamUnknown",
    "StreamlessConsumer",
    "strip_server_metadata",
    "STREAM_DEFAULT_DUPLICATE_WINDOW",
    "CONSUMER_DEFAULT_ACK_WAIT",
    "CONSUMER_DEFAULT_MAX_ACK_PENDING",
    "CONSUMER_DEFAULT_MAX_WAITING",
    "EPHEMERAL_INACTIVE_THRESHOLD",
    "PINNED_TTL_DEFAULT",
    "FLOW_CONTROL_HEARTBEAT",
    "SERVER_DEFAULTS",
]

STREAM_DEFAULT_DUPLICATE_WINDOW: int = catalog.STREAM["duplicate_window"].default
CONSUMER_DEFAULT_ACK_WAIT: int = catalog.CONSUMER["ack_wait"].default
CONSUMER_DEFAULT_MAX_ACK_PENDING: int = catalog.CONSUMER["max_ack_pending"].default
CONSUMER_DEFAULT_MAX_WAITING: int = catalog.CONSUMER["max_waiting"].default
EPHEMERAL_INACTIVE_THRESHOLD = 5 * SECOND
PINNED_TTL_DEFAULT = 120 * SECOND
FLOW_CONTROL_HEARTBEAT = SECOND

SERVER_DEFAULTS: Mapping[str, Mapping[str, Any]] = MappingProxyType(
    {kind: catalog.server_defaults(kind) for kind in ("Stream", "Consumer")}
)
"""By kind, what the server stores for a field a config leaves out (the omitempty booleans as
false; a consumer's ``ack_wait`` and ``max_ack_pending`` as an acking pull consumer gets them): tells
defaults apart when only a stored config is at hand, e.g. in a saved plan."""


def strip_server_metadata(config: dict[str, Any]) -> dict[str, Any]:
    """A copy of a server-returned config without ``_nats.*`` metadata (and without an empty map)."""
    out = dict(config)
    meta = out.get("metadata")
    if isinstance(meta, dict):
        kept = {k: v for k, v in meta.items() if not k.startswith("_nats.")}
        if kept:
            out["metadata"] = kept
        else:
            out.pop("metadata")
    return out


def _user_metadata(meta: dict[str, str] | None) -> Mapping[str, str]:
    if not meta:
        return EMPTY_METADATA
    return MappingProxyType({k: v for k, v in meta.items() if not k.startswith("_nats.")})


def _time(ts: datetime) -> str:
    """RFC 3339 with nanosecond precision trimmed, as Go marshals a time.Time."""
    off = ts.utcoffset() or timedelta(0)
    text = f"{ts.year:04d}-" + ts.strftime("%m-%dT%H:%M:%S")  # %Y does not zero-pad year 1
    if ts.microsecond:
        text += f".{ts.microsecond:06d}".rstrip("0")
    if off == timedelta(0) and ts.tzinfo is not None:
        return text + "Z"
    total = int(off.total_seconds())
    sign = "+" if total >= 0 else "-"
    total = abs(total)
    return f"{text}{sign}{total // 3600:02d}:{(total % 3600) // 60:02d}"


def _optional_time(ts: datetime | None) -> str | None:
    return _time(ts) if ts is not None else None


# --- streams ------------------------------------------------------------------------------------

_STREAM = catalog.server_defaults("Stream")
_CONSUMER = catalog.server_defaults("Consumer")
_NO_CONSUMER_LIMITS = EffectiveConsumerLimits()


def _source(src: StreamSource) -> EffectiveSource:
    consumer = None
    if src.consumer is not None:
        consumer = EffectiveSourceConsumer(src.consumer.name, src.consumer.deliver_subject)
    ext = src.external
    return EffectiveSource(
        src.name or "",
        src.opt_start_seq,
        _optional_time(src.opt_start_time),
        src.filter_subject,
        tuple(EffectiveTransform(t.src, t.dest) for t in src.subject_transforms or ()),
        EffectiveExternal(ext.api, ext.deliver) if ext is not None else None,
        consumer,
    )


def _limit(v: int | None) -> int:
    """A stream limit as stored: 0, absent and anything below -1 mean unlimited (-1)."""
    return -1 if v is None or v == 0 or v < -1 else v


def _duplicate_window(c: StreamConfig, target: Target | None) -> int:
    """The stored window: a mirror gets no default, nor (from 2.14: :data:`SOURCES_WITHOUT_DEFAULT_WINDOW`)
    a stream with sources; otherwise 2 minutes, capped by the server's ``duplicate_window`` limit and
    then by ``max_age``."""
    dup = c.duplicate_window or 0
    sources_exempt = target_release(target) >= SOURCES_WITHOUT_DEFAULT_WINDOW
    if dup or c.mirror is not None or (c.sources and sources_exempt):
        return dup
    window = STREAM_DEFAULT_DUPLICATE_WINDOW
    server_limit = (target.limits.duplicate_window or 0) if target is not None else 0
    if 0 < server_limit < window:
        window = server_limit
    max_age = c.max_age or 0
    return max_age if 0 < max_age < window else window


def _placement(c: StreamConfig) -> EffectivePlacement | None:
    """The server drops a placement only when it equals the zero Placement: an explicit empty tag
    list (a non-nil Go slice) keeps it, and it is then stored and returned as ``{}``."""
    pl = c.placement
    if pl is None or not (pl.cluster or pl.tags is not None or pl.preferred):
        return None
    return EffectivePlacement(pl.cluster, tuple(pl.tags or ()), pl.preferred)


def _republish(c: StreamConfig, subjects: tuple[str, ...]) -> EffectiveRepublish | None:
    """A ``'>'`` -> ``'>'`` republish of a single-subject stream with a subject transform from that
    subject is rewritten to the transform's destination."""
    if c.republish is None:
        return None
    src = c.republish.src or ">"
    dest = c.republish.dest
    st = c.subject_transform
    if dest == ">" and src == ">" and st is not None and len(subjects) == 1 and st.src == subjects[0]:
        src = dest = st.dest
    return EffectiveRepublish(src, dest, bool(c.republish.headers_only))


def _mirror_direct(c: StreamConfig, origins: dict[str, StreamConfig] | None) -> bool:
    """A mirror's ``mirror_direct`` is its (known, local) origin's ``allow_direct``."""
    m = c.mirror
    if m is not None and origins is not None and m.external is None and m.name in origins:
        return bool(origins[m.name].allow_direct)
    return bool(c.mirror_direct)


def _consumer_limits(c: StreamConfig) -> EffectiveConsumerLimits:
    limits = c.consumer_limits
    if limits is None:
        return _NO_CONSUMER_LIMITS
    return EffectiveConsumerLimits(limits.inactive_threshold or 0, limits.max_ack_pending or 0)


def effective_stream(
    config: StreamConfig,
    *,
    name: str | None = None,
    target: Target | None = None,
    origins: dict[str, StreamConfig] | None = None,
) -> EffectiveStream:
    """The stream config nats-server would store for ``config``.

    ``name`` overrides ``config.name`` (manifests carry the name in their metadata). ``origins``
    holds other streams of the estate by name; a mirror's ``mirror_direct`` is copied from its
    origin's ``allow_direct`` when the origin is known, as the server does. A subject delete marker
    TTL turns message TTLs on; it and message schedules turn rollups on (and purge denial off) when
    rollups are off. A sealed stream (sealed by an update: a stream cannot be created sealed) has no
    age limit, discards new, denies deletes and purges and allows no rollups (2.10.26 to 2.15.1).
    """
    c = config
    sname = name if name is not None else (c.name or "")
    subjects = tuple(c.subjects or ())
    if not subjects and c.mirror is None and not c.sources:
        subjects = (sname,)
    st = c.subject_transform
    sealed = bool(c.sealed)
    deny_purge = bool(c.deny_purge)
    allow_rollup = bool(c.allow_rollup_hdrs)
    sdm = c.subject_delete_marker_ttl or 0
    if (sdm > 0 or c.allow_msg_schedules) and not allow_rollup:
        allow_rollup, deny_purge = True, False
    return EffectiveStream(
        name=sname,
        description=c.description,
        subjects=subjects,
        retention=c.retention or _STREAM["retention"],
        max_consumers=_limit(c.max_consumers),
        max_msgs=_limit(c.max_msgs),
        max_bytes=_limit(c.max_bytes),
        max_age=0 if sealed else c.max_age or 0,
        max_msgs_per_subject=_limit(c.max_msgs_per_subject),
        max_msg_size=_limit(c.max_msg_size),
        discard="new" if sealed else c.discard or _STREAM["discard"],
        storage=c.storage or _STREAM["storage"],
        num_replicas=c.num_replicas or _STREAM["num_replicas"],
        no_ack=bool(c.no_ack),
        template_owner=c.template_owner or None,
        duplicate_window=_duplicate_window(c, target),
        placement=_placement(c),
        mirror=_source(c.mirror) if c.mirror is not None else None,
        sources=tuple(_source(s) for s in c.sources or ()),
        compression=c.compression or _STREAM["compression"],
        first_seq=c.first_seq,
        subject_transform=EffectiveTransform(st.src, st.dest) if st is not None else None,
        republish=_republish(c, subjects),
        allow_direct=bool(c.allow_direct),
        mirror_direct=_mirror_direct(c, origins),
        discard_new_per_subject=bool(c.discard_new_per_subject),
        sealed=sealed,
        deny_delete=sealed or bool(c.deny_delete),
        deny_purge=sealed or deny_purge,
        allow_rollup_hdrs=allow_rollup and not sealed,
        consumer_limits=_consumer_limits(c),
        allow_msg_ttl=sdm > 0 or bool(c.allow_msg_ttl),
        subject_delete_marker_ttl=sdm,
        allow_msg_counter=bool(c.allow_msg_counter),
        allow_atomic=bool(c.allow_atomic),
        allow_msg_schedules=bool(c.allow_msg_schedules),
        persist_mode="async" if c.persist_mode == "async" else None,
        allow_batched=bool(c.allow_batched),
        metadata=_user_metadata(c.metadata),
    )


# --- consumers ----------------------------------------------------------------------------------


class _Numbers(NamedTuple):
    """The defaulted limits and timers of a consumer."""

    ack_wait: int
    max_deliver: int
    max_waiting: int
    max_ack_pending: int
    max_batch: int
    max_expires: int
    max_bytes: int
    idle_heartbeat: int
    inactive_threshold: int
    priority_timeout: int


def _max_ack_pending(
    c: ConsumerConfig, normalise: bool, stream_limits: EffectiveConsumerLimits, target: Target | None
) -> int:
    """The consumer's own value, else the stream's consumer limit, else (when it acks) the default
    capped by the server's and the account's limits."""
    pending = c.max_ack_pending or 0
    if normalise and pending < -1:
        pending = -1
    if pending == 0:
        pending = stream_limits.max_ack_pending
    if pending == 0 and (c.ack_policy or "none") != "none":
        pending = CONSUMER_DEFAULT_MAX_ACK_PENDING
        caps = (target.limits.max_ack_pending, target.account.max_ack_pending) if target is not None else ()
        for cap in caps:
            if cap and 0 < cap < pending:
                pending = cap
    return pending


def _consumer_numbers(
    c: ConsumerConfig, durable: str, stream_limits: EffectiveConsumerLimits, target: Target | None
) -> _Numbers:
    """The defaulted limits and timers of a consumer (2.12+ normalises negative limits; older
    releases store them as given, or refuse some)."""
    release = parse_version(target.server_version if target is not None else None)
    normalise = (release or NORMALISE_NEGATIVE_LIMITS) >= NORMALISE_NEGATIVE_LIMITS
    floor = 0 if normalise else -(2**63)
    push = bool(c.deliver_subject)
    return _Numbers(
        ack_wait=_ack_wait(c),
        max_deliver=_max_deliver(c, normalise),
        max_waiting=_max_waiting(c, floor, push),
        max_ack_pending=_max_ack_pending(c, normalise, stream_limits, target),
        max_batch=_max_batch(c, floor, push, target),
        max_expires=max(c.max_expires or 0, floor),
        max_bytes=max(c.max_bytes or 0, floor),
        idle_heartbeat=FLOW_CONTROL_HEARTBEAT
        if (c.ack_policy or "none") == "flow_control"
        else max(c.idle_heartbeat or 0, floor),
        inactive_threshold=_inactive_threshold(c, floor, durable, stream_limits),
        priority_timeout=_priority_timeout(c),
    )


def _ack_wait(c: ConsumerConfig) -> int:
    """The first backoff, else the consumer's own value, else (when it acks each message) the default."""
    if c.backoff:
        return c.backoff[0]
    ack_wait = c.ack_wait or 0
    if ack_wait == 0 and (c.ack_policy or "none") in ("explicit", "all"):
        return CONSUMER_DEFAULT_ACK_WAIT
    return ack_wait


def _max_deliver(c: ConsumerConfig, normalise: bool) -> int:
    """The consumer's own value; unlimited (-1) for none (and for below -1 where the release normalises)."""
    max_deliver = c.max_deliver or 0
    if max_deliver == 0 or (normalise and max_deliver < -1):
        return -1
    return max_deliver


def _max_waiting(c: ConsumerConfig, floor: int, push: bool) -> int:
    """The consumer's own value, else (a pull consumer) the default."""
    max_waiting = max(c.max_waiting or 0, floor)
    if not push and max_waiting == 0:
        return CONSUMER_DEFAULT_MAX_WAITING
    return max_waiting


def _max_batch(c: ConsumerConfig, floor: int, push: bool, target: Target | None) -> int:
    """The consumer's own value, else (a pull consumer) the server's request batch limit."""
    max_batch = max(c.max_batch or 0, floor)
    request_batch = (target.limits.max_request_batch or 0) if target is not None else 0
    if not push and max_batch == 0 and request_batch > 0:
        return request_batch
    return max_batch


def _inactive_threshold(c: ConsumerConfig, floor: int, durable: str, stream_limits: EffectiveConsumerLimits) -> int:
    """The consumer's own value, else the stream's consumer limit, else (an ephemeral) the default."""
    inactive = max(c.inactive_threshold or 0, floor) or stream_limits.inactive_threshold
    if not durable and inactive <= 0:
        return EPHEMERAL_INACTIVE_THRESHOLD
    return inactive


def _priority_timeout(c: ConsumerConfig) -> int:
    """The consumer's own value, else (a pinned client) the default pin TTL."""
    pinned = max(c.priority_timeout or 0, 0)
    if c.priority_policy == "pinned_client" and pinned == 0:
        return PINNED_TTL_DEFAULT
    return pinned


class StreamUnknown(Exception):
    """Raised where a check asks for the stream of a consumer whose stream is unknown (a bare
    consumer config, as ``nats consumer add STREAM --config FILE`` reads it): the check needs the
    stream, so it is not made (the engine records it as skipped), never judged against a guess."""

    def __init__(self, what: str) -> None:
        super().__init__(what)
        self.what = what


class StreamlessConsumer(EffectiveConsumer):
    """The effective config of a consumer whose stream is unknown: a field whose stored value
    depends on the stream (inherited from its ``consumer_limits``) raises :class:`StreamUnknown`
    when read; every other field is what the server stores whatever the stream."""

    def __getattribute__(self, name: str) -> Any:
        if name[:1] != "_" and name in tuple.__getattribute__(self, "__dict__").get("_unknown", ()):
            raise StreamUnknown(name)
        return tuple.__getattribute__(self, name)


# Two stream consumer_limits that differ in every field: a consumer field whose effective value
# differs between them is one the stream decides (see :func:`streamless_consumer`).
_PROBE_LIMITS = (_NO_CONSUMER_LIMITS, EffectiveConsumerLimits(**{f: 1 for f in EffectiveConsumerLimits._fields}))


def streamless_consumer(config: ConsumerConfig, *, target: Target | None = None) -> StreamlessConsumer:
    """The effective config of a consumer whose stream is unknown (:class:`StreamlessConsumer`).
    Which fields the stream decides is derived from :func:`effective_consumer` itself: those whose
    value differs under two different stream limits."""
    a, b = (_consumer(config, limits, None, None, target) for limits in _PROBE_LIMITS)
    out = StreamlessConsumer(*a)
    out.__dict__["_unknown"] = frozenset(
        name for name, x, y in zip(EffectiveConsumer._fields, a, b, strict=True) if x != y
    )
    return out


def effective_consumer(
    config: ConsumerConfig,
    stream: EffectiveStream | None = None,
    *,
    durable_name: str | None = None,
    name: str | None = None,
    target: Target | None = None,
) -> EffectiveConsumer:
    """The consumer config nats-server would store.

    ``stream`` is the parent stream's effective config (for ``consumer_limits``); without it the
    stream is assumed to set no consumer limits. ``durable_name``/``name`` override the config's.
    """
    return _consumer(
        config, stream.consumer_limits if stream is not None else _NO_CONSUMER_LIMITS, durable_name, name, target
    )


def _consumer(
    c: ConsumerConfig,
    limits: EffectiveConsumerLimits,
    durable_name: str | None,
    name: str | None,
    target: Target | None,
) -> EffectiveConsumer:
    durable = durable_name if durable_name is not None else (c.durable_name or "")
    cname = name if name is not None else (c.name or "")
    if durable and not cname:
        cname = durable  # the create API copies the durable name into name
    n = _consumer_numbers(c, durable, limits, target)
    return EffectiveConsumer(
        durable_name=durable,
        name=cname,
        description=c.description,
        deliver_policy=c.deliver_policy or _CONSUMER["deliver_policy"],
        opt_start_seq=c.opt_start_seq,
        opt_start_time=_optional_time(c.opt_start_time),
        ack_policy=c.ack_policy or _CONSUMER["ack_policy"],
        ack_wait=n.ack_wait,
        max_deliver=n.max_deliver,
        backoff=tuple(c.backoff or ()),
        filter_subject=c.filter_subject,
        filter_subjects=tuple(c.filter_subjects or ()),
        replay_policy=c.replay_policy or _CONSUMER["replay_policy"],
        rate_limit_bps=c.rate_limit_bps,
        sample_freq=c.sample_freq,
        max_waiting=n.max_waiting,
        max_ack_pending=n.max_ack_pending,
        flow_control=c.ack_policy == "flow_control" or bool(c.flow_control),
        headers_only=bool(c.headers_only),
        max_batch=n.max_batch,
        max_expires=n.max_expires,
        max_bytes=n.max_bytes,
        deliver_subject=c.deliver_subject,
        deliver_group=c.deliver_group,
        idle_heartbeat=n.idle_heartbeat,
        inactive_threshold=n.inactive_threshold,
        num_replicas=c.num_replicas or _CONSUMER["num_replicas"],
        mem_storage=bool(c.mem_storage),
        direct=bool(c.direct),
        sourcing=bool(c.sourcing),
        metadata=_user_metadata(c.metadata),
        pause_until=_optional_time(c.pause_until),  # the server keeps the offset as written
        priority_groups=tuple(c.priority_groups or ()),
        priority_policy=c.priority_policy if c.priority_policy != "none" else None,
        priority_timeout=n.priority_timeout,
    )
