"""One leg of moving a stream's messages and consumers to another stream through a mirror (``src`` to
``dst``): what a migration's steps (:mod:`jsops.reconciler.migration_steps`) and ``jsops failover``
(:mod:`jsops.reconciler.failover`) share. The mirror's catch-up, the comparison of every message, the trim
of what ``src`` no longer holds, and each consumer placed on ``dst`` at its position on ``src`` (and moved
along when it acknowledged more meanwhile); every request asked again while a cluster elects a leader
(:func:`steady`).
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from jsops.linter import EffectiveConsumer, EffectiveStream, consumer_from_api_json

from .client import JsApiError, JsClient
from .configs import NO_EXTRA, Extra, config_json
from .errors import ErrCode, PermanentError
from .plan.desired import resume_config
from .server_apis import can_reset

__all__ = [
    "CATCH_UP_TIMEOUT",
    "SETTLE_TIMEOUT",
    "Leg",
    "MigrationError",
    "advance_consumers",
    "catch_up",
    "compare",
    "place_consumers",
    "position",
    "steady",
    "stream_info",
    "stream_state",
    "trim",
]

T = TypeVar("T")

CATCH_UP_TIMEOUT = 120.0  # seconds a mirror may take to catch up (reset while it makes progress)
SETTLE_TIMEOUT = 60.0  # seconds a request is asked again while a cluster elects a leader
_BATCH = 256  # MSG.GET requests compared per round


class MigrationError(JsApiError, PermanentError):
    """A migration that cannot go on (the message says what was kept); nothing is lost."""


@dataclass
class Leg:
    src: str
    dst: str
    config: EffectiveStream  # what dst is once promoted
    consumers: dict[str, EffectiveConsumer]
    final: str  # the stream the whole migration ends with
    reset: frozenset[str] = frozenset()  # consumers created at the start their manifest names (--reset-position)
    finish: bool = True  # remove the record at the end (False: a second leg follows)
    window: float | None = None  # seconds the subjects were served by neither stream
    # the fields of src's config this jsops does not know (a newer server's), read from the server at the
    # start of the leg: dst is created and promoted with them, so the migration loses none (:func:`_move`)
    unknown: Extra = NO_EXTRA
    compared: int = 0
    placed: int = 0  # consumers created at their positions (a work queue's: at its first message, its position)
    reset_to: int = 0  # consumers created where their manifest says (--reset-position)


async def steady(client: JsClient, call: Callable[..., Awaitable[T]], *args: Any) -> T:
    """``call(*args)``, asked again while a cluster elects a leader (a new R3 stream or consumer, a
    leader that stepped down or died): the server answers 10008 or 10009 having done nothing, or
    does not answer at all (a consumer reset sent right after the create can go unanswered and
    undone on a 3-node 2.15.1 cluster). Asking again is safe because every request of a migration
    has the same effect whether the server carried it out once or twice (reads; a create with the
    same config; an update to the same config; a delete, whose "not found" is taken as done; a reset
    to the same sequence): it is what a re-run would do, without the wait. A lost connection ends
    the run (a re-run resumes from what the server records)."""
    deadline = time.monotonic() + SETTLE_TIMEOUT
    pause = 0.05
    while True:
        try:
            return await call(*args)
        except JsApiError as exc:
            electing = exc.err_code in (ErrCode.CLUSTER_UNAVAILABLE, ErrCode.CLUSTER_NOT_LEADER)
            silent = exc.temporary and not client.connection_lost
            if not (electing or silent) or time.monotonic() > deadline:
                raise
        await asyncio.sleep(pause)
        pause = min(pause * 2, 1.0)


async def stream_info(client: JsClient, name: str) -> dict[str, Any] | None:
    try:
        return await steady(client, client.astream_info, name)
    except JsApiError as exc:
        if exc.err_code == ErrCode.STREAM_NOT_FOUND:
            return None
        raise


def stream_state(info: dict[str, Any] | None) -> dict[str, Any]:
    return (info or {}).get("state") or {}


async def catch_up(client: JsClient, src: str, dst: str, *, fast: bool) -> int:
    """Wait until the mirror ``dst`` holds ``src``'s last sequence; that sequence."""
    pause = 0.001 if fast else 0.05
    deadline = time.monotonic() + CATCH_UP_TIMEOUT
    seen = -1
    while True:
        s, d = await asyncio.gather(stream_info(client, src), stream_info(client, dst))
        want, got = int(stream_state(s).get("last_seq") or 0), int(stream_state(d).get("last_seq") or 0)
        if got >= want:
            return want
        if got != seen:
            seen, deadline = got, time.monotonic() + CATCH_UP_TIMEOUT
        if time.monotonic() > deadline:
            raise MigrationError(
                f"{dst} did not catch up with {src} ({got} of {want}) in {CATCH_UP_TIMEOUT:.0f}s; run apply again to carry on (nothing is lost)"
            )
        await asyncio.sleep(pause)


async def _get(client: JsClient, stream: str, seq: int) -> str | None:
    """The digest of message ``seq`` (subject, headers, data, time), None when there is none."""
    try:
        resp = await steady(client, client.arequest, f"STREAM.MSG.GET.{stream}", {"seq": seq})
    except JsApiError as exc:
        if exc.err_code == ErrCode.NO_MESSAGE_FOUND:
            return None
        raise
    m = resp.get("message") or {}
    h = hashlib.sha256()
    for part in (m.get("subject") or "", m.get("hdrs") or "", m.get("data") or "", m.get("time") or ""):
        h.update(base64.b64encode(str(part).encode()) + b"\0")
    return h.hexdigest()


async def compare(client: JsClient, leg: Leg, lo: int, hi: int) -> int:
    """Compare every message ``src`` holds in ``lo..hi`` with ``dst``'s at the same sequence; the
    number compared. A message missing or different on ``dst`` is a :class:`MigrationError`."""
    src_i = await stream_info(client, leg.src)
    lo = max(lo, int(stream_state(src_i).get("first_seq") or 1))
    compared = 0
    for start in range(lo, hi + 1, _BATCH):
        seqs = range(start, min(hi, start + _BATCH - 1) + 1)
        got = await asyncio.gather(*(_get(client, leg.src, s) for s in seqs), *(_get(client, leg.dst, s) for s in seqs))
        half = len(seqs)
        for i, seq in enumerate(seqs):
            mine, theirs = got[i], got[half + i]
            if mine is None:
                continue  # gone from the source meanwhile (or never there)
            compared += 1
            if mine != theirs:
                raise MigrationError(
                    f"message {seq} of {leg.src} is {'missing' if theirs is None else 'different'} on {leg.dst}"
                )
    return compared


def position(info: dict[str, Any]) -> int:
    """The stream sequence a consumer resumes at, by the rule of the in-place path (a reset keeps the
    position: after the ack floor): after its ack floor; one placed at a start sequence that has
    acked nothing yet keeps that start; one that has acked nothing starts at the first message
    (its pending messages are all kept, whatever start the manifest now names)."""
    floor = _ack_floor(info)
    cfg = consumer_from_api_json(info.get("config") or {})[0]
    if floor > 0:
        return floor + 1
    if cfg.deliver_policy == "by_start_sequence" and cfg.opt_start_seq is not None:
        return cfg.opt_start_seq
    return 1


def _unknown(info: dict[str, Any] | None) -> Extra:
    """The fields of a consumer's config (in its info) this jsops does not know: its copy is created with them."""
    return consumer_from_api_json(info.get("config") or {})[1] if info is not None else NO_EXTRA


def _work_queue(leg: Leg) -> bool:
    return leg.config.retention == "workqueue"


async def _consumer_info(client: JsClient, stream: str, name: str) -> dict[str, Any] | None:
    try:
        info: dict[str, Any] = await steady(client, client.aconsumer_info, stream, name)
    except JsApiError as exc:
        if exc.err_code != ErrCode.CONSUMER_NOT_FOUND:
            raise
        return None
    return info


async def place_consumers(client: JsClient, leg: Leg, *, floors: bool) -> None:
    """Create each consumer on ``dst`` at its position on ``src`` (the same sequences: a mirror
    keeps them). On a work queue a consumer must start at the first message (10101), which is its
    position: the stream holds only what is not acknowledged (:func:`trim`). A consumer the
    manifest resets (``--reset-position``) starts where its manifest says. One that exists already
    (an earlier, interrupted run) is not created again; with ``floors`` its ack floor is brought to
    the old one (:func:`_floor`)."""

    async def one(name: str, cfg: EffectiveConsumer) -> None:
        old, new = await asyncio.gather(_consumer_info(client, leg.src, name), _consumer_info(client, leg.dst, name))
        if new is None:
            keep = old is not None and name not in leg.reset and not _work_queue(leg)
            put = config_json(resume_config(cfg, position(old)) if keep and old is not None else cfg, _unknown(old))
            new = await steady(client, client.aput_consumer, leg.dst, put, "create")
            if name in leg.reset:
                leg.reset_to += 1
            elif old is not None:  # kept its position (a work queue's is its first message: trim)
                leg.placed += 1
        if floors and old is not None and name not in leg.reset and not _work_queue(leg):
            await _floor(client, leg.dst, name, old, new)

    await asyncio.gather(*(one(name, cfg) for name, cfg in sorted(leg.consumers.items())))


async def _deleted(client: JsClient, name: str) -> tuple[dict[str, Any], set[int]]:
    """A stream's state and the sequences it lacks between its first and last."""
    resp = await steady(client, client.arequest, f"STREAM.INFO.{name}", {"deleted_details": True})
    st = stream_state(resp)
    return st, {int(s) for s in st.get("deleted") or ()}


async def trim(client: JsClient, leg: Leg) -> None:
    """In the window (``src`` takes no more messages): remove from the mirror ``dst`` every message
    ``src`` no longer holds, so that ``dst`` holds exactly what ``src`` does: on an interest stream
    or a work queue a message acknowledged after it was mirrored is gone from ``src``, and must not
    be delivered again from ``dst`` (nor counted as a job still to do)."""
    (src, gone), (dst, lacks) = await asyncio.gather(_deleted(client, leg.src), _deleted(client, leg.dst))
    first = int(src.get("first_seq") or 0)
    if int(dst.get("messages") or 0) and int(dst.get("first_seq") or 0) < first:
        await steady(client, client.arequest, f"STREAM.PURGE.{leg.dst}", {"seq": first})
    extra = sorted(s for s in gone if s not in lacks and s >= int(dst.get("first_seq") or 0))
    for start in range(0, len(extra), _BATCH):
        await asyncio.gather(*(_drop(client, leg.dst, s) for s in extra[start : start + _BATCH]))


async def _drop(client: JsClient, stream: str, seq: int) -> None:
    try:
        await steady(client, client.arequest, f"STREAM.MSG.DELETE.{stream}", {"seq": seq, "no_erase": True})
    except JsApiError as exc:
        if exc.err_code != ErrCode.NO_MESSAGE_FOUND:
            raise


def _next(info: dict[str, Any]) -> int:
    """The first stream sequence a consumer has not acknowledged nor skipped by its start."""
    cfg = consumer_from_api_json(info.get("config") or {})[0]
    start = (cfg.opt_start_seq or 0) if cfg.deliver_policy == "by_start_sequence" else 0
    return max(_ack_floor(info) + 1, start)


async def advance_consumers(client: JsClient, leg: Leg) -> None:
    """In the window: a consumer of ``src`` acknowledged more since its copy on ``dst`` was made;
    move the copy to its position now (the reset API, 2.14+; before that, delete and create it
    again there: the copy has delivered nothing that matters, ``dst`` takes no publishes yet)."""

    async def one(name: str, cfg: EffectiveConsumer) -> None:
        old, new = await asyncio.gather(_consumer_info(client, leg.src, name), _consumer_info(client, leg.dst, name))
        if old is None or new is None or position(old) <= _next(new):
            return
        if can_reset(client.server_version):
            await steady(client, client.areset_consumer, leg.dst, name, position(old))
            return
        await steady(client, client.adelete_consumer, leg.dst, name)
        await steady(
            client,
            client.aput_consumer,
            leg.dst,
            config_json(resume_config(cfg, position(old)), _unknown(old)),
            "create",
        )

    await asyncio.gather(
        *(one(n, c) for n, c in sorted(leg.consumers.items()) if n not in leg.reset and not _work_queue(leg))
    )


def _ack_floor(info: dict[str, Any]) -> int:
    return int((info.get("ack_floor") or {}).get("stream_seq") or 0)


async def _floor(client: JsClient, stream: str, name: str, old: dict[str, Any], new: dict[str, Any]) -> None:
    """Bring the ack floor the new consumer reports up to the old one's. A consumer created at a
    start sequence reports its ack floor just below it when it is R1, but 0 until its first ack when
    it is replicated (R3 on a cluster; checked on 2.15.1) or on 2.12: the reset API (2.14+) sets
    it, with the same start (pending and deliveries unchanged)."""
    floor = _ack_floor(old)
    if floor <= 0 or _ack_floor(new) >= floor or not can_reset(client.server_version):
        return
    await steady(client, client.areset_consumer, stream, name, floor + 1)
