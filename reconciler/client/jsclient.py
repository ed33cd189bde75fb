"""A small JetStream API client over nats-py: raw JSON requests, paged listing, request counting.

Async inside; :class:`JsClient` offers blocking calls (it owns an event loop) and
:meth:`JsClient.run` for running several calls concurrently.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
from collections import deque
from collections.abc import AsyncGenerator, Awaitable, Callable, Coroutine, Iterator
from typing import TYPE_CHECKING, Any, TypeVar

from ..errors import PermanentError, ReconcilerError, TemporaryError
from .answers import ERROR_SHAPE, Hint, answer_problem, info_shape, list_page, server_info_problem
from .fence import Fence, LeaseLost, _Gate
from .kv import KvBucket, abind_bucket
from .target import CLIENT_NAME, ConnectOptions, Target, TargetError

if TYPE_CHECKING:  # nats-py's classes, for their types only (nats is imported when a client connects)
    from .connection import Connection, Message

__all__ = [
    "JsClient",
    "JsApiError",
    "AnswerError",
    "ConnectError",
    "JetStreamDisabled",
    "NO_JETSTREAM",
    "MAX_LIST_PAGES",
    "MAX_LIST_ITEMS",
    "MAX_LIST_BYTES",
    "PAGE_WINDOW",
]

T = TypeVar("T")

RECONNECT_ATTEMPTS = 3  # per server of a cluster, after the connected one was lost
RECONNECT_WAIT = 0.25  # seconds between attempts at one server
RECONNECT_BUDGET = 10.0  # seconds a request waits for the client to reconnect
# A listing ends within these bounds, or is an error: a server whose list never ends (or whose
# pages are huge) must not fill the memory (one page holds at most 256 infos on nats-server).
MAX_LIST_PAGES = 2_000
MAX_LIST_ITEMS = 100_000
MAX_LIST_BYTES = 256 * 1024 * 1024
# Pages of one listing in flight at once, once its first page told the total (each page is one
# request under the client's concurrency bound; fewer when the pages are large: see apages).
PAGE_WINDOW = 4
_READS = ("INFO", "STREAM.INFO.", "STREAM.LIST", "STREAM.NAMES", "CONSUMER.INFO.", "CONSUMER.LIST.", "CONSUMER.NAMES.")
# What a fence lets through (:meth:`JsClient.fenced`): the reads. Every other request may change
# something and is fenced (an unknown request is counted as a write).
_UNFENCED = (*_READS, "STREAM.MSG.GET.")


class ConnectError(TemporaryError):
    """The target could not be reached or refused the connection."""


# What a server without JetStream (for this account or domain) looks like: nothing answers $JS.API.
NO_JETSTREAM = (
    "JetStream is not enabled on the target (nothing answers JetStream API requests: "
    "start nats-server with -js, enable JetStream for the account, or check --js-domain)"
)


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


class AnswerError(JsApiError, PermanentError):
    """An answer whose shape is not the API's (a string where a number belongs, a list that never
    ends): the message names the request and the field."""


def _check(value: object, shape: Hint, what: str) -> None:
    problem = answer_problem(value, shape, what)
    if problem:
        raise AnswerError(problem)


class JetStreamDisabled(JsApiError, PermanentError):
    """No responder on the JetStream API: the server (or the account, or the domain) has no JetStream."""

    def __init__(self) -> None:
        super().__init__(NO_JETSTREAM)


class JsClient:
    """One connection to a target. Every JetStream API request goes through :meth:`arequest`."""

    _gate: _Gate | None = None  # while fenced (:meth:`fenced`)
    _reply_prefix = ""  # the fenced writes' reply subjects (set up by the first one)
    _replies: dict[str, asyncio.Future[Message]]  # their answers, by reply subject
    _reply_seq: itertools.count[int]

    def __init__(self, target: Target, *, timeout: float = 5.0, concurrency: int = 64) -> None:
        self.target = target
        self.timeout = timeout
        self.requests = 0
        self.last_size = 0  # bytes of the answer arequest returned last
        self.loop = asyncio.new_event_loop()
        self._sem: asyncio.Semaphore | None = None
        self._concurrency = concurrency
        opts = target.connect_options()
        opts["name"] = CLIENT_NAME  # jsops's own changes are known by it (jsops.reconciler.drift)
        # With several servers (a cluster) a lost connection is ridden out: the client reconnects to another and later
        # requests carry on (those in flight fail: their answers went with it). With one server it ends the run.
        self._reconnect = len(opts["servers"]) > 1
        try:
            self.nc = self.loop.run_until_complete(self._aconnect(opts))
        except TargetError:
            self.loop.close()
            raise
        except Exception as exc:  # nats-py raises many kinds; none of them may leak a traceback
            self.loop.close()
            raise ConnectError(f"cannot connect to {target.display()}: {target.scrub(_describe(exc))}") from None

    async def _aconnect(self, opts: ConnectOptions) -> Connection:
        """The connection, once its server's INFO is checked (:func:`_info_checked`); the error of
        the last server that refused, when every one did once (nats-py would retry forever)."""
        import nats

        target, timeout = self.target, self.timeout
        self._lost = asyncio.Event()  # for good: no more requests will be sent
        self._up = asyncio.Event()  # connected now
        self._down: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        errors: list[Exception] = []
        failed_all = asyncio.Event()

        async def _error(exc: Exception) -> None:
            errors.append(exc)
            if len(errors) >= len(opts["servers"]):
                failed_all.set()  # every server refused once: give up, do not retry forever

        retry: dict[str, Any] = {
            "allow_reconnect": True,
            "max_reconnect_attempts": RECONNECT_ATTEMPTS,
            "reconnect_time_wait": RECONNECT_WAIT,
        }
        if not self._reconnect:
            retry = {"allow_reconnect": False, "max_reconnect_attempts": 0}
        # nats-py keeps retrying an unreachable server during the initial connect: bound it.
        conn = asyncio.ensure_future(
            nats.connect(
                **opts,
                connect_timeout=timeout,
                error_cb=_error,
                disconnected_cb=self._disconnected,
                reconnected_cb=self._reconnected,
                closed_cb=self._closed,
                **retry,
            )
        )
        gave_up = asyncio.ensure_future(failed_all.wait())
        await asyncio.wait({conn, gave_up}, timeout=timeout + 1, return_when=asyncio.FIRST_COMPLETED)
        gave_up.cancel()
        if conn.done():
            nc = await _info_checked(conn.result(), target)
            self._up.set()
            return nc
        conn.cancel()
        with contextlib.suppress(BaseException):
            await conn
        raise errors[-1] if errors else TimeoutError("timed out")

    async def _disconnected(self, *_: object) -> None:
        self._up.clear()
        if not self._down.done():
            self._down.set_result(None)
        if not self._reconnect:
            self._lost.set()

    async def _reconnected(self, *_: object) -> None:
        self._down = asyncio.get_running_loop().create_future()
        self._up.set()

    async def _closed(self, *_: object) -> None:
        self._lost.set()
        if not self._down.done():
            self._down.set_result(None)
        self._up.set()  # wake the waiters: they find the connection lost

    @property
    def connection_lost(self) -> bool:
        """Lost for good (a cluster connection that is reconnecting is not lost)."""
        return self._lost.is_set() or self.nc.is_closed

    # -- plumbing ---------------------------------------------------------------------------------

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        return self.loop.run_until_complete(coro)

    @contextlib.contextmanager
    def fenced(self, fence: Fence | None) -> Iterator[None]:
        """Fence every write request made meanwhile (:mod:`jsops.reconciler.client.fence`): a write
        the fence refuses raises :class:`LeaseLost` and is not sent. ``None``: no fence."""
        if fence is None:
            yield
            return
        outer, self._gate = self._gate, _Gate(fence)
        try:
            yield
        finally:
            self._gate = outer

    @property
    def fence_refused(self) -> int:
        """The write requests the current fence refused (0 when not fenced)."""
        return self._gate.refused if self._gate is not None else 0

    async def arequest(self, subject: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        """The decoded answer (every request goes through here); :attr:`last_size` is set to its
        size in bytes just before it returns (read it right after the await: nothing else runs
        in between)."""
        if self._sem is None:
            self._sem = asyncio.Semaphore(self._concurrency)
        payload = json.dumps(body, separators=(",", ":")).encode() if body is not None else b""
        what = subject.split(".")[0].lower()
        # a read lost with the connection is asked again once the client is back (writes are
        # not: the server may have carried them out)
        attempts = 2 if subject.startswith(_READS) else 1
        gate = self._gate if not subject.startswith(_UNFENCED) else None
        async with self._sem:
            if gate is not None:
                await gate.admit()  # the batch's compare-and-set on the lease, when a batch begins
            msg = _answered(await self._asend(subject, payload, gate, attempts, what), what)
        return self._decoded(msg, subject, what)

    async def _asend(
        self, subject: str, payload: bytes, gate: _Gate | None, attempts: int, what: str
    ) -> asyncio.Future[Message]:
        """The request sent (again, up to ``attempts`` times, when the connection went down before
        its answer), done: its answer or its error."""
        for _ in range(attempts):
            await self._connected(what)
            if gate is not None:
                gate.check()  # the lease's deadline, as late as possible (again in _fenced_request)
            self.requests += 1
            down = self._down
            full = f"{self.target.api}.{subject}"
            send = (
                self._fenced_request(full, payload, gate)
                if gate is not None
                else self.nc.request(full, payload, timeout=self.timeout)
            )
            req = asyncio.ensure_future(send)
            racing: set[asyncio.Future[Any]] = {req, down}  # the answer, or the connection going down
            await asyncio.wait(racing, return_when=asyncio.FIRST_COMPLETED)
            if req.done():
                return req
            req.cancel()
            if self._lost.is_set():
                break
        raise JsApiError(f"no answer to {what} request: the connection to the server was lost")

    async def _connected(self, what: str) -> None:
        """Once the client is connected: a cluster's client reconnecting to another server is waited
        for (bounded); a connection lost for good raises."""
        if not self._up.is_set() and not self._lost.is_set():
            try:  # reconnecting to another server of the cluster: wait for it (bounded)
                await asyncio.wait_for(self._up.wait(), self.timeout + RECONNECT_BUDGET)
            except TimeoutError:
                raise JsApiError(
                    f"no answer to {what} request: no server of the cluster took the connection back"
                ) from None
        if self._lost.is_set():
            raise JsApiError("the connection to the server was lost")

    def _decoded(self, msg: Message, subject: str, what: str) -> dict[str, Any]:
        """The answer as a JSON object of the API's shape; the API's error raised as :class:`JsApiError`."""
        try:
            resp = json.loads(msg.data)
        except ValueError:
            raise JsApiError("the server answered with invalid JSON") from None
        if not isinstance(resp, dict):
            raise AnswerError(f"the server's answer to {what} request is not a JSON object")
        _check(resp, ERROR_SHAPE, _label(subject))
        err = resp.get("error")
        if err:
            raise JsApiError(str(err.get("description", "error")), err.get("err_code"), err.get("code"))
        self.last_size = len(msg.data)
        return resp

    async def _fenced_request(self, subject: str, payload: bytes, gate: _Gate) -> Message:
        """One fenced write: the fence's deadline checked, then the request published and written
        to the socket in the same step of the event loop (nats-py would write it at its flusher's
        next turn: a pause in between would hold back a write that passed the check), then its
        answer awaited (nats-py's ``Msg``; a timeout raises as ``nats.errors.TimeoutError``)."""
        import nats.errors

        if not self._reply_prefix:
            prefix = self.nc.new_inbox()

            async def deliver(msg: Message) -> None:
                waiting = self._replies.pop(msg.subject, None)
                if waiting is not None and not waiting.done():
                    waiting.set_result(msg)

            # set before the subscription is made: its SUB goes out on this connection before any request's PUB
            self._replies, self._reply_seq, self._reply_prefix = {}, itertools.count(), prefix
            await self.nc.subscribe(f"{prefix}.*", cb=deliver)
        inbox = f"{self._reply_prefix}.{next(self._reply_seq)}"
        answer: asyncio.Future[Message] = asyncio.get_running_loop().create_future()
        self._replies[inbox] = answer
        try:
            gate.check()  # nothing yields from here until the request is in the socket's buffer
            await self.nc.publish(subject, payload, reply=inbox)
            _write_now(self.nc)
            try:
                msg = await asyncio.wait_for(answer, self.timeout)
            except TimeoutError:
                raise nats.errors.TimeoutError from None
        finally:
            self._replies.pop(inbox, None)
        if msg.headers and msg.headers.get("Status") == "503":
            raise nats.errors.NoRespondersError
        return msg

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

    async def apages(
        self, subject: str, key: str, shape: dict[str, Any]
    ) -> AsyncGenerator[tuple[list[dict[str, Any]], list[str]], None]:
        """The pages of a paged list, in order, as they arrive: each page's items (their shapes
        checked) and the names a cluster reported missing. Once the first page tells the total,
        the next pages are requested ahead (up to :data:`PAGE_WINDOW` in flight, fewer when the
        pages are large), so that the server works on the next page while the caller handles this
        one. Within :data:`MAX_LIST_PAGES` pages, :data:`MAX_LIST_ITEMS` items and
        :data:`MAX_LIST_BYTES` bytes (counting the pages in flight), else :class:`AnswerError`; a page
        whose total is beyond :data:`MAX_LIST_ITEMS` is refused before its items are handed on, so a
        list that says it never ends costs every caller (plan's read, audit's, which does more per
        stream) the same one page."""
        what = _label(subject)
        count = size = pages = 0
        ahead: deque[tuple[int, asyncio.Future[tuple[dict[str, Any], int]]]] = deque()

        async def one(offset: int) -> tuple[dict[str, Any], int]:
            resp = await self.arequest(subject, {"offset": offset})
            return resp, self.last_size  # this request's: nothing ran in between

        def request(offset: int) -> None:
            ahead.append((offset, asyncio.ensure_future(one(offset))))

        request(0)
        try:
            while ahead:
                offset, task = ahead.popleft()
                resp, nbytes = await task
                pages += 1
                size += nbytes
                page, missing, total = _page(resp, key, shape, what, offset)
                count += len(page)
                end = offset + len(page) + len(missing)
                if page and end < total:
                    _more_allowed(what, pages, count, size)
                    # the pages still to come, as far as this answer tells (each holds as many entries as
                    # this one), asked for before the caller handles this page: their requests go first
                    step = len(page) + len(missing)
                    window = max(1, min(PAGE_WINDOW, (MAX_LIST_BYTES - size) // max(nbytes, 1)))
                    nxt = ahead[-1][0] + step if ahead else end
                    while len(ahead) < window and nxt < total and pages + len(ahead) < MAX_LIST_PAGES:
                        request(nxt)
                        nxt += step
                yield page, missing
                if not page or end >= total:
                    return
        finally:
            for _, task in ahead:
                task.cancel()
            await asyncio.gather(
                *(task for _, task in ahead), return_exceptions=True
            )  # ended before the caller goes on

    async def _alist(self, subject: str, key: str, shape: dict[str, Any]) -> tuple[list[dict[str, Any]], list[str]]:
        """Every item of a paged list (and the names a cluster reported missing): :meth:`apages` collected."""
        out: list[dict[str, Any]] = []
        missing: list[str] = []
        async with contextlib.aclosing(self.apages(subject, key, shape)) as pages:
            async for page, gone in pages:
                out.extend(page)
                missing.extend(gone)
        return out, missing

    def astream_pages(self) -> AsyncGenerator[tuple[list[dict[str, Any]], list[str]], None]:
        """The ``STREAM.LIST`` pages as they arrive (:meth:`apages`): StreamInfos and missing names."""
        return self.apages("STREAM.LIST", "streams", info_shape("StreamConfig"))

    async def alist_streams(self) -> tuple[list[dict[str, Any]], list[str]]:
        """Every StreamInfo via ``STREAM.LIST`` pages, and the names a cluster reported missing
        (streams whose leader did not answer in time)."""
        return await self._alist("STREAM.LIST", "streams", info_shape("StreamConfig"))

    async def alist_consumers(self, stream: str) -> list[dict[str, Any]]:
        """Every ConsumerInfo of ``stream`` via ``CONSUMER.LIST.<stream>`` pages."""
        return (await self._alist(f"CONSUMER.LIST.{stream}", "consumers", info_shape("ConsumerConfig")))[0]

    # -- writes ----------------------------------------------------------------------------------

    async def acreate_stream(self, config: dict[str, Any]) -> dict[str, Any]:
        return await self.arequest(f"STREAM.CREATE.{config['name']}", config)

    async def aupdate_stream(self, config: dict[str, Any]) -> dict[str, Any]:
        return await self.arequest(f"STREAM.UPDATE.{config['name']}", config)

    async def adelete_stream(self, name: str) -> dict[str, Any]:
        return await self.arequest(f"STREAM.DELETE.{name}")

    async def astream_info(self, name: str) -> dict[str, Any]:
        info = await self.arequest(f"STREAM.INFO.{name}")
        _check(info, info_shape("StreamConfig"), "STREAM.INFO")
        return info

    async def aput_consumer(self, stream: str, config: dict[str, Any], action: str = "") -> dict[str, Any]:
        name = config.get("durable_name") or config.get("name")
        body: dict[str, Any] = {"stream_name": stream, "config": config}
        if action:
            body["action"] = action
        return await self.arequest(f"CONSUMER.CREATE.{stream}.{name}", body)

    async def adelete_consumer(self, stream: str, name: str) -> dict[str, Any]:
        return await self.arequest(f"CONSUMER.DELETE.{stream}.{name}")

    async def aconsumer_info(self, stream: str, name: str) -> dict[str, Any]:
        info = await self.arequest(f"CONSUMER.INFO.{stream}.{name}")
        _check(info, info_shape("ConsumerConfig"), "CONSUMER.INFO")
        return info

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


async def _info_checked(nc: Connection, target: Target) -> Connection:
    """``nc`` once the INFO its server sent is of the declared shape (:data:`answers.SERVER_INFO`), checked
    before any request (nats-py itself trips over some odd types: a string ``max_payload``); else it is
    closed and :class:`TargetError` names the key and the type expected."""
    problem = server_info_problem(getattr(nc, "_server_info", None))
    if problem:
        with contextlib.suppress(Exception):
            await nc.close()
        raise TargetError(f"{target.display()}: {problem}")
    return nc


def _page(
    resp: dict[str, Any], key: str, shape: dict[str, Any], what: str, offset: int
) -> tuple[list[dict[str, Any]], list[str], int]:
    """A page's items (their shapes checked), the names a cluster reported missing, and the total
    it announces (refused beyond :data:`MAX_LIST_ITEMS`: told before any of it reaches the caller,
    whatever it does per item)."""
    _check(resp, list_page(key), what)
    page = resp.get(key) or []
    for i, item in enumerate(page):
        _check(item, shape, f"{what} ({key}[{i}] at offset {offset})")
    missing = resp.get("missing") or []
    total = resp.get("total") or 0
    if total > MAX_LIST_ITEMS:
        raise AnswerError(
            f"the server's {what} announces {total} items, more than the {MAX_LIST_ITEMS} jsops reads; jsops reads no more (a server whose list never ends?)"
        )
    return page, missing, total


def _more_allowed(what: str, pages: int, count: int, size: int) -> None:
    """Raise :class:`AnswerError` when a listing that is not over has reached a bound."""
    if pages >= MAX_LIST_PAGES:
        raise AnswerError(
            f"the server's {what} did not end after {MAX_LIST_PAGES} pages ({count} items); jsops reads no more (a server whose list never ends?)"
        )
    if count > MAX_LIST_ITEMS or size > MAX_LIST_BYTES:
        raise AnswerError(
            f"the server's {what} did not end after {count} items ({size} bytes, bounds {MAX_LIST_ITEMS} items, {MAX_LIST_BYTES} bytes); jsops reads no more"
        )


def _answered(req: asyncio.Future[Message], what: str) -> Message:
    """The answer of a request that is done; its error as :class:`JsApiError` (no responders:
    :class:`JetStreamDisabled`), a refused fence's :class:`LeaseLost` as it is."""
    try:
        return req.result()
    except LeaseLost:
        raise
    except Exception as exc:
        import nats.errors

        if isinstance(exc, nats.errors.NoRespondersError):
            raise JetStreamDisabled() from None
        raise JsApiError(f"no answer to {what} request: {_describe(exc)}") from None


def _write_now(nc: Connection) -> None:
    """Write what nats-py has queued for the socket now, as nats-py itself does when its flusher
    task is gone (its flusher would do it at its next turn of the event loop). With a nats-py
    that keeps its queue elsewhere this does nothing, and the flusher writes it as before."""
    transport, pending = getattr(nc, "_transport", None), getattr(nc, "_pending", None)
    if transport is None or not isinstance(pending, list) or not pending or not nc.is_connected:
        return
    transport.writelines(pending[:])
    nc._pending = []
    nc._pending_data_size = 0


def _label(subject: str) -> str:
    """The API request without the names in it: ``STREAM.LIST``, ``CONSUMER.INFO``, ``INFO``."""
    tokens = subject.split(".")
    return ".".join(tokens[:2]) if tokens[0] in ("STREAM", "CONSUMER") and len(tokens) > 1 else tokens[0]


def _describe(exc: BaseException) -> str:
    text = str(exc).strip()
    name = type(exc).__name__
    if not text or text == name:
        return {
            "TimeoutError": "timed out",
            "NoServersError": "no servers available",
            "NoRespondersError": "no responders (is JetStream enabled?)",
        }.get(name, name)
    return text.splitlines()[0][:300]
