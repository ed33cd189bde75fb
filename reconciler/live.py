"""The live state of a target, read through the paged list APIs, and its fingerprint."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from jsops.linter import (
    EffectiveConsumer,
    EffectiveStream,
    consumer_from_api_json,
    stream_from_api_json,
    strip_server_metadata,
)

from .client import JsApiError, JsClient
from .configs import NO_EXTRA, Config, Extra, config_json
from .errors import ErrCode

__all__ = [
    "consumer_from_info",
    "LiveStream",
    "LiveConsumer",
    "LiveState",
    "read_live",
    "alist_estate",
    "MANAGED_BY",
    "SOURCE",
    "CONTEXT",
    "RESUME",
    "PRUNE_MARK",
    "DATA_LOSS_MARK",
    "PREVENT_DELETE_MARK",
    "ESTATE",
    "REPO",
    "RECREATE_PREFIX",
    "MIGRATION",
    "DR_ACTIVE",
    "owned",
    "recreate_intents",
    "is_bookkeeping",
]

MANAGED_BY = "io.jsops.managed-by"
SOURCE = "io.jsops.source"  # the manifest's path (relative to the repository root): scopes --prune
CONTEXT = "io.jsops.context"  # the manifest's metadata.context: scopes --prune per target
# Set on a consumer recreated at its old position: the start fields the manifest asked for (JSON).
RESUME = "io.jsops.resume"
# Prune permissions recorded on the server from a manifest's jsops.io/allow-prune and
# jsops.io/allow-data-loss annotations (read back once the manifest is gone; see jsops.reconciler.plan).
PRUNE_MARK = "io.jsops.allow-prune"
DATA_LOSS_MARK = "io.jsops.allow-data-loss"
# NACK's preventDelete (the jsops.io/prevent-delete annotation), recorded on the server: an object that
# left the manifests has no annotation left to read, and must still not be pruned.
PREVENT_DELETE_MARK = "io.jsops.prevent-delete"
OWNER = "jsops"
# The estate (``estate:`` in the jsops config) that owns the object: prune and takeover stay within it.
ESTATE = "io.jsops.estate"
# Without an estate: the repository the object was applied from (jsops.reconciler.plan.scope.repo_identity);
# ``jsops apply --prune`` deletes only objects recorded from its own repository.
REPO = "io.jsops.repo"
# A consumer recreate in flight, recorded on the parent stream before the consumer is deleted:
# ``io.jsops.recreate.<consumer>`` = ``{"seq": N, "digest": "..."}`` (resume position, manifest
# config digest). A re-run that finds it creates the consumer at ``seq`` and clears it.
RECREATE_PREFIX = "io.jsops.recreate."
# A migration in progress (``jsops apply --migrate``, jsops.reconciler.plan.migration), recorded on the stream
# being built: ``{"from": OLD, "to": NEW, "step": ...}`` (JSON). A re-run resumes from it.
MIGRATION = "io.jsops.migration"
# Which side of a declared standby pair is active (``jsops failover``, jsops.reconciler.failover), on
# both streams: ``{"active": NAME, ...}`` (JSON).
DR_ACTIVE = "io.jsops.dr.active"


def is_bookkeeping(key: str) -> bool:
    """jsops's own per-run records, never part of a desired config (the diff ignores them)."""
    return key.startswith(RECREATE_PREFIX) or key in (MIGRATION, DR_ACTIVE)


def recreate_intents(config: EffectiveStream) -> dict[str, dict[str, Any]]:
    """The recorded in-flight consumer recreates of a stream config, by consumer name."""
    out: dict[str, dict[str, Any]] = {}
    for k, v in config.metadata.items():
        if not k.startswith(RECREATE_PREFIX):
            continue
        try:
            rec = json.loads(v)
        except (TypeError, ValueError):
            continue
        if isinstance(rec, dict) and isinstance(rec.get("seq"), int) and rec["seq"] > 0:
            out[k[len(RECREATE_PREFIX) :]] = rec
    return out


def owned(config: Config) -> bool:
    return config.metadata.get(MANAGED_BY) == OWNER


@dataclass
class LiveStream:
    """A stream as the server holds it: its config (read once, at the edge: :func:`stream_from_info`), the
    fields of that config the catalog does not know (:attr:`extra`), and its state."""

    config: EffectiveStream
    messages: int = 0
    consumer_count: int = 0
    bytes: int = 0
    first_seq: int = 0
    last_seq: int = 0
    first_ts: float | None = None  # epoch seconds of the oldest stored message
    last_ts: float | None = None
    num_subjects: int = 0
    num_deleted: int = 0
    extra: Extra = (
        NO_EXTRA  # what the server sent that the catalog does not know (a newer release's fields, where they were)
    )

    @property
    def name(self) -> str:
        return self.config.name

    @classmethod
    def from_json(cls, config: dict[str, Any], **state: Any) -> LiveStream:
        """A live stream of the server's JSON ``config`` (its ``_nats.*`` metadata left out) and ``state``."""
        record, extra = stream_from_api_json(strip_server_metadata(config))
        return cls(record, **state, extra=extra)


@dataclass
class LiveConsumer:
    """A consumer as the server holds it (see :class:`LiveStream`)."""

    stream: str
    config: EffectiveConsumer
    ack_floor: int = 0  # stream sequence of the ack floor
    delivered: int = 0  # stream sequence last delivered
    pending: int = 0  # messages not yet acknowledged: num_pending + num_ack_pending
    extra: Extra = NO_EXTRA

    @property
    def name(self) -> str:
        return self.config.durable_name or self.config.name

    @classmethod
    def from_json(cls, stream: str, config: dict[str, Any], **state: Any) -> LiveConsumer:
        """A live consumer of ``stream`` of the server's JSON ``config`` and ``state``."""
        record, extra = consumer_from_api_json(strip_server_metadata(config))
        return cls(stream, record, **state, extra=extra)


@dataclass
class LiveState:
    streams: dict[str, LiveStream] = field(default_factory=dict)
    consumers: dict[tuple[str, str], LiveConsumer] = field(default_factory=dict)
    requests: int = 0
    # Streams the cluster listed as missing (no leader answered, e.g. during a move) and whose
    # INFO failed too: their state is unknown, and plans must not act on them.
    unknown: set[str] = field(default_factory=set)
    read_at: float = field(default_factory=time.time)  # when the state was read (epoch seconds)
    # Messages a tightened limit would remove, measured on the server (see
    # jsops.reconciler.dataloss.measure_limit_loss): stream -> limit -> messages. Streams or limits not
    # measured are estimated from the stream state (conservatively).
    limit_loss: dict[str, dict[str, int]] = field(default_factory=dict)
    # Stored messages per subject of the interest streams where a consumer's filter changes
    # (jsops.reconciler.interestloss.measure_filter_loss): stream -> subject -> messages.
    subject_counts: dict[str, dict[str, int]] = field(default_factory=dict)
    # The release of the server the state was read from (its INFO), e.g. "2.15.1"; None: not known
    # (then the plan uses no API a release may lack: jsops.reconciler.server_apis).
    server_version: str | None = None

    def fingerprint(self) -> str:
        """A hash of what a plan depends on: every config (ownership included) and which streams
        hold messages. Publishing to a stream that already held messages does not change it."""
        h = hashlib.sha256()
        h.update(json.dumps(sorted(self.unknown)).encode())
        encode = _CANONICAL.encode  # json.dumps(..., sort_keys=True, separators=(",", ":")), one encoder for all
        for name in sorted(self.streams):
            s = self.streams[name]
            h.update(encode(["S", name, config_json(s.config, s.extra), s.messages > 0]).encode())
        for key in sorted(self.consumers):
            c = self.consumers[key]
            h.update(encode(["C", *key, config_json(c.config, c.extra)]).encode())
        return "sha256:" + h.hexdigest()


_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"))


def parse_ts(value: object) -> float | None:
    """Epoch seconds of a server RFC 3339 timestamp (nanosecond precision tolerated)."""
    if not isinstance(value, str) or not value or value.startswith("0001-"):
        return None
    from datetime import datetime

    text = value.rstrip("Z")
    frac = ""
    if "." in text:
        text, frac = text.split(".", 1)
    try:
        base = datetime.fromisoformat(text + "+00:00").timestamp()
    except ValueError:
        return None
    digits = "".join(ch for ch in frac if ch.isdigit())
    return base + (int(digits) / 10 ** len(digits) if digits else 0.0)


def interest_loss(stream: LiveStream | None, pending: int) -> int:
    """Messages deleting a consumer with ``pending`` unacknowledged messages removes: on an
    ``interest`` stream the server drops messages no remaining consumer is interested in (checked
    on 2.15.1); an upper bound (other consumers may still hold interest)."""
    if stream is None or stream.config.retention != "interest":
        return 0
    return min(stream.messages, pending)


def consumer_from_info(stream: str, info: dict[str, Any]) -> LiveConsumer:
    """A :class:`LiveConsumer` of ``stream`` from a ConsumerInfo answer (or a CONSUMER.LIST entry)."""
    return LiveConsumer.from_json(
        stream,
        info.get("config") or {},
        ack_floor=int((info.get("ack_floor") or {}).get("stream_seq") or 0),
        delivered=int((info.get("delivered") or {}).get("stream_seq") or 0),
        pending=int(info.get("num_pending") or 0) + int(info.get("num_ack_pending") or 0),
    )


def stream_from_info(info: dict[str, Any]) -> LiveStream:
    """A :class:`LiveStream` from a StreamInfo answer."""
    st = info.get("state") or {}
    return LiveStream.from_json(
        info.get("config") or {},
        messages=int(st.get("messages") or 0),
        consumer_count=int(st.get("consumer_count") or 0),
        bytes=int(st.get("bytes") or 0),
        first_seq=int(st.get("first_seq") or 0),
        last_seq=int(st.get("last_seq") or 0),
        first_ts=parse_ts(st.get("first_ts")),
        last_ts=parse_ts(st.get("last_ts")),
        num_subjects=int(st.get("num_subjects") or 0),
        num_deleted=int(st.get("num_deleted") or 0),
    )


def read_live(client: JsClient) -> LiveState:
    """Read every stream and consumer through the paged list APIs (:func:`alist_estate`)."""
    return client.run(_aread_live(client))


async def _aconsumers(
    client: JsClient, name: str, on_consumers: Callable[[str, list[dict[str, Any]]], None], gone: list[str] | None
) -> None:
    """``on_consumers`` with the ConsumerInfos of stream ``name``; with ``gone`` (skip gone streams), a
    stream deleted since its listing is added to it instead."""
    try:
        infos = await client.alist_consumers(name)
    except JsApiError as exc:
        if gone is None or exc.err_code != ErrCode.STREAM_NOT_FOUND:
            raise
        gone.append(name)
        return
    on_consumers(name, infos)


async def _ainfo_or_none(client: JsClient, name: str) -> dict[str, Any] | None:
    """The StreamInfo of ``name``, None when the server does not give it."""
    try:
        return await client.astream_info(name)
    except JsApiError:
        return None


async def alist_estate(
    client: JsClient,
    on_stream: Callable[[dict[str, Any]], str | None],
    on_consumers: Callable[[str, list[dict[str, Any]]], None],
    *,
    info_missing: bool = False,
    skip_gone: bool = False,
) -> tuple[list[str], list[str]]:
    """Every stream and consumer, pipelined: ``STREAM.LIST`` pages (the next ones requested while
    this one is handled), and for each listed stream ``on_stream(info)`` names (or None) the stream
    whose ``CONSUMER.LIST`` pages are requested at once, while later stream pages still arrive;
    ``on_consumers(stream, infos)`` gets them. Every request goes through the client (its bound
    on concurrency, its deadlines, its paging and size caps, its shape checks).

    ``info_missing``: a stream a cluster reported missing from the listing is asked for with
    ``STREAM.INFO``. ``skip_gone``: a stream deleted between its listing and its consumers' is
    passed over. Returns the streams still missing, and those gone."""
    missing: list[str] = []
    gone: list[str] = []
    tasks: list[asyncio.Future[None]] = []
    listed: set[str] = set()

    def handle(info: dict[str, Any]) -> None:
        listed.add(str((info.get("config") or {}).get("name", "")))
        name = on_stream(info)
        if name is not None:
            tasks.append(asyncio.ensure_future(_aconsumers(client, name, on_consumers, gone if skip_gone else None)))

    try:
        async with contextlib.aclosing(client.astream_pages()) as pages:  # its requests ahead end with it
            async for page, absent in pages:
                for info in page:
                    handle(info)
                missing.extend(absent)
        unresolved = sorted(set(missing) - listed)
        missing = []
        for name in unresolved:
            found = await _ainfo_or_none(client, name) if info_missing else None
            if found is None:
                missing.append(name)
            else:
                handle(found)
        await asyncio.gather(*tasks)
    finally:
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    return missing, gone


async def _aread_live(client: JsClient) -> LiveState:
    before = client.requests
    state = LiveState()

    def on_stream(info: dict[str, Any]) -> str | None:
        ls = stream_from_info(info)
        state.streams[ls.name] = ls
        return ls.name if ls.consumer_count > 0 else None

    by_stream: dict[str, list[LiveConsumer]] = {}

    def on_consumers(stream: str, infos: list[dict[str, Any]]) -> None:
        by_stream[stream] = [lc for lc in (consumer_from_info(stream, info) for info in infos) if lc.name]

    missing, _ = await alist_estate(client, on_stream, on_consumers, info_missing=True)
    for name in state.streams:  # in the listing's order, whatever order the consumer pages came in
        for lc in by_stream.get(name, ()):
            state.consumers[(name, lc.name)] = lc
    state.unknown.update(missing)
    state.requests = client.requests - before
    state.server_version = getattr(client, "server_version", None)
    return state
