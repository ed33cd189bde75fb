"""The order in which nats-server checks a create request: it stops at the first check that fails and answers
that check's ``err_code``, so of an object's rejections the one it answers is the earliest in this order.

One fact per object kind (:data:`ANSWER_ORDER`): the create request's stages in the order the server runs them,
each stage the checks it makes in source order, a check named by its ``err_code`` and the config field it is
about (the first key of the finding's path; ``""``: any field). Read from nats-server's source at v2.10.26,
v2.11.11, v2.12.8 and v2.14.5 (``jsStreamCreateRequest``, ``jsNonClusteredStreamLimitsCheck``,
``addStreamWithAssignment`` and ``checkStreamCfg``; ``jsConsumerCreateRequest``, ``setConsumerConfigDefaults``,
``checkConsumerCfg`` and ``addConsumerWithAssignment``) and measured on the binaries of every supported release
with configs carrying two faults (tests/integration/test_server_answer.py): the checks two releases share come
in the same order in all five but a source's (:data:`ANSWER_ORDER_BEFORE`); a check a release does not make
draws no rejection there.

This module imports nothing of jsops but its siblings: bottom-layer data.
"""

from __future__ import annotations

from .errcodes import ErrCode as E

__all__ = ["ANSWER_ORDER", "ANSWER_ORDER_BEFORE", "answer_rank"]

Version = tuple[int, int, int]
Check = tuple[int, str]  # (err_code, the field the check is about; "" for any field)

# Before the config is read: the JSON decode (unknown fields, values of the wrong type: the loader's findings).
_DECODE: tuple[Check, ...] = ((E.INVALID_JSON, ""),)

# The sources' checks, per source in source order (2.12 moved the max_msg_size check after the transforms').
_SOURCES: tuple[Check, ...] = (
    (E.SOURCE_WITH_MSG_SCHEDULES, ""),
    (E.SOURCE_INVALID_STREAM_NAME, ""),
    (E.SOURCE_DUPLICATE_DETECTED, ""),
    (E.SOURCE_MULTIPLE_FILTERS_NOT_ALLOWED, ""),
    (E.SOURCE_INVALID_SUBJECT_FILTER, ""),
    (E.SOURCE_INVALID_TRANSFORM_DESTINATION, ""),
    (E.SOURCE_OVERLAPPING_SUBJECT_FILTERS, ""),
    (E.SOURCE_DURABLE_CONSUMER_CFG_INVALID, ""),
    (E.SOURCE_DURABLE_CONSUMER_DUPLICATE_DETECTED, ""),
    (E.SOURCE_MAX_MESSAGE_SIZE_TOO_BIG, ""),
)
_SOURCES_2_11: tuple[Check, ...] = (
    (E.SOURCE_INVALID_STREAM_NAME, ""),
    (E.SOURCE_DUPLICATE_DETECTED, ""),
    (E.SOURCE_MAX_MESSAGE_SIZE_TOO_BIG, ""),
    (E.SOURCE_MULTIPLE_FILTERS_NOT_ALLOWED, ""),
    (E.SOURCE_INVALID_SUBJECT_FILTER, ""),
    (E.SOURCE_INVALID_TRANSFORM_DESTINATION, ""),
    (E.SOURCE_OVERLAPPING_SUBJECT_FILTERS, ""),
)
_SOURCES_2_10: tuple[Check, ...] = (  # the transform's destination before its source
    (E.SOURCE_INVALID_STREAM_NAME, ""),
    (E.SOURCE_DUPLICATE_DETECTED, ""),
    (E.SOURCE_MAX_MESSAGE_SIZE_TOO_BIG, ""),
    (E.SOURCE_MULTIPLE_FILTERS_NOT_ALLOWED, ""),
    (E.SOURCE_INVALID_TRANSFORM_DESTINATION, ""),
    (E.SOURCE_INVALID_SUBJECT_FILTER, ""),
    (E.SOURCE_OVERLAPPING_SUBJECT_FILTERS, ""),
)


def _stream(sources: tuple[Check, ...]) -> tuple[tuple[Check, ...], ...]:
    """A stream create's stages, with the sources' checks in ``sources``' order."""
    return (
        _DECODE,
        # jsStreamCreateRequest, before the config checks
        (
            (E.STREAM_NAME_CONTAINS_PATH_SEPARATORS, ""),
            (E.STREAM_INVALID_CONFIG, "sealed"),
            (E.STREAM_INVALID_CONFIG, "mirror_direct"),
        ),
        # jsNonClusteredStreamLimitsCheck (a standalone server): the account's limits
        ((E.MAXIMUM_STREAMS_LIMIT, ""), (E.MEMORY_RESOURCES_EXCEEDED, ""), (E.STORAGE_RESOURCES_EXCEEDED, "")),
        # checkStreamCfg, in source order
        (
            (E.STREAM_INVALID_CONFIG, "name"),
            (E.STREAM_INVALID_CONFIG, "description"),
            (E.STREAM_INVALID_CONFIG, "metadata"),
            (E.STREAM_INVALID_CONFIG, "num_replicas"),
            (E.REPLICAS_COUNT_CANNOT_BE_NEGATIVE, ""),
            (E.STREAM_INVALID_CONFIG, "max_age"),
            (E.STREAM_INVALID_CONFIG, "duplicate_window"),
            (E.STREAM_INVALID_CONFIG, "deny_purge"),
            (E.STREAM_INVALID_CONFIG, "allow_rollup_hdrs"),
            (E.STREAM_INVALID_CONFIG, "allow_msg_counter"),  # a counter stream's discard, TTLs, retention, schedules
            (E.STREAM_INVALID_CONFIG, "allow_msg_ttl"),
            (E.STREAM_INVALID_CONFIG, "retention"),
            (E.STREAM_INVALID_CONFIG, "discard_new_per_subject"),
            (E.STREAM_INVALID_CONFIG, "discard"),
            (E.STREAM_INVALID_CONFIG, "max_msgs_per_subject"),
            (E.STREAM_INVALID_CONFIG, "subject_delete_marker_ttl"),
            (E.STREAM_INVALID_CONFIG, "allow_msg_schedules"),
            (E.STREAM_INVALID_CONFIG, "persist_mode"),  # async persist: storage, replicas, atomic publish
            (E.STREAM_INVALID_CONFIG, "storage"),
            (E.STREAM_INVALID_CONFIG, "allow_atomic"),
            (E.MIRROR_WITH_FIRST_SEQ, ""),
            (E.MIRROR_WITH_SUBJECTS, ""),
            (E.MIRROR_WITH_SOURCES, ""),
            (E.MIRROR_WITH_COUNTERS, ""),
            (E.MIRROR_WITH_ATOMIC_PUBLISH, ""),
            (E.MIRROR_WITH_BATCH_PUBLISH, ""),
            (E.MIRROR_WITH_MSG_SCHEDULES, ""),
            (E.MIRROR_DURABLE_CONSUMER_CFG_INVALID, ""),
            (E.MIRROR_MULTIPLE_FILTERS_NOT_ALLOWED, ""),
            (E.MIRROR_INVALID_SUBJECT_FILTER, ""),
            (E.MIRROR_INVALID_TRANSFORM_DESTINATION, ""),
            (E.MIRROR_OVERLAPPING_SUBJECT_FILTERS, ""),
            (E.MIRROR_INVALID_STREAM_NAME, ""),
            (E.MIRROR_MAX_MESSAGE_SIZE_TOO_BIG, ""),
            *sources,
            (E.STREAM_INVALID_EXTERNAL_DELIVERY_SUBJ, ""),
            (E.STREAM_EXTERNAL_DEL_PREFIX_OVERLAPS, ""),
            (E.STREAM_INVALID_CONFIG, "sources"),  # an external API prefix, a cycle through sources
            (E.STREAM_INVALID_CONFIG, "mirror"),  # a cycle through the mirror
            (E.STREAM_EXTERNAL_API_OVERLAP, ""),
            (E.STREAM_INVALID_CONFIG, "subjects"),
            (E.STREAM_INVALID_CONFIG, ""),  # a stream without subjects, sources or mirror; any other 10052
            (E.STREAM_MAX_BYTES_REQUIRED, ""),
            (E.STREAM_MAX_STREAM_BYTES_EXCEEDED, ""),
            (E.STREAM_TRANSFORM_INVALID_SOURCE, ""),
            (E.STREAM_TRANSFORM_INVALID_DESTINATION, ""),
            (E.PEDANTIC, ""),
            (E.STREAM_INVALID_CONFIG, "republish"),
            (E.STREAM_INVALID_CONFIG, "placement"),
        ),
        # addStreamWithAssignment, after the config checks
        ((E.STREAM_REPLICAS_NOT_SUPPORTED, ""), (E.MAXIMUM_CONSUMERS_LIMIT, ""), (E.STREAM_SUBJECT_OVERLAP, "")),
        # the stream's start: 2.10 builds a stream or mirror transform only here, wrapping its error in the create error
        ((E.STREAM_CREATE, ""),),
    )


_CONSUMER: tuple[tuple[Check, ...], ...] = (
    _DECODE,
    # jsConsumerCreateRequest, before the config checks (a standalone server: replicas)
    ((E.CONSUMER_NAME_CONTAINS_PATH_SEPARATORS, ""), (E.STREAM_REPLICAS_NOT_SUPPORTED, "")),
    # setConsumerConfigDefaults: the pedantic checks
    ((E.PEDANTIC, ""),),
    # checkConsumerCfg, in source order
    (
        (E.STREAM_INVALID_CONFIG, "name"),
        (E.CONSUMER_BAD_DURABLE_NAME, "name"),
        (E.STREAM_INVALID_CONFIG, "durable_name"),
        (E.CONSUMER_BAD_DURABLE_NAME, ""),
        (E.CONSUMER_NAME_TOO_LONG, ""),
        (E.CONSUMER_REPLICAS_EXCEEDS_STREAM, ""),
        (E.REPLICAS_COUNT_CANNOT_BE_NEGATIVE, ""),
        (E.CONSUMER_REPLICAS_SHOULD_MATCH_STREAM, ""),
        (E.CONSUMER_BACK_OFF_NEGATIVE, ""),
        (E.CONSUMER_ACK_WAIT_NEGATIVE, ""),
        (E.CONSUMER_ACK_FC_REQUIRES_PUSH, ""),
        (E.CONSUMER_ACK_FC_REQUIRES_FC, ""),
        (E.CONSUMER_ACK_FC_REQUIRES_MAX_ACK_PENDING, ""),
        (E.CONSUMER_ACK_FC_REQUIRES_NO_ACK_WAIT, ""),
        (E.CONSUMER_ACK_FC_REQUIRES_NO_MAX_DELIVER, ""),
        (E.CONSUMER_MAX_DELIVER_BACKOFF, ""),
        (E.CONSUMER_DESCRIPTION_TOO_LONG, ""),
        (E.CONSUMER_DELIVER_TO_WILDCARDS, ""),
        (E.CONSUMER_INVALID_DELIVER_SUBJECT, ""),
        (E.CONSUMER_DELIVER_CYCLE, ""),
        (E.CONSUMER_PUSH_MAX_WAITING, ""),
        (E.CONSUMER_MAX_PENDING_ACK_POLICY_REQUIRED, ""),
        (E.CONSUMER_SMALL_HEARTBEAT, ""),
        (E.CONSUMER_PULL_REQUIRES_ACK, ""),
        (E.CONSUMER_PULL_WITH_RATE_LIMIT, ""),
        (E.CONSUMER_MAX_WAITING_NEGATIVE, ""),
        (E.CONSUMER_HB_REQUIRES_PUSH, ""),
        (E.CONSUMER_FC_REQUIRES_PUSH, ""),
        (E.CONSUMER_MAX_REQUEST_BATCH_NEGATIVE, ""),
        (E.CONSUMER_MAX_REQUEST_EXPIRES_TOO_SMALL, ""),
        (E.CONSUMER_MAX_REQUEST_BATCH_EXCEEDED, ""),
        (E.CONSUMER_MAX_PENDING_ACK_EXCESS, ""),
        (E.CONSUMER_INACTIVE_THRESHOLD_EXCESS, ""),
        (E.CONSUMER_DIRECT_REQUIRES_PUSH, ""),
        (E.CONSUMER_DIRECT_REQUIRES_EPHEMERAL, ""),
        (E.CONSUMER_DUPLICATE_FILTER_SUBJECTS, ""),
        (E.STREAM_INVALID_CONFIG, "filter_subject"),
        (E.CONSUMER_EMPTY_FILTER, ""),
        (E.STREAM_INVALID_CONFIG, "filter_subjects"),
        (E.CONSUMER_OVERLAPPING_SUBJECT_FILTERS, ""),
        (E.CONSUMER_INVALID_POLICY, ""),
        (E.CONSUMER_INVALID_SAMPLING, ""),
        (E.CONSUMER_WITH_FLOW_CONTROL_NEEDS_HEARTBEATS, ""),
        (E.CONSUMER_METADATA_LENGTH, ""),
        (E.CONSUMER_PUSH_WITH_PRIORITY_GROUP, ""),
        (E.CONSUMER_PRIORITY_POLICY_WITHOUT_GROUP, ""),
        (E.CONSUMER_EMPTY_GROUP_NAME, ""),
        (E.CONSUMER_INVALID_GROUP_NAME, ""),
        (E.CONSUMER_PRIORITY_GROUP_WITH_POLICY_NONE, ""),
        (E.CONSUMER_PINNED_TTL_WITHOUT_PRIORITY_POLICY_NONE, ""),
        (E.STREAM_INVALID_CONFIG, ""),  # the stream's preferred placement, and the rest of the 10052s
    ),
    # addConsumerWithAssignment, after the config checks: the stream's limits, then a workqueue's
    (
        (E.MAXIMUM_CONSUMERS_LIMIT, ""),
        (E.CONSUMER_WQ_REQUIRES_EXPLICIT_ACK, ""),
        (E.CONSUMER_WQ_MULTIPLE_UNFILTERED, ""),
        (E.CONSUMER_WQ_CONSUMER_NOT_UNIQUE, ""),
        (E.CONSUMER_WQ_CONSUMER_NOT_DELIVER_ALL, ""),
        (E.CONSUMER_CREATE, ""),  # the generic create error around a store's refusal
    ),
)

Stages = tuple[tuple[Check, ...], ...]

ANSWER_ORDER: dict[str, Stages] = {"Stream": _stream(_SOURCES), "Consumer": _CONSUMER}
"""Per object kind, the stages of a create request in the order the newest nats-server runs them, each stage's
checks in the order it makes them (a check a release does not make never fires there)."""

ANSWER_ORDER_BEFORE: list[tuple[Version, str, Stages]] = [
    ((2, 11, 0), "Stream", _stream(_SOURCES_2_10)),
    ((2, 12, 0), "Stream", _stream(_SOURCES_2_11)),
]
"""(release, kind, stages): before ``release`` a ``kind``'s create runs in that order (the first entry that
matches wins); the sources' checks are the only ones whose order changed between the supported releases."""


def _ranks(stages: Stages) -> dict[Check, int]:
    return {check: i for i, check in enumerate(c for stage in stages for c in stage)}


_RANKS: dict[str, dict[Check, int]] = {kind: _ranks(stages) for kind, stages in ANSWER_ORDER.items()}
_RANKS_BEFORE = [(before, kind, _ranks(stages)) for before, kind, stages in ANSWER_ORDER_BEFORE]


def answer_rank(kind: str, code: int, field: str, release: Version | None = None) -> int:
    """Where the check refusing ``field`` of a ``kind`` with ``code`` comes in the server's order at ``release``
    (default: the newest): the lower, the earlier. A check the order does not name comes after every named one
    (the server answers what it names first)."""
    ranks = _RANKS.get(kind, {})
    if release is not None:
        ranks = next((r for before, k, r in _RANKS_BEFORE if k == kind and release < before), ranks)
    hit = ranks.get((code, field))
    if hit is None:
        hit = ranks.get((code, ""), len(ranks))
    return hit
