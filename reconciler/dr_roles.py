"""Which side of a standby pair is active after ``jsops failover``, read from the servers' records, and
the fields plan, apply, audit and the controller leave as they are live because of it. Pure.

A failover swaps the roles the manifests declare: the stream declared with subjects is fenced (its
subjects are ``_jsops.fenced.<name>``) and the one declared a mirror has the subjects and no mirror.
Both record ``io.jsops.dr.active`` (jsops.reconciler.live.DR_ACTIVE). Until ``jsops failback`` (or
an edit of the manifests), a plan must not turn them back: it would give the fenced stream subjects
the promoted one holds (10065) and recreate the promoted one as a mirror, undoing the failover. So
``subjects`` and ``mirror`` of such a stream are held at their live values (jsops.reconciler.drift.held),
each with the reason shown by plan and audit; every other field is reconciled as usual. The consumers
the manifests declare on the fenced stream are also wanted on the active one (:func:`follow`), where
the failover placed them at their positions: a prune never deletes them there.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from jsops.linter import EffectiveStream, Kind

from .live import DR_ACTIVE

if TYPE_CHECKING:
    from .live import LiveState
    from .plan import Desired

__all__ = ["fence_subject", "dr_active", "failed_over", "follow", "HELD_BY_FAILOVER"]

# (and a stream that sources from a failed-over one: ``sources``, re-pointed to the active side)
# a promoted mirror also takes the server's default duplicate window (a mirror has none)
HELD_BY_FAILOVER = ("subjects", "mirror", "duplicate_window")


def fence_subject(name: str) -> str:
    """The one subject a fenced stream keeps: no publisher's subject matches it."""
    return f"_jsops.fenced.{name}"


def dr_active(metadata: Mapping[str, str] | None) -> dict[str, object]:
    """The record ``io.jsops.dr.active`` of a stream's metadata ({} without one or unreadable)."""
    raw = (metadata or {}).get(DR_ACTIVE)
    try:
        rec = json.loads(raw) if isinstance(raw, str) else None
    except ValueError:
        return {}
    return rec if isinstance(rec, dict) else {}


def _swapped(name: str, live: EffectiveStream, desired: EffectiveStream) -> str | None:
    """The active side when ``name``'s live role is a failover's, not the manifest's (None: it is not)."""
    rec = dr_active(live.metadata)
    active = rec.get("active")
    if not isinstance(active, str) or not active:
        return None
    fenced = live.subjects == (fence_subject(name),)
    promoted = active == name and live.mirror is None and desired.mirror is not None
    return str(rec.get("switching_to") or active) if fenced or promoted or rec.get("switching_to") else None


def failed_over(desired: Sequence[Desired], live: LiveState) -> dict[tuple[str, str | None, str], dict[str, str]]:
    """The fields held for each desired stream whose live role a failover set (``subjects``, ``mirror``),
    with the reason plan and audit show."""
    out: dict[tuple[str, str | None, str], dict[str, str]] = {}
    for d in desired:
        cur = live.streams.get(d.name) if d.kind == Kind.STREAM else None
        if cur is None:
            continue
        active = _swapped(d.name, cur.config, d.stream_config)
        if active is not None:
            why = f"failed over: {active} is the active side (io.jsops.dr.active); jsops failback returns it"
            out[(Kind.STREAM, None, d.name)] = dict.fromkeys(HELD_BY_FAILOVER, why)
        repointed = _repointed(d.stream_config, cur.config, live)
        if repointed:
            origin, active = repointed
            why = f"its source {origin} failed over to {active}, which it reads now; jsops failback returns it"
            out.setdefault((Kind.STREAM, None, d.name), {})["sources"] = why
    return out


def _repointed(desired: EffectiveStream, live_cfg: EffectiveStream, live: LiveState) -> tuple[str, str] | None:
    """(declared origin, its active side) when a failover re-pointed a declared source to the active side
    (jsops.reconciler.repoint): the origin is fenced and the live sources read its active side instead."""
    reading = {s.name for s in live_cfg.sources if s.external is None}
    for src in desired.sources:
        origin = live.streams.get(src.name) if src.external is None else None
        if origin is None or src.name in reading or origin.config.subjects != (fence_subject(src.name),):
            continue
        active = dr_active(origin.config.metadata).get("active")
        if isinstance(active, str) and active in reading:
            return src.name, active
    return None


def follow(desired: Sequence[Desired], live: LiveState) -> list[Desired]:
    """``desired`` and, for each stream a failover fenced, its declared consumers on the active side too."""
    moved: dict[str, str] = {}  # fenced stream -> active one
    for d in desired:
        cur = live.streams.get(d.name) if d.kind == Kind.STREAM else None
        if cur is not None and cur.config.subjects == (fence_subject(d.name),):
            active = dr_active(cur.config.metadata).get("active")
            if isinstance(active, str) and active != d.name and active in live.streams:
                moved[d.name] = active
    if not moved:
        return list(desired)
    keys = {d.key for d in desired}
    extra = [
        replace(d, stream=moved[d.stream])
        for d in desired
        if d.kind == Kind.CONSUMER and d.stream in moved and (Kind.CONSUMER, moved[d.stream], d.name) not in keys
    ]
    return [*desired, *extra]
