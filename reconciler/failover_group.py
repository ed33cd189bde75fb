"""``jsops failover --selector KEY=VALUE`` and ``jsops failback --selector KEY=VALUE``: every stream of
a group, one after the other (docs/disaster-recovery.md).

The group is the streams whose manifest carries the label (``metadata.labels``) and declares the
active side (no ``mirror``: a labelled standby is switched with its stream, not on its own), origins
before the streams that source from or mirror them (:func:`jsops.reconciler.plan.ordering.stream_order`).
Each stream is switched as ``jsops failover STREAM`` (``jsops failback STREAM``) switches it; the first
failure stops the group, and what is done stays done: a re-run skips the streams already switched
(read from their record, ``io.jsops.dr.active``) and finishes the rest.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from jsops.linter import StreamConfig, effective_stream

from .failback import FailbackPlan, _fenced, aplan_failback, arun_failback
from .failover import FailoverPlan, aplan_failover, arun_failover, dr_record, mirror_of
from .migration_leg import stream_info
from .plan.ordering import stream_order
from .repoint import arepoint

if TYPE_CHECKING:
    from jsops.linter import Estate

    from .client import JsClient

__all__ = ["GroupStep", "parse_selector", "select", "switched", "run_group"]

SWITCHED, ALREADY, FAILED, NOT_STARTED = "switched", "already", "failed", "not started"


@dataclass(frozen=True)
class GroupStep:
    """One stream of a group: its outcome (``switched``, ``already``, ``failed``, ``not started``)."""

    stream: str
    outcome: str
    detail: str = ""
    plan: FailoverPlan | FailbackPlan | None = None  # the steps planned (shown with --plan)


def parse_selector(text: str) -> tuple[str, str]:
    """``KEY=VALUE`` (kubectl's ``--selector``, one equality) as (key, value); ValueError otherwise."""
    key, eq, value = text.partition("=")
    if not eq or not key.strip() or "," in text or key.endswith("!"):
        raise ValueError(f"--selector takes one KEY=VALUE, got {text!r}")
    return key.strip(), value.strip()


def select(estate: Estate, key: str, value: str) -> list[str]:
    """The streams labelled ``key=value`` that the manifests declare active, origins first."""
    configs = {
        r.name: effective_stream(r.config, name=r.name)
        for r in estate.resources
        if isinstance(r.config, StreamConfig) and r.labels.get(key) == value and r.config.mirror is None
    }
    return stream_order(configs)


async def switched(client: JsClient, stream: str, back: bool) -> bool:
    """Whether ``stream`` is switched already: failed over (fenced, no switch under way), or, for a
    failback, active with its standby a mirror of it again (or never failed over)."""
    info = await stream_info(client, stream)
    rec = dr_record(info)
    if not back:
        return _fenced(info) and not rec.get("switching_to")
    if info is None or _fenced(info) or rec.get("switching_to"):
        return False
    if not rec:
        return True
    other = await stream_info(client, str(rec.get("standby") or "")) if rec.get("active") == stream else None
    return other is not None and mirror_of(other) == stream


async def _already(client: JsClient, stream: str, back: bool, plan_only: bool) -> GroupStep:
    """A stream switched already; failed over, the sources still reading it are re-pointed (a run that
    stopped after the promotion, :mod:`jsops.reconciler.repoint`)."""
    active = dr_record(await stream_info(client, stream)).get("active")
    if back or plan_only or not isinstance(active, str) or active == stream:
        return GroupStep(stream, ALREADY)
    done = await arepoint(client, stream, active)
    return GroupStep(stream, ALREADY, f"sources re-pointed to {active}: {', '.join(done)}" if done else "")


async def _one(client: JsClient, stream: str, back: bool, plan_only: bool) -> GroupStep:
    """Plan (and unless ``plan_only``, carry out) one stream's switch."""
    if back:
        fb = await aplan_failback(client, stream)
        if fb.refusal:
            return GroupStep(stream, FAILED, fb.refusal, fb)
        if not plan_only:
            await arun_failback(client, fb)
        return GroupStep(stream, SWITCHED, f"{fb.active} -> {stream}", fb)
    plan = await aplan_failover(client, stream)
    if plan.refusal:
        return GroupStep(stream, FAILED, plan.refusal, plan)
    if not plan_only:
        await arun_failover(client, plan)
    return GroupStep(stream, SWITCHED, f"{stream} -> {plan.standby}", plan)


async def run_group(client: JsClient, streams: list[str], *, back: bool, plan_only: bool) -> tuple[GroupStep, ...]:
    """Each stream of the group in order, stopping at the first failure (the rest: ``not started``)."""
    from .client import JsApiError

    steps: list[GroupStep] = []
    for i, stream in enumerate(streams):
        try:
            step = await _already(client, stream, back, plan_only) if await switched(client, stream, back) else None
            step = step or await _one(client, stream, back, plan_only)
        except JsApiError as exc:
            step = GroupStep(stream, FAILED, str(exc))
        steps.append(step)
        if step.outcome == FAILED and not plan_only:
            steps.extend(GroupStep(s, NOT_STARTED) for s in streams[i + 1 :])
            break
    return tuple(steps)
