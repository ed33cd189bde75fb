"""In which nats-server release each stream and consumer config field (and enum value) appeared.

Data from server-rules.md §5 (first release tag whose ``server/stream.go`` / ``consumer.go``
carries the field). Used by the target rules: a field newer than the target's
``server_version`` is either rejected (strict JSON decoding, the default since 2.12: err_code
10025 ``invalid JSON: json: unknown field``) or silently dropped by older servers; an enum value
the server does not know fails to decode on every version (10025).
"""

from __future__ import annotations

import re

__all__ = [
    "Version",
    "parse_version",
    "format_version",
    "STREAM_FIELDS",
    "STREAM_SOURCE_FIELDS",
    "PLACEMENT_FIELDS",
    "CONSUMER_FIELDS",
    "ENUM_VALUES",
    "STRICT_JSON_DEFAULT",
    "UNKNOWN_FIELD_ERROR",
    "NORMALISE_NEGATIVE_LIMITS",
]

Version = tuple[int, int, int]

# Strict JSON decoding of API requests became the default in 2.12 (opt-in in 2.11).
STRICT_JSON_DEFAULT: Version = (2, 12, 0)
UNKNOWN_FIELD_ERROR = 10025
# Consumer limits that the server normalises when negative (max_waiting, max_batch, max_expires,
# max_bytes, idle_heartbeat, inactive_threshold to 0; max_deliver, max_ack_pending below -1 to -1)
# from this release; older releases store them as given, or refuse max_waiting (10087),
# max_batch (10114) and max_expires (10115) below zero (measured on 2.10.26 and 2.11.11).
NORMALISE_NEGATIVE_LIMITS: Version = (2, 12, 0)

_BASE: Version = (2, 2, 0)

STREAM_FIELDS: dict[str, Version] = {
    **{
        f: _BASE
        for f in (
            "name", "subjects", "retention", "max_consumers", "max_msgs", "max_bytes", "max_age",
            "max_msg_size", "discard", "storage", "num_replicas", "no_ack", "duplicate_window",
            "placement", "mirror", "sources",
        )
    },
    "max_msgs_per_subject": (2, 3, 0),
    "description": (2, 3, 3),
    "sealed": (2, 6, 2),
    "deny_delete": (2, 6, 2),
    "deny_purge": (2, 6, 2),
    "allow_rollup_hdrs": (2, 6, 2),
    "republish": (2, 8, 3),
    "allow_direct": (2, 9, 0),
    "mirror_direct": (2, 9, 0),
    "discard_new_per_subject": (2, 9, 1),
    "metadata": (2, 10, 0),
    "compression": (2, 10, 0),
    "first_seq": (2, 10, 0),
    "subject_transform": (2, 10, 0),
    "consumer_limits": (2, 10, 0),
    "allow_msg_ttl": (2, 11, 0),
    "subject_delete_marker_ttl": (2, 11, 0),
    "allow_msg_counter": (2, 12, 0),
    "allow_atomic": (2, 12, 0),
    "allow_msg_schedules": (2, 12, 0),
    "persist_mode": (2, 12, 0),
    "allow_batched": (2, 14, 0),
}

# Fields of a mirror or a sources[] entry (StreamSource).
STREAM_SOURCE_FIELDS: dict[str, Version] = {
    "name": _BASE,
    "opt_start_seq": _BASE,
    "opt_start_time": _BASE,
    "filter_subject": _BASE,
    "external": _BASE,
    "subject_transforms": (2, 10, 0),
    "consumer": (2, 14, 0),
}

# Fields of a stream's placement (2.10 drops "preferred", measured on 2.10.26).
PLACEMENT_FIELDS: dict[str, Version] = {"cluster": _BASE, "tags": _BASE, "preferred": (2, 11, 0)}

CONSUMER_FIELDS: dict[str, Version] = {
    **{
        f: _BASE
        for f in (
            "durable_name", "deliver_subject", "deliver_policy", "opt_start_seq", "opt_start_time",
            "ack_policy", "ack_wait", "max_deliver", "filter_subject", "replay_policy",
            "rate_limit_bps", "sample_freq", "max_waiting", "max_ack_pending", "flow_control",
            "idle_heartbeat", "direct",
        )
    },
    "description": (2, 3, 3),
    "deliver_group": (2, 4, 0),
    "headers_only": (2, 6, 2),
    "max_batch": (2, 7, 0),
    "max_expires": (2, 7, 0),
    "inactive_threshold": (2, 7, 0),
    "backoff": (2, 7, 1),
    "num_replicas": (2, 8, 3),
    "mem_storage": (2, 8, 3),
    "max_bytes": (2, 8, 3),
    "name": (2, 9, 0),
    "metadata": (2, 10, 0),
    "filter_subjects": (2, 10, 0),
    "pause_until": (2, 11, 0),
    "priority_groups": (2, 11, 0),
    "priority_policy": (2, 11, 0),
    "priority_timeout": (2, 11, 0),
    "sourcing": (2, 14, 0),
}

# (kind, field, value) -> first release that decodes the value.
ENUM_VALUES: dict[tuple[str, str, str], Version] = {
    ("Consumer", "deliver_policy", "last_per_subject"): (2, 3, 3),
    ("Consumer", "priority_policy", "overflow"): (2, 11, 0),
    ("Consumer", "priority_policy", "pinned_client"): (2, 11, 0),
    ("Consumer", "priority_policy", "prioritized"): (2, 12, 0),
    ("Consumer", "ack_policy", "flow_control"): (2, 14, 0),
    ("Stream", "compression", "s2"): (2, 10, 0),
    ("Stream", "persist_mode", "async"): (2, 12, 0),
}

_VERSION = re.compile(r"^v?(\d+)\.(\d+)(?:\.(\d+))?")


def parse_version(text: str | None) -> Version | None:
    """``"2.10.3"``, ``"v2.11"``, ``"2.15.0-dev"`` -> a comparable tuple; None if unparsable."""
    if not text:
        return None
    m = _VERSION.match(text.strip())
    if not m:
        return None
    return int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)


def format_version(v: Version) -> str:
    return ".".join(map(str, v))
