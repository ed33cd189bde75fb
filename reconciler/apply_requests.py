"""The requests of one action of a plan (:mod:`jsops.reconciler.apply` runs them in order), each destructive
one right after its re-check of the live state.

A stream is created, updated (scaled first, then moved, when a change does both: the server refuses the two
in one update), recreated or deleted; a consumer is created, updated, reset, paused or resumed, recreated
(from its ack floor, its position recorded on its stream around the delete and the create) or deleted. The
re-check (:class:`StaleState`) is a safety check: a request that would now lose data the plan did not count
is refused (no grant accepted it: :attr:`~jsops.reconciler.verdict.Run.accept_loss`).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from jsops.linter import EffectiveConsumer, EffectiveStream, JsonValue, stream_from_api_json

from ._faults import fault
from .client import JsApiError, JsClient
from .configs import Config, config_json, with_metadata, without_metadata
from .dataloss import LIMITS, ameasure_limit_loss, limit_losses, loss_total, tightened
from .diff import Change
from .errors import ErrCode
from .interestloss import aupdate_loss
from .live import RECREATE_PREFIX, LiveState, interest_loss, stream_from_info
from .plan import PlanItem, PlanOptions, config_digest, resume_config
from .vocabulary import ActionKind, ChangeClass

__all__ = ["StaleState", "delete_consumer", "delete_stream", "put_consumer", "put_stream"]

SETTLE_TRIES = 300
SETTLE_PAUSE = 0.2


class StaleState(JsApiError):
    """The live state changed since the plan so that a destructive request would now lose data."""


async def _recheck_stream(client: JsClient, a: PlanItem, config: EffectiveStream | None) -> None:
    """Right before a destructive request on stream ``a.name`` (delete, recreate, an update that
    tightens limits) made without --allow-data-loss: read the stream again and refuse when the
    request would now remove stored messages (say, published while the prompt waited)."""
    if a.accept_loss:
        return
    try:
        info = await client.astream_info(a.name)
    except JsApiError as exc:
        if exc.err_code == ErrCode.STREAM_NOT_FOUND:
            return
        raise
    s = stream_from_info(info)
    if config is None:
        lost = s.messages
    elif tightened(s.config, config):
        state = LiveState(streams={s.name: s})
        await ameasure_limit_loss(client, state, {s.name: config})
        lost = loss_total(s, limit_losses(s, config, state.read_at, state.limit_loss.get(s.name)))
    else:
        lost = 0
    if lost > 0:
        what = "deleted" if a.action in (ActionKind.DELETE, ActionKind.RECREATE) else "updated"
        raise StaleState(
            f"not {what}: the stream now holds {s.messages} message{'s' if s.messages != 1 else ''} "
            f"(the plan saw none lost) and this request would remove up to {lost}; "
            "run plan again (a loss needs --allow-data-loss)"
        )


async def _recheck_interest(client: JsClient, a: PlanItem, config: Config) -> None:
    """Right before an update that may make an interest stream drop messages (retention to
    interest, a consumer's narrower filter) made without --allow-data-loss: count again from the
    live state and refuse when it would now remove stored messages."""
    if a.accept_loss:
        return
    lost = await aupdate_loss(client, a.stream or a.name, a.name, config)
    if lost > 0:
        raise StaleState(
            f"not updated: on the interest stream {a.stream or a.name} this update would now remove up to "
            f"{lost} stored message{'s' if lost != 1 else ''}; run plan again (a loss needs --allow-data-loss)"
        )


async def put_stream(client: JsClient, a: PlanItem) -> str:
    if a.action == ActionKind.MIGRATE:
        from .migration_steps import run_migration

        return await run_migration(client, a.intent)
    config = a.config
    if not isinstance(config, EffectiveStream):
        raise TypeError(f"{a.label}: a {a.action} without a stream config")
    cfg = a.request()
    if a.action == ActionKind.CREATE:
        await client.acreate_stream(cfg)
        return ActionKind.CREATE.past
    if a.action == ActionKind.RECREATE:
        await _recreate_stream(client, a)
        return ActionKind.RECREATE.past
    if any(c.path in LIMITS for c in a.changes):
        await _recheck_stream(client, a, config)
    if any(c.path == "retention" for c in a.changes):
        await _recheck_interest(client, a, config)
    paths = {c.path: c for c in a.changes}
    if "placement" in paths and "num_replicas" in paths:
        await _scale_then_move(client, a, config, paths["placement"].old)
        return "updated in two steps (replicas, then placement)"
    await client.aupdate_stream(cfg)
    return ActionKind(a.action).past  # updated or adopted


async def _recreate_stream(client: JsClient, a: PlanItem) -> None:
    await _recheck_stream(client, a, None)
    try:
        await client.adelete_stream(a.name)
    except JsApiError as exc:
        if exc.err_code != ErrCode.STREAM_NOT_FOUND:  # already gone (an earlier, interrupted run)
            raise
    await client.acreate_stream(a.request())


async def _scale_then_move(client: JsClient, a: PlanItem, config: EffectiveStream, old: JsonValue) -> None:
    """The server refuses to move and scale in one update (ErrCode.STREAM_MOVE_AND_SCALE): scale
    first (the ``old`` placement kept), then move."""
    placement = stream_from_api_json({"placement": old})[0].placement if isinstance(old, dict) else None
    await client.aupdate_stream(config_json(config._replace(placement=placement), a.extra))
    # The move is refused while the scale is still in progress (10226/10124): wait for it.
    for _ in range(SETTLE_TRIES):
        try:
            await client.aupdate_stream(a.request())
            return
        except JsApiError as exc:
            if exc.err_code not in (ErrCode.STREAM_SCALE_IN_PROGRESS, ErrCode.STREAM_MOVE_IN_PROGRESS):
                raise
            await asyncio.sleep(SETTLE_PAUSE)
    raise JsApiError("the scale did not settle in time; the move was not made (run apply again)")


async def put_consumer(client: JsClient, a: PlanItem, opt: PlanOptions) -> str:
    config = a.config
    if not isinstance(config, EffectiveConsumer):
        raise TypeError(f"{a.label}: a {a.action} without a consumer config")
    cfg = a.request()
    stream = a.stream or ""
    if a.action == ActionKind.CREATE:
        await client.aput_consumer(stream, cfg, "create")
        if a.resume_seq is not None:  # an interrupted recreate, resumed: its record is done with
            await _set_intent(client, stream, a.name, None)
            return f"created at stream sequence {a.resume_seq} (resumed an interrupted recreate)"
        return ActionKind.CREATE.past
    if a.action == ActionKind.RECREATE:
        return await _recreate_consumer(client, a, opt, config)
    detail = ActionKind(a.action).past  # updated, adopted, paused, resumed or reset
    if a.action == ActionKind.RESET:
        # the reset first: a re-run after an interruption between the two requests resets again
        # (the update records the manifest's start, after which the plan is empty)
        resp = await client.areset_consumer(stream, a.name, a.reset_seq or None)
        detail = f"reset: starts again at stream sequence {resp.get('reset_seq') or a.reset_seq}"
    if any(c.path in ("filter_subject", "filter_subjects") for c in a.changes):
        await _recheck_interest(client, a, config)
    pause = _pause_change(a)
    if a.action not in (ActionKind.PAUSE, ActionKind.RESUME) or any(c is not pause for c in a.changes):
        await client.aput_consumer(stream, cfg, "update")  # the server ignores pause_until in an update
    if pause is not None:
        detail = await _pause(client, a, pause, detail)
    if any(c.path.startswith("stream.metadata." + RECREATE_PREFIX) for c in a.changes):
        await _set_intent(client, stream, a.name, None)
    return detail


async def _recreate_consumer(client: JsClient, a: PlanItem, opt: PlanOptions, config: EffectiveConsumer) -> str:
    """Delete the consumer and create it again (from its ack floor with ``opt.keep_position``)."""
    stream = a.stream or ""
    cfg = a.request()
    detail = "deleted and created again"
    try:
        info = await client.aconsumer_info(stream, a.name)
    except JsApiError as exc:
        if exc.err_code != ErrCode.CONSUMER_NOT_FOUND:  # consumer not found: an earlier run deleted it already
            raise
        info = None
    intent: dict[str, Any] | None = None
    if info is not None:
        floor = int((info.get("ack_floor") or {}).get("stream_seq") or 0)
        if opt.keep_position and (floor > 0 or (info.get("config") or {}).get("deliver_policy") == "new"):
            # ``new`` with an ack floor of 0: the stream was empty when it was created
            cfg = config_json(resume_config(config, floor + 1), a.extra)
            detail = f"deleted and created again from stream sequence {floor + 1}"
            intent = {"seq": floor + 1, "digest": config_digest(config)}
            # Recorded on the stream before the delete: an interruption between the delete
            # and the create leaves the position for the re-run to resume (see plan).
            await _set_intent(client, stream, a.name, intent)
        await _recheck_consumer(client, a)
        await client.adelete_consumer(stream, a.name)
        fault("after-consumer-delete")
    await client.aput_consumer(stream, cfg, "create")
    fault("after-consumer-create")
    if intent is not None:
        await _set_intent(client, stream, a.name, None)
    return detail


async def _pause(client: JsClient, a: PlanItem, pause: Change, detail: str) -> str:
    """Pause or resume the consumer through the pause API; ``detail`` with what the server did."""
    resp = await client.apause_consumer(a.stream or "", a.name, pause.new if isinstance(pause.new, str) else None)
    if a.action != ActionKind.PAUSE and a.action != ActionKind.RESUME:
        return detail + ("; paused" if resp.get("paused") else "; resumed")
    if resp.get("paused"):
        return f"paused until {resp.get('pause_until')}"
    return detail


def _pause_change(a: PlanItem) -> Change | None:
    """The ``pause_until`` change apply makes through the pause API (the plan classed it in place)."""
    return next((c for c in a.changes if c.path == "pause_until" and c.cls == ChangeClass.IN_PLACE), None)


def _stream_lock(client: JsClient, stream: str) -> asyncio.Lock:
    locks: dict[str, asyncio.Lock] = client.__dict__.setdefault("_jsops_stream_locks", {})
    return locks.setdefault(stream, asyncio.Lock())


async def _set_intent(client: JsClient, stream: str, consumer: str, intent: dict[str, Any] | None) -> None:
    """Record (or with ``None`` clear) a consumer's recreate intent in its stream's metadata.
    Read-modify-write of the stream config, one at a time per stream."""
    key = RECREATE_PREFIX + consumer
    async with _stream_lock(client, stream):
        s = stream_from_info(await client.astream_info(stream))
        if intent is None:
            if key not in s.config.metadata:
                return
            config = without_metadata(s.config, {key})
        else:
            config = with_metadata(s.config, {key: json.dumps(intent, sort_keys=True, separators=(",", ":"))})
        await client.aupdate_stream(config_json(config, s.extra))  # the fields of a newer release go back as they came


async def _recheck_consumer(client: JsClient, a: PlanItem) -> None:
    """Right before deleting a consumer without --allow-data-loss: on an interest stream, refuse
    when it now has unacknowledged messages (the delete would remove them)."""
    if a.accept_loss:
        return
    try:
        s = stream_from_info(await client.astream_info(a.stream or ""))
        if s.config.retention != "interest":
            return
        info = await client.aconsumer_info(a.stream or "", a.name)
    except JsApiError as exc:
        if exc.err_code in (ErrCode.CONSUMER_NOT_FOUND, ErrCode.STREAM_NOT_FOUND):
            return
        raise
    lost = interest_loss(s, int(info.get("num_pending") or 0) + int(info.get("num_ack_pending") or 0))
    if lost > 0:
        raise StaleState(
            f"not deleted: the consumer now has {lost} unacknowledged message{'s' if lost != 1 else ''} on an "
            "interest stream, which the delete would remove; run plan again (a loss needs --allow-data-loss)"
        )


async def delete_consumer(client: JsClient, a: PlanItem) -> str:
    await _recheck_consumer(client, a)
    try:
        await client.adelete_consumer(a.stream or "", a.name)
    except JsApiError as exc:
        if exc.err_code not in (ErrCode.CONSUMER_NOT_FOUND, ErrCode.STREAM_NOT_FOUND):
            raise
        return "already gone"
    return ActionKind.DELETE.past


async def delete_stream(client: JsClient, a: PlanItem) -> str:
    # STREAM.DELETE has no condition the server checks: re-read right before it instead.
    await _recheck_stream(client, a, None)
    try:
        await client.adelete_stream(a.name)
    except JsApiError as exc:
        if exc.err_code != ErrCode.STREAM_NOT_FOUND:
            raise
        return "already gone"
    return ActionKind.DELETE.past
