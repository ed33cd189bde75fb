"""What ``jsops audit`` reads from a target: every stream and consumer with its state, in pages.

One ``STREAM.LIST`` page per 256 streams and one ``CONSUMER.LIST`` page per 256 consumers of each
stream that has consumers, pipelined (:func:`jsops.reconciler.live.alist_estate`: a stream's
consumers are asked for as soon as its stream page arrives, the next stream pages are already on
their way, all bounded by the client's concurrency), ``$JS.API.INFO`` (the account's limits and
usage, asked for at the same time) and the server's INFO (its release and cluster). Never an INFO
per object, never a request per message, never a write: the subjects sent are all in
:data:`READ_SUBJECTS`.

The configs go into a :class:`jsops.reconciler.live.LiveState` (what export, plan and drift read); the
state, cluster and mirror/source parts of each answer are kept beside it for the live rules.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..client import JsClient
from ..live import LiveState, alist_estate, consumer_from_info, parse_ts, stream_from_info
from .snapshot import Snapshot

__all__ = ["AuditState", "read_audit", "READ_SUBJECTS"]

# Every JetStream API subject audit sends (a test checks the server saw nothing else).
READ_SUBJECTS = ("INFO", "STREAM.LIST", "CONSUMER.LIST.")


@dataclass
class AuditState:
    """The live configs (``live``) and, per object, the parts of its INFO that are not config."""

    live: LiveState
    # stream name -> {"state", "cluster", "mirror", "sources", "created"} of its StreamInfo
    streams: dict[str, dict[str, Any]] = field(default_factory=dict)
    # (stream, consumer) -> the ConsumerInfo without its config
    consumers: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    by_stream: dict[str, list[tuple[str, str]]] = field(default_factory=dict)  # stream -> its consumers' keys
    # Streams the listing named as missing: no leader answered for them in time.
    missing: list[str] = field(default_factory=list)
    account: dict[str, Any] = field(default_factory=dict)  # $JS.API.INFO
    server: dict[str, Any] = field(default_factory=dict)  # the server's INFO (version, cluster, ...)
    varz: dict[str, Any] | None = None  # the monitoring endpoint's /varz, when the target names one (--monitor)
    read_at: float = field(default_factory=time.time)
    requests: int = 0
    # The same target's earlier snapshot (jsops audit --baseline FILE): what growth is measured against.
    baseline: Snapshot | None = None

    @property
    def server_version(self) -> str | None:
        v = self.server.get("version")
        return v if isinstance(v, str) and v else None

    def created(self, stream: str) -> float | None:
        """Epoch seconds the stream was created (from its INFO)."""
        return parse_ts((self.streams.get(stream) or {}).get("created"))


_STREAM_KEEP = ("state", "cluster", "mirror", "sources", "created")


def read_audit(client: JsClient, on_stream: Callable[[AuditState, str], None] | None = None) -> AuditState:
    """Read the target (see the module docstring). ``on_stream(state, name)`` is called once per
    stream as soon as its consumers are read, while the other pages are still on their way (the
    caller's work on one stream overlaps the server's on the next)."""
    return client.run(_aread(client, on_stream))


async def _aread(client: JsClient, on_stream: Callable[[AuditState, str], None] | None) -> AuditState:
    before = client.requests
    live = LiveState()
    state = AuditState(live)
    state.server = dict(getattr(client.nc, "_server_info", None) or {})
    live.server_version = state.server_version
    account = asyncio.ensure_future(client.arequest("INFO"))  # answered while the listing runs

    def stream(info: dict[str, Any]) -> str | None:
        ls = stream_from_info(info)
        live.streams[ls.name] = ls
        state.streams[ls.name] = {k: info[k] for k in _STREAM_KEEP if k in info}
        if ls.consumer_count > 0:
            return ls.name
        if on_stream is not None:
            on_stream(state, ls.name)
        return None

    def consumers(name: str, infos: list[dict[str, Any]]) -> None:
        _consumers(state, name, infos)
        if on_stream is not None:
            on_stream(state, name)

    try:
        missing, gone = await alist_estate(client, stream, consumers, skip_gone=True)
        state.account = await account
    finally:
        if not account.done():
            account.cancel()
        elif not account.cancelled():
            account.exception()  # retrieved: raised above, or the listing's own error is the one told
    state.missing = missing
    live.unknown.update(missing)
    for name in gone:  # deleted since the stream listing: not audited
        live.streams.pop(name, None)
        state.streams.pop(name, None)
    state.requests = live.requests = client.requests - before
    state.read_at = live.read_at = time.time()
    return state


def _consumers(state: AuditState, stream: str, page: list[dict[str, Any]]) -> None:
    for info in page:
        lc = consumer_from_info(stream, info)
        if lc.name:
            state.live.consumers[(stream, lc.name)] = lc
            state.consumers[(stream, lc.name)] = {k: v for k, v in info.items() if k != "config"}
            state.by_stream.setdefault(stream, []).append((stream, lc.name))
