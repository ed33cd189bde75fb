"""Carry out a plan against a target, in dependency order, re-checking the live state right before
each destructive request.

Streams go before consumers and origins before the mirrors and sources that read them; deletes go
in reverse (consumers, then mirrors, then origins). Independent actions run concurrently. A failed
action does not stop independent ones; actions that depend on it are skipped. The outcome lists
what was done and what was not, so that a re-run (which plans again from the live state) converges.
An interruption (:class:`Stop`) ends the run between requests; a request that got no answer is not
called failed until its object has been read back (``jsops.reconciler.readback``).

Apply never decides permission: :func:`jsops.reconciler.plan.authorize.authorize` judged the plan
(its blocked actions are reported as blocked, the others run). The re-check before a destructive
request is a safety check: a request that would now lose data the plan did not count (and so no
grant accepted: :attr:`~jsops.reconciler.verdict.Run.accept_loss`) is refused.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any

from jsops.linter import EffectiveConsumer, EffectiveStream, JsonValue, Kind, stream_from_api_json

from ._faults import fault
from .apply_results import ActionResult, ApplyReport, Stop
from .client import Fence, JsApiError, JsClient, LeaseLost
from .configs import Config, config_json, with_metadata, without_metadata
from .dataloss import LIMITS, ameasure_limit_loss, limit_losses, loss_total, tightened
from .diff import Change
from .errors import ErrCode
from .interestloss import aupdate_loss
from .live import RECREATE_PREFIX, LiveState, interest_loss, stream_from_info
from .plan import Plan, PlanItem, PlanOptions, config_digest, deps, levels, resume_config
from .plan.closure import dependants
from .readback import asettle
from .readback import read_back as settle
from .render_refusal import reason as said
from .render_refusal import reason_of
from .vocabulary import ActionKind, ChangeClass, Outcome

__all__ = ["ApplyReport", "ActionResult", "Stop", "StaleState", "execute_plan"]

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


def execute_plan(
    client: JsClient,
    plan: Plan,
    live: LiveState,
    opt: PlanOptions,
    *,
    progress: Any = None,
    stop: Stop | None = None,
    verify: bool = False,
    read_back: float | None = None,
    notify: Any = None,
    fence: Fence | None = None,
) -> ApplyReport:
    """Run ``plan``'s actions; ``progress`` (if given) is called with each :class:`ActionResult`.

    ``stop``: once set, no further request is started; the actions not started are reported as
    not attempted. ``verify``: re-check each action against ownership and the prune scope
    (:func:`jsops.reconciler.saved.recheck`). ``read_back``: when a request gets no
    answer, start no further requests on this target, then read the objects whose answer was lost
    back (waiting up to that many seconds for the server) and report what really happened;
    ``notify`` is called with a line before that. Without it, such actions are ``failed``.
    ``fence``: every write request passes it (:meth:`JsClient.fenced`); once it refuses one (the
    lease was lost), no further action is attempted and those left are reported ``fenced``."""
    with client.fenced(fence):
        outcome = client.run(_execute(client, plan, live, opt, progress, stop, verify, read_back))
    if read_back is not None:
        lost = [r for r in outcome.results if r.status == Outcome.UNKNOWN]
        settle(client, lost, read_back, notify, stop)
        if progress is not None:
            for r in lost:
                progress(r)
    return outcome


class _Run:
    """One apply on one target: the results so far and what later actions depend on."""

    def __init__(self, client: JsClient, progress: Any, stop: Stop | None, settle: float | None) -> None:
        self.client = client
        self.report = ApplyReport()
        self.progress = progress
        self.stop = stop
        self.settle = settle is not None
        self.wait = settle or 0.0
        self.failed_streams: set[str] = set()
        self.unanswered: set[str] = set()  # streams whose request got no answer (not known to have failed)
        self.halted: list[str] = []
        self.fenced_off: str | None = None  # why the fence refused a write (then nothing more is attempted)
        self.sem = asyncio.Semaphore(max(1, getattr(client, "_concurrency", 64)))

    def record(self, r: ActionResult) -> None:
        self.report.results.append(r)
        if self.progress is not None and not (self.settle and r.status == Outcome.UNKNOWN):
            self.progress(r)  # a lost answer is shown once read back

    def skip(self, a: PlanItem, detail: str, *, interrupted: bool = False, fenced: bool = False) -> None:
        self.record(ActionResult(a, Outcome.SKIPPED, detail, interrupted=interrupted, fenced=fenced))
        if a.kind == Kind.STREAM:
            self.failed_streams.add(a.name)

    def fail(self, a: PlanItem, detail: str, err_code: int | None = None) -> None:
        self.record(ActionResult(a, Outcome.FAILED, detail, err_code))
        if a.kind == Kind.STREAM:
            self.failed_streams.add(a.name)

    def lost(self, a: PlanItem, text: str) -> None:
        """The request got no answer: the server may or may not have carried it out."""
        self.record(ActionResult(a, Outcome.UNKNOWN, text))
        if not self.halted:
            self.halted.append(a.label)
        if a.kind == Kind.STREAM:
            self.failed_streams.add(a.name)
            self.unanswered.add(a.name)

    def why_not(self, a: PlanItem) -> str | None:
        """Why ``a`` is not attempted (an interruption, a lost connection, a failed dependency)."""
        if self.fenced_off is not None:
            return f"not attempted: {self.fenced_off}"
        if self.client.connection_lost:
            return "not attempted: the connection to the server was lost"
        if self.halted:
            return f"not attempted: an earlier request got no answer ({self.halted[0]})"
        blocker = _blocked_by(a, self.failed_streams)
        if blocker:
            why = "got no answer" if blocker in self.unanswered else "was not created or updated"
            return f"not attempted: stream {blocker} {why}"
        return None

    async def attempt(self, a: PlanItem, fn: Callable[[PlanItem], Awaitable[str]]) -> None:
        if self.stop:
            self.skip(a, f"not attempted: interrupted ({self.stop.name})", interrupted=True)
            return
        why = self.why_not(a)
        if why is not None:
            self.skip(a, why, fenced=self.fenced_off is not None)
            return
        fault("before-action")
        try:
            detail = await fn(a)
        except LeaseLost as exc:
            if self.fenced_off is None:
                self.fenced_off = str(exc).split(";")[0]
            self.skip(a, f"not sent: {exc}", fenced=True)
            return
        except JsApiError as exc:
            if self.settle and _no_answer(exc):
                await self.carry_on(a, fn, str(exc))
            else:
                self.fail(a, str(exc), exc.err_code)
            return
        except Exception as exc:  # the connection can break in many ways mid-apply
            text = f"{type(exc).__name__}: {exc}".strip()
            if self.settle:
                await self.carry_on(a, fn, text)
            else:
                self.fail(a, text)
            return
        self.record(ActionResult(a, Outcome.DONE, detail or ""))

    async def carry_on(self, a: PlanItem, fn: Callable[[PlanItem], Awaitable[str]], text: str) -> None:
        """A request got no answer (say, its node died during a leader change): read the object
        back while the client reconnects, and carry on with the run once it is settled; a request
        that was not carried out is sent once more when sending it again is harmless. Only an
        object that cannot be read back stops the run (it is read back at the end)."""
        verdict = await asettle(self.client, a.intent, self.wait)
        if verdict is None:
            self.lost(a, text)
        elif verdict:
            self.record(ActionResult(a, Outcome.DONE, f"{text}; read back after the reconnect: applied"))
        elif a.action not in _SENT_AGAIN:
            self.fail(a, f"{text}; read back after the reconnect: not applied")
        else:
            try:
                detail = await fn(a)
            except LeaseLost as exc:
                self.skip(a, f"{text}; read back: not applied; not sent again: {exc}", fenced=True)
                return
            except JsApiError as exc:
                self.fail(a, f"{text}; read back: not applied; sent again: {exc}", exc.err_code)
                return
            self.record(
                ActionResult(
                    a,
                    Outcome.DONE,
                    f"{detail} (sent again after the reconnect: the first request got no answer and was not carried out)",
                )
            )

    async def batch(self, actions: list[PlanItem], fn: Callable[[PlanItem], Awaitable[str]]) -> None:
        async def one(a: PlanItem) -> None:
            async with self.sem:  # the checks happen right before this action's first request
                await self.attempt(a, fn)

        await asyncio.gather(*(one(a) for a in actions))


def _runnable(run: _Run, plan: Plan, live: LiveState, opt: PlanOptions, verify: bool) -> list[PlanItem]:
    """The actions the plan does not block (and, with ``verify``, the re-check of ownership and
    scope lets through); the others are recorded as blocked."""
    reasons: dict[int, str] = {}
    for a in plan.actions:
        reason = (reason_of(a) or "blocked") if a.action == ActionKind.BLOCKED else None
        if reason is None and verify:
            from .saved import recheck

            why = recheck(a.intent, live, opt)
            reason = f"refused: {why}" if why else None
        if reason is not None:
            reasons[id(a)] = reason
    # the dependency closure: what a blocked action would replace, or is part of, stays
    for i, kept in dependants(plan.actions, live, blocked=lambda a: id(a) in reasons).items():
        reasons[id(plan.actions[i])] = said(kept, label=plan.actions[i].name) or "blocked"
    out: list[PlanItem] = []
    for a in plan.actions:
        if id(a) in reasons:
            run.record(ActionResult(a, Outcome.BLOCKED, reasons[id(a)]))
            if a.kind == Kind.STREAM and (a.wanted or a.action) in (ActionKind.CREATE, ActionKind.RECREATE):
                run.failed_streams.add(a.name)
        else:
            out.append(a)
    return out


async def _execute(
    client: JsClient,
    plan: Plan,
    live: LiveState,
    opt: PlanOptions,
    progress: Any,
    stop: Stop | None = None,
    verify: bool = False,
    settle: float | None = None,
) -> ApplyReport:
    run = _Run(client, progress, stop, settle)
    runnable = _runnable(run, plan, live, opt, verify)
    stream_puts = [a for a in runnable if a.kind == Kind.STREAM and a.action != ActionKind.DELETE]
    consumer_puts = [a for a in runnable if a.kind == Kind.CONSUMER and a.action != ActionKind.DELETE]
    consumer_deletes = [a for a in runnable if a.kind == Kind.CONSUMER and a.action == ActionKind.DELETE]
    stream_deletes = [a for a in runnable if a.kind == Kind.STREAM and a.action == ActionKind.DELETE]

    async def put_stream(a: PlanItem) -> str:
        return await _put_stream(client, a)

    async def put_consumer(a: PlanItem) -> str:
        return await _put_consumer(client, a, opt)

    async def delete_consumer(a: PlanItem) -> str:
        return await _delete_consumer(client, a)

    async def delete_stream(a: PlanItem) -> str:
        return await _delete_stream(client, a)

    for level in _levels(stream_puts):
        await run.batch(level, put_stream)
    await run.batch(consumer_puts, put_consumer)
    await run.batch(consumer_deletes, delete_consumer)
    for level in reversed(_levels(stream_deletes, live)):
        await run.batch(level, delete_stream)
    return run.report


# What apply sends once more when its first request got no answer and reads back not carried out:
# the request makes the object as the plan wants whatever state it finds (a recreate or a migration,
# whose steps depend on the state, is left to the re-run, which plans again).
_SENT_AGAIN = (ActionKind.CREATE, ActionKind.UPDATE, ActionKind.ADOPT, ActionKind.DELETE)


def _no_answer(exc: JsApiError) -> bool:
    """Whether the request got no answer (timeout, lost connection, garbled reply): the server
    may have carried it out. An error the server answered with is a real failure."""
    return (
        exc.err_code is None
        and exc.code is None
        and exc.description.startswith(
            ("no answer", "the connection to the server was lost", "the server answered with")
        )
    )


def _blocked_by(a: PlanItem, failed: set[str]) -> str | None:
    if a.action == ActionKind.DELETE:
        return None
    if a.kind == Kind.CONSUMER:
        return a.stream if a.stream in failed else None
    for dep in sorted(deps(a.config) if isinstance(a.config, EffectiveStream) else ()):
        if dep in failed:
            return dep
    return None


def _levels(actions: list[PlanItem], live: LiveState | None = None) -> list[list[PlanItem]]:
    """Stream actions grouped so that each group depends only on earlier groups
    (:func:`jsops.reconciler.plan.levels`, the order the plan uses)."""
    by_name = {a.name: a for a in actions}

    def depends_on(name: str) -> set[str]:
        a = by_name[name]
        cfg = (
            a.config
            if a.config is not None
            else (live.streams[a.name].config if live and a.name in live.streams else None)
        )
        return deps(cfg) if isinstance(cfg, EffectiveStream) else set()

    return [[by_name[n] for n in level] for level in levels(list(by_name), depends_on)]


async def _put_stream(client: JsClient, a: PlanItem) -> str:
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


async def _put_consumer(client: JsClient, a: PlanItem, opt: PlanOptions) -> str:
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


async def _delete_consumer(client: JsClient, a: PlanItem) -> str:
    await _recheck_consumer(client, a)
    try:
        await client.adelete_consumer(a.stream or "", a.name)
    except JsApiError as exc:
        if exc.err_code not in (ErrCode.CONSUMER_NOT_FOUND, ErrCode.STREAM_NOT_FOUND):
            raise
        return "already gone"
    return ActionKind.DELETE.past


async def _delete_stream(client: JsClient, a: PlanItem) -> str:
    # STREAM.DELETE has no condition the server checks: re-read right before it instead.
    await _recheck_stream(client, a, None)
    try:
        await client.adelete_stream(a.name)
    except JsApiError as exc:
        if exc.err_code != ErrCode.STREAM_NOT_FOUND:
            raise
        return "already gone"
    return ActionKind.DELETE.past
