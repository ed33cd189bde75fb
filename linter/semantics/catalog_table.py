"""The field table: every stream, consumer and bucket config field, declared once (server-rules.md §3-§5,
measured on the real binaries in tests/integration/).

Each entry is a :class:`~jsops.linter.semantics.catalog_schema.Field` of a
:class:`~jsops.linter.semantics.catalog_schema.Record` (what an entry says is described there); the queries over
the table, and every name of it, are imported from :mod:`jsops.linter.semantics.catalog`.

This module imports only :mod:`.change_class` and :mod:`.catalog_schema` of jsops: bottom-layer data.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from .catalog_schema import Field, Record, Unit, Update, Version
from .change_class import ChangeClass

__all__ = [
    "FIRST_RELEASE",
    "SECOND",
    "RECORDS",
    "STREAM",
    "CONSUMER",
    "STREAM_SOURCE",
    "PLACEMENT",
    "REPUBLISH",
    "KEY_VALUE_REPUBLISH",
    "SUBJECT_TRANSFORM",
    "EXTERNAL",
    "STREAM_CONSUMER_SOURCE",
    "STREAM_CONSUMER_LIMITS",
    "KEY_VALUE",
    "OBJECT_STORE",
]

FIRST_RELEASE: Version = (2, 2, 0)
"""The first release with the JetStream API: what every field older than its own release is dated."""
_BASE = FIRST_RELEASE
SECOND = 1_000_000_000

_STREAM_LOST = "the stream is deleted and created again: its messages and consumers are lost"
_CONSUMER_LOST = "the consumer must be deleted and created again, losing its position and pending acks unless it is recreated at its ack floor"


def _recreate(why: str, lost: str) -> Update:
    return Update(ChangeClass.RECREATE, f"{why}; {lost}")


def _one_way(sentence: str) -> Update:
    return Update(ChangeClass.ONE_WAY, sentence)


def _forbidden(sentence: str) -> Update:
    return Update(ChangeClass.FORBIDDEN, sentence)


def _limit(tighter: str) -> Update:
    return Update(tighter=tighter)


def _reset(why: str) -> Update:
    return Update(ChangeClass.RECREATE, f"{why}; {_CONSUMER_LOST}", reset_api=True)


def _flag(name: str, since: Version, nack: str | None, **kw: Any) -> Field:
    """An omitempty boolean: stored false when absent."""
    return Field(name, since, default=False, nack=nack, **kw)


SUBJECT_TRANSFORM = Record(
    "SubjectTransform",
    (Field("src", _BASE, nack="source", omitempty=False), Field("dest", _BASE, nack="dest", omitempty=False)),
)
EXTERNAL = Record(
    "ExternalStream",
    (
        Field("api", _BASE, nack="externalApiPrefix", omitempty=False),
        Field("deliver", _BASE, nack="externalDeliverPrefix", omitempty=False),
    ),
)
STREAM_CONSUMER_SOURCE = Record(
    "StreamConsumerSource", (Field("name", (2, 14, 0)), Field("deliver_subject", (2, 14, 0)))
)
STREAM_SOURCE = Record(
    "StreamSource",
    (
        Field("name", _BASE, nack="name", omitempty=False),
        Field("opt_start_seq", _BASE, nack="optStartSeq"),
        Field("opt_start_time", _BASE, unit=Unit.TIME, nack="optStartTime"),
        Field("filter_subject", _BASE, nack="filterSubject"),
        Field("subject_transforms", (2, 10, 0), nack="subjectTransforms", record="SubjectTransform", many=True),
        Field("external", _BASE, record="ExternalStream"),  # NACK spells it flat: externalApiPrefix, ...
        Field("consumer", (2, 14, 0), record="StreamConsumerSource"),
    ),
)
PLACEMENT = Record(
    "Placement",
    (
        Field("cluster", _BASE, nack="cluster"),
        Field("tags", _BASE, nack="tags", set_valued=True, many=True),
        Field("preferred", (2, 11, 0)),
    ),
)
REPUBLISH = Record(
    "Republish",
    (
        Field("src", (2, 8, 3), nack="source", omitempty=False),
        Field("dest", (2, 8, 3), nack="destination", omitempty=False),
        Field("headers_only", (2, 8, 3), nack="headers_only"),
    ),
)
# The KeyValue CRD spells the republish flag headersOnly (the Stream CRD: headers_only).
KEY_VALUE_REPUBLISH = Record(
    "KeyValueRepublish",
    (
        Field("src", (2, 8, 3), nack="source"),
        Field("dest", (2, 8, 3), nack="destination"),
        Field("headers_only", (2, 8, 3), nack="headersOnly"),
    ),
)
STREAM_CONSUMER_LIMITS = Record(
    "StreamConsumerLimits",
    (
        Field("inactive_threshold", (2, 10, 0), unit=Unit.DURATION, nack="inactiveThreshold"),
        Field("max_ack_pending", (2, 10, 0), nack="maxAckPending"),
    ),
)

_KV = "KeyValue"
_OBJ = "ObjectStore"

STREAM = Record(
    "Stream",
    (
        Field(
            "name",
            _BASE,
            nack="name",
            update=_forbidden("a stream is identified by its name; a new name is a different stream"),
            omitempty=False,
        ),
        Field("description", (2, 3, 3), nack="description", bucket={_KV: "description", _OBJ: "description"}),
        Field("subjects", _BASE, nack="subjects", set_valued=True, many=True),
        Field(
            "retention",
            _BASE,
            default="limits",
            nack="retention",
            update=Update(
                sentence="retention switches between limits and interest; with interest, messages every consumer acked are removed"
            ),
            omitempty=False,
        ),
        Field("max_consumers", _BASE, default=-1, nack="maxConsumers", omitempty=False),
        Field(
            "max_msgs",
            _BASE,
            default=-1,
            nack="maxMsgs",
            update=_limit("a lower limit removes the oldest messages at once"),
            omitempty=False,
        ),
        Field(
            "max_bytes",
            _BASE,
            unit=Unit.SIZE,
            default=-1,
            nack="maxBytes",
            bucket={_KV: "max_bytes", _OBJ: "max_bytes"},
            update=_limit("a lower limit removes the oldest messages at once"),
            omitempty=False,
        ),
        Field(
            "max_age",
            _BASE,
            unit=Unit.DURATION,
            default=0,
            nack="maxAge",
            bucket={_KV: "ttl", _OBJ: "ttl"},
            update=_limit("a shorter age removes older messages at once"),
            omitempty=False,
        ),
        Field(
            "max_msgs_per_subject",
            (2, 3, 0),
            default=-1,
            nack="maxMsgsPerSubject",
            bucket={_KV: "history"},
            update=_limit("a lower limit removes older messages of each subject at once"),
            omitempty=False,
        ),
        Field(
            "max_msg_size",
            _BASE,
            unit=Unit.SIZE,
            default=-1,
            nack="maxMsgSize",
            bucket={_KV: "max_value_size"},
            omitempty=False,
        ),
        Field("discard", _BASE, default="old", nack="discard", omitempty=False),
        Field(
            "storage",
            _BASE,
            default="file",
            nack="storage",
            bucket={_KV: "storage", _OBJ: "storage"},
            update=_recreate("storage type can not be changed in place", _STREAM_LOST),
            omitempty=False,
        ),
        Field(
            "num_replicas",
            _BASE,
            default=1,
            nack="replicas",
            bucket={_KV: "replicas", _OBJ: "replicas"},
            update=Update(sentence="replicas are added or removed; the stream's leader may change"),
            omitempty=False,
        ),
        Field("no_ack", _BASE, nack="noAck"),
        # The stream template that made the stream (only the server sets it: a create naming one is refused,
        # 10049; an update naming one, 10052). Stream templates are gone from 2.14: measured on 2.10.26,
        # 2.11.11, 2.12.8 (decoded) and 2.14.6, 2.15.1 (unknown field, 10025).
        Field("template_owner", _BASE, removed=(2, 14, 0)),
        Field("duplicate_window", _BASE, unit=Unit.DURATION, default=120 * SECOND, nack="duplicateWindow"),
        Field(
            "placement",
            _BASE,
            nack="placement",
            record="Placement",
            bucket={_KV: "placement", _OBJ: "placement"},
            update=Update(sentence="the stream moves to other servers; its data is copied to the new peers"),
        ),
        Field("mirror", _BASE, nack="mirror", record="StreamSource", bucket={_KV: "mirror"}),
        Field(
            "sources",
            _BASE,
            nack="sources",
            record="StreamSource",
            many=True,
            bucket={_KV: "sources"},
            update=Update(sentence="sourcing starts or stops for the changed sources"),
        ),
        Field(
            "compression",
            (2, 10, 0),
            default="none",
            nack="compression",
            bucket={_KV: "compression", _OBJ: "compression"},
            enum_since={"s2": (2, 10, 0)},
            omitempty=False,
        ),
        Field("first_seq", (2, 10, 0), nack="firstSequence"),
        Field("subject_transform", (2, 10, 0), nack="subjectTransform", record="SubjectTransform"),
        Field("republish", (2, 8, 3), nack="republish", record="Republish", bucket={_KV: "republish"}),
        _flag("allow_direct", (2, 9, 0), "allowDirect", bucket={_KV: "direct"}, omitempty=False),
        _flag(
            "mirror_direct",
            (2, 9, 0),
            "mirrorDirect",
            update=Update(sentence="direct gets are served by the mirror or stop being served"),
            omitempty=False,
        ),
        _flag("discard_new_per_subject", (2, 9, 1), "discardPerSubject"),
        _flag(
            "sealed",
            (2, 6, 2),
            "sealed",
            update=_one_way(
                "a sealed stream accepts no more messages and can never be unsealed; the server also sets max_age 0, discard new, deny_delete and deny_purge"
            ),
            omitempty=False,
        ),
        _flag(
            "deny_delete",
            (2, 6, 2),
            "denyDelete",
            update=_one_way("message deletes stay denied for the life of the stream"),
            omitempty=False,
        ),
        _flag(
            "deny_purge",
            (2, 6, 2),
            "denyPurge",
            update=_one_way("purges stay denied for the life of the stream"),
            omitempty=False,
        ),
        _flag("allow_rollup_hdrs", (2, 6, 2), "allowRollup", omitempty=False),
        Field(
            "consumer_limits",
            (2, 10, 0),
            default={},
            nack="consumerLimits",
            record="StreamConsumerLimits",
            omitempty=False,
        ),
        _flag(
            "allow_msg_ttl",
            (2, 11, 0),
            "allowMsgTtl",
            bucket={_KV: "allow_msg_ttl"},
            update=_one_way("per-message TTLs can never be disabled again"),
            omitempty=False,
        ),
        Field(
            "subject_delete_marker_ttl",
            (2, 11, 0),
            unit=Unit.DURATION,
            nack="subjectDeleteMarkerTtl",
            bucket={_KV: "limit_marker_ttl"},
        ),
        _flag(
            "allow_msg_counter",
            (2, 12, 0),
            "allowMsgCounter",
            update=_recreate("the message counter setting can not be changed in place", _STREAM_LOST),
        ),
        _flag("allow_atomic", (2, 12, 0), "allowAtomicPublish"),
        _flag(
            "allow_msg_schedules",
            (2, 12, 0),
            "allowMsgSchedules",
            update=_one_way("message schedules can never be disabled again"),
        ),
        Field(
            "persist_mode",
            (2, 12, 0),
            nack="persistMode",
            enum_since={"async": (2, 12, 0)},
            update=_recreate("persist mode can not be changed in place", _STREAM_LOST),
        ),
        Field("allow_batched", (2, 14, 0)),
        Field("metadata", (2, 10, 0), nack="metadata", bucket={_KV: "metadata", _OBJ: "metadata"}),
    ),
)
"""StreamConfig's fields. ``default`` is what a created stream stores for an absent field (the omitempty
booleans as false); ``max_age``'s 0 and the limits' -1 mean unlimited."""

_DELIVERY = "messages outside the new filter are no longer delivered"

CONSUMER = Record(
    "Consumer",
    (
        Field(
            "durable_name",
            _BASE,
            nack="durableName",
            update=_forbidden("a consumer is identified by its name; a new name is a different consumer"),
        ),
        Field(
            "name",
            (2, 9, 0),
            update=_forbidden("a consumer is identified by its name; a new name is a different consumer"),
        ),
        Field("description", (2, 3, 3), nack="description"),
        Field(
            "deliver_policy",
            _BASE,
            default="all",
            nack="deliverPolicy",
            enum_since={"last_per_subject": (2, 3, 3)},
            update=_reset("deliver policy can not be updated"),
            omitempty=False,
        ),
        Field("opt_start_seq", _BASE, nack="optStartSeq", update=_reset("start sequence can not be updated")),
        Field(
            "opt_start_time", _BASE, unit=Unit.TIME, nack="optStartTime", update=_reset("start time can not be updated")
        ),
        Field(
            "ack_policy",
            _BASE,
            default="none",
            nack="ackPolicy",
            enum_since={"flow_control": (2, 14, 0)},
            update=_recreate("ack policy can not be updated", _CONSUMER_LOST),
            omitempty=False,
        ),
        Field(
            "ack_wait",
            _BASE,
            unit=Unit.DURATION,
            default=30 * SECOND,
            nack="ackWait",
            update=Update(sentence="in-flight messages are redelivered after the new ack wait"),
        ),
        Field(
            "max_deliver",
            _BASE,
            default=-1,
            nack="maxDeliver",
            update=Update(sentence="messages are redelivered up to the new limit"),
            omitempty=False,
        ),
        Field(
            "backoff",
            (2, 7, 1),
            unit=Unit.DURATIONS,
            many=True,
            nack="backoff",
            update=Update(sentence="redeliveries follow the new backoff"),
        ),
        Field("filter_subject", _BASE, nack="filterSubject", update=Update(sentence=_DELIVERY)),
        Field(
            "filter_subjects",
            (2, 10, 0),
            nack="filterSubjects",
            set_valued=True,
            many=True,
            update=Update(sentence="messages outside the new filters are no longer delivered"),
        ),
        Field(
            "replay_policy",
            _BASE,
            default="instant",
            nack="replayPolicy",
            update=_recreate("replay policy can not be updated", _CONSUMER_LOST),
            omitempty=False,
        ),
        Field("rate_limit_bps", _BASE, nack="rateLimitBps"),
        Field("sample_freq", _BASE, nack="sampleFreq"),
        Field(
            "max_waiting",
            _BASE,
            default=512,
            nack="maxWaiting",
            update=_recreate("max waiting can not be updated", _CONSUMER_LOST),
        ),
        Field("max_ack_pending", _BASE, default=1000, nack="maxAckPending"),
        Field(
            "flow_control",
            _BASE,
            nack="flowControl",
            update=_recreate("flow control can not be updated", _CONSUMER_LOST),
        ),
        Field("headers_only", (2, 6, 2), nack="headersOnly"),
        Field("max_batch", (2, 7, 0), nack="maxRequestBatch"),
        Field("max_expires", (2, 7, 0), unit=Unit.DURATION, nack="maxRequestExpires"),
        Field("max_bytes", (2, 8, 3), unit=Unit.SIZE, nack="maxRequestMaxBytes"),
        Field(
            "deliver_subject",
            _BASE,
            nack="deliverSubject",
            update=Update(
                sentence="the push consumer delivers to a new subject (refused while the old one has subscribers)"
            ),
        ),
        Field("deliver_group", (2, 4, 0), nack="deliverGroup"),
        Field(
            "idle_heartbeat",
            _BASE,
            unit=Unit.DURATION,
            nack="heartbeatInterval",
            update=_recreate("heartbeats can not be updated", _CONSUMER_LOST),
        ),
        Field("inactive_threshold", (2, 7, 0), unit=Unit.DURATION, nack="inactiveThreshold"),
        Field(
            "num_replicas",
            (2, 8, 3),
            default=0,
            nack="replicas",
            update=Update(sentence="consumer replicas are added or removed"),
            omitempty=False,
        ),
        Field(
            "mem_storage",
            (2, 8, 3),
            nack="memStorage",
            update=_recreate("storage type can not be updated", _CONSUMER_LOST),
        ),
        Field("direct", _BASE, update=_recreate("direct can not be updated", _CONSUMER_LOST)),
        Field("sourcing", (2, 14, 0), update=_recreate("sourcing can not be updated", _CONSUMER_LOST)),
        Field("metadata", (2, 10, 0), nack="metadata"),
        Field(
            "pause_until",
            (2, 11, 0),
            unit=Unit.TIME,
            nack="pauseUntil",
            update=_forbidden(
                "pause_until is ignored by config updates; pause or resume the consumer with the pause API"
            ),
        ),
        Field("priority_groups", (2, 11, 0), nack="priorityGroups"),
        Field(
            "priority_policy",
            (2, 11, 0),
            nack="priorityPolicy",
            enum_since={"overflow": (2, 11, 0), "pinned_client": (2, 11, 0), "prioritized": (2, 12, 0)},
        ),
        Field("priority_timeout", (2, 11, 0), unit=Unit.DURATION, nack="pinnedTtl"),
    ),
)
"""ConsumerConfig's fields. ``default`` here is what the server stores for an acking pull consumer that
leaves the field out (push and ack-none consumers differ: :func:`jsops.linter.semantics.effective.effective_consumer`)."""

KEY_VALUE = Record(
    "KeyValue",
    (
        Field("bucket", _BASE, nack="bucket"),
        Field("description", (2, 3, 3), nack="description"),
        Field("max_value_size", _BASE, unit=Unit.SIZE, nack="maxValueSize"),
        Field("history", (2, 3, 0), nack="history"),
        Field("ttl", _BASE, unit=Unit.DURATION, nack="ttl"),
        Field("max_bytes", _BASE, unit=Unit.SIZE, nack="maxBytes"),
        Field("storage", _BASE, nack="storage"),
        Field("replicas", _BASE, nack="replicas"),
        Field("placement", _BASE, nack="placement", record="Placement"),
        Field("republish", (2, 8, 3), nack="republish", record="KeyValueRepublish"),
        Field("mirror", _BASE, nack="mirror", record="StreamSource"),
        Field("sources", _BASE, nack="sources", record="StreamSource", many=True),
        Field("compression", (2, 10, 0), nack="compression"),
        Field("metadata", (2, 10, 0)),  # not in NACK's KeyValue CRD or type (nats-io/nack v0.19-v0.22)
        Field("limit_marker_ttl", (2, 11, 0), unit=Unit.DURATION, nack="limitMarkerTtl"),
        Field("direct", (2, 9, 0)),
        Field("allow_msg_ttl", (2, 11, 0)),
    ),
)
OBJECT_STORE = Record(
    "ObjectStore",
    (
        Field("bucket", _BASE, nack="bucket"),
        Field("description", (2, 3, 3), nack="description"),
        Field("ttl", _BASE, unit=Unit.DURATION, nack="ttl"),
        Field("max_bytes", _BASE, unit=Unit.SIZE, nack="maxBytes"),
        Field("storage", _BASE, nack="storage"),
        Field("replicas", _BASE, nack="replicas"),
        Field("placement", _BASE, nack="placement", record="Placement"),
        Field("compression", (2, 10, 0), nack="compression"),
        Field("metadata", (2, 10, 0), nack="metadata"),
    ),
)

RECORDS: Mapping[str, Record] = MappingProxyType(
    {
        r.name: r
        for r in (
            STREAM,
            CONSUMER,
            KEY_VALUE,
            OBJECT_STORE,
            STREAM_SOURCE,
            PLACEMENT,
            REPUBLISH,
            KEY_VALUE_REPUBLISH,
            SUBJECT_TRANSFORM,
            EXTERNAL,
            STREAM_CONSUMER_SOURCE,
            STREAM_CONSUMER_LIMITS,
        )
    }
)
"""Every record by catalog name: the kinds (Stream, Consumer, KeyValue, ObjectStore) and the nested records."""
