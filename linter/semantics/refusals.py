"""What nats-server refuses of a create (or update) given the estate it runs in: one pure function per
server check, called by the estate lint rules (JS301, JS302, JS305, JS306, JS316) and by the plan's
prediction (``jsops.reconciler.plan.predict``). Callers bring the facts (the other streams' subjects,
the consumers on the stream, the account's limits and usage), in the order they replay the creates;
the condition is decided here only. :data:`SERVER_CHECKS` names the function of each ``err_code``.

Measured on 2.10.26, 2.11.11, 2.12.8, 2.14.6 and 2.15.1 (tests/reconciler/test_predict_server.py,
tests/integration/test_rules_estate_server.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

from .effective_types import EffectiveStream
from .errcodes import ErrCode
from .subjects import subjects_collide

__all__ = [
    "SERVER_CHECKS",
    "consumer_limit",
    "first_collision",
    "consumer_create_refusal",
    "requested",
    "reserved_by",
    "stream_create_refusal",
    "stream_max_consumers_refusal",
    "stream_overlap",
    "workqueue_refusal",
]

K = TypeVar("K")


def first_collision(mine: Iterable[str], theirs: Iterable[str]) -> tuple[str, str] | None:
    """The first subject of ``mine`` that collides with one of ``theirs``, with it; None if none does."""
    ts = list(theirs)
    return next(((x, y) for x in mine for y in ts if subjects_collide(x, y)), None)


def stream_overlap(mine: Sequence[str], others: Iterable[tuple[K, Sequence[str]]]) -> tuple[K, str, str] | None:
    """10065: the first other stream (key, subjects) that exists when a stream with subjects ``mine``
    is put, and a subject pair that collides; None: no overlap."""
    for key, theirs in others:
        hit = first_collision(mine, theirs)
        if hit is not None:
            return key, *hit
    return None


def requested(cfg: EffectiveStream) -> int:
    """What a stream create asks of its account's storage: ``max_bytes`` x replicas, 1 byte when unlimited."""
    return max(cfg.max_bytes, 1) * max(1, cfg.num_replicas or 1)


def reserved_by(cfg: EffectiveStream) -> int:
    """What a stream holds reserved of its account's storage once created (0 when unlimited)."""
    return requested(cfg) if cfg.max_bytes > 0 else 0


def stream_create_refusal(cfg: EffectiveStream, streams: int, max_streams: int | None, reserved: int, limit: int | None) -> ErrCode | None:
    """10027 when the account holds ``streams`` of its ``max_streams`` already (checked first), then
    10028 (memory) / 10047 (file) when :func:`requested` does not fit the account's ``limit`` for
    ``cfg``'s storage beside the ``reserved`` bytes; None: accepted. A limit None or <= 0 (streams),
    None or < 0 (bytes): unlimited."""
    if max_streams is not None and max_streams > 0 and streams >= max_streams:
        return ErrCode.MAXIMUM_STREAMS_LIMIT
    if limit is not None and limit >= 0 and (reserved > limit or requested(cfg) > limit - reserved):
        return ErrCode.MEMORY_RESOURCES_EXCEEDED if cfg.storage == "memory" else ErrCode.STORAGE_RESOURCES_EXCEEDED
    return None


def consumer_limit(stream: EffectiveStream, account_max: int | None) -> int:
    """The consumers a stream may hold: its ``max_consumers``, or the account's when that is lower or
    the stream sets none (the server applies the account's per stream); 0: unlimited."""
    mine = stream.max_consumers if stream.max_consumers > 0 else 0
    account = account_max if account_max is not None and account_max > 0 else 0
    return account if mine <= 0 or 0 < account < mine else mine


def consumer_create_refusal(stream: EffectiveStream, consumers: int, account_max: int | None) -> ErrCode | None:
    """10026 when a consumer create finds ``consumers`` on ``stream`` at its :func:`consumer_limit`."""
    limit = consumer_limit(stream, account_max)
    return ErrCode.MAXIMUM_CONSUMERS_LIMIT if 0 < limit <= consumers else None


def stream_max_consumers_refusal(stream: EffectiveStream, account_max: int | None) -> ErrCode | None:
    """10026 when a stream's ``max_consumers`` is above the account's (the stream create is refused)."""
    limit = account_max or 0
    return ErrCode.MAXIMUM_CONSUMERS_LIMIT if 0 < limit < stream.max_consumers else None


def workqueue_refusal(filters: Sequence[str], others: Iterable[tuple[K, Sequence[str]]], exists: bool = False) -> tuple[ErrCode, K, str, str] | None:
    """For a consumer put with ``filters`` on a workqueue stream holding ``others`` (key, filters): 10099
    when a new one has no filter, 10100 when an other consumer has none or its filters collide; with
    the other, the filter of ``filters`` and the other's filter that collide ("" for no filter)."""
    for key, theirs in others:
        if not filters:
            return None if exists else (ErrCode.CONSUMER_WQ_MULTIPLE_UNFILTERED, key, "", "")
        hit = first_collision(filters, theirs) if theirs else (filters[0], "")
        if hit is not None:
            return (ErrCode.CONSUMER_WQ_CONSUMER_NOT_UNIQUE, key, *hit)
    return None


SERVER_CHECKS: dict[ErrCode, tuple[Callable[..., object], ...]] = {
    ErrCode.STREAM_SUBJECT_OVERLAP: (stream_overlap,),
    ErrCode.MAXIMUM_STREAMS_LIMIT: (stream_create_refusal,),
    ErrCode.MEMORY_RESOURCES_EXCEEDED: (stream_create_refusal,),
    ErrCode.STORAGE_RESOURCES_EXCEEDED: (stream_create_refusal,),
    ErrCode.MAXIMUM_CONSUMERS_LIMIT: (consumer_create_refusal, stream_max_consumers_refusal),
    ErrCode.CONSUMER_WQ_MULTIPLE_UNFILTERED: (workqueue_refusal,),
    ErrCode.CONSUMER_WQ_CONSUMER_NOT_UNIQUE: (workqueue_refusal,),
}
"""The function that decides each ``err_code`` a lint rule and the plan predict from the estate."""
