"""``jsops failover STREAM``: a planned switch-over of a stream to its standby (docs/disaster-recovery.md).

The standby is a mirror of the active stream in another cluster of the same supercluster (same
account, same JetStream domain), declared as any other stream: a manifest with ``mirror: {name:
ACTIVE}`` and its own ``placement``. The switch-over is a migration's cut-over
(:mod:`jsops.reconciler.migration_steps`; the moves they share: :mod:`jsops.reconciler.migration_leg`) that
keeps the old stream:

1. the standby catches up and every message is compared (SHA-256), outside the window; the active
   stream's durable consumers are created on the standby at their positions;
2. **fence**: the active stream's subjects become ``_jsops.fenced.<name>``: from here no publish is
   acknowledged there (publishers get no responders and retry); the window opens;
3. the standby takes the last messages, they are compared, it drops what the active stream no longer
   holds, each consumer that acknowledged more meanwhile is moved along;
4. **promote**: the standby's ``mirror`` is removed and it takes the subjects (in place: nats-server
   2.12+; 2.10 and 2.11 refuse with 10055, so the plan refuses there); the window closes;
5. each consumer's ack floor is checked, and both streams record the active side
   (``io.jsops.dr.active``). The old stream keeps its messages and the fence subject.

A failure before the promotion undoes the fence (the active stream gets its subjects back) and
deletes the consumers made on the standby, which stays a mirror: nothing is lost.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, replace
from typing import Any

from jsops.linter import EffectiveConsumer, consumer_from_api_json, format_version

from ._faults import fault
from .client import JsApiError, JsClient
from .configs import config_json, with_metadata, without_metadata
from .diff import START_FIELDS
from .dr_roles import dr_active, fence_subject
from .errors import ErrCode, PermanentError
from .live import DR_ACTIVE, RESUME, stream_from_info
from .migration_leg import (
    Leg,
    advance_consumers,
    catch_up,
    compare,
    place_consumers,
    position,
    steady,
    stream_info,
    trim,
)
from .repoint import arepoint, other_mirrors, sourcing
from .server_apis import PROMOTE_RELEASE, can_promote

__all__ = [
    "FailoverError",
    "FailoverPlan",
    "ConsumerMove",
    "FailoverResult",
    "fence_subject",
    "dr_record",
    "mirror_of",
    "cluster_of",
    "aplan_failover",
    "arun_failover",
]


_ROUNDS = 5  # comparisons of the tail before the fence, at most
_TAIL = 64  # messages: a tail this short is left for the window


class FailoverError(JsApiError, PermanentError):
    """A failover that cannot start or go on (the message says what was kept); nothing is lost."""


@dataclass(frozen=True)
class ConsumerMove:
    """A durable consumer of the active stream, created on the standby at ``start`` (its ack floor + 1)."""

    name: str
    start: int
    ack_floor: int


@dataclass(frozen=True)
class FailoverPlan:
    """Every step of one failover, as read from the server; ``refusal`` set: it cannot be carried out."""

    stream: str
    standby: str
    active_cluster: str
    standby_cluster: str
    subjects: tuple[str, ...]
    active_last_seq: int
    standby_last_seq: int
    consumers: tuple[ConsumerMove, ...]
    sources: tuple[str, ...] = ()  # streams that source from the active one: re-pointed to the standby
    mirrors: tuple[str, ...] = ()  # other mirrors of the active one: left (a mirror cannot change, 10055)
    resumed: bool = False  # the active stream is fenced already (an interrupted run)
    promoted: bool = False  # ... and the standby promoted: only the floors and the record are left
    refusal: str | None = None

    @property
    def fence(self) -> str:
        return fence_subject(self.stream)


@dataclass(frozen=True)
class FailoverResult:
    """What a failover did: messages compared, consumers placed, the write pause (seconds)."""

    compared: int
    placed: int
    window: float
    repointed: tuple[str, ...] = ()  # streams whose sources read the fenced stream, now the promoted one


def dr_record(info: dict[str, Any] | None) -> dict[str, Any]:
    """The record ``io.jsops.dr.active`` of a stream's info ({} without one)."""
    return dict(dr_active(((info or {}).get("config") or {}).get("metadata")))


def declared_start(cfg: dict[str, Any]) -> dict[str, Any]:
    """A consumer's config (API JSON) with the start its manifest asked for, where jsops placed it at a
    position before (``io.jsops.resume``, a failover's or a migration's): placed again, it remembers
    that start, not the previous placement's, so that plan compares it with the manifest."""
    meta = cfg.get("metadata") or {}
    try:
        start = json.loads(meta.get(RESUME) or "null")
    except ValueError:
        start = None
    if not isinstance(start, dict):
        return cfg
    out = {k: v for k, v in cfg.items() if k not in START_FIELDS}
    return {**out, **start, "metadata": {k: v for k, v in meta.items() if k != RESUME}}


def mirror_of(info: dict[str, Any]) -> str | None:
    """The stream ``info``'s stream mirrors whole, in its own account and domain (None: not such a mirror)."""
    m = (info.get("config") or {}).get("mirror")
    if not isinstance(m, dict) or m.get("external") or m.get("filter_subject") or m.get("subject_transforms"):
        return None
    return str(m.get("name") or "") or None


def cluster_of(info: dict[str, Any]) -> str:
    return str((info.get("cluster") or {}).get("name") or "?")


async def aplan_failover(
    client: JsClient, stream: str, to: str | None = None, *, ahead: dict[str, Any] | None = None
) -> FailoverPlan:
    """The failover of ``stream`` to its standby (``to``, else the one stream that mirrors it whole).
    ``ahead``: the standby's info as it will be (a failback's plan, before the mirror is made)."""
    active = await stream_info(client, stream)
    if active is None:
        raise FailoverError(f"stream {stream} does not exist")
    infos, _ = await steady(client, client.alist_streams)
    mirrors = sorted(str(i["config"]["name"]) for i in infos if mirror_of(i) == stream)
    rec = dr_record(active)
    if to is None and rec.get("switching_to"):
        to = str(rec["switching_to"])
    if to is None:
        if len(mirrors) != 1:
            found = ", ".join(mirrors) or "none"
            raise FailoverError(
                f"{stream} needs exactly one standby (a stream that mirrors it whole) or --to NAME; found {found}"
            )
        to = mirrors[0]
    standby = ahead if ahead is not None else await stream_info(client, to)
    if standby is None:
        raise FailoverError(f"standby {to} does not exist")
    resumed = rec.get("switching_to") == to
    promoted = resumed and mirror_of(standby) is None and dr_record(standby).get("active") == to
    subjects = tuple(str(s) for s in (rec.get("subjects") if resumed else active["config"].get("subjects")) or ())
    moves = []
    for c in await steady(client, client.alist_consumers, stream):
        if (c.get("config") or {}).get("durable_name"):
            moves.append(
                ConsumerMove(str(c["name"]), position(c), int((c.get("ack_floor") or {}).get("stream_seq") or 0))
            )
    plan = FailoverPlan(
        stream,
        to,
        cluster_of(active),
        cluster_of(standby),
        subjects,
        int(active["state"].get("last_seq") or 0),
        int(standby["state"].get("last_seq") or 0),
        tuple(sorted(moves, key=lambda m: m.name)),
        tuple(sourcing(infos, stream)),
        tuple(other_mirrors(infos, stream, to)),
        resumed,
        promoted,
    )
    return replace(plan, refusal=_refusal(plan, standby, client.server_version))


def _refusal(plan: FailoverPlan, standby: dict[str, Any], version: str | None) -> str | None:
    if can_promote(version) is False:
        return (
            f"nats-server {version} cannot promote a mirror in place (it answers 10055 to an update that removes `mirror`; "
            f"{format_version(PROMOTE_RELEASE)}+ can): upgrade the servers; nothing was changed"
        )
    if plan.subjects == (plan.fence,):
        return (
            f"{plan.stream} is fenced: it is not the active side (its record: io.jsops.dr.active); nothing was changed"
        )
    if mirror_of(standby) != plan.stream and not plan.promoted:
        return f"{plan.standby} is not a mirror of the whole of {plan.stream} in this account and domain; nothing was changed"
    if not plan.subjects:
        return f"{plan.stream} has no subjects to hand over; nothing was changed"
    if plan.active_cluster == plan.standby_cluster:
        return f"{plan.standby} is in the same cluster as {plan.stream} ({plan.active_cluster}): it is no standby; nothing was changed"
    return None


def _leg(plan: FailoverPlan, standby: dict[str, Any], consumers: dict[str, EffectiveConsumer]) -> Leg:
    live = stream_from_info(standby)
    promoted = live.config._replace(mirror=None, subjects=plan.subjects)
    rec = {"active": plan.standby, "standby": plan.stream, "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    promoted = with_metadata(promoted, {DR_ACTIVE: json.dumps(rec, sort_keys=True, separators=(",", ":"))})
    return Leg(plan.stream, plan.standby, promoted, consumers, plan.standby, unknown=live.extra)


async def arun_failover(client: JsClient, plan: FailoverPlan) -> FailoverResult:
    """Carry out ``plan`` (:func:`aplan_failover`, refused plans excluded)."""
    if plan.refusal:
        raise FailoverError(plan.refusal)
    active, standby = await stream_info(client, plan.stream), await stream_info(client, plan.standby)
    if active is None or standby is None:
        raise FailoverError(f"{plan.stream if active is None else plan.standby} disappeared; nothing was changed")
    consumers: dict[str, EffectiveConsumer] = {}
    for m in plan.consumers:
        info = await steady(client, client.aconsumer_info, plan.stream, m.name)
        consumers[m.name] = consumer_from_api_json(declared_start(info.get("config") or {}))[0]
    leg = _leg(plan, standby, consumers)
    compared, window = 0, 0.0
    if not plan.promoted:
        compared, window = await _switch(client, plan, leg, active)
    await place_consumers(client, leg, floors=True)
    fault("failover-after-promote")
    old = stream_from_info(await stream_info(client, plan.stream) or active)
    new = dr_record(await stream_info(client, plan.standby))
    done = json.dumps({**new, "active": plan.standby, "standby": plan.stream}, sort_keys=True, separators=(",", ":"))
    await steady(client, client.aupdate_stream, config_json(with_metadata(old.config, {DR_ACTIVE: done}), old.extra))
    return FailoverResult(compared, leg.placed, window, await arepoint(client, plan.stream, plan.standby))


async def _switch(client: JsClient, plan: FailoverPlan, leg: Leg, active: dict[str, Any]) -> tuple[int, float]:
    """Catch up, fence, compare, promote: the messages compared and the write pause (seconds)."""
    made = {m.name for m in plan.consumers} - {
        str(c["name"]) for c in await steady(client, client.alist_consumers, plan.standby)
    }
    try:
        pre = await catch_up(client, plan.stream, plan.standby, fast=False)
        compared = await compare(client, leg, 1, pre)
        await place_consumers(client, leg, floors=False)
        # under load, what arrived meanwhile is compared now, until little is left for the window
        for _ in range(_ROUNDS):
            now = await catch_up(client, plan.stream, plan.standby, fast=True)
            compared += await compare(client, leg, pre + 1, now)
            pre, done = now, now - pre <= _TAIL
            if done:
                break
        t0 = time.monotonic()
        await _fence(client, plan, active)
        fault("failover-after-fence")
        last = await catch_up(client, plan.stream, plan.standby, fast=True)
        compared += await compare(client, leg, pre + 1, last)
        await trim(client, leg)
        await advance_consumers(client, leg)
    except JsApiError as exc:
        if exc.err_code is None and client.connection_lost:
            raise
        await _unfence(client, plan, made)
        raise FailoverError(
            f"{exc}; undone: {plan.stream} has its subjects again, {plan.standby} is still its mirror (nothing lost)"
        ) from None
    try:
        await steady(client, client.aupdate_stream, config_json(leg.config, leg.unknown))
    except JsApiError as exc:
        if exc.err_code is None:  # perhaps done: the re-run reads which
            raise FailoverError(
                f"the promotion of {plan.standby} was not answered ({exc}); run jsops failover again to carry on"
            ) from None
        await _unfence(client, plan, made)
        raise FailoverError(
            f"{plan.standby} could not be promoted ({exc}); undone: {plan.stream} has its subjects again (nothing lost)"
        ) from None
    return compared, time.monotonic() - t0


async def _fence(client: JsClient, plan: FailoverPlan, active: dict[str, Any]) -> None:
    """Move the active stream's subjects to the fence subject, recording where they go (a re-run resumes)."""
    live = stream_from_info(active)
    if live.config.subjects == (plan.fence,):
        return
    rec = {"active": plan.stream, "switching_to": plan.standby, "subjects": list(plan.subjects)}
    fenced = with_metadata(
        live.config._replace(subjects=(plan.fence,)),
        {DR_ACTIVE: json.dumps(rec, sort_keys=True, separators=(",", ":"))},
    )
    await steady(client, client.aupdate_stream, config_json(fenced, live.extra))


async def _unfence(client: JsClient, plan: FailoverPlan, made: set[str]) -> None:
    """Before the promotion: the active stream gets its subjects back; the consumers made on the standby go."""
    info = await stream_info(client, plan.stream)
    if info is not None:
        live = stream_from_info(info)
        back = without_metadata(live.config._replace(subjects=plan.subjects), {DR_ACTIVE})
        await steady(client, client.aupdate_stream, config_json(back, live.extra))
    for name in sorted(made):
        try:
            await steady(client, client.adelete_consumer, plan.standby, name)
        except JsApiError as exc:
            if exc.err_code != ErrCode.CONSUMER_NOT_FOUND:
                raise
