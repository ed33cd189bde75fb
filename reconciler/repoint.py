"""After a failover, the streams that source from the old active side read from the new one.

The standby has its own name (one account and domain hold both), so a stream with ``sources:
[{name: ORDERS}]`` keeps reading the fenced ORDERS, which takes no publish after the cut: it would
miss everything published to the promoted standby (measured on nats-server 2.12.8: it stayed at the
fence's last sequence while the standby went on). Each such source is re-pointed: its ``name``
becomes the standby's and ``opt_start_seq`` the fenced stream's last sequence + 1, once the source
has taken everything up to there (its lag is 0). A mirror keeps the origin's sequences, so the
standby continues exactly where the fenced stream stopped: nothing is read twice or skipped. Every
other field of the source (filter, transforms) is kept; one in another domain or account
(``external``) is not this failover's to change.

Mirrors of the old side other than the standby cannot be re-pointed: nats-server refuses any change
of ``mirror`` but its removal (10055). The plan names them; they follow the fenced stream until they
are made again as mirrors of the active side.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any

from .client import JsApiError
from .errors import PermanentError
from .migration_leg import CATCH_UP_TIMEOUT, steady, stream_info, stream_state

if TYPE_CHECKING:
    from .client import JsClient

__all__ = ["RepointError", "reads", "sourcing", "other_mirrors", "arepoint"]


class RepointError(JsApiError, PermanentError):
    """A source that did not take the fenced stream's last messages in time (``jsops failover
    --selector`` again carries on: a stream switched already has its sources re-pointed)."""


def reads(source: object, origin: str) -> bool:
    """Whether a ``sources`` entry (API JSON) reads ``origin`` in the same account and domain."""
    return isinstance(source, dict) and source.get("name") == origin and not source.get("external")


def sourcing(infos: list[dict[str, Any]], origin: str) -> list[str]:
    """The streams with a source that reads ``origin``, by name."""
    return sorted(
        str(i["config"]["name"]) for i in infos if any(reads(s, origin) for s in i["config"].get("sources") or ())
    )


def other_mirrors(infos: list[dict[str, Any]], origin: str, standby: str) -> list[str]:
    """The mirrors of ``origin`` other than ``standby`` (left reading the fenced stream)."""
    return sorted(
        str(i["config"]["name"])
        for i in infos
        if reads(i["config"].get("mirror"), origin) and i["config"]["name"] != standby
    )


def _lag(info: dict[str, Any] | None, origin: str) -> int | None:
    for s in (info or {}).get("sources") or ():
        if isinstance(s, dict) and s.get("name") == origin and not s.get("external"):
            return int(s.get("lag") or 0)
    return None


async def _drained(client: JsClient, stream: str, origin: str) -> None:
    """Wait until ``stream``'s source of ``origin`` has taken every message (lag 0)."""
    deadline = time.monotonic() + CATCH_UP_TIMEOUT
    while (lag := _lag(await stream_info(client, stream), origin)) not in (0, None):
        if time.monotonic() > deadline:
            raise RepointError(
                f"{stream} still lags {lag} messages behind {origin}; the failover is done; "
                "run jsops failover --selector (or re-point it by hand) to carry on"
            )
        await asyncio.sleep(0.05)


async def arepoint(client: JsClient, origin: str, active: str) -> tuple[str, ...]:
    """Re-point every source of ``origin`` (fenced, its last sequence final) to ``active``, its
    promoted mirror; the streams re-pointed."""
    infos, _ = await steady(client, client.alist_streams)
    last = int(stream_state(await stream_info(client, origin)).get("last_seq") or 0)
    done = []
    for name in sourcing(infos, origin):
        await _drained(client, name, origin)
        info = await stream_info(client, name)
        if info is None:
            continue
        cfg = dict(info["config"])
        cfg["sources"] = [
            {**{k: v for k, v in s.items() if k != "opt_start_time"}, "name": active, "opt_start_seq": last + 1}
            if reads(s, origin)
            else s
            for s in cfg.get("sources") or ()
        ]
        await steady(client, client.aupdate_stream, cfg)
        done.append(name)
    return tuple(done)
