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

The moves of a leg that ``jsops failover`` shares (catch-up, comparison, trim, consumer placement) are in
:mod:`jsops.reconciler.migration_leg`. Any failure before the promotion rolls back: ``src`` gets its subjects again and ``dst`` (with the
consumers made on it) is deleted, so a failed attempt leaves nothing behind and blocks no later
apply (a revert included).
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

from jsops.linter import EffectiveStream, stream_from_api_json

from ._faults import fault
from .client import JsApiError, JsClient
from .configs import NO_EXTRA, config_json, with_metadata, without_metadata
from .errors import ErrCode
from .live import MIGRATION, stream_from_info
from .migration_leg import (
    SETTLE_TIMEOUT,
    Leg,
    MigrationError,
    advance_consumers,
    catch_up,
    compare,
    place_consumers,
    position,
    steady,
    stream_info,
    trim,
)
from .plan.migration import MigrationSpec, migration_record, placeholder
from .plan.migration_server import withheld
from .plan.model import Intent
from .render_migration import migration_line

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
    legs: list[Leg] = []
    if spec.via is None:
        legs.append(Leg(spec.source, spec.target, final, spec.consumers, spec.target, frozenset(spec.reset)))
    else:
        cur = await stream_info(client, spec.target)
        rec = migration_record(_meta(cur))
        if cur is not None and not (rec is not None and rec["from"] == spec.via):  # the first leg is not done
            if spec.via_config is None:
                raise MigrationError(f"the plan does not say how to build {spec.via}; run plan again")
            legs.append(Leg(spec.target, spec.via, spec.via_config, spec.consumers, spec.target, finish=False))
        legs.append(Leg(spec.via, spec.target, final, spec.consumers, spec.target, frozenset(spec.reset)))
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
    info = await stream_info(client, name)
    rec = migration_record(_meta(info))
    if info is None or rec is None:
        return f"nothing to roll back: {name} records no migration"
    step = str(rec.get("step"))
    if step not in ("copy", "cutover") or await stream_info(client, rec["from"]) is None:
        raise MigrationError(
            f"the migration from {rec['from']} to {name} is at step {step!r}: it cannot be rolled back; run plan again"
        )
    await _rollback(
        client, Leg(rec["from"], name, stream_from_info(info).config, {}, str(rec.get("final") or name)), rec
    )
    return (
        f"rolled back the unfinished migration from {rec['from']}: {rec['from']} has its subjects, {name} was deleted"
    )


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
    info = await stream_info(client, name)
    if info is None:
        raise MigrationError(f"{name} disappeared during the migration")
    live = stream_from_info(info)
    await steady(client, client.aupdate_stream, config_json(_with_record(live.config, rec), live.extra))


async def _move(client: JsClient, leg: Leg) -> None:
    """One leg, from wherever the server says it is."""
    src_i, dst_i = await stream_info(client, leg.src), await stream_info(client, leg.dst)
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
        await steady(client, client.aupdate_stream, config_json(_with_record(leg.config, None), leg.unknown))


async def _from_step(client: JsClient, leg: Leg, rec: dict[str, Any], step: str) -> None:
    """The leg's steps from ``step`` on while its source is still there: the copy verified (else
    rolled back), the cut-over, the consumers moved, the source deleted."""
    if step == "copy":
        try:
            last = await catch_up(client, leg.src, leg.dst, fast=False)
            leg.compared += await compare(client, leg, 1, last)
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
        await place_consumers(client, leg, floors=True)
        await _record(client, leg.dst, {**rec, "step": "drop"})
        _fault(leg, "after-consumers")
    await _delete(client, leg.src)
    _fault(leg, "after-drop")


async def _create_copy(client: JsClient, leg: Leg, rec: dict[str, Any]) -> None:
    """Create ``dst`` as the mirror of ``src`` (:func:`_copy_config`), with ``src``'s unknown fields (those
    inside what a mirror cannot have, a republish say, come with the promotion). A server that refuses a
    mirror with them (as 2.12-2.15 refuse a mirror that schedules, publishes atomically or in batches:
    10186, 10198, 10209) gets the copy without them: they come with the promotion, which sets such fields
    in place (measured on 2.12.8, 2.14.6, 2.15.1); if it refuses them too, the cut-over is rolled back."""
    copy = _with_record(_copy_config(leg), rec)
    if leg.unknown:
        try:
            await steady(client, client.acreate_stream, config_json(copy, leg.unknown))
            return
        except JsApiError as exc:
            if exc.err_code is None:  # no answer: the re-run finds the copy, or makes it
                raise
    await steady(client, client.acreate_stream, config_json(copy))


def _copy_config(leg: Leg) -> EffectiveStream:
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
        await steady(client, client.adelete_stream, name)
    except JsApiError as exc:
        if exc.err_code != ErrCode.STREAM_NOT_FOUND:
            raise
    deadline = time.monotonic() + SETTLE_TIMEOUT
    while await stream_info(client, name) is not None:
        if time.monotonic() > deadline:
            raise MigrationError(
                f"{name} was deleted but the server still has it after {SETTLE_TIMEOUT:.0f}s; run apply again"
            )
        await asyncio.sleep(0.05)


def _fault(leg: Leg, point: str) -> None:
    """The test hook at ``point`` of any leg (``migrate-<point>``) or of the leg building
    ``dst`` (``migrate-<point>@<dst>``)."""
    fault(f"migrate-{point}")
    fault(f"migrate-{point}@{leg.dst}")


async def _cutover(client: JsClient, leg: Leg, rec: dict[str, Any]) -> None:
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


async def _window(client: JsClient, leg: Leg, rec: dict[str, Any]) -> None:
    """The shortest window: before it, the consumers are created on ``dst`` at their positions of
    the moment; then ``src`` stops taking the subjects, ``dst`` takes the last messages, they are
    compared, ``dst`` drops what ``src`` no longer holds, each consumer whose position moved
    meanwhile is moved along (:func:`advance_consumers`), and ``dst`` is promoted."""
    # under load: compare what arrived since the sync now, so that only what is in flight is left for the window
    pre = await catch_up(client, leg.src, leg.dst, fast=True)
    verified = int(rec.get("verified") or 0)
    leg.compared += await compare(client, leg, verified + 1, pre)
    verified = max(verified, pre)
    await place_consumers(client, leg, floors=False)  # a replicated consumer takes long to create: not in the window
    t0 = time.monotonic()
    info = await stream_info(client, leg.src)
    hold = (placeholder(leg.src),)
    src = stream_from_info(info or {})
    if src.config.subjects != hold:
        await steady(client, client.aupdate_stream, config_json(src.config._replace(subjects=hold), src.extra))
    _fault(leg, "in-window")
    last = await catch_up(client, leg.src, leg.dst, fast=True)
    leg.compared += await compare(client, leg, verified + 1, last)
    await trim(client, leg)
    await place_consumers(client, leg, floors=False)  # an earlier run stopped before making them all
    await advance_consumers(client, leg)
    _fault(leg, "before-promote")
    await steady(
        client, client.aupdate_stream, config_json(_with_record(leg.config, {**rec, "step": "promoted"}), leg.unknown)
    )
    leg.window = time.monotonic() - t0


async def _rollback(client: JsClient, leg: Leg, rec: dict[str, Any]) -> None:
    """Before the promotion: give ``src`` its subjects back and delete the copy (and the consumers
    made on it)."""
    info = await stream_info(client, leg.src)
    subjects = tuple(str(x) for x in rec.get("subjects") or [])
    src = stream_from_info(info) if info is not None else None
    if src is not None and src.config.subjects != subjects:
        await steady(client, client.aupdate_stream, config_json(src.config._replace(subjects=subjects), src.extra))
    await _delete(client, leg.dst)
