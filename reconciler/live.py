"""The live state of a target, read through the paged list APIs, and its fingerprint."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from linter import strip_server_metadata

from .client import JsApiError, JsClient

__all__ = ["LiveStream", "LiveConsumer", "LiveState", "read_live", "MANAGED_BY", "SOURCE", "CONTEXT", "RESUME", "PRUNE_MARK", "DATA_LOSS_MARK", "PREVENT_DELETE_MARK", "owned"]

MANAGED_BY = "io.jsops.managed-by"
SOURCE = "io.jsops.source"  # the manifest's path (relative to the repository root): scopes --prune
CONTEXT = "io.jsops.context"  # the manifest's metadata.context: scopes --prune per target
# Set on a consumer recreated at its old position: the start fields the manifest asked for (JSON).
RESUME = "io.jsops.resume"
# Prune permissions recorded on the server from a manifest's jsops.io/allow-prune and
# jsops.io/allow-data-loss annotations (read back once the manifest is gone; see reconciler.plan).
PRUNE_MARK = "io.jsops.allow-prune"
DATA_LOSS_MARK = "io.jsops.allow-data-loss"
# NACK's preventDelete (the jsops.io/prevent-delete annotation), recorded on the server: an object that
# left the manifests has no annotation left to read, and must still not be pruned.
PREVENT_DELETE_MARK = "io.jsops.prevent-delete"
OWNER = "jsops"


def owned(config: dict[str, Any]) -> bool:
    return (config.get("metadata") or {}).get(MANAGED_BY) == OWNER


@dataclass
class LiveStream:
    config: dict[str, Any]
    messages: int = 0
    consumer_count: int = 0

    @property
    def name(self) -> str:
        return str(self.config.get("name", ""))


@dataclass
class LiveConsumer:
    stream: str
    config: dict[str, Any]
    ack_floor: int = 0  # stream sequence of the ack floor
    delivered: int = 0  # stream sequence last delivered

    @property
    def name(self) -> str:
        return str(self.config.get("durable_name") or self.config.get("name") or "")


@dataclass
class LiveState:
    streams: dict[str, LiveStream] = field(default_factory=dict)
    consumers: dict[tuple[str, str], LiveConsumer] = field(default_factory=dict)
    requests: int = 0
    # Streams the cluster listed as missing (no leader answered, e.g. during a move) and whose
    # INFO failed too: their state is unknown, and plans must not act on them.
    unknown: set[str] = field(default_factory=set)

    def fingerprint(self) -> str:
        """A hash of what a plan depends on: every config (ownership included) and which streams
        hold messages. Publishing to a stream that already held messages does not change it."""
        h = hashlib.sha256()
        h.update(json.dumps(sorted(self.unknown)).encode())
        for name in sorted(self.streams):
            s = self.streams[name]
            h.update(json.dumps(["S", name, s.config, s.messages > 0], sort_keys=True, separators=(",", ":")).encode())
        for key in sorted(self.consumers):
            c = self.consumers[key]
            h.update(json.dumps(["C", *key, c.config], sort_keys=True, separators=(",", ":")).encode())
        return "sha256:" + h.hexdigest()


def read_live(client: JsClient) -> LiveState:
    """Read every stream and consumer: one ``STREAM.LIST`` page per 256 streams, then one
    ``CONSUMER.LIST`` page per 256 consumers of each stream that has consumers (concurrently)."""
    return client.run(_aread_live(client))


async def _aread_live(client: JsClient) -> LiveState:
    before = client.requests
    state = LiveState()
    infos, missing = await client.alist_streams()
    listed = {str((i.get("config") or {}).get("name", "")) for i in infos}
    for name in sorted(set(missing) - listed):
        try:
            infos.append(await client.astream_info(name))
        except JsApiError:
            state.unknown.add(name)
    for info in infos:
        cfg = strip_server_metadata(info.get("config") or {})
        st = info.get("state") or {}
        ls = LiveStream(cfg, int(st.get("messages") or 0), int(st.get("consumer_count") or 0))
        state.streams[ls.name] = ls
    with_consumers = [n for n, s in state.streams.items() if s.consumer_count > 0]
    pages = await client.gather([(lambda n=n: client.alist_consumers(n)) for n in with_consumers])
    for stream, page in zip(with_consumers, pages):
        if isinstance(page, BaseException):
            raise page
        for info in page:
            cfg = strip_server_metadata(info.get("config") or {})
            lc = LiveConsumer(stream, cfg, int((info.get("ack_floor") or {}).get("stream_seq") or 0),
                              int((info.get("delivered") or {}).get("stream_seq") or 0))
            if lc.name:
                state.consumers[(stream, lc.name)] = lc
    state.requests = client.requests - before
    return state
