"""A small JetStream API client over nats-py: raw JSON requests, paged listing, request counting.

Async inside; :class:`JsClient` offers blocking calls (it owns an event loop) and
:meth:`JsClient.run` for running several calls concurrently.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

from ..errors import PermanentError, ReconcilerError, TemporaryError
from .kv import KvBucket, abind_bucket
from .target import Target, TargetError

__all__ = ["JsClient", "JsApiError", "ConnectError", "JetStreamDisabled", "NO_JETSTREAM"]

T = TypeVar("T")

RECONNECT_ATTEMPTS = 3  # per server of a cluster, after the connected one was lost
RECONNECT_WAIT = 0.25  # seconds between attempts at one server
RECONNECT_BUDGET = 10.0  # seconds a request waits for the client to reconnect
_READS = ("INFO", "STREAM.INFO.", "STREAM.LIST", "STREAM.NAMES", "CONSUMER.INFO.", "CONSUMER.LIST.", "CONSUMER.NAMES.")


class ConnectError(TemporaryError):
    """The target could not be reached or refused the connection."""


# What a server without JetStream (for this account or domain) looks like: nothing answers $JS.API.
NO_JETSTREAM = ("JetStream is not enabled on the target (nothing answers JetStream API requests: "
                "start nats-server with -js, enable JetStream for the account, or check --js-domain)")


class JsApiError(ReconcilerError):
    """The JetStream API answered with an error (or did not answer: then :attr:`temporary`)."""

    def __init__(self, description: str, err_code: int | None = None, code: int | None = None) -> None:
        super().__init__(description)
        self.description = description
        self.err_code = err_code
        self.code = code

    def __str__(self) -> str:
        return f"{self.description} ({self.err_code})" if self.err_code else self.description

    @property
    def temporary(self) -> bool:
        """No answer (a timeout, a lost connection): the server may answer a later request."""
        return self.err_code is None and self.code is None and not isinstance(self, PermanentError)


class JetStreamDisabled(JsApiError, PermanentError):
    """No responder on the JetStream API: the server (or the account, or the domain) has no JetStream."""

    def __init__(self) -> None:
        super().__init__(NO_JETSTREAM)


class JsClient:
    """One connection to a target. Every JetStream API request goes through :meth:`arequest`."""

    def __init__(self, target: Target, *, timeout: float = 5.0, concurrency: int = 64) -> None:
        import nats

        self.target = target
        self.timeout = timeout
        self.requests = 0
        self.loop = asyncio.new_event_loop()
        self._sem: asyncio.Semaphore | None = None
        self._concurrency = concurrency
        opts = target.connect_options()
        errors: list[Exception] = []

        # With several servers (a cluster), losing the connected one is ridden out: the client
        # reconnects to another and later requests carry on; requests in flight on the lost
        # connection fail (their answers went with it). With one server a lost connection ends the run.
        reconnect = len(opts["servers"]) > 1

        async def _connect() -> Any:
            self._lost = asyncio.Event()  # for good: no more requests will be sent
            self._up = asyncio.Event()  # connected now
            self._down: asyncio.Future[None] = asyncio.get_running_loop().create_future()

            async def _error(exc: Exception) -> None:
                errors.append(exc)
                if len(errors) >= len(opts["servers"]):
                    failed_all.set()  # every server refused once: give up, do not retry forever

            async def _disconnected(*_: Any) -> None:
                self._up.clear()
                if not self._down.done():
                    self._down.set_result(None)
                if not reconnect:
                    self._lost.set()

            async def _reconnected(*_: Any) -> None:
                self._down = asyncio.get_running_loop().create_future()
                self._up.set()

            async def _closed(*_: Any) -> None:
                self._lost.set()
                if not self._down.done():
                    self._down.set_result(None)
                self._up.set()  # wake the waiters: they find the connection lost

            # nats-py keeps retrying an unreachable server during the initial connect: bound it.
            failed_all = asyncio.Event()
            conn = asyncio.ensure_future(nats.connect(
                **opts, connect_timeout=timeout, error_cb=_error, disconnected_cb=_disconnected,
                reconnected_cb=_reconnected, closed_cb=_closed,
                **({"allow_reconnect": True, "max_reconnect_attempts": RECONNECT_ATTEMPTS,
                    "reconnect_time_wait": RECONNECT_WAIT} if reconnect else
                   {"allow_reconnect": False, "max_reconnect_attempts": 0}),
            ))
            gave_up = asyncio.ensure_future(failed_all.wait())
            await asyncio.wait({conn, gave_up}, timeout=timeout + 1, return_when=asyncio.FIRST_COMPLETED)
            gave_up.cancel()
            if conn.done():
                nc = conn.result()
                self._up.set()
                return nc
            conn.cancel()
            try:
                await conn
            except BaseException:
                pass
            raise errors[-1] if errors else TimeoutError("timed out")

        try:
            self.nc = self.loop.run_until_complete(_connect())
        except TargetError:
            self.loop.close()
            raise
        except Exception as exc:  # nats-py raises many kinds; none of them may leak a traceback
            self.loop.close()
            raise ConnectError(f"cannot connect to {target.display()}: {target.scrub(_describe(exc))}") from None

    @property
    def connection_lost(self) -> bool:
        """Lost for good (a cluster connection that is reconnecting is not lost)."""
        return self._lost.is_set() or self.nc.is_closed

    # -- plumbing ---------------------------------------------------------------------------------

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        return self.loop.run_until_complete(coro)

    async def arequest(self, subject: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        if self._sem is None:
            self._sem = asyncio.Semaphore(self._concurrency)
        payload = json.dumps(body, separators=(",", ":")).encode() if body is not None else b""
        what = subject.split(".")[0].lower()
        # a read lost with the connection is asked again once the client is back (writes are
        # not: the server may have carried them out)
        attempts = 2 if subject.startswith(_READS) else 1
        async with self._sem:
            for attempt in range(attempts):
                if not self._up.is_set() and not self._lost.is_set():
                    try:  # reconnecting to another server of the cluster: wait for it (bounded)
                        await asyncio.wait_for(self._up.wait(), self.timeout + RECONNECT_BUDGET)
                    except TimeoutError:
                        raise JsApiError(f"no answer to {what} request: no server of the cluster took the connection back") from None
                if self._lost.is_set():
                    raise JsApiError("the connection to the server was lost")
                self.requests += 1
                down = self._down
                req = asyncio.ensure_future(self.nc.request(f"{self.target.api}.{subject}", payload, timeout=self.timeout))
                await asyncio.wait({req, down}, return_when=asyncio.FIRST_COMPLETED)
                if req.done():
                    break
                req.cancel()
                if attempt + 1 == attempts or self._lost.is_set():
                    raise JsApiError(f"no answer to {what} request: the connection to the server was lost")
            try:
                msg = req.result()
            except Exception as exc:
                import nats.errors

                if isinstance(exc, nats.errors.NoRespondersError):
                    raise JetStreamDisabled() from None
                raise JsApiError(f"no answer to {what} request: {_describe(exc)}") from None
        try:
            resp = json.loads(msg.data)
        except ValueError:
            raise JsApiError("the server answered with invalid JSON") from None
        if not isinstance(resp, dict):
            raise JsApiError("the server answered with an unexpected value")
        err = resp.get("error")
        if err:
            raise JsApiError(str(err.get("description", "error")), err.get("err_code"), err.get("code"))
        return resp

    def request(self, subject: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        return self.run(self.arequest(subject, body))

    async def gather(self, calls: list[Callable[[], Awaitable[T]]]) -> list[T | BaseException]:
        return list(await asyncio.gather(*(c() for c in calls), return_exceptions=True))

    def close(self) -> None:
        try:
            if not self.nc.is_closed:
                self.loop.run_until_complete(asyncio.wait_for(self.nc.close(), self.timeout))
        except Exception:
            pass
        finally:
            self.loop.close()

    def __enter__(self) -> JsClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- listing ---------------------------------------------------------------------------------

    async def alist_streams(self) -> tuple[list[dict[str, Any]], list[str]]:
        """Every StreamInfo via ``STREAM.LIST`` pages, and the names a cluster reported missing
        (streams whose leader did not answer in time)."""
        out: list[dict[str, Any]] = []
        missing: list[str] = []
        offset = 0
        while True:
            resp = await self.arequest("STREAM.LIST", {"offset": offset})
            page = resp.get("streams") or []
            out.extend(page)
            missing.extend(str(m) for m in resp.get("missing") or [])
            offset += len(page) + len(resp.get("missing") or [])
            if not page or offset >= int(resp.get("total") or 0):
                return out, missing

    async def alist_consumers(self, stream: str) -> list[dict[str, Any]]:
        """Every ConsumerInfo of ``stream`` via ``CONSUMER.LIST.<stream>`` pages."""
        out: list[dict[str, Any]] = []
        offset = 0
        while True:
            resp = await self.arequest(f"CONSUMER.LIST.{stream}", {"offset": offset})
            page = resp.get("consumers") or []
            out.extend(page)
            offset += len(page)
            if not page or offset >= int(resp.get("total") or 0):
                return out

    # -- writes ----------------------------------------------------------------------------------

    async def acreate_stream(self, config: dict[str, Any]) -> dict[str, Any]:
        return await self.arequest(f"STREAM.CREATE.{config['name']}", config)

    async def aupdate_stream(self, config: dict[str, Any]) -> dict[str, Any]:
        return await self.arequest(f"STREAM.UPDATE.{config['name']}", config)

    async def adelete_stream(self, name: str) -> dict[str, Any]:
        return await self.arequest(f"STREAM.DELETE.{name}")

    async def astream_info(self, name: str) -> dict[str, Any]:
        return await self.arequest(f"STREAM.INFO.{name}")

    async def aput_consumer(self, stream: str, config: dict[str, Any], action: str = "") -> dict[str, Any]:
        name = config.get("durable_name") or config.get("name")
        body: dict[str, Any] = {"stream_name": stream, "config": config}
        if action:
            body["action"] = action
        return await self.arequest(f"CONSUMER.CREATE.{stream}.{name}", body)

    async def adelete_consumer(self, stream: str, name: str) -> dict[str, Any]:
        return await self.arequest(f"CONSUMER.DELETE.{stream}.{name}")

    async def aconsumer_info(self, stream: str, name: str) -> dict[str, Any]:
        return await self.arequest(f"CONSUMER.INFO.{stream}.{name}")

    async def apause_consumer(self, stream: str, name: str, until: str | None) -> dict[str, Any]:
        """Pause the consumer until ``until`` (RFC 3339), or resume it (``None``): 2.11+."""
        return await self.arequest(f"CONSUMER.PAUSE.{stream}.{name}", {"pause_until": until} if until else None)

    async def areset_consumer(self, stream: str, name: str, seq: int | None) -> dict[str, Any]:
        """Start the consumer again at stream sequence ``seq``, or after its ack floor (``None``): 2.14+."""
        return await self.arequest(f"CONSUMER.RESET.{stream}.{name}", {"seq": seq} if seq else None)

    @property
    def server_version(self) -> str | None:
        """The release of the server this connection is on (from its INFO), e.g. ``2.15.1``."""
        info = getattr(self.nc, "_server_info", None) or {}
        version = info.get("version") if isinstance(info, dict) else None
        return str(version) if version else None

    # -- key/value ---------------------------------------------------------------------------------

    async def akey_value(self, bucket: str, *, ttl: float, description: str = "") -> KvBucket:
        """The KeyValue bucket ``bucket`` (created with max age ``ttl`` and history 1 if missing)."""
        return await abind_bucket(self.nc, self.target.api, bucket, ttl=ttl, description=description)


def _describe(exc: BaseException) -> str:
    text = str(exc).strip()
    name = type(exc).__name__
    if not text or text == name:
        return {"TimeoutError": "timed out", "NoServersError": "no servers available",
                "NoRespondersError": "no responders (is JetStream enabled?)"}.get(name, name)
    return text.splitlines()[0][:300]
