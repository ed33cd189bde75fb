"""Carry out a plan against a target, in dependency order, with the safety gates re-checked.

Streams go before consumers and origins before the mirrors and sources that read them; deletes go
in reverse (consumers, then mirrors, then origins). Independent actions run concurrently. A failed
action does not stop independent ones; actions that depend on it are skipped. The outcome lists
what was done and what was not, so that a re-run (which plans again from the live state) converges.
An interruption (:class:`Stop`) ends the run between requests; a request that got no answer is not
called failed until its object has been read back (``reconciler.readback``).
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any

from .client import JsApiError, JsClient
from .live import RESUME, LiveState
from .plan import Action, Plan, PlanOptions, _deps

__all__ = ["Outcome", "ActionResult", "Stop", "execute_plan", "gate"]

SETTLE_TRIES = 300
SETTLE_PAUSE = 0.2
_START_FIELDS = ("deliver_policy", "opt_start_seq", "opt_start_time")


@dataclass
class ActionResult:
    action: Action
    status: str  # done | failed | skipped | blocked | unknown
    detail: str = ""
    # The JetStream API error code of a failed action (e.g. 10065), None when the failure was not
    # an API error (connection lost, timeout) or the action did not fail.
    err_code: int | None = None
    # Why the action was not attempted when that was an interruption (SIGINT, SIGTERM): such
    # results are summed up rather than listed one by one.
    interrupted: bool = False


@dataclass
class Outcome:
    results: list[ActionResult] = field(default_factory=list)

    def count(self, status: str) -> int:
        return sum(1 for r in self.results if r.status == status)

    @property
    def converged(self) -> bool:
        return all(r.status == "done" for r in self.results)


class Stop:
    """Set (from a signal handler) to stop starting requests; the ones in flight finish."""

    def __init__(self) -> None:
        self.signum: int | None = None

    def set(self, signum: int) -> None:
        if self.signum is None:
            self.signum = signum

    def __bool__(self) -> bool:
        return self.signum is not None

    @property
    def name(self) -> str:
        import signal

        return signal.Signals(self.signum).name if self.signum is not None else ""


def gate(action: Action, live: LiveState, opt: PlanOptions) -> str | None:
    """Why ``action`` may not run with these options (``None`` when it may). Checked again at
    apply time, also for saved plans."""
    if action.action == "blocked":
        return action.reason or "blocked"
    if action.action == "recreate":
        if not opt.allow_recreate:
            return "needs --allow-recreate"
        if action.kind == "Stream":
            s = live.streams.get(action.name)
            if s is not None and s.messages > 0 and not opt.allow_data_loss:
                return f"the stream holds {s.messages} messages; needs --allow-data-loss"
    if action.action == "delete":
        if not opt.prune:
            return "needs --prune"
        if action.kind == "Stream":
            s = live.streams.get(action.name)
            if s is not None and s.messages > 0 and not opt.allow_data_loss:
                return f"the stream holds {s.messages} messages; needs --allow-data-loss"
    return None


def execute_plan(client: JsClient, plan: Plan, live: LiveState, opt: PlanOptions, *, progress: Any = None,
                 stop: Stop | None = None, verify: bool = False, read_back: float | None = None,
                 notify: Any = None) -> Outcome:
    """Run ``plan``'s actions; ``progress`` (if given) is called with each :class:`ActionResult`.

    ``stop``: once set, no further request is started; the actions not started are reported as
    not attempted. ``verify``: re-check each action against ownership and the prune scope
    (:func:`reconciler.saved.recheck`) besides the flags. ``read_back``: when a request gets no
    answer, start no further requests on this target, then read the objects whose answer was lost
    back (waiting up to that many seconds for the server) and report what really happened;
    ``notify`` is called with a line before that. Without it, such actions are ``failed``."""
    outcome = client.run(_execute(client, plan, live, opt, progress, stop, verify, read_back is not None))
    if read_back is not None:
        from .readback import read_back as settle

        lost = [r for r in outcome.results if r.status == "unknown"]
        settle(client, lost, read_back, notify, stop)
        if progress is not None:
            for r in lost:
                progress(r)
    return outcome


async def _execute(client: JsClient, plan: Plan, live: LiveState, opt: PlanOptions, progress: Any,
                   stop: Stop | None = None, verify: bool = False, settle: bool = False) -> Outcome:
    outcome = Outcome()
    failed_streams: set[str] = set()
    unanswered: set[str] = set()  # streams whose request got no answer (not known to have failed)
    halted: list[str] = []
    sem = asyncio.Semaphore(max(1, getattr(client, "_concurrency", 64)))

    def record(r: ActionResult) -> None:
        outcome.results.append(r)
        if progress is not None and not (settle and r.status == "unknown"):
            progress(r)  # a lost answer is shown once read back

    def fail_stream(a: Action) -> None:
        if a.kind == "Stream":
            failed_streams.add(a.name)

    runnable: list[Action] = []
    for a in plan.actions:
        reason = gate(a, live, opt)
        if reason is None and verify:
            from .saved import recheck

            why = recheck(a, live, opt)
            reason = f"refused: {why}" if why else None
        if reason is not None:
            record(ActionResult(a, "blocked", reason))
            if a.kind == "Stream" and (a.wanted or a.action) in ("create", "recreate"):
                failed_streams.add(a.name)
        else:
            runnable.append(a)

    stream_puts = [a for a in runnable if a.kind == "Stream" and a.action != "delete"]
    consumer_puts = [a for a in runnable if a.kind == "Consumer" and a.action != "delete"]
    consumer_deletes = [a for a in runnable if a.kind == "Consumer" and a.action == "delete"]
    stream_deletes = [a for a in runnable if a.kind == "Stream" and a.action == "delete"]

    async def run_batch(batch: list[Action], fn: Any) -> None:
        async def one(a: Action) -> None:
            async with sem:  # the checks below happen right before this action's first request
                await attempt(a, fn)

        await asyncio.gather(*(one(a) for a in batch))

    async def attempt(a: Action, fn: Any) -> None:
        if stop:
            record(ActionResult(a, "skipped", f"not attempted: interrupted ({stop.name})", interrupted=True))
            fail_stream(a)
            return
        if client.connection_lost:
            record(ActionResult(a, "skipped", "not attempted: the connection to the server was lost"))
            fail_stream(a)
            return
        if halted:
            record(ActionResult(a, "skipped", f"not attempted: an earlier request got no answer ({halted[0]})"))
            fail_stream(a)
            return
        blocker = _blocked_by(a, failed_streams)
        if blocker:
            why = "got no answer" if blocker in unanswered else "was not created or updated"
            record(ActionResult(a, "skipped", f"not attempted: stream {blocker} {why}"))
            fail_stream(a)
            return
        try:
            detail = await fn(a)
        except JsApiError as exc:
            if settle and _no_answer(exc):
                lost(a, str(exc))
            else:
                record(ActionResult(a, "failed", str(exc), exc.err_code))
                fail_stream(a)
            return
        except Exception as exc:  # the connection can break in many ways mid-apply
            text = f"{type(exc).__name__}: {exc}".strip()
            if settle:
                lost(a, text)
            else:
                record(ActionResult(a, "failed", text))
                fail_stream(a)
            return
        record(ActionResult(a, "done", detail or ""))

    def lost(a: Action, text: str) -> None:
        """The request got no answer: the server may or may not have carried it out."""
        record(ActionResult(a, "unknown", text))
        if not halted:
            halted.append(a.label)
        if a.kind == "Stream":
            failed_streams.add(a.name)
            unanswered.add(a.name)

    for level in _levels(stream_puts):
        await run_batch(level, lambda a: _put_stream(client, a))
    await run_batch(consumer_puts, lambda a: _put_consumer(client, a, opt))
    await run_batch(consumer_deletes, lambda a: _delete_consumer(client, a))
    for level in reversed(_levels(stream_deletes, live)):
        await run_batch(level, lambda a: _delete_stream(client, a))
    return outcome


def _no_answer(exc: JsApiError) -> bool:
    """Whether the request got no answer (timeout, lost connection, garbled reply): the server
    may have carried it out. An error the server answered with is a real failure."""
    return exc.err_code is None and exc.code is None and exc.description.startswith(
        ("no answer", "the connection to the server was lost", "the server answered with"))


def _blocked_by(a: Action, failed: set[str]) -> str | None:
    if a.action == "delete":
        return None
    if a.kind == "Consumer":
        return a.stream if a.stream in failed else None
    for dep in sorted(_deps(a.config or {})):
        if dep in failed:
            return dep
    return None


def _levels(actions: list[Action], live: LiveState | None = None) -> list[list[Action]]:
    """Stream actions grouped so that each group depends only on earlier groups."""
    names = {a.name for a in actions}

    def deps(a: Action) -> set[str]:
        cfg = a.config if a.config is not None else (live.streams[a.name].config if live and a.name in live.streams else {})
        return _deps(cfg) & names - {a.name}

    levels: list[list[Action]] = []
    placed: set[str] = set()
    remaining = list(actions)
    while remaining:
        ready = [a for a in remaining if deps(a) <= placed] or remaining[:1]
        levels.append(ready)
        placed |= {a.name for a in ready}
        remaining = [a for a in remaining if a.name not in placed]
    return levels


async def _put_stream(client: JsClient, a: Action) -> str:
    cfg = dict(a.config or {})
    if a.action == "create":
        await client.acreate_stream(cfg)
        return "created"
    if a.action == "recreate":
        try:
            await client.adelete_stream(a.name)
        except JsApiError as exc:
            if exc.err_code != 10059:  # already gone (an earlier, interrupted run)
                raise
        await client.acreate_stream(cfg)
        return "deleted and created again"
    paths = {c.path: c for c in a.changes}
    if "placement" in paths and "num_replicas" in paths:
        # The server refuses to move and scale in one update (10123): scale first, then move.
        first = dict(cfg)
        old = paths["placement"].old
        if old is None:
            first.pop("placement", None)
        else:
            first["placement"] = old
        await client.aupdate_stream(first)
        # The move is refused while the scale is still in progress (10226/10124): wait for it.
        for _ in range(SETTLE_TRIES):
            try:
                await client.aupdate_stream(cfg)
                break
            except JsApiError as exc:
                if exc.err_code not in (10226, 10124):
                    raise
                await asyncio.sleep(SETTLE_PAUSE)
        else:
            raise JsApiError("the scale did not settle in time; the move was not made (run apply again)")
        return "updated in two steps (replicas, then placement)"
    await client.aupdate_stream(cfg)
    return "adopted" if a.action == "adopt" else "updated"


async def _put_consumer(client: JsClient, a: Action, opt: PlanOptions) -> str:
    cfg = dict(a.config or {})
    stream = a.stream or ""
    if a.action == "create":
        await client.aput_consumer(stream, cfg, "create")
        return "created"
    if a.action == "recreate":
        detail = "deleted and created again"
        try:
            info = await client.aconsumer_info(stream, a.name)
        except JsApiError as exc:
            if exc.err_code != 10014:  # consumer not found: an earlier run deleted it already
                raise
            info = None
        if info is not None:
            floor = int((info.get("ack_floor") or {}).get("stream_seq") or 0)
            if opt.keep_position and floor > 0:
                cfg = resume_config(cfg, floor + 1)
                detail = f"deleted and created again from stream sequence {floor + 1}"
            await client.adelete_consumer(stream, a.name)
        await client.aput_consumer(stream, cfg, "create")
        return detail
    await client.aput_consumer(stream, cfg, "update")
    return "adopted" if a.action == "adopt" else "updated"


def resume_config(config: dict[str, Any], start_seq: int) -> dict[str, Any]:
    """``config`` starting at ``start_seq``, remembering the start the manifest asked for."""
    cfg = dict(config)
    start = {f: cfg[f] for f in _START_FIELDS if f in cfg}
    cfg.pop("opt_start_time", None)
    cfg["deliver_policy"] = "by_start_sequence"
    cfg["opt_start_seq"] = start_seq
    meta = dict(cfg.get("metadata") or {})
    meta[RESUME] = json.dumps(start, sort_keys=True, separators=(",", ":"))
    cfg["metadata"] = meta
    return cfg


async def _delete_consumer(client: JsClient, a: Action) -> str:
    try:
        await client.adelete_consumer(a.stream or "", a.name)
    except JsApiError as exc:
        if exc.err_code not in (10014, 10059):
            raise
        return "already gone"
    return "deleted"


async def _delete_stream(client: JsClient, a: Action) -> str:
    try:
        await client.adelete_stream(a.name)
    except JsApiError as exc:
        if exc.err_code != 10059:
            raise
        return "already gone"
    return "deleted"
