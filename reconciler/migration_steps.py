"""Carrying out a migration (:mod:`jsops.reconciler.plan.migration`): one ``migrate`` action of a plan.

Every step first reads where the server is (the record ``io.jsops.migration`` on the stream being
built, the old stream's subjects), so that a run killed at any point and run again carries on from
there: nothing here is kept in a local file. One leg moves ``src`` to ``dst``:

``copy``      ``dst`` is created as a mirror of ``src`` (the record says ``copy``); once caught up,
              every message up to there is compared; the record says ``cutover``. The copy keeps
              what it mirrors whatever the retention: an interest stream is mirrored with
              ``limits`` retention (an interest stream without consumers keeps nothing) and gets
              ``interest`` back at the promotion; a work queue is mirrored as a work queue (the
              server refuses to change retention to or from it, 10052).
``cutover``   the consumers are created on ``dst`` at their positions on ``src`` of the moment (a
              replicated consumer takes long to create: not in the window); ``src``'s subjects are
              moved to a placeholder (the window opens: publishers get no responders), ``dst``
              takes the last messages, they are compared, ``dst`` drops what ``src`` no longer
              holds (acknowledged on an interest stream or a work queue since it was mirrored),
              each consumer that acknowledged more meanwhile is moved along, and only then is
              ``dst`` promoted with its own subjects (the window closes; the record says
              ``promoted``): no publish is acknowledged while no consumer holds it.
``promoted``  each consumer's ack floor is checked (set with the reset API where the server reports
              it late); the record says ``drop``.
``drop``      ``src`` is deleted; then the record is removed (unless a second leg follows).

Any failure before the promotion rolls back: ``src`` gets its subjects again and ``dst`` (with the
consumers made on it) is deleted, so a failed attempt leaves nothing behind and blocks no later
apply (a revert included).
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from jsops.linter import EffectiveConsumer, EffectiveStream, consumer_from_api_json, stream_from_api_json

from ._faults import fault
from .client import JsApiError, JsClient
from .configs import NO_EXTRA, Extra, config_json, with_metadata, without_metadata
from .errors import ErrCode, PermanentError
from .live import MIGRATION, stream_from_info
from .plan.desired import resume_config
from .plan.migration import MigrationSpec, migration_record, placeholder
from .plan.migration_server import withheld
from .plan.model import Intent
from .render_migration import migration_line
from .server_apis import can_reset

__all__ = [
    "MigrationError",
    "run_migration",
    "unfinished",
    "Leg",
    "stream_info",
    "catch_up",
    "compare",
    "place_consumers",
    "advance_consumers",
    "trim",
    "steady",
    "position",
]

T = TypeVar("T")

CATCH_UP_TIMEOUT = 120.0  # seconds a mirror may take to catch up (reset while it makes progress)
SETTLE_TIMEOUT = 60.0  # seconds a request is asked again while a cluster elects a leader
_BATCH = 256  # MSG.GET requests compared per round


class MigrationError(JsApiError, PermanentError):
    """A migration that cannot go on (the message says what was kept); nothing is lost."""


@dataclass
class _Leg:
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


async def run_migration(client: JsClient, a: Intent) -> str:
    """Carry out (or resume) the migration ``a`` describes; what was done, in one line."""
    try:
        spec = _spec(a)
    except (TypeError, ValueError) as exc:
        raise MigrationError(f"bad migration in the plan: {exc}") from None
    if spec.rollback:
        return await _abandon(client, spec.target)
    final = a.config
    if not isinstance(final, EffectiveStream):
        raise MigrationError("the plan's migration has no stream config; run plan again")
    legs: list[_Leg] = []
    if spec.via is None:
        legs.append(_Leg(spec.source, spec.target, final, spec.consumers, spec.target, frozenset(spec.reset)))
    else:
        cur = await _info(client, spec.target)
        rec = migration_record(_meta(cur))
        if cur is not None and not (rec is not None and rec["from"] == spec.via):  # the first leg is not done
            if spec.via_config is None:
                raise MigrationError(f"the plan does not say how to build {spec.via}; run plan again")
            legs.append(_Leg(spec.target, spec.via, spec.via_config, spec.consumers, spec.target, finish=False))
        legs.append(_Leg(spec.via, spec.target, final, spec.consumers, spec.target, frozenset(spec.reset)))
    for leg in legs:
        await _move(client, leg)
    last = legs[-1]
    return migration_line(
        spec.source,
        spec.via,
        [leg.compared for leg in legs],
        last.placed,
        last.reset_to,
        [leg.window for leg in legs if leg.window is not None],
    )


async def unfinished(client: JsClient, a: Intent) -> str | None:
    """What is left of the migration ``a`` on the server (None: it is done). A migration is judged by
    its record and its source, not by the new stream's config: the record (``io.jsops.migration``)
    is removed last, the old (and the temporary) stream is deleted, and every consumer is on the new
    stream. Raises when the server does not answer."""
    spec = _spec(a)
    cur = await client.astream_info(spec.target)
    rec = migration_record(_meta(cur))
    if rec is not None:
        return f"{spec.target} still records the migration from {rec['from']} at step {rec.get('step')!r}"
    for name in (spec.source, spec.via):
        if name is not None and name != spec.target:
            try:
                await client.astream_info(name)
            except JsApiError as exc:
                if exc.err_code != ErrCode.STREAM_NOT_FOUND:
                    raise
                continue
            return f"{name} still exists"
    for name in sorted(spec.consumers):
        try:
            await client.aconsumer_info(spec.target, name)
        except JsApiError as exc:
            if exc.err_code != ErrCode.CONSUMER_NOT_FOUND:
                raise
            return f"consumer {name} is not on {spec.target}"
    return None


async def _abandon(client: JsClient, name: str) -> str:
    """Roll back the unfinished migration ``name`` records (its manifests no longer ask for it), as
    long as it has not been promoted: checked on the server right before."""
    info = await _info(client, name)
    rec = migration_record(_meta(info))
    if info is None or rec is None:
        return f"nothing to roll back: {name} records no migration"
    step = str(rec.get("step"))
    if step not in ("copy", "cutover") or await _info(client, rec["from"]) is None:
        raise MigrationError(
            f"the migration from {rec['from']} to {name} is at step {step!r}: it cannot be rolled back; run plan again"
        )
    await _rollback(
        client, _Leg(rec["from"], name, stream_from_info(info).config, {}, str(rec.get("final") or name)), rec
    )
    return (
        f"rolled back the unfinished migration from {rec['from']}: {rec['from']} has its subjects, {name} was deleted"
    )


async def _steady(client: JsClient, call: Callable[..., Awaitable[T]], *args: Any) -> T:
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


async def _info(client: JsClient, name: str) -> dict[str, Any] | None:
    try:
        return await _steady(client, client.astream_info, name)
    except JsApiError as exc:
        if exc.err_code == ErrCode.STREAM_NOT_FOUND:
            return None
        raise


def _state(info: dict[str, Any] | None) -> dict[str, Any]:
    return (info or {}).get("state") or {}


def _spec(a: Intent) -> MigrationSpec:
    if a.migration is None:
        raise ValueError(f"{a.label}: a migrate action without its steps")
    return a.migration


def _meta(info: dict[str, Any] | None) -> dict[str, Any]:
    """The metadata of a stream's config in an info answer (empty when there is none)."""
    meta = ((info or {}).get("config") or {}).get("metadata")
    return meta if isinstance(meta, dict) else {}


def _with_record(config: EffectiveStream, rec: dict[str, Any] | None) -> EffectiveStream:
    """``config`` with the migration record ``rec`` (None: without one)."""
    if rec is None:
        return without_metadata(config, {MIGRATION})
    return with_metadata(config, {MIGRATION: json.dumps(rec, sort_keys=True, separators=(",", ":"))})


async def _record(client: JsClient, name: str, rec: dict[str, Any]) -> None:
    """Write the migration's step on the stream being built (its live config otherwise unchanged)."""
    info = await _info(client, name)
    if info is None:
        raise MigrationError(f"{name} disappeared during the migration")
    live = stream_from_info(info)
    await _steady(client, client.aupdate_stream, config_json(_with_record(live.config, rec), live.extra))


async def _move(client: JsClient, leg: _Leg) -> None:
    """One leg, from wherever the server says it is."""
    src_i, dst_i = await _info(client, leg.src), await _info(client, leg.dst)
    rec = migration_record(_meta(dst_i))
    # src's unknown fields; once src is gone (a re-run after its delete), dst's: it was promoted with them
    leg.unknown = (
        stream_from_info(src_i).extra
        if src_i is not None
        else stream_from_info(dst_i).extra
        if dst_i is not None
        else NO_EXTRA
    )
    if dst_i is None:
        if src_i is None:
            raise MigrationError(f"neither {leg.src} nor {leg.dst} exists")
        rec = {
            "from": leg.src,
            "to": leg.dst,
            "final": leg.final,
            "step": "copy",
            "subjects": list(stream_from_info(src_i).config.subjects),
        }
        await _create_copy(client, leg, rec)
        _fault(leg, "after-create")
    elif rec is None or rec["from"] != leg.src:
        raise MigrationError(f"{leg.dst} exists and records no migration from {leg.src}; nothing was changed")
    step = str(rec.get("step"))
    if src_i is None and step != "drop":
        raise MigrationError(
            f"{leg.src} is gone although the migration to {leg.dst} was at step {step!r}; {leg.dst} is kept as it is"
        )
    if src_i is not None:
        await _from_step(client, leg, rec, step)
    if leg.finish:
        await _steady(client, client.aupdate_stream, config_json(_with_record(leg.config, None), leg.unknown))


async def _from_step(client: JsClient, leg: _Leg, rec: dict[str, Any], step: str) -> None:
    """The leg's steps from ``step`` on while its source is still there: the copy verified (else
    rolled back), the cut-over, the consumers moved, the source deleted."""
    if step == "copy":
        try:
            last = await _catch_up(client, leg.src, leg.dst, fast=False)
            leg.compared += await _compare(client, leg, 1, last)
        except MigrationError as exc:
            await _rollback(client, leg, rec)
            raise MigrationError(
                f"{exc}; rolled back: {leg.src} is untouched and the copy {leg.dst} was deleted (nothing lost; the next apply starts again)"
            ) from None
        rec = {**rec, "step": "cutover", "verified": last}
        await _record(client, leg.dst, rec)
        _fault(leg, "after-sync")
        step = "cutover"
    if step == "cutover":
        await _cutover(client, leg, rec)
        _fault(leg, "after-promote")
        step = "promoted"
    if step == "promoted":
        await _consumers(client, leg, floors=True)
        await _record(client, leg.dst, {**rec, "step": "drop"})
        _fault(leg, "after-consumers")
    await _delete(client, leg.src)
    _fault(leg, "after-drop")


async def _create_copy(client: JsClient, leg: _Leg, rec: dict[str, Any]) -> None:
    """Create ``dst`` as the mirror of ``src`` (:func:`_copy_config`), with ``src``'s unknown fields (those
    inside what a mirror cannot have, a republish say, come with the promotion). A server that refuses a
    mirror with them (as 2.12-2.15 refuse a mirror that schedules, publishes atomically or in batches:
    10186, 10198, 10209) gets the copy without them: they come with the promotion, which sets such fields
    in place (measured on 2.12.8, 2.14.6, 2.15.1); if it refuses them too, the cut-over is rolled back."""
    copy = _with_record(_copy_config(leg), rec)
    if leg.unknown:
        try:
            await _steady(client, client.acreate_stream, config_json(copy, leg.unknown))
            return
        except JsApiError as exc:
            if exc.err_code is None:  # no answer: the re-run finds the copy, or makes it
                raise
    await _steady(client, client.acreate_stream, config_json(copy))


def _copy_config(leg: _Leg) -> EffectiveStream:
    """The mirror ``dst`` starts as: what it is once promoted, without what a mirror cannot have
    (subjects, sources, a mirror, a subject transform, a republish, a first sequence, sealed, and the
    settings the server refuses on a mirror that the promotion sets: :func:`withheld`), keeping
    everything it mirrors (an interest stream without consumers would keep nothing: the copy has
    ``limits`` retention until the promotion sets ``interest``), mirroring ``src``."""
    c = leg.config
    mirror = stream_from_api_json({"mirror": {"name": leg.src}})[0].mirror
    later = {r.field: type(getattr(c, r.field))() for r in withheld(c)}  # False, or a 0 duration
    return c._replace(
        **later,
        subjects=(),
        sources=(),
        mirror=mirror,
        subject_transform=None,
        republish=None,
        first_seq=None,
        sealed=False,
        retention="limits" if c.retention == "interest" else c.retention,
    )


async def _delete(client: JsClient, name: str) -> None:
    """Delete stream ``name`` (gone already is done) and wait until the server no longer has it:
    the next leg may create a stream of that name, and the plan after the run must not see it."""
    try:
        await _steady(client, client.adelete_stream, name)
    except JsApiError as exc:
        if exc.err_code != ErrCode.STREAM_NOT_FOUND:
            raise
    deadline = time.monotonic() + SETTLE_TIMEOUT
    while await _info(client, name) is not None:
        if time.monotonic() > deadline:
            raise MigrationError(
                f"{name} was deleted but the server still has it after {SETTLE_TIMEOUT:.0f}s; run apply again"
            )
        await asyncio.sleep(0.05)


def _fault(leg: _Leg, point: str) -> None:
    """The test hook at ``point`` of any leg (``migrate-<point>``) or of the leg building
    ``dst`` (``migrate-<point>@<dst>``)."""
    fault(f"migrate-{point}")
    fault(f"migrate-{point}@{leg.dst}")


async def _catch_up(client: JsClient, src: str, dst: str, *, fast: bool) -> int:
    """Wait until the mirror ``dst`` holds ``src``'s last sequence; that sequence."""
    pause = 0.001 if fast else 0.05
    deadline = time.monotonic() + CATCH_UP_TIMEOUT
    seen = -1
    while True:
        s, d = await asyncio.gather(_info(client, src), _info(client, dst))
        want, got = int(_state(s).get("last_seq") or 0), int(_state(d).get("last_seq") or 0)
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
        resp = await _steady(client, client.arequest, f"STREAM.MSG.GET.{stream}", {"seq": seq})
    except JsApiError as exc:
        if exc.err_code == ErrCode.NO_MESSAGE_FOUND:
            return None
        raise
    m = resp.get("message") or {}
    h = hashlib.sha256()
    for part in (m.get("subject") or "", m.get("hdrs") or "", m.get("data") or "", m.get("time") or ""):
        h.update(base64.b64encode(str(part).encode()) + b"\0")
    return h.hexdigest()


async def _compare(client: JsClient, leg: _Leg, lo: int, hi: int) -> int:
    """Compare every message ``src`` holds in ``lo..hi`` with ``dst``'s at the same sequence; the
    number compared. A message missing or different on ``dst`` is a :class:`MigrationError`."""
    src_i = await _info(client, leg.src)
    lo = max(lo, int(_state(src_i).get("first_seq") or 1))
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


async def _cutover(client: JsClient, leg: _Leg, rec: dict[str, Any]) -> None:
    """Move the subjects from ``src`` to ``dst`` (:func:`_window`); any failure the server answered
    rolls back (``src`` gets its subjects again, ``dst`` is deleted). A request without answer is
    left to the re-run, which finds the record and carries on."""
    try:
        await _window(client, leg, rec)
    except MigrationError as exc:
        await _rollback(client, leg, rec)
        raise MigrationError(
            f"{exc}; rolled back: {leg.src} has its subjects again and {leg.dst} was deleted (nothing lost; the next apply starts again)"
        ) from None
    except JsApiError as exc:
        if exc.err_code is None:
            raise
        await _rollback(client, leg, rec)
        raise MigrationError(
            f"{leg.dst} could not be made ready ({exc}); rolled back: {leg.src} has its subjects again "
            f"and {leg.dst} was deleted (nothing lost; the next apply starts again)"
        ) from None


async def _window(client: JsClient, leg: _Leg, rec: dict[str, Any]) -> None:
    """The shortest window: before it, the consumers are created on ``dst`` at their positions of
    the moment; then ``src`` stops taking the subjects, ``dst`` takes the last messages, they are
    compared, ``dst`` drops what ``src`` no longer holds, each consumer whose position moved
    meanwhile is moved along (:func:`_advance`), and ``dst`` is promoted."""
    # under load: compare what arrived since the sync now, so that only what is in flight is left for the window
    pre = await _catch_up(client, leg.src, leg.dst, fast=True)
    verified = int(rec.get("verified") or 0)
    leg.compared += await _compare(client, leg, verified + 1, pre)
    verified = max(verified, pre)
    await _consumers(client, leg, floors=False)  # a replicated consumer takes long to create: not in the window
    t0 = time.monotonic()
    info = await _info(client, leg.src)
    hold = (placeholder(leg.src),)
    src = stream_from_info(info or {})
    if src.config.subjects != hold:
        await _steady(client, client.aupdate_stream, config_json(src.config._replace(subjects=hold), src.extra))
    _fault(leg, "in-window")
    last = await _catch_up(client, leg.src, leg.dst, fast=True)
    leg.compared += await _compare(client, leg, verified + 1, last)
    await _trim(client, leg)
    await _consumers(client, leg, floors=False)  # an earlier run stopped before making them all
    await _advance(client, leg)
    _fault(leg, "before-promote")
    await _steady(
        client, client.aupdate_stream, config_json(_with_record(leg.config, {**rec, "step": "promoted"}), leg.unknown)
    )
    leg.window = time.monotonic() - t0


async def _rollback(client: JsClient, leg: _Leg, rec: dict[str, Any]) -> None:
    """Before the promotion: give ``src`` its subjects back and delete the copy (and the consumers
    made on it)."""
    info = await _info(client, leg.src)
    subjects = tuple(str(x) for x in rec.get("subjects") or [])
    src = stream_from_info(info) if info is not None else None
    if src is not None and src.config.subjects != subjects:
        await _steady(client, client.aupdate_stream, config_json(src.config._replace(subjects=subjects), src.extra))
    await _delete(client, leg.dst)


def _start(info: dict[str, Any]) -> int:
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


def _work_queue(leg: _Leg) -> bool:
    return leg.config.retention == "workqueue"


async def _consumer_info(client: JsClient, stream: str, name: str) -> dict[str, Any] | None:
    try:
        info: dict[str, Any] = await _steady(client, client.aconsumer_info, stream, name)
    except JsApiError as exc:
        if exc.err_code != ErrCode.CONSUMER_NOT_FOUND:
            raise
        return None
    return info


async def _consumers(client: JsClient, leg: _Leg, *, floors: bool) -> None:
    """Create each consumer on ``dst`` at its position on ``src`` (the same sequences: a mirror
    keeps them). On a work queue a consumer must start at the first message (10101), which is its
    position: the stream holds only what is not acknowledged (:func:`_trim`). A consumer the
    manifest resets (``--reset-position``) starts where its manifest says. One that exists already
    (an earlier, interrupted run) is not created again; with ``floors`` its ack floor is brought to
    the old one (:func:`_floor`)."""

    async def one(name: str, cfg: EffectiveConsumer) -> None:
        old, new = await asyncio.gather(_consumer_info(client, leg.src, name), _consumer_info(client, leg.dst, name))
        if new is None:
            keep = old is not None and name not in leg.reset and not _work_queue(leg)
            put = config_json(resume_config(cfg, _start(old)) if keep and old is not None else cfg, _unknown(old))
            new = await _steady(client, client.aput_consumer, leg.dst, put, "create")
            if name in leg.reset:
                leg.reset_to += 1
            elif old is not None:  # kept its position (a work queue's is its first message: _trim)
                leg.placed += 1
        if floors and old is not None and name not in leg.reset and not _work_queue(leg):
            await _floor(client, leg.dst, name, old, new)

    await asyncio.gather(*(one(name, cfg) for name, cfg in sorted(leg.consumers.items())))


async def _deleted(client: JsClient, name: str) -> tuple[dict[str, Any], set[int]]:
    """A stream's state and the sequences it lacks between its first and last."""
    resp = await _steady(client, client.arequest, f"STREAM.INFO.{name}", {"deleted_details": True})
    st = _state(resp)
    return st, {int(s) for s in st.get("deleted") or ()}


async def _trim(client: JsClient, leg: _Leg) -> None:
    """In the window (``src`` takes no more messages): remove from the mirror ``dst`` every message
    ``src`` no longer holds, so that ``dst`` holds exactly what ``src`` does: on an interest stream
    or a work queue a message acknowledged after it was mirrored is gone from ``src``, and must not
    be delivered again from ``dst`` (nor counted as a job still to do)."""
    (src, gone), (dst, lacks) = await asyncio.gather(_deleted(client, leg.src), _deleted(client, leg.dst))
    first = int(src.get("first_seq") or 0)
    if int(dst.get("messages") or 0) and int(dst.get("first_seq") or 0) < first:
        await _steady(client, client.arequest, f"STREAM.PURGE.{leg.dst}", {"seq": first})
    extra = sorted(s for s in gone if s not in lacks and s >= int(dst.get("first_seq") or 0))
    for start in range(0, len(extra), _BATCH):
        await asyncio.gather(*(_drop(client, leg.dst, s) for s in extra[start : start + _BATCH]))


async def _drop(client: JsClient, stream: str, seq: int) -> None:
    try:
        await _steady(client, client.arequest, f"STREAM.MSG.DELETE.{stream}", {"seq": seq, "no_erase": True})
    except JsApiError as exc:
        if exc.err_code != ErrCode.NO_MESSAGE_FOUND:
            raise


def _next(info: dict[str, Any]) -> int:
    """The first stream sequence a consumer has not acknowledged nor skipped by its start."""
    cfg = consumer_from_api_json(info.get("config") or {})[0]
    start = (cfg.opt_start_seq or 0) if cfg.deliver_policy == "by_start_sequence" else 0
    return max(_ack_floor(info) + 1, start)


async def _advance(client: JsClient, leg: _Leg) -> None:
    """In the window: a consumer of ``src`` acknowledged more since its copy on ``dst`` was made;
    move the copy to its position now (the reset API, 2.14+; before that, delete and create it
    again there: the copy has delivered nothing that matters, ``dst`` takes no publishes yet)."""

    async def one(name: str, cfg: EffectiveConsumer) -> None:
        old, new = await asyncio.gather(_consumer_info(client, leg.src, name), _consumer_info(client, leg.dst, name))
        if old is None or new is None or _start(old) <= _next(new):
            return
        if can_reset(client.server_version):
            await _steady(client, client.areset_consumer, leg.dst, name, _start(old))
            return
        await _steady(client, client.adelete_consumer, leg.dst, name)
        await _steady(
            client, client.aput_consumer, leg.dst, config_json(resume_config(cfg, _start(old)), _unknown(old)), "create"
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
    await _steady(client, client.areset_consumer, stream, name, floor + 1)


# The steps ``jsops failover`` (jsops.reconciler.failover) shares with a migration's cut-over: one leg
# from the active stream to its standby, the same catch-up, comparison, trim and consumer placement.
Leg = _Leg
stream_info = _info
catch_up = _catch_up
compare = _compare
place_consumers = _consumers
advance_consumers = _advance
trim = _trim
steady = _steady
position = _start
