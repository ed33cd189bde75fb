"""``jsops audit --html FILE``: the HTML report (``jsops report``'s page) with a live section.

The page holds, per target, the objects with live-state findings (JS5xx) and the figures those
findings are about, then every finding of the audit (static, live, drift, upgrade) grouped by
object, as ``jsops report`` groups them by file. Built from what the audit already read: no
request is sent here.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from jsops.linter import (
    EffectiveConsumer,
    EffectiveStream,
    Estate,
    Finding,
    FindingRow,
    LintResult,
    LiveObject,
    LiveTarget,
    ReportData,
    Resource,
    build_report,
)

from .read import AuditState
from .registry import LIVE_RULES

__all__ = ["audit_report", "live_section"]

_RANK = {"error": 0, "warning": 1, "info": 2}


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _limit(value: Any) -> int | None:
    v = _int(value)
    return v if v is not None and v > 0 else None


def _row(f: Finding) -> FindingRow:
    return FindingRow(f.severity.value, f.rule, f.name, f.message, f.file, f.line, f.column)


def _object(state: AuditState, stream: str, consumer: str | None, findings: list[Finding]) -> LiveObject:
    rows = tuple(_row(f) for f in sorted(findings, key=lambda f: (_RANK.get(f.severity.value, 3), f.rule, f.message)))
    severity = rows[0].severity
    if consumer is None:
        live = state.live.streams.get(stream)
        st = (state.streams.get(stream) or {}).get("state") or {}
        cfg = live.config if live is not None else None
        return LiveObject(
            "Stream",
            stream,
            stream,
            severity,
            rows,
            messages=_int(st.get("messages")),
            bytes=_int(st.get("bytes")),
            max_msgs=_limit(cfg.max_msgs if cfg is not None else None),
            max_bytes=_limit(cfg.max_bytes if cfg is not None else None),
        )
    lc = state.live.consumers.get((stream, consumer))
    info = state.consumers.get((stream, consumer)) or {}
    return LiveObject(
        "Consumer",
        stream,
        consumer,
        severity,
        rows,
        pending=_int(info.get("num_pending")),
        ack_pending=_int(info.get("num_ack_pending")),
        max_ack_pending=_int(lc.config.max_ack_pending if lc is not None else None),
        redelivered=_int(info.get("num_redelivered")),
    )


def live_section(where: str, state: AuditState, findings: Sequence[Finding]) -> LiveTarget:
    """The live section of one target: its objects with live-rule findings, worst first."""
    by_object: dict[tuple[str, str | None], list[Finding]] = {}
    for f in findings:
        if f.rule not in LIVE_RULES or f.object is None:
            continue
        key = (f.object.stream, f.object.name) if f.object.stream else (f.object.name, None)
        by_object.setdefault(key, []).append(f)
    objects = [_object(state, stream, consumer, items) for (stream, consumer), items in by_object.items()]
    objects.sort(key=lambda o: (_RANK.get(o.severity, 3), o.stream, o.kind != "Stream", o.name))
    total = len(state.live.streams) + len(state.live.consumers)
    return LiveTarget(
        target=where,
        server_version=state.server_version,
        read_at=datetime.fromtimestamp(state.read_at, UTC),
        streams=len(state.live.streams),
        consumers=len(state.live.consumers),
        requests=state.requests,
        objects=tuple(objects),
        healthy=max(total - len(objects), 0),
    )


def _no_estate(resource: Resource) -> EffectiveStream | EffectiveConsumer:
    """The audit page lists no manifest estate: nothing asks for an effective config."""
    raise LookupError(f"no effective config on the audit page ({resource.kind} {resource.name})")


def audit_report(
    audited: Sequence[tuple[str, AuditState, LintResult]], result: LintResult, sources: Sequence[str] = ()
) -> ReportData:
    """The report page's data: a live section per target (``audited``: each target's display
    name, what was read and its own findings) and every finding of ``result``."""
    from dataclasses import replace

    data = build_report(Estate(), None, result.findings, _no_estate, sources=tuple(sources), title="jsops audit")
    return replace(data, live=tuple(live_section(where, state, r.findings) for where, state, r in audited))
