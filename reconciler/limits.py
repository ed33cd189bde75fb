"""The JetStream limits a live target enforces, as the linter's ``Target`` (for effective configs).

nats-server fills some defaults from its limits: a stream's default duplicate window is capped by
the server's ``max_duplicate_window``, a consumer's default ``max_ack_pending`` by the server's and
the account's ``max_ack_pending``, a pull consumer's ``max_batch`` by ``max_request_batch``. The
desired side of a plan must be computed with the same limits, or apply sends a value the server
refuses and a plan right after an apply is not empty.

- account limits: ``$JS.API.INFO`` (every JetStream user may ask);
- server limits (``jetstream { limits { ... } }``): only the monitoring endpoint shows them to a
  normal account, so they are read from ``<monitor>/varz`` when the target names a monitor URL;
- anything not read from the server falls back to the jsops config's declared ``target``.
"""

from __future__ import annotations

from typing import Any

from jsops.linter import AccountLimits, ServerLimits

from .client import ACCOUNT_INFO, MONITOR_SHAPES, AnswerError, Target, TargetError, answer_problem

__all__ = ["account_limits", "server_limits", "monitor_json"]


def _positive(v: object) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) and v > 0 else None


def account_limits(info: dict[str, Any]) -> AccountLimits:
    """The account's limits from a ``$JS.API.INFO`` answer (unlimited values are left out)."""
    problem = answer_problem(info, ACCOUNT_INFO, "INFO")
    if problem:
        raise AnswerError(problem)
    lim = info.get("limits") or {}
    tiers = info.get("tiers") or {}
    if not any(_positive(v) for v in lim.values()) and len(tiers) == 1:
        lim = next(iter(tiers.values())).get("limits") or {}  # one tier: its limits are the account's
    return AccountLimits(
        max_mem=_positive(lim.get("max_memory")),
        max_file=_positive(lim.get("max_storage")),
        max_streams=_positive(lim.get("max_streams")),
        max_consumers=_positive(lim.get("max_consumers")),
        max_bytes_required=bool(lim.get("max_bytes_required")) or None,
        mem_max_stream_bytes=_positive(lim.get("memory_max_stream_bytes")),
        disk_max_stream_bytes=_positive(lim.get("storage_max_stream_bytes")),
        max_ack_pending=_positive(lim.get("max_ack_pending")),
    )


def server_limits(varz: dict[str, Any]) -> ServerLimits:
    """The server's ``jetstream { limits }`` from a ``/varz`` answer."""
    js = varz.get("jetstream")
    lim = js.get("limits") if isinstance(js, dict) else None
    lim = lim if isinstance(lim, dict) else {}
    return ServerLimits(
        max_ack_pending=_positive(lim.get("max_ack_pending")),
        max_request_batch=_positive(lim.get("max_request_batch")),
        duplicate_window=_positive(lim.get("max_duplicate_window")),
        max_ha_assets=_positive(lim.get("max_ha_assets")),
    )


def monitor_json(target: Target, endpoint: str, what: str = "the server's limits") -> dict[str, Any]:
    """``<monitor>/<endpoint>`` (``varz``, ``jsz``) as a JSON object, read within a deadline and a
    size cap (:mod:`jsops.reconciler.monitor_http`); user information in the monitor URL is sent as HTTP
    basic auth (for a monitoring port behind an authenticating proxy), never as part of the URL."""
    from .monitor_http import MonitorError, get_json

    base, user, password = target.monitor_url()
    url = f"{base.rstrip('/')}/{endpoint}"
    try:
        answer = get_json(url, user=user, password=password)
    except MonitorError as exc:
        raise TargetError(f"cannot read {what} from {url}: {target.scrub(str(exc))}") from None
    problem = answer_problem(answer, MONITOR_SHAPES.get(endpoint), f"/{endpoint}")
    if problem:
        raise TargetError(f"cannot read {what} from {url}: {problem}")
    return answer
