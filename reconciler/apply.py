"""Carry out a plan against a target, in dependency order, re-checking the live state right before
each destructive request.

Streams go before consumers and origins before the mirrors and sources that read them; deletes go
in reverse (consumers, then mirrors, then origins). Independent actions run concurrently. A failed
action does not stop independent ones; actions that depend on it are skipped. The outcome lists
what was done and what was not, so that a re-run (which plans again from the live state) converges.
An interruption (:class:`Stop`) ends the run between requests; a request that got no answer is not
called failed until its object has been read back (``jsops.reconciler.readback``).

Apply never decides permission: :func:`jsops.reconciler.plan.authorize.authorize` judged the plan
(its blocked actions are reported as blocked, the others run). The requests of each action are in
:mod:`jsops.reconciler.apply_requests`, with the re-check before a destructive one, a safety check: a
request that would now lose data the plan did not count (and so no grant accepted:
:attr:`~jsops.reconciler.verdict.Run.accept_loss`) is refused.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from jsops.linter import EffectiveStream, Kind

from ._faults import fault
from .apply_requests import StaleState, delete_consumer, delete_stream, put_consumer, put_stream
from .apply_results import ActionResult, ApplyReport, Stop
from .client import Fence, JsApiError, JsClient, LeaseLost
from .live import LiveState
from .plan import Plan, PlanItem, PlanOptions, deps, levels
from .plan.closure import dependants
from .readback import asettle
from .readback import read_back as settle
from .render_refusal import reason as said
from .render_refusal import reason_of
from .vocabulary import ActionKind, Outcome

__all__ = ["ApplyReport", "ActionResult", "Stop", "StaleState", "execute_plan"]


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
        self.consumer_creates: set[tuple[str | None, str]] = set()  # the plan's consumer creates (runnable)
        self.consumers_made: set[tuple[str | None, str]] = set()  # those of them done

    def record(self, r: ActionResult) -> None:
        self.report.results.append(r)
        if r.status == Outcome.DONE and r.action.kind == Kind.CONSUMER:
            self.consumers_made.add((r.action.stream, r.action.name))
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
        new = a.intent.replaced_by
        if new is not None and (a.stream, new) in self.consumer_creates and (a.stream, new) not in self.consumers_made:
            return f"not attempted: {a.stream}/{new}, which takes over its position, was not created (kept as it is)"
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
    run.consumer_creates = {  # blocked ones too: a rename's delete waits for its create
        (a.stream, a.name)
        for a in plan.actions
        if a.kind == Kind.CONSUMER and (a.wanted or a.action) == ActionKind.CREATE
    }
    stream_deletes = [a for a in runnable if a.kind == Kind.STREAM and a.action == ActionKind.DELETE]

    async def stream_put(a: PlanItem) -> str:
        return await put_stream(client, a)

    async def consumer_put(a: PlanItem) -> str:
        return await put_consumer(client, a, opt)

    async def consumer_delete(a: PlanItem) -> str:
        return await delete_consumer(client, a)

    async def stream_delete(a: PlanItem) -> str:
        return await delete_stream(client, a)

    for level in _levels(stream_puts):
        await run.batch(level, stream_put)
    await run.batch(consumer_puts, consumer_put)
    await run.batch(consumer_deletes, consumer_delete)
    for level in reversed(_levels(stream_deletes, live)):
        await run.batch(level, stream_delete)
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
