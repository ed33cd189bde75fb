"""What nats-server refuses of a create given the estate it runs in: a pure function per check (:data:`SERVER_CHECKS`),
called by the lint rules (JS301, JS302, JS305, JS306, JS316) and the plan's prediction, each with its own facts in
the order it replays the creates. Measured on 2.10.26 to 2.15.1 (tests/integration/test_rules_estate_server.py,
tests/reconciler/test_predict_server.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

from .effective_types import EffectiveStream
from .errcodes import ErrCode
from .subjects import subjects_collide

__all__ = ["SERVER_CHECKS", "consumer_create_refusal", "consumer_limit", "first_collision", "requested", "reserved_by"]
__all__ += ["stream_create_refusal", "stream_max_consumers_refusal", "stream_overlap", "workqueue_refusal"]

K = TypeVar("K")
Others = Iterable[tuple[K, Sequence[str]]]  # the other streams or consumers, in order: (key, subjects or filters)
Refused = tuple[ErrCode, K, str, str]  # the code, the other object, the subject or filter of each that collide
Limit = int | None
Code = ErrCode | None


def first_collision(mine: Iterable[str], theirs: Iterable[str]) -> tuple[str, str] | None:
    """The first subject of ``mine`` that collides with one of ``theirs``, with it; None if none does."""
    ts = list(theirs)
    return next(((x, y) for x in mine for y in ts if subjects_collide(x, y)), None)


def stream_overlap(mine: Sequence[str], others: Others[K]) -> Refused[K] | None:
    """10065 for a stream put with subjects ``mine``: the first of the existing ``others`` with a colliding subject."""
    for key, theirs in others:
        if (hit := first_collision(mine, theirs)) is not None:
            return (ErrCode.STREAM_SUBJECT_OVERLAP, key, *hit)
    return None


def requested(cfg: EffectiveStream) -> int:
    """What a stream create asks of its account's storage: ``max_bytes`` x replicas, 1 byte when unlimited."""
    return max(cfg.max_bytes, 1) * max(1, cfg.num_replicas or 1)


def reserved_by(cfg: EffectiveStream) -> int:
    """What a stream holds reserved of its account's storage once created (0 when unlimited)."""
    return requested(cfg) if cfg.max_bytes > 0 else 0


def stream_create_refusal(cfg: EffectiveStream, streams: int, max_streams: Limit, reserved: int, limit: Limit) -> Code:
    """10027 when the account holds ``streams`` of its ``max_streams`` (checked first); 10028 (memory) / 10047 (file)
    when :func:`requested` does not fit its ``limit`` for ``cfg``'s storage beside the ``reserved`` bytes. A limit
    None, 0 (streams) or negative (bytes) is unlimited. Updates are left to the server (it reserves the difference)."""
    if max_streams is not None and 0 < max_streams <= streams:
        return ErrCode.MAXIMUM_STREAMS_LIMIT
    if limit is not None and limit >= 0 and (reserved > limit or requested(cfg) > limit - reserved):
        return ErrCode.MEMORY_RESOURCES_EXCEEDED if cfg.storage == "memory" else ErrCode.STORAGE_RESOURCES_EXCEEDED
    return None


def consumer_limit(stream: EffectiveStream, account_max: Limit) -> int:
    """The consumers a stream may hold: its ``max_consumers``, or the account's when that is lower or the
    stream sets none (the server applies the account's per stream); 0: unlimited."""
    mine, account = max(stream.max_consumers, 0), max(account_max or 0, 0)
    return account if mine == 0 or 0 < account < mine else mine


def consumer_create_refusal(stream: EffectiveStream, consumers: int, account_max: Limit) -> Code:
    """10026 for a consumer create on ``stream`` holding ``consumers``."""
    return ErrCode.MAXIMUM_CONSUMERS_LIMIT if 0 < consumer_limit(stream, account_max) <= consumers else None


def stream_max_consumers_refusal(stream: EffectiveStream, account_max: Limit) -> Code:
    """10026 on the stream's create when its ``max_consumers`` is above the account's."""
    return ErrCode.MAXIMUM_CONSUMERS_LIMIT if 0 < (account_max or 0) < stream.max_consumers else None


def workqueue_refusal(filters: Sequence[str], others: Others[K], exists: bool = False) -> Refused[K] | None:
    """A consumer put with ``filters`` on a workqueue stream holding ``others``: 10099 for a create without a filter,
    10100 when another has no filter or a colliding one; with the other and the colliding filters ("" for none)."""
    for key, theirs in others:
        if not filters:
            return None if exists else (ErrCode.CONSUMER_WQ_MULTIPLE_UNFILTERED, key, "", "")
        if (hit := first_collision(filters, theirs) if theirs else (filters[0], "")) is not None:
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
"""The functions deciding each ``err_code`` that a lint rule and the plan predict from the estate."""
