"""``jsops failback STREAM``: the way back after ``jsops failover`` (docs/disaster-recovery.md).

After a failover of ``ORDERS`` to ``ORDERS_WEST`` both streams record ``io.jsops.dr.active =
{"active": "ORDERS_WEST", "standby": "ORDERS"}``; ``ORDERS`` is fenced and keeps its old messages.
``jsops failback ORDERS`` carries the pair back to what it was declared as:

1. ``ORDERS`` holds nothing ``ORDERS_WEST`` lacks: its last messages are compared (SHA-256) with
   ``ORDERS_WEST``'s at the same sequences (a mirror keeps them): no publish was acknowledged on
   ``ORDERS`` after its fence;
2. ``ORDERS``'s config is recorded on ``ORDERS_WEST`` (a re-run rebuilds it from there), then
   ``ORDERS`` is deleted and created again as a mirror of ``ORDERS_WEST`` with the same config
   (placement included; nats-server refuses to make a stream a mirror in place, 10055 on every
   release): its messages come back from ``ORDERS_WEST``, which holds each of them;
3. jsops waits until the new mirror is current (its last sequence is ``ORDERS_WEST``'s);
4. a planned failover of ``ORDERS_WEST`` to ``ORDERS`` (:mod:`jsops.reconciler.failover`): compare,
   consumers at their positions, fence, promote, record;
5. the standby is restored: ``ORDERS_WEST`` (fenced by step 4) is rebuilt as a mirror of
   ``ORDERS`` the same way (steps 1-2), so that the next failover finds it.

A run stopped anywhere is carried on by running it again: the records say where it was.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ._faults import fault
from .client import JsApiError, JsClient
from .configs import config_json, with_metadata
from .errors import ErrCode
from .failover import (
    FailoverError,
    FailoverPlan,
    FailoverResult,
    aplan_failover,
    arun_failover,
    cluster_of,
    dr_record,
    fence_subject,
    mirror_of,
)
from .live import DR_ACTIVE, stream_from_info
from .migration_steps import Leg, catch_up, compare, steady, stream_info

__all__ = ["FailbackPlan", "FailbackResult", "aplan_failback", "aplan_failover_back", "arun_failback"]

_CHECKED = 64  # the old side's last messages compared before it is rebuilt


@dataclass(frozen=True)
class FailbackPlan:
    """A failback of ``back`` (the old side, fenced) from ``active``; ``state``: where it is."""

    active: str
    back: str
    active_cluster: str
    back_cluster: str
    active_last_seq: int
    back_last_seq: int
    # "fenced" (not started), "rebuilding" (deleted, to be created again), "mirror" (a mirror again),
    # "switching" (the failover back was interrupted), "restoring" (only the standby is left to restore)
    state: str
    refusal: str | None = None


@dataclass(frozen=True)
class FailbackResult:
    """What a failback did: the old side's tail compared, the sequence it mirrored up to, the failover back."""

    checked: int
    mirrored: int
    failover: FailoverResult | None
    plan: FailbackPlan


def _dumps(rec: dict[str, Any]) -> str:
    return json.dumps(rec, sort_keys=True, separators=(",", ":"))


def _fenced(info: dict[str, Any] | None) -> bool:
    return info is not None and (info.get("config") or {}).get("subjects") == [
        fence_subject(str(info["config"]["name"]))
    ]


async def _find_active(client: JsClient, back: str) -> dict[str, Any] | None:
    """The stream whose record names ``back`` as its standby (``back`` deleted by an interrupted failback)."""
    infos, _ = await steady(client, client.alist_streams)
    found = [i for i in infos if dr_record(i).get("standby") == back and dr_record(i).get("active") != back]
    return found[0] if len(found) == 1 else None


async def _sides(client: JsClient, back: str) -> tuple[dict[str, Any], dict[str, Any] | None, str]:
    """The active side's info, ``back``'s (None: deleted) and where the failback is."""
    b_info = await stream_info(client, back)
    rec = dr_record(b_info)
    if b_info is None:
        a_info = await _find_active(client, back)
        if a_info is None:
            raise FailoverError(f"{back} does not exist and no stream records it as its standby: nothing to fail back")
        return a_info, None, "rebuilding"
    if not rec.get("active") or not rec.get("standby"):
        raise FailoverError(f"{back} has no failover record (io.jsops.dr.active): nothing to fail back")
    other = await stream_info(client, str(rec["standby"] if rec["active"] == back else rec["active"]))
    if rec["active"] == back:  # back is active: the failover back was interrupted, or it is all done
        o_rec = dr_record(other)
        if o_rec.get("switching_to") == back and other is not None:
            return other, b_info, "switching"
        if other is None or _fenced(other):
            return b_info, other, "restoring"
        raise FailoverError(f"{back} is the active side already (its standby: {rec['standby']}): nothing to fail back")
    if other is None:
        raise FailoverError(f"{rec['active']}, the active side in {back}'s record, does not exist")
    if dr_record(other).get("switching_to") == back:
        return other, b_info, "switching"
    return other, b_info, "mirror" if mirror_of(b_info) == str(other["config"]["name"]) else "fenced"


async def aplan_failback(client: JsClient, back: str) -> FailbackPlan:
    """The failback that makes ``back`` (the old side of a failover) the active side again."""
    a_info, b_info, state = await _sides(client, back)
    a_rec = dr_record(a_info)
    raw = a_rec.get("rebuild")
    rebuild: dict[str, Any] = raw if isinstance(raw, dict) else {}
    if state == "restoring":  # back is active: plan.active names the standby to restore (fenced or deleted)
        if b_info is None and not rebuild:
            raise FailoverError(f"the standby of {back} does not exist and {back} records no config to rebuild it from")
        a_info, b_info = b_info or {"config": {"name": a_rec.get("standby")}}, a_info
    active = str(a_info["config"]["name"])
    placed = (rebuild.get("placement") or {}).get("cluster") or "?"
    plan = FailbackPlan(
        active,
        back,
        cluster_of(a_info),
        cluster_of(b_info) if b_info is not None else str(placed),
        int((a_info.get("state") or {}).get("last_seq") or 0),
        int(((b_info or {}).get("state") or {}).get("last_seq") or 0),
        state,
    )
    refusal = None
    if state in ("fenced", "mirror", "rebuilding") and (a_rec.get("active") != active or mirror_of(a_info)):
        refusal = f"{active} is not the active side (its own record names {a_rec.get('active') or 'none'})"
    elif state == "fenced" and not _fenced(b_info):
        refusal = f"{back} is not fenced (subjects [{fence_subject(back)}]): it may take publishes"
    elif state == "rebuilding" and not rebuild:
        refusal = f"{back} does not exist and {active} records no config to rebuild it from"
    elif state == "fenced" and plan.back_last_seq > plan.active_last_seq:
        refusal = f"{back} has messages past {active}'s last sequence ({plan.back_last_seq} > {plan.active_last_seq})"
    if refusal:
        return FailbackPlan(**{**plan.__dict__, "refusal": refusal + "; nothing was changed"})
    return plan


def _mirror_config(cfg: dict[str, Any], active: dict[str, Any], name: str) -> dict[str, Any]:
    """A fenced side's config as a mirror of ``active``: no subjects, its own placement and limits. Its
    record keeps the active side's subjects and placement (what an emergency promotion needs)."""
    out = {k: v for k, v in cfg.items() if k not in ("subjects", "mirror", "sources")}
    meta = {k: v for k, v in (cfg.get("metadata") or {}).items() if not str(k).startswith("_nats.")}
    a = active.get("config") or {}
    rec = {"active": a.get("name"), "standby": name, "subjects": a.get("subjects") or []}
    if a.get("placement"):
        rec["placement"] = a["placement"]
    meta[DR_ACTIVE] = _dumps(rec)
    return {**out, "name": name, "mirror": {"name": a.get("name")}, "metadata": meta}


async def _check_tail(client: JsClient, fenced: dict[str, Any], active: str) -> int:
    """Compare a fenced side's last messages with the active side's (same sequences)."""
    live = stream_from_info(fenced)
    name = live.config.name
    if live.last_seq == 0:
        return 0
    leg = Leg(name, active, live.config, {}, active)
    try:
        return await compare(client, leg, max(1, live.last_seq - _CHECKED + 1), live.last_seq)
    except JsApiError as exc:
        raise FailoverError(
            f"{exc}: {name} holds a message {active} lacks; nothing was deleted (look at {name} before going on)"
        ) from None


async def _update_record(client: JsClient, info: dict[str, Any], rec: dict[str, Any]) -> None:
    live = stream_from_info(info)
    await steady(
        client, client.aupdate_stream, config_json(with_metadata(live.config, {DR_ACTIVE: _dumps(rec)}), live.extra)
    )


async def _rebuild(client: JsClient, active: str, name: str, fenced: dict[str, Any] | None) -> int:
    """Make the fenced side ``name`` a mirror of ``active``: compare its tail, record its config on the
    active side, delete it, create it as a mirror. The messages compared."""
    checked = 0 if fenced is None else await _check_tail(client, fenced, active)
    a_info = await stream_info(client, active)
    if a_info is None:
        raise FailoverError(f"{active} disappeared; nothing was changed")
    rec = dr_record(a_info)
    if fenced is not None:
        rec = {**rec, "rebuild": {**fenced["config"], "subjects": []}}
        await _update_record(client, a_info, rec)
        try:
            await steady(client, client.adelete_stream, name)
        except JsApiError as exc:
            if exc.err_code != ErrCode.STREAM_NOT_FOUND:
                raise
        fault("failback-after-delete")
    await steady(client, client.acreate_stream, _mirror_config(rec["rebuild"], a_info, name))
    await _update_record(
        client, await stream_info(client, active) or a_info, {k: v for k, v in rec.items() if k != "rebuild"}
    )
    return checked


async def arun_failback(client: JsClient, plan: FailbackPlan) -> FailbackResult:
    """Carry out ``plan`` (:func:`aplan_failback`, refused plans excluded)."""
    if plan.refusal:
        raise FailoverError(plan.refusal)
    checked, mirrored, result = 0, 0, None
    if plan.state != "restoring":
        if plan.state in ("fenced", "rebuilding"):
            checked = await _rebuild(client, plan.active, plan.back, await stream_info(client, plan.back))
        if plan.state != "switching":
            mirrored = await catch_up(client, plan.active, plan.back, fast=False)
        fplan = await aplan_failover(client, plan.active, plan.back)
        if fplan.refusal:
            raise FailoverError(f"{plan.back} mirrors {plan.active}, but the failover back is refused: {fplan.refusal}")
        result = await arun_failover(client, fplan)
        fault("failback-before-restore")
    # the standby restored: the side that was active (fenced now) becomes a mirror of back
    await _rebuild(client, plan.back, plan.active, await stream_info(client, plan.active))
    return FailbackResult(checked, mirrored, result, plan)


async def aplan_failover_back(client: JsClient, plan: FailbackPlan) -> FailoverPlan | None:
    """The failover that ``plan`` runs, as it will be once ``plan.back`` is a current mirror (for
    ``--plan``); None when it is done already (only the standby is left to restore)."""
    if plan.state == "restoring":
        return None
    if plan.state in ("mirror", "switching"):
        return await aplan_failover(client, plan.active, plan.back)
    ahead = {
        "config": {"name": plan.back, "mirror": {"name": plan.active}},
        "state": {"last_seq": plan.active_last_seq},
        "cluster": {"name": plan.back_cluster},
    }
    return await aplan_failover(client, plan.active, plan.back, ahead=ahead)
