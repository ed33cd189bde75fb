"""The effective configs as types: what nats-server stores for a stream or a consumer, as immutable records.

:mod:`jsops.linter.semantics.effective` computes them (the server's defaults and normalisations); rules read
their attributes (``eff.ack_wait``), the reconciler compares and sends them. Each class has exactly the
fields of its catalog record (:mod:`jsops.linter.semantics.catalog`), in the same order (a test holds them
together); defaults, units and the JSON shape are the catalog's, not restated here. Values are what the
server stores: durations in nanoseconds, sizes in bytes, timestamps as the server writes them (RFC 3339),
an absent optional value ``None``, an absent list ``()``, an absent map empty.

:func:`api_json` is the one way to the server's JSON shape (an API request, a saved plan, an export):
it writes the fields in the catalog's order and leaves out what the server's JSON leaves out (a zero
``omitempty`` field, an absent record).

Records are named tuples (immutable, no validation): building one is a single tuple construction (a
frozen dataclass costs ten times more), so the lint pays next to nothing per field.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final, NamedTuple, TypeAlias

from . import catalog

if TYPE_CHECKING:
    from ..model.config import (
        AckPolicy,
        Compression,
        DeliverPolicy,
        Discard,
        PriorityPolicy,
        ReplayPolicy,
        Retention,
        Storage,
    )

__all__ = [
    "EffectiveStream",
    "EffectiveConsumer",
    "EffectiveSource",
    "EffectiveSourceConsumer",
    "EffectiveExternal",
    "EffectiveTransform",
    "EffectivePlacement",
    "EffectiveRepublish",
    "EffectiveConsumerLimits",
    "EffectiveRecord",
    "EFFECTIVE_RECORDS",
    "EMPTY_METADATA",
    "api_json",
]

EMPTY_METADATA: Final[Mapping[str, str]] = MappingProxyType({})


class EffectiveTransform(NamedTuple):
    """A subject transform (``subject_transform``, a source's ``subject_transforms``)."""

    src: str
    dest: str


class EffectiveExternal(NamedTuple):
    """The API and deliver prefixes of a source in another domain or account."""

    api: str
    deliver: str


class EffectiveSourceConsumer(NamedTuple):
    """The durable consumer a mirror or source uses (2.14+)."""

    name: str | None = None
    deliver_subject: str | None = None


class EffectiveSource(NamedTuple):
    """A mirror or one of the sources."""

    name: str
    opt_start_seq: int | None = None
    opt_start_time: str | None = None
    filter_subject: str | None = None
    subject_transforms: tuple[EffectiveTransform, ...] = ()
    external: EffectiveExternal | None = None
    consumer: EffectiveSourceConsumer | None = None


class EffectivePlacement(NamedTuple):
    """Where the stream's replicas go; present (even empty) when the config names any of it."""

    cluster: str | None = None
    tags: tuple[str, ...] = ()
    preferred: str | None = None


class EffectiveRepublish(NamedTuple):
    """What the stream republishes (after the server's rewrite of an implicit ``>`` republish)."""

    src: str
    dest: str
    headers_only: bool = False


class EffectiveConsumerLimits(NamedTuple):
    """The stream's limits for its consumers (0: no limit)."""

    inactive_threshold: int = 0
    max_ack_pending: int = 0


class EffectiveStream(NamedTuple):
    """The stream config nats-server stores (``max_*`` limits: -1 unlimited; ``max_age`` 0 unlimited)."""

    name: str
    description: str | None
    subjects: tuple[str, ...]
    retention: Retention
    max_consumers: int
    max_msgs: int
    max_bytes: int
    max_age: int
    max_msgs_per_subject: int
    max_msg_size: int
    discard: Discard
    storage: Storage
    num_replicas: int
    no_ack: bool
    template_owner: str | None  # the stream template that made the stream (releases before 2.14)
    duplicate_window: int
    placement: EffectivePlacement | None
    mirror: EffectiveSource | None
    sources: tuple[EffectiveSource, ...]
    compression: Compression
    first_seq: int | None
    subject_transform: EffectiveTransform | None
    republish: EffectiveRepublish | None
    allow_direct: bool
    mirror_direct: bool
    discard_new_per_subject: bool
    sealed: bool
    deny_delete: bool
    deny_purge: bool
    allow_rollup_hdrs: bool
    consumer_limits: EffectiveConsumerLimits
    allow_msg_ttl: bool
    subject_delete_marker_ttl: int
    allow_msg_counter: bool
    allow_atomic: bool
    allow_msg_schedules: bool
    persist_mode: str | None  # "async", or None for the default
    allow_batched: bool
    metadata: Mapping[str, str]


class EffectiveConsumer(NamedTuple):
    """The consumer config nats-server stores (``max_deliver`` -1 unlimited; a 0 timer is off)."""

    durable_name: str
    name: str
    description: str | None
    deliver_policy: DeliverPolicy
    opt_start_seq: int | None
    opt_start_time: str | None
    ack_policy: AckPolicy
    ack_wait: int
    max_deliver: int
    backoff: tuple[int, ...]
    filter_subject: str | None
    filter_subjects: tuple[str, ...]
    replay_policy: ReplayPolicy
    rate_limit_bps: int | None
    sample_freq: str | None
    max_waiting: int
    max_ack_pending: int
    flow_control: bool
    headers_only: bool
    max_batch: int
    max_expires: int
    max_bytes: int
    deliver_subject: str | None
    deliver_group: str | None
    idle_heartbeat: int
    inactive_threshold: int
    num_replicas: int
    mem_storage: bool
    direct: bool
    sourcing: bool
    metadata: Mapping[str, str]
    pause_until: str | None
    priority_groups: tuple[str, ...]
    priority_policy: PriorityPolicy | None  # None for the default ("none")
    priority_timeout: int


EffectiveRecord: TypeAlias = (
    "EffectiveStream | EffectiveConsumer | EffectiveSource | EffectiveSourceConsumer | EffectiveExternal"
    " | EffectiveTransform | EffectivePlacement | EffectiveRepublish | EffectiveConsumerLimits"
)

EFFECTIVE_RECORDS: Mapping[str, type[EffectiveRecord]] = MappingProxyType(
    {
        "Stream": EffectiveStream,
        "Consumer": EffectiveConsumer,
        "StreamSource": EffectiveSource,
        "StreamConsumerSource": EffectiveSourceConsumer,
        "ExternalStream": EffectiveExternal,
        "SubjectTransform": EffectiveTransform,
        "Placement": EffectivePlacement,
        "Republish": EffectiveRepublish,
        "StreamConsumerLimits": EffectiveConsumerLimits,
    }
)
"""Catalog record name -> its effective class."""

_CLASSES = tuple(EFFECTIVE_RECORDS.values())
# Per class: (field name, omitempty) in the catalog's (the server's JSON) order.
_LAYOUT: dict[type, tuple[tuple[str, bool], ...]] = {
    cls: tuple((f.name, f.omitempty) for f in catalog.RECORDS[name].fields) for name, cls in EFFECTIVE_RECORDS.items()
}


# Whether a value of a type is written as it is (not a record, a tuple or a mapping), decided once per
# type: api_json runs for every field of every config a plan reads, compares and fingerprints.
_AS_IS: dict[type, bool] = {str: True, int: True, bool: True, float: True, type(None): True}


def _as_is(kind: type) -> bool:
    plain = _AS_IS[kind] = not (issubclass(kind, _CLASSES) or kind is tuple or issubclass(kind, Mapping))
    return plain


def _json(value: object) -> object:
    plain = _AS_IS.get(type(value))
    if plain or plain is None and _as_is(type(value)):
        return value
    if isinstance(value, _CLASSES):
        return api_json(value)
    if type(value) is tuple:
        return [_json(v) for v in value]
    if isinstance(value, Mapping):
        return dict(value)
    return value


def api_json(record: EffectiveRecord) -> dict[str, Any]:
    """The server's JSON shape of an effective record (the API request body, or what ``info`` returns
    once server metadata is stripped): fields in catalog order, a zero ``omitempty`` field and an
    absent record left out."""
    out: dict[str, Any] = {}
    for (name, omitempty), value in zip(_LAYOUT[type(record)], record):  # the record's fields are the catalog's
        if omitempty and not value:
            continue
        out[name] = _json(value)
    return out
