"""``jsops failover STREAM --emergency --allow-data-loss``: promote the standby of an unreachable stream.

A planned failover (:mod:`jsops.reconciler.failover`) needs the active stream: it compares, fences
and moves consumers there. When the active side's cluster is down, nothing of that can be read.
Emergency mode promotes the standby anyway and states first what that may lose:

- **the stated loss** counts from the last thing known of the active stream's last sequence: the
  last check (``jsops failover STREAM --check``, run regularly, records the active stream's last
  sequence, subjects and placement on the standby) or the standby's own last known lag
  (``mirror.lag``: how many messages the active stream held past the last one it sent, plus one: the
  server reports the pending count minus one, 0 for a pending count of 1), whichever shows more;
  the stated count is that sequence minus the standby's last sequence now. It bounds what the active
  side acknowledged up to that moment (the check's time is stated); a publish
  acknowledged after it is not counted. With neither a check nor a message ever received by the
  standby, the loss is stated as unknown;
- the active stream is **fenced through the meta group** (its subjects become the fence subject, an
  update the JetStream meta leader records without the stream's own servers, which do not answer):
  without it the promotion is refused (10065, subjects overlap), and when the side comes back its
  stream takes no publish and keeps what the standby never received;
- the standby is promoted with the active stream's subjects (recorded on the standby by the last
  check or by a failback, else ``--subjects``);
- consumers are **not** moved: their positions were on the unreachable side. Create them (``jsops
  apply``) at the position you choose.

Like any other loss, it needs ``--allow-data-loss``.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass
from typing import Any

from .client import JsApiError, JsClient
from .configs import config_json, with_metadata
from .errors import ErrCode
from .failover import FailoverError, cluster_of, dr_record, fence_subject, mirror_of
from .live import DR_ACTIVE, stream_from_info
from .migration_steps import steady, stream_info

__all__ = ["EmergencyPlan", "EmergencyResult", "CheckResult", "arecord_check", "aplan_emergency", "arun_emergency"]

FENCE_TIMEOUT = 30.0  # seconds the meta group is given to record the fence


@dataclass(frozen=True)
class EmergencyPlan:
    """The promotion of ``standby`` while ``stream`` does not answer; ``lag``: the most that can be lost."""

    stream: str
    standby: str
    standby_cluster: str
    subjects: tuple[str, ...]
    standby_last_seq: int
    lag: int | None  # messages the standby lacks of what was last known of the stream (None: unknown)
    known_last_seq: int  # the stream's last sequence as last known
    checked: float | None  # epoch seconds of the last check (None: none recorded)
    since: float | None  # seconds since the standby last heard from the stream (None: never)
    refusal: str | None = None

    @property
    def fence(self) -> str:
        return fence_subject(self.stream)


@dataclass(frozen=True)
class CheckResult:
    """What ``--check`` recorded on the standby: the stream's last sequence, the standby's, when."""

    stream: str
    standby: str
    last_seq: int
    standby_last_seq: int
    at: float


@dataclass(frozen=True)
class EmergencyResult:
    """What the emergency promotion did: the stated loss and the standby's last sequence when promoted."""

    stated: int | None
    last_seq: int
    seconds: float


def _dumps(rec: dict[str, Any]) -> str:
    return json.dumps(rec, sort_keys=True, separators=(",", ":"))


async def _answers(client: JsClient, stream: str) -> bool | None:
    """Whether ``stream`` answers one info request (None: it does not exist)."""
    try:
        await client.astream_info(stream)
    except JsApiError as exc:
        if exc.err_code == ErrCode.STREAM_NOT_FOUND:
            return None
        if exc.temporary and not client.connection_lost:
            return False
        raise
    return True


async def aplan_emergency(
    client: JsClient, stream: str, to: str | None = None, subjects: tuple[str, ...] = ()
) -> EmergencyPlan:
    """The emergency promotion of ``stream``'s standby (``to``, else the one stream that mirrors it whole)."""
    if to is None:
        infos, _ = await steady(client, client.alist_streams)
        mirrors = sorted(str(i["config"]["name"]) for i in infos if mirror_of(i) == stream)
        if len(mirrors) != 1:
            raise FailoverError(
                f"{stream} needs exactly one standby or --to NAME; found {', '.join(mirrors) or 'none'}"
            )
        to = mirrors[0]
    standby = await stream_info(client, to)
    if standby is None:
        raise FailoverError(f"standby {to} does not exist")
    rec = dr_record(standby)
    subjects = subjects or tuple(str(s) for s in rec.get("subjects") or ())
    m = standby.get("mirror") or {}
    active_ns = int(m.get("active") or -1)
    last = int((standby.get("state") or {}).get("last_seq") or 0)
    raw = rec.get("checked")
    check: dict[str, Any] = raw if isinstance(raw, dict) else {}
    heard = last > 0 or int(m.get("lag") or 0) > 0  # the standby had word of the stream's sequence
    # the server reports a mirror's lag as the pending count of the last message received minus one
    # (0 for 0 and 1 alike): one more is counted, so that a lag of 0 does not hide a message
    known = max(int(check.get("last_seq") or 0), last + int(m.get("lag") or 0) + 1 if heard else 0)
    plan = EmergencyPlan(
        stream,
        to,
        cluster_of(standby),
        subjects,
        last,
        max(0, known - last) if check or heard else None,
        known,
        float(check["at"]) if "at" in check else None,
        active_ns / 1e9 if active_ns >= 0 else None,
    )
    refusal = None
    if mirror_of(standby) != stream:
        refusal = f"{to} is not a mirror of the whole of {stream}"
    elif not subjects:
        refusal = f"{to} records no subjects of {stream}: name them with --subjects"
    else:
        answers = await _answers(client, stream)
        if answers is None:
            refusal = f"{stream} does not exist"
        elif answers:
            refusal = f"{stream} answers: fail over without --emergency (it compares and loses nothing)"
    if refusal:
        return EmergencyPlan(**{**plan.__dict__, "refusal": refusal + "; nothing was changed"})
    return plan


async def arecord_check(client: JsClient, stream: str, to: str | None = None) -> CheckResult:
    """Record on the standby what an emergency needs of ``stream``: its last sequence (read first: a
    publish acknowledged before the check began is at or below it), subjects and placement."""
    at = time.time()
    active = await stream_info(client, stream)
    if active is None:
        raise FailoverError(f"stream {stream} does not exist")
    if to is None:
        infos, _ = await steady(client, client.alist_streams)
        mirrors = sorted(str(i["config"]["name"]) for i in infos if mirror_of(i) == stream)
        if len(mirrors) != 1:
            raise FailoverError(
                f"{stream} needs exactly one standby or --to NAME; found {', '.join(mirrors) or 'none'}"
            )
        to = mirrors[0]
    standby = await stream_info(client, to)
    if standby is None or mirror_of(standby) != stream:
        raise FailoverError(f"{to} is not a mirror of the whole of {stream}; nothing was recorded")
    a = active.get("config") or {}
    last = int((active.get("state") or {}).get("last_seq") or 0)
    rec = {**dr_record(standby), "active": stream, "standby": to, "subjects": a.get("subjects") or []}
    rec["checked"] = {"at": round(at, 3), "last_seq": last}
    if a.get("placement"):
        rec["placement"] = a["placement"]
    live = stream_from_info(standby)
    await steady(
        client, client.aupdate_stream, config_json(with_metadata(live.config, {DR_ACTIVE: _dumps(rec)}), live.extra)
    )
    return CheckResult(stream, to, last, live.last_seq, at)


async def _fence(client: JsClient, plan: EmergencyPlan, standby: dict[str, Any]) -> None:
    """Fence the unreachable stream through the meta group: an update its own servers will not answer;
    done once no stream but the standby is found for the subjects."""
    live = stream_from_info(standby)
    rec = {"active": plan.standby, "standby": plan.stream, "emergency": True, "subjects": list(plan.subjects)}
    cfg = config_json(
        with_metadata(live.config._replace(mirror=None, subjects=(plan.fence,)), {DR_ACTIVE: _dumps(rec)})
    )
    placement = dr_record(standby).get("placement")
    cfg = {**cfg, "name": plan.stream}
    if isinstance(placement, dict):
        cfg["placement"] = placement
    else:
        cfg.pop("placement", None)
    try:
        await client.aupdate_stream(cfg)
    except JsApiError as exc:
        if not exc.temporary or client.connection_lost:
            raise
    deadline = time.monotonic() + FENCE_TIMEOUT
    while True:
        resp = await steady(client, client.arequest, "STREAM.NAMES", {"subject": plan.subjects[0]})
        if plan.stream not in (resp.get("streams") or []):
            return
        if time.monotonic() > deadline:
            raise FailoverError(
                f"the meta group did not record the fence of {plan.stream} in {FENCE_TIMEOUT:.0f}s; "
                "nothing was promoted"
            )
        await asyncio.sleep(0.2)


async def arun_emergency(client: JsClient, plan: EmergencyPlan) -> EmergencyResult:
    """Carry out ``plan`` (:func:`aplan_emergency`, refused plans excluded; the caller has the data-loss flag)."""
    if plan.refusal:
        raise FailoverError(plan.refusal)
    t0 = time.monotonic()
    standby = await stream_info(client, plan.standby)
    if standby is None:
        raise FailoverError(f"{plan.standby} disappeared; nothing was changed")
    await _fence(client, plan, standby)
    standby = await stream_info(client, plan.standby) or standby
    live = stream_from_info(standby)
    rec: dict[str, Any] = {
        "active": plan.standby,
        "standby": plan.stream,
        "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "emergency": {
            "stated_loss": plan.lag,
            "known_last_seq": plan.known_last_seq,
            "checked": plan.checked,
            "last_seq": live.last_seq,
        },
    }
    promoted = with_metadata(live.config._replace(mirror=None, subjects=plan.subjects), {DR_ACTIVE: _dumps(rec)})
    await steady(client, client.aupdate_stream, config_json(promoted, live.extra))
    return EmergencyResult(plan.lag, live.last_seq, time.monotonic() - t0)
