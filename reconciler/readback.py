"""What really happened to actions whose request got no answer (a timeout, a lost connection).

The server may have carried such a request out, or may still do so: a request whose answer was
lost can still sit in the server's queue, and the server does not handle one connection's API
requests strictly in order. :func:`read_back` reads each object again (over the same connection
when it is still up, else over a new one, retried until the server answers or the wait is over)
and settles each result: ``done`` as soon as the object is as the action wanted; ``failed`` once
it has read back otherwise for :data:`STABLE` seconds; ``unknown`` when it could not be settled.
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from jsops.linter import from_api_json, strip_server_metadata

from .apply_results import ActionResult, Stop
from .client import ConnectError, JsApiError, JsClient
from .configs import Config, with_metadata, without_metadata
from .diff import diff_configs
from .errors import ErrCode
from .live import CONTEXT, MANAGED_BY, MIGRATION, SOURCE
from .vocabulary import Outcome

if TYPE_CHECKING:
    from .plan import Intent

__all__ = ["read_back", "applied", "asettle"]

_GONE = (ErrCode.STREAM_NOT_FOUND, ErrCode.CONSUMER_NOT_FOUND)
_PAUSE = 0.5
# How long an object must keep reading back "not applied" before apply says so: a request whose
# answer was lost may still sit in the server's queue (seen on nats-server 2.15.1: STREAM.INFO
# answered before an earlier STREAM.CREATE of the same connection was carried out).
STABLE = 5.0


def applied(a: Intent, config: Config | None) -> bool:
    """Whether the live ``config`` (``None``: the object does not exist) is what ``a`` wanted."""
    if a.action == "delete" or (a.migration is not None and a.migration.rollback):
        return config is None
    if config is None or a.config is None:
        return False
    if a.action == "migrate" and MIGRATION in config.metadata:
        return False  # unfinished (see _observe)
    if diff_configs(a.kind, config, a.config):
        return False
    want, have = a.config.metadata, config.metadata
    return all(have.get(k) == want.get(k) for k in (MANAGED_BY, SOURCE, CONTEXT))


def _not_applied(a: Intent, config: Config | None) -> str:
    if config is None and a.action == "recreate":
        return f"not applied: the {a.kind.lower()} was deleted and not created again"
    if config is None and a.action == "migrate":
        return "not applied: the new stream does not exist (the migration did not start, or was rolled back)"
    if config is None and a.action != "create":
        return f"not applied: the {a.kind.lower()} is gone"
    left = config.metadata.get(MIGRATION) if config is not None and a.action == "migrate" else None
    if left:
        return f"not applied: the migration is unfinished ({left}); run apply --migrate again to finish it"
    return "not applied"


async def _observe(client: JsClient, a: Intent) -> Config | None:
    """The object's live config, ``None`` when it does not exist; raises when there is no answer."""
    try:
        if a.kind == "Stream":
            info = await client.astream_info(a.name)
        else:
            info = await client.aconsumer_info(a.stream or "", a.name)
    except JsApiError as exc:
        if exc.err_code in _GONE:
            return None
        raise
    config, _ = from_api_json(a.kind, strip_server_metadata(info.get("config") or {}))
    if a.action == "migrate" and not (a.migration is not None and a.migration.rollback):
        from .migration_steps import unfinished

        # judged by its record and its source, not by the new stream's config
        left = await unfinished(client, a)
        config = with_metadata(config, {MIGRATION: left}) if left else without_metadata(config, {MIGRATION})
    return config


def _connect(client: JsClient, deadline: float) -> JsClient | None:
    while True:
        try:
            return JsClient(client.target, timeout=max(0.5, min(client.timeout, deadline - time.monotonic())))
        except ConnectError:
            if time.monotonic() + _PAUSE >= deadline:
                return None
            time.sleep(_PAUSE)


def read_back(
    client: JsClient,
    results: list[ActionResult],
    wait: float,
    notify: Callable[[str], None] | None = None,
    stop: Stop | None = None,
) -> None:
    """Settle ``results`` (actions whose answer was lost) by reading their objects again, trying
    for up to ``wait`` seconds (one pass only once ``stop`` is set: an interrupted apply does not
    wait). Updates each result's status and detail in place."""
    if not results:
        return
    if notify is not None:
        n = len(results)
        notify(f"Reading back {n} object{'s' if n != 1 else ''} whose request got no answer...")
    deadline = time.monotonic() + wait
    reader: JsClient | None = client
    reconnected = False
    absent: dict[int, float] = {}  # when an object was first read back not as its action wanted
    pending = list(results)
    try:
        while pending:
            if reader is None or reader.connection_lost:
                if reader is not None and reader is not client:
                    reader.close()
                reader = _connect(client, time.monotonic() + 1 if stop else deadline)
                reconnected = True
                if reader is None:
                    break
            r0 = reader
            seen = r0.run(r0.gather([functools.partial(_observe, r0, r.action.intent) for r in pending]))
            pending = _settle(pending, seen, "read back after reconnecting" if reconnected else "read back", absent)
            if not pending or stop or time.monotonic() + _PAUSE >= deadline:
                break
            time.sleep(_PAUSE)
    finally:
        if reader is not None and reader is not client:
            reader.close()
    for r in pending:
        r.status, r.detail = (
            Outcome.UNKNOWN,
            f"{r.detail}; could not read it back: unknown whether the server carried it out",
        )


def _settle(
    pending: list[ActionResult], seen: list[Config | None | BaseException], how: str, absent: dict[int, float]
) -> list[ActionResult]:
    """One pass's verdicts, set on the results that have one; those still pending."""
    still = []
    now = time.monotonic()
    for r, cfg in zip(pending, seen):
        if isinstance(cfg, BaseException):
            still.append(r)
        elif applied(r.action.intent, cfg):
            r.status, r.detail = Outcome.DONE, f"{r.detail}; {how}: applied"
        elif now - absent.setdefault(id(r), now) >= STABLE:
            r.status, r.detail = Outcome.FAILED, f"{r.detail}; {how}: {_not_applied(r.action.intent, cfg)}"
        else:
            # The lost request may still be queued on the server (its API requests are
            # not handled strictly in order): look again until the answer holds.
            still.append(r)
    return still


async def asettle(client: JsClient, a: Intent, wait: float) -> bool | None:
    """Read ``a``'s object back over ``client`` while the run goes on (a cluster client reconnects
    to another node by itself): True once it reads as ``a`` wanted, False once it has read
    otherwise for :data:`STABLE` seconds, None when the connection is lost for good or ``wait``
    seconds pass without a verdict."""
    deadline = time.monotonic() + wait
    since: float | None = None
    while not client.connection_lost:
        try:
            cfg = await _observe(client, a)
        except Exception:  # no answer yet (the cluster is electing, the client reconnecting)
            pass
        else:
            if applied(a, cfg):
                return True
            now = time.monotonic()
            since = now if since is None else since
            if now - since >= STABLE:
                return False
        if time.monotonic() + _PAUSE >= deadline:
            return None
        await asyncio.sleep(_PAUSE)
    return None
