"""NACK's spelling of JetStream configs: the CRD field names and where each one lands in the
JetStream API config, NACK's enum spellings, the CRD defaults, and the kinds and fields jsops reads
but does not manage (nats-io/nack deploy/crds.yml, internal/controller/*_controller.go).

A table maps a NACK field to an API field name, to ``None`` (read elsewhere), to ``(outer, inner)``
(a flat NACK field nested in the API), or to ``(name, subtable)`` (a nested object or list)."""

from __future__ import annotations

from typing import Any

__all__ = [
    "XFORM",
    "SOURCE",
    "CONNECTION",
    "STREAM",
    "CONSUMER",
    "KEY_VALUE",
    "OBJECT_STORE",
    "NACK_TABLES",
    "ENUMS",
    "DEFAULTS",
    "UNMANAGED",
    "PREVENT_DELETE",
    "PREVENT_UPDATE",
    "IGNORED_CONNECTION",
]

XFORM = {"source": "src", "dest": "dest"}
SOURCE = {
    "name": "name",
    "optStartSeq": "opt_start_seq",
    "optStartTime": "opt_start_time",
    "filterSubject": "filter_subject",
    "externalApiPrefix": ("external", "api"),
    "externalDeliverPrefix": ("external", "deliver"),
    "subjectTransforms": ("subject_transforms", XFORM),
}
CONNECTION = ("preventDelete", "preventUpdate", "account", "creds", "nkey", "servers", "tls", "tlsFirst", "jsDomain")
STREAM: dict[str, Any] = {
    "name": "name",
    "description": "description",
    "subjects": "subjects",
    "retention": "retention",
    "maxConsumers": "max_consumers",
    "maxMsgsPerSubject": "max_msgs_per_subject",
    "maxMsgs": "max_msgs",
    "maxBytes": "max_bytes",
    "maxAge": "max_age",
    "maxMsgSize": "max_msg_size",
    "storage": "storage",
    "discard": "discard",
    "replicas": "num_replicas",
    "noAck": "no_ack",
    "duplicateWindow": "duplicate_window",
    "placement": ("placement", {"cluster": "cluster", "tags": "tags"}),
    "mirror": ("mirror", SOURCE),
    "sources": ("sources", SOURCE),
    "compression": "compression",
    "subjectTransform": ("subject_transform", XFORM),
    "republish": ("republish", {"source": "src", "destination": "dest", "headers_only": "headers_only"}),
    "sealed": "sealed",
    "denyDelete": "deny_delete",
    "denyPurge": "deny_purge",
    "allowDirect": "allow_direct",
    "allowRollup": "allow_rollup_hdrs",
    "mirrorDirect": "mirror_direct",
    "discardPerSubject": "discard_new_per_subject",
    "firstSequence": "first_seq",
    "metadata": "metadata",
    "consumerLimits": ("consumer_limits", {"inactiveThreshold": "inactive_threshold", "maxAckPending": "max_ack_pending"}),
    "allowMsgTtl": "allow_msg_ttl",
    "subjectDeleteMarkerTtl": "subject_delete_marker_ttl",
    "allowMsgCounter": "allow_msg_counter",
    "allowAtomicPublish": "allow_atomic",
    "allowMsgSchedules": "allow_msg_schedules",
    "persistMode": "persist_mode",
}
CONSUMER: dict[str, Any] = {
    "streamName": None,
    "durableName": "durable_name",
    "description": "description",
    "ackPolicy": "ack_policy",
    "ackWait": "ack_wait",
    "deliverPolicy": "deliver_policy",
    "deliverSubject": "deliver_subject",
    "deliverGroup": "deliver_group",
    "filterSubject": "filter_subject",
    "filterSubjects": "filter_subjects",
    "flowControl": "flow_control",
    "heartbeatInterval": "idle_heartbeat",
    "maxAckPending": "max_ack_pending",
    "maxDeliver": "max_deliver",
    "backoff": "backoff",
    "maxWaiting": "max_waiting",
    "optStartSeq": "opt_start_seq",
    "optStartTime": "opt_start_time",
    "rateLimitBps": "rate_limit_bps",
    "replayPolicy": "replay_policy",
    "sampleFreq": "sample_freq",
    "headersOnly": "headers_only",
    "maxRequestBatch": "max_batch",
    "maxRequestExpires": "max_expires",
    "maxRequestMaxBytes": "max_bytes",
    "inactiveThreshold": "inactive_threshold",
    "replicas": "num_replicas",
    "memStorage": "mem_storage",
    "metadata": "metadata",
    "pauseUntil": "pause_until",
    "priorityPolicy": "priority_policy",
    "pinnedTtl": "priority_timeout",
    "priorityGroups": "priority_groups",
}
NACK_TABLES: dict[tuple[str, tuple[str, ...]], dict[str, Any]] = {
    ("Stream", ()): STREAM,
    ("Consumer", ()): CONSUMER,
}


def _same(*values: str) -> dict[str, str]:
    return {v: v for v in values}


ENUMS: dict[tuple[str, str], dict[str, str]] = {
    ("Stream", "retention"): _same("limits", "interest", "workqueue"),
    ("Stream", "discard"): _same("old", "new"),
    ("Stream", "storage"): _same("file", "memory"),
    ("Stream", "compression"): _same("s2", "none"),
    ("Stream", "persistMode"): _same("default", "async"),
    ("Consumer", "ackPolicy"): _same("none", "all", "explicit"),
    ("Consumer", "deliverPolicy"): {
        "all": "all",
        "last": "last",
        "new": "new",
        "byStartSequence": "by_start_sequence",
        "byStartTime": "by_start_time",
        "lastPerSubject": "last_per_subject",
    },
    ("Consumer", "replayPolicy"): _same("instant", "original"),
    ("Consumer", "priorityPolicy"): _same("none", "pinned_client", "overflow", "prioritized"),
}
# CRD defaults that differ from what the server assumes for an absent field (nats-io/nack#136: ackWait 1ns).
DEFAULTS: dict[str, dict[str, Any]] = {
    "Stream": {"storage": "memory"},
    "Consumer": {"ack_policy": "none", "ack_wait": 1},
}


# NACK kinds jsops reads without managing them (StreamTemplate was removed from nats-server in 2.10;
# an Account is a connection, not an object). KeyValue and ObjectStore are buckets (linter.load.buckets).
UNMANAGED = ("StreamTemplate", "Account")
# NACK's per-object protection, kept as manifest annotations that plan, apply, prune and the controller read.
PREVENT_DELETE = "jsops.io/prevent-delete"
PREVENT_UPDATE = "jsops.io/prevent-update"
IGNORED_CONNECTION = ("servers", "creds", "nkey", "tls", "tlsFirst", "jsDomain")


KEY_VALUE: dict[str, Any] = {
    "bucket": "bucket",
    "description": "description",
    "maxValueSize": "max_value_size",
    "history": "history",
    "ttl": "ttl",
    "limitMarkerTtl": "limit_marker_ttl",
    "maxBytes": "max_bytes",
    "storage": "storage",
    "replicas": "replicas",
    "placement": ("placement", {"cluster": "cluster", "tags": "tags"}),
    "republish": ("republish", {"source": "src", "destination": "dest", "headersOnly": "headers_only"}),
    "mirror": ("mirror", SOURCE),
    "sources": ("sources", SOURCE),
    "compression": "compression",
    "metadata": "metadata",
}
OBJECT_STORE: dict[str, Any] = {k: KEY_VALUE[k] for k in ("bucket", "description", "ttl", "maxBytes", "storage", "replicas", "placement", "compression", "metadata")}
