"""StreamConfig and ConsumerConfig as nats-server 2.15 accepts them.

Field names are the JetStream API's snake_case (what ``nats stream info --json`` prints); enums are
spelled as the server spells them. Every field is optional: a model holds what the manifest wrote,
and :mod:`jsops.linter.semantics.effective` fills in what the server would.
"""

# No `from __future__ import annotations` here: the records (and pydantic, when it is needed) read
# these annotations as objects instead of evaluating strings.
from typing import Annotated, Any, Literal

from ..semantics.units import parse_duration, parse_size
from .records.record import AwareDatetime, Before, Record, StrictBool, StrictInt, StrictStr

__all__ = [
    "Duration",
    "Size",
    "StreamConfig",
    "ConsumerConfig",
    "StreamSource",
    "ExternalStream",
    "StreamConsumerSource",
    "SubjectTransform",
    "Republish",
    "Placement",
    "StreamConsumerLimits",
    "RETENTION",
    "DISCARD",
    "STORAGE",
    "COMPRESSION",
    "PERSIST_MODE",
    "ACK_POLICY",
    "DELIVER_POLICY",
    "REPLAY_POLICY",
    "PRIORITY_POLICY",
    "Retention",
    "Discard",
    "Storage",
    "Compression",
    "PersistMode",
    "AckPolicy",
    "DeliverPolicy",
    "ReplayPolicy",
    "PriorityPolicy",
]


# Parsed strings by spelling: an estate repeats a few durations and sizes thousands of times.
_parsed: dict[tuple[str, str], int] = {}


def _parse_cached(kind: str, value: object) -> int:
    if type(value) is not str:
        return parse_duration(value) if kind == "duration" else parse_size(value)
    hit = _parsed.get((kind, value))
    if hit is None:
        hit = parse_duration(value) if kind == "duration" else parse_size(value)
        if len(_parsed) >= 4096:
            _parsed.clear()
        _parsed[kind, value] = hit
    return hit


def _duration(value: object) -> int:
    """The Duration hook; jsops.linter.load finds duration fields by this function's name."""
    return _parse_cached("duration", value)


def _size(value: object) -> int:
    """The Size hook; jsops.linter.load finds size fields by this function's name."""
    return _parse_cached("size", value)


def _sample_freq(value: Any) -> Any:
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return value


Duration = Annotated[int, Before(_duration)]
"""Nanoseconds; accepts Go duration strings with ``d`` and ``w`` units, or integer nanoseconds."""
Size = Annotated[int, Before(_size)]
"""Bytes; accepts integers or strings like ``10GiB`` (1024-based, like natscli)."""
Timestamp = AwareDatetime

RETENTION = ("limits", "interest", "workqueue")
DISCARD = ("old", "new")
STORAGE = ("file", "memory")
COMPRESSION = ("none", "s2")
PERSIST_MODE = ("default", "async")
ACK_POLICY = ("none", "all", "explicit", "flow_control")
DELIVER_POLICY = ("all", "last", "new", "by_start_sequence", "by_start_time", "last_per_subject")
REPLAY_POLICY = ("instant", "original")
PRIORITY_POLICY = ("none", "overflow", "pinned_client", "prioritized")

# The enums as types (the effective configs of jsops.linter.semantics.effective_types use them too).
Retention = Literal["limits", "interest", "workqueue"]
Discard = Literal["old", "new"]
Storage = Literal["file", "memory"]
Compression = Literal["none", "s2"]
PersistMode = Literal["default", "async", ""]
AckPolicy = Literal["none", "all", "explicit", "flow_control"]
DeliverPolicy = Literal["all", "last", "new", "by_start_sequence", "by_start_time", "last_per_subject"]
ReplayPolicy = Literal["instant", "original"]
PriorityPolicy = Literal["none", "overflow", "pinned_client", "prioritized"]


class _Model(Record):
    """A config model: a light record, validated by pydantic only when the fast validator cannot
    judge the input (jsops.linter.model.records.record); extra="forbid", frozen."""

    _pydantic_config = {"str_strip_whitespace": False}


class SubjectTransform(_Model):
    src: StrictStr = ""
    dest: StrictStr = ""


class Republish(_Model):
    src: StrictStr | None = None
    dest: StrictStr
    headers_only: StrictBool | None = None


class Placement(_Model):
    cluster: StrictStr | None = None
    tags: list[StrictStr] | None = None
    preferred: StrictStr | None = None


class ExternalStream(_Model):
    api: StrictStr = ""
    deliver: StrictStr = ""


class StreamConsumerSource(_Model):
    """The durable consumer a mirror or source uses (nats-server 2.14+)."""

    name: StrictStr | None = None
    deliver_subject: StrictStr | None = None


class StreamSource(_Model):
    name: StrictStr | None = None
    opt_start_seq: StrictInt | None = None
    opt_start_time: Timestamp | None = None
    filter_subject: StrictStr | None = None
    subject_transforms: list[SubjectTransform] | None = None
    external: ExternalStream | None = None
    consumer: StreamConsumerSource | None = None


class StreamConsumerLimits(_Model):
    inactive_threshold: Duration | None = None
    max_ack_pending: StrictInt | None = None


class StreamConfig(_Model):
    """A stream's configuration; see server-rules.md §5.1 for when each field appeared."""

    name: StrictStr | None = None
    description: StrictStr | None = None
    subjects: list[StrictStr] | None = None
    retention: Retention | None = None
    max_consumers: StrictInt | None = None
    max_msgs: StrictInt | None = None
    max_bytes: Size | None = None
    max_age: Duration | None = None
    max_msgs_per_subject: StrictInt | None = None
    max_msg_size: Size | None = None
    discard: Discard | None = None
    storage: Storage | None = None
    num_replicas: StrictInt | None = None
    no_ack: StrictBool | None = None
    template_owner: StrictStr | None = None
    duplicate_window: Duration | None = None
    placement: Placement | None = None
    mirror: StreamSource | None = None
    sources: list[StreamSource] | None = None
    compression: Compression | None = None
    first_seq: StrictInt | None = None
    subject_transform: SubjectTransform | None = None
    republish: Republish | None = None
    allow_direct: StrictBool | None = None
    mirror_direct: StrictBool | None = None
    discard_new_per_subject: StrictBool | None = None
    sealed: StrictBool | None = None
    deny_delete: StrictBool | None = None
    deny_purge: StrictBool | None = None
    allow_rollup_hdrs: StrictBool | None = None
    consumer_limits: StreamConsumerLimits | None = None
    allow_msg_ttl: StrictBool | None = None
    subject_delete_marker_ttl: Duration | None = None
    allow_msg_counter: StrictBool | None = None
    allow_atomic: StrictBool | None = None
    allow_msg_schedules: StrictBool | None = None
    persist_mode: PersistMode | None = None
    allow_batched: StrictBool | None = None
    metadata: dict[StrictStr, StrictStr] | None = None


class ConsumerConfig(_Model):
    """A consumer's configuration; see server-rules.md §5.2 for when each field appeared."""

    durable_name: StrictStr | None = None
    name: StrictStr | None = None
    description: StrictStr | None = None
    deliver_policy: DeliverPolicy | None = None
    opt_start_seq: StrictInt | None = None
    opt_start_time: Timestamp | None = None
    ack_policy: AckPolicy | None = None
    ack_wait: Duration | None = None
    max_deliver: StrictInt | None = None
    backoff: list[Duration] | None = None
    filter_subject: StrictStr | None = None
    filter_subjects: list[StrictStr] | None = None
    replay_policy: ReplayPolicy | None = None
    rate_limit_bps: StrictInt | None = None
    sample_freq: Annotated[StrictStr, Before(_sample_freq)] | None = None
    max_waiting: StrictInt | None = None
    max_ack_pending: StrictInt | None = None
    flow_control: StrictBool | None = None
    headers_only: StrictBool | None = None
    max_batch: StrictInt | None = None
    max_expires: Duration | None = None
    max_bytes: Size | None = None
    deliver_subject: StrictStr | None = None
    deliver_group: StrictStr | None = None
    idle_heartbeat: Duration | None = None
    inactive_threshold: Duration | None = None
    num_replicas: StrictInt | None = None
    mem_storage: StrictBool | None = None
    direct: StrictBool | None = None
    sourcing: StrictBool | None = None
    metadata: dict[StrictStr, StrictStr] | None = None
    pause_until: Timestamp | None = None
    priority_groups: list[StrictStr] | None = None
    priority_policy: PriorityPolicy | None = None
    priority_timeout: Duration | None = None
