"""Effective configuration: what nats-server stores when it accepts a config.

One place fills in exactly the defaults and normalisations nats-server 2.15 applies on create
(server-rules.md §4; ``checkStreamCfgLocked``, ``setConsumerConfigDefaults`` and
``updateInactiveThreshold`` in the server source). The output is the server's JSON shape, with its
``omitempty`` rules, so it compares field by field with what the server returns once the
server-owned ``_nats.*`` metadata keys are stripped (:func:`strip_server_metadata`).

It does not validate: a config the server would reject still gets an effective view, which the
rules use to explain the rejection.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from .model.config import ConsumerConfig, StreamConfig
from .model.target import Target
from .versions import NORMALISE_NEGATIVE_LIMITS, parse_version

__all__ = [
    "effective_stream",
    "effective_consumer",
    "strip_server_metadata",
    "STREAM_DEFAULT_DUPLICATE_WINDOW",
    "CONSUMER_DEFAULT_ACK_WAIT",
    "CONSUMER_DEFAULT_MAX_ACK_PENDING",
    "CONSUMER_DEFAULT_MAX_WAITING",
    "EPHEMERAL_INACTIVE_THRESHOLD",
    "PINNED_TTL_DEFAULT",
    "FLOW_CONTROL_HEARTBEAT",
]

SECOND = 1_000_000_000
STREAM_DEFAULT_DUPLICATE_WINDOW = 120 * SECOND
CONSUMER_DEFAULT_ACK_WAIT = 30 * SECOND
CONSUMER_DEFAULT_MAX_ACK_PENDING = 1000
CONSUMER_DEFAULT_MAX_WAITING = 512
EPHEMERAL_INACTIVE_THRESHOLD = 5 * SECOND
PINNED_TTL_DEFAULT = 120 * SECOND
FLOW_CONTROL_HEARTBEAT = SECOND

_NO_TARGET = Target()


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


def _source(src: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"name": src.name or ""}
    if src.opt_start_seq:
        out["opt_start_seq"] = src.opt_start_seq
    if src.opt_start_time is not None:
        out["opt_start_time"] = _time(src.opt_start_time)
    if src.filter_subject:
        out["filter_subject"] = src.filter_subject
    if src.subject_transforms:
        out["subject_transforms"] = [{"src": t.src, "dest": t.dest} for t in src.subject_transforms]
    if src.external is not None:
        out["external"] = {"api": src.external.api, "deliver": src.external.deliver}
    if src.consumer is not None:
        c: dict[str, Any] = {}
        if src.consumer.name:
            c["name"] = src.consumer.name
        if src.consumer.deliver_subject:
            c["deliver_subject"] = src.consumer.deliver_subject
        out["consumer"] = c
    return out


def effective_stream(
    config: StreamConfig,
    *,
    name: str | None = None,
    target: Target | None = None,
    origins: dict[str, StreamConfig] | None = None,
) -> dict[str, Any]:
    """The stream config nats-server would store for ``config`` (server JSON shape).

    ``name`` overrides ``config.name`` (manifests carry the name in their metadata). ``origins``
    holds other streams of the estate by name; a mirror's ``mirror_direct`` is copied from its
    origin's ``allow_direct`` when the origin is known, as the server does.
    """
    t = target or _NO_TARGET
    c = config
    sname = name if name is not None else (c.name or "")
    out: dict[str, Any] = {"name": sname}
    if c.description:
        out["description"] = c.description
    mirror = c.mirror
    sources = c.sources or []
    subjects = list(c.subjects or [])
    if not subjects and mirror is None and not sources:
        subjects = [sname]
    if subjects:
        out["subjects"] = subjects
    out["retention"] = c.retention or "limits"

    def limit(v: int | None) -> int:
        return -1 if v is None or v == 0 or v < -1 else v

    out["max_consumers"] = limit(c.max_consumers)
    out["max_msgs"] = limit(c.max_msgs)
    out["max_bytes"] = limit(c.max_bytes)
    max_age = c.max_age or 0
    out["max_age"] = max_age
    out["max_msgs_per_subject"] = limit(c.max_msgs_per_subject)
    out["max_msg_size"] = limit(c.max_msg_size)
    out["discard"] = c.discard or "old"
    out["storage"] = c.storage or "file"
    out["num_replicas"] = c.num_replicas or 1
    if c.no_ack:
        out["no_ack"] = True
    dup = c.duplicate_window or 0
    if dup == 0 and mirror is None and not sources:
        window = STREAM_DEFAULT_DUPLICATE_WINDOW
        server_limit = t.limits.duplicate_window or 0
        if server_limit > 0 and window > server_limit:
            window = server_limit
        dup = max_age if 0 < max_age < window else window
    if dup:
        out["duplicate_window"] = dup
    # The server drops a placement only when it equals the zero Placement: an explicit empty tag
    # list (a non-nil Go slice) keeps it, and it is then stored and returned as ``{}``.
    pl = c.placement
    if pl is not None and (pl.cluster or pl.tags is not None or pl.preferred):
        p: dict[str, Any] = {}
        if c.placement.cluster:
            p["cluster"] = c.placement.cluster
        if c.placement.tags:
            p["tags"] = list(c.placement.tags)
        if c.placement.preferred:
            p["preferred"] = c.placement.preferred
        out["placement"] = p
    if mirror is not None:
        out["mirror"] = _source(mirror)
    if sources:
        out["sources"] = [_source(s) for s in sources]
    out["compression"] = c.compression or "none"
    if c.first_seq:
        out["first_seq"] = c.first_seq
    if c.subject_transform is not None:
        out["subject_transform"] = {"src": c.subject_transform.src, "dest": c.subject_transform.dest}
    if c.republish is not None:
        r: dict[str, Any] = {}
        src = c.republish.src or ">"
        dest = c.republish.dest
        st = c.subject_transform
        if dest == ">" and src == ">" and st is not None and len(subjects) == 1 and st.src == subjects[0]:
            src = dest = st.dest
        r["src"] = src
        r["dest"] = dest
        if c.republish.headers_only:
            r["headers_only"] = True
        out["republish"] = r
    out["allow_direct"] = bool(c.allow_direct)
    mirror_direct = bool(c.mirror_direct)
    if mirror is not None and origins is not None and mirror.external is None and mirror.name in origins:
        mirror_direct = bool(origins[mirror.name].allow_direct)
    out["mirror_direct"] = mirror_direct
    if c.discard_new_per_subject:
        out["discard_new_per_subject"] = True
    out["sealed"] = bool(c.sealed)
    deny_purge = bool(c.deny_purge)
    allow_rollup = bool(c.allow_rollup_hdrs)
    allow_ttl = bool(c.allow_msg_ttl)
    sdm = c.subject_delete_marker_ttl or 0
    if sdm > 0:
        allow_ttl = True
        if not allow_rollup:
            allow_rollup, deny_purge = True, False
    if c.allow_msg_schedules and not allow_rollup:
        allow_rollup, deny_purge = True, False
    out["deny_delete"] = bool(c.deny_delete)
    out["deny_purge"] = deny_purge
    out["allow_rollup_hdrs"] = allow_rollup
    limits: dict[str, Any] = {}
    if c.consumer_limits is not None:
        if c.consumer_limits.inactive_threshold:
            limits["inactive_threshold"] = c.consumer_limits.inactive_threshold
        if c.consumer_limits.max_ack_pending:
            limits["max_ack_pending"] = c.consumer_limits.max_ack_pending
    out["consumer_limits"] = limits
    out["allow_msg_ttl"] = allow_ttl
    if sdm:
        out["subject_delete_marker_ttl"] = sdm
    if c.allow_msg_counter:
        out["allow_msg_counter"] = True
    if c.allow_atomic:
        out["allow_atomic"] = True
    if c.allow_msg_schedules:
        out["allow_msg_schedules"] = True
    if c.persist_mode == "async":
        out["persist_mode"] = "async"
    if c.allow_batched:
        out["allow_batched"] = True
    meta = {k: v for k, v in (c.metadata or {}).items() if not k.startswith("_nats.")}
    if meta:
        out["metadata"] = meta
    return out


def effective_consumer(
    config: ConsumerConfig,
    stream: dict[str, Any] | None = None,
    *,
    durable_name: str | None = None,
    name: str | None = None,
    target: Target | None = None,
) -> dict[str, Any]:
    """The consumer config nats-server would store (server JSON shape).

    ``stream`` is the parent stream's *effective* config (for ``consumer_limits``); without it the
    stream is assumed to set no consumer limits. ``durable_name``/``name`` override the config's.
    """
    t = target or _NO_TARGET
    c = config
    stream_limits = (stream or {}).get("consumer_limits") or {}
    durable = durable_name if durable_name is not None else (c.durable_name or "")
    cname = name if name is not None else (c.name or "")
    if durable and not cname:
        cname = durable  # the create API copies the durable name into name
    push = bool(c.deliver_subject)
    ack = c.ack_policy or "none"

    # 2.12+ normalises negative limits; older releases store them as given (or refuse some)
    normalise = (parse_version(t.server_version) or NORMALISE_NEGATIVE_LIMITS) >= NORMALISE_NEGATIVE_LIMITS
    floor = 0 if normalise else -(2**63)
    max_deliver = c.max_deliver or 0
    if max_deliver == 0 or (normalise and max_deliver < -1):
        max_deliver = -1
    max_waiting = max(c.max_waiting or 0, floor)
    max_ack_pending = c.max_ack_pending or 0
    if normalise and max_ack_pending < -1:
        max_ack_pending = -1
    max_batch = max(c.max_batch or 0, floor)
    max_expires = max(c.max_expires or 0, floor)
    max_bytes = max(c.max_bytes or 0, floor)
    heartbeat = max(c.idle_heartbeat or 0, floor)
    inactive = max(c.inactive_threshold or 0, floor)
    pinned = max(c.priority_timeout or 0, 0)
    flow_control = bool(c.flow_control)

    if not push and max_waiting == 0:
        max_waiting = CONSUMER_DEFAULT_MAX_WAITING
    ack_wait = c.ack_wait or 0
    if ack_wait == 0 and ack in ("explicit", "all"):
        ack_wait = CONSUMER_DEFAULT_ACK_WAIT
    if c.backoff:
        ack_wait = c.backoff[0]
    if max_ack_pending == 0:
        max_ack_pending = int(stream_limits.get("max_ack_pending") or 0)
    if inactive == 0:
        inactive = int(stream_limits.get("inactive_threshold") or 0)
    if max_ack_pending == 0 and ack != "none":
        pending = CONSUMER_DEFAULT_MAX_ACK_PENDING
        for lim in (t.limits.max_ack_pending, t.account.max_ack_pending):
            if lim and 0 < lim < pending:
                pending = lim
        max_ack_pending = pending
    if not push and max_batch == 0 and (t.limits.max_request_batch or 0) > 0:
        max_batch = t.limits.max_request_batch or 0
    if c.priority_policy == "pinned_client" and pinned == 0:
        pinned = PINNED_TTL_DEFAULT
    if ack == "flow_control":
        flow_control = True
        heartbeat = FLOW_CONTROL_HEARTBEAT
    if not durable and inactive <= 0:
        inactive = EPHEMERAL_INACTIVE_THRESHOLD

    out: dict[str, Any] = {}
    if durable:
        out["durable_name"] = durable
    if cname:
        out["name"] = cname
    if c.description:
        out["description"] = c.description
    out["deliver_policy"] = c.deliver_policy or "all"
    if c.opt_start_seq:
        out["opt_start_seq"] = c.opt_start_seq
    if c.opt_start_time is not None:
        out["opt_start_time"] = _time(c.opt_start_time)
    out["ack_policy"] = ack
    if ack_wait:
        out["ack_wait"] = ack_wait
    out["max_deliver"] = max_deliver
    if c.backoff:
        out["backoff"] = list(c.backoff)
    if c.filter_subject:
        out["filter_subject"] = c.filter_subject
    if c.filter_subjects:
        out["filter_subjects"] = list(c.filter_subjects)
    out["replay_policy"] = c.replay_policy or "instant"
    if c.rate_limit_bps:
        out["rate_limit_bps"] = c.rate_limit_bps
    if c.sample_freq:
        out["sample_freq"] = c.sample_freq
    if max_waiting:
        out["max_waiting"] = max_waiting
    if max_ack_pending:
        out["max_ack_pending"] = max_ack_pending
    if flow_control:
        out["flow_control"] = True
    if c.headers_only:
        out["headers_only"] = True
    if max_batch:
        out["max_batch"] = max_batch
    if max_expires:
        out["max_expires"] = max_expires
    if max_bytes:
        out["max_bytes"] = max_bytes
    if c.deliver_subject:
        out["deliver_subject"] = c.deliver_subject
    if c.deliver_group:
        out["deliver_group"] = c.deliver_group
    if heartbeat:
        out["idle_heartbeat"] = heartbeat
    if inactive:
        out["inactive_threshold"] = inactive
    out["num_replicas"] = c.num_replicas or 0
    if c.mem_storage:
        out["mem_storage"] = True
    if c.direct:
        out["direct"] = True
    if c.sourcing:
        out["sourcing"] = True
    meta = {k: v for k, v in (c.metadata or {}).items() if not k.startswith("_nats.")}
    if meta:
        out["metadata"] = meta
    if c.pause_until is not None:
        out["pause_until"] = _time(c.pause_until)  # the server keeps the offset as written
    if c.priority_groups:
        out["priority_groups"] = list(c.priority_groups)
    if c.priority_policy and c.priority_policy != "none":
        out["priority_policy"] = c.priority_policy
    if pinned:
        out["priority_timeout"] = pinned
    return out
