"""The controller's own subscription to its target's API audit advisories (``--advisory-subscription``,
docs/drift.md): attribution without a record stream, for the changes made while it runs.

The server publishes an ``api_audit`` advisory on ``$JS.EVENT.ADVISORY.API`` in the account of each
JetStream API request, so a connection of the target's account hears that account's changes (each
target, each account, its own). The subscription has a connection of its own, on a thread with its
own event loop: the controller's connection is idle between rounds, and a subscriber that does not
read is cut off by the server as a slow consumer. Only writes are kept (the newest :data:`KEEP`),
newest first (:class:`jsops.reconciler.drift.Heard`).

What was heard counts only from when the subscription is known to work: once subscribed, the
listener asks ``$JS.API.INFO`` itself and waits for that request's own advisory (a user without
permission to subscribe hears nothing, and then nothing is claimed). A gap in the connection
starts it over: what was heard before is dropped, since changes made meanwhile were missed.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections import deque
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from ..client import CLIENT_NAME
from ..drift import ADVISORY_SUBJECT, Advisory, Heard, parse_advisory

if TYPE_CHECKING:
    from ..client import ConnectOptions, Target
    from ..client.connection import Connection, Message

__all__ = ["KEEP", "Listener"]

KEEP = 10_000  # write advisories kept (the oldest go first)
_CHECK = 10.0  # seconds to wait for the listener's own INFO advisory


class Listener:
    """A subscription to one target's advisories, on a thread of its own (:meth:`close` ends it)."""

    def __init__(self, target: Target, *, keep: int = KEEP) -> None:
        self.target = target
        self._writes: deque[Advisory] = deque(maxlen=keep)
        self._since: datetime | None = None  # None: not hearing every advisory now
        self._dropped = False  # the oldest were dropped: what is kept reaches back to its oldest
        self._lock = threading.Lock()
        self._probe: asyncio.Event | None = None
        self._nc: Connection | None = None
        self._loop = asyncio.new_event_loop()
        self._stop = asyncio.Event()  # set from close(), on the listener's loop
        self.failed: str | None = None  # why it does not hear (for the event log), None while it does or starts
        self._thread = threading.Thread(target=self._run, name="jsops-advisories", daemon=True)
        self._thread.start()

    def heard(self) -> Heard | None:
        """The write advisories heard (newest first) and since when every one was, or None while the
        subscription does not hear every advisory (starting, not permitted, in a gap)."""
        with self._lock:
            if self._since is None:
                return None
            writes = sorted(self._writes, key=lambda a: a.at, reverse=True)
            since = writes[-1].at if self._dropped and writes else self._since
        return Heard(tuple(writes), since)

    @property
    def alive(self) -> bool:
        """False once the subscription ended for good (it could not connect): make another."""
        return self._thread.is_alive()

    def close(self) -> None:
        if not self._loop.is_closed():
            with contextlib.suppress(RuntimeError):  # closed meanwhile
                self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(10)

    # -- the thread ---------------------------------------------------------------------------------

    def _run(self) -> None:
        try:
            self._loop.run_until_complete(self._main())
        except Exception as exc:  # nats-py raises many kinds: the controller goes on without it
            self.failed = f"cannot subscribe: {self.target.scrub(type(exc).__name__ + ': ' + str(exc))}"
            with self._lock:
                self._since = None
        finally:
            self._loop.close()

    async def _main(self) -> None:
        from ..client.connection import aconnect

        self._probe = asyncio.Event()
        options: ConnectOptions = {
            **self.target.connect_options(),
            "name": CLIENT_NAME,
            "allow_reconnect": True,
            "max_reconnect_attempts": -1,
            "reconnect_time_wait": 1.0,
            "disconnected_cb": self._gap,
            "reconnected_cb": self._back,
            "error_cb": self._error,
            "pending_size": 8 * 1024 * 1024,
        }
        connecting = asyncio.ensure_future(aconnect(**options))
        stopping = asyncio.ensure_future(self._stop.wait())
        await asyncio.wait({connecting, stopping}, return_when=asyncio.FIRST_COMPLETED)
        if not connecting.done():  # closed while connecting (nats-py retries an unreachable server)
            connecting.cancel()
            with contextlib.suppress(BaseException):
                await connecting
            return
        stopping.cancel()
        nc = connecting.result()
        self._nc = nc
        try:
            await nc.subscribe(ADVISORY_SUBJECT, cb=self._take, pending_msgs_limit=-1, pending_bytes_limit=-1)
            await nc.flush()
            await self._check(nc)
            await self._stop.wait()
        finally:
            await nc.close()

    async def _check(self, nc: Connection) -> None:
        """Hear an advisory (its own request's, at least), then count from the subscription's start."""
        start = datetime.now(UTC)
        assert self._probe is not None
        self._probe.clear()
        await nc.request("$JS.API.INFO", b"", timeout=5)
        try:
            await asyncio.wait_for(self._probe.wait(), _CHECK)
        except TimeoutError:
            self.failed = "no advisory of its own request arrived: not permitted to subscribe?"
            return
        with self._lock:
            self._since, self._dropped = start, False
            self._writes.clear()
        self.failed = None

    async def _take(self, msg: Message) -> None:
        adv = parse_advisory(msg.data)
        if adv is None:
            return
        if self._probe is not None:
            self._probe.set()  # an advisory arrived: the subscription works
        if adv.call is None:  # a read
            return
        if adv.refused:
            return
        with self._lock:
            if len(self._writes) == self._writes.maxlen:
                self._dropped = True
            self._writes.append(adv)

    async def _gap(self) -> None:
        with self._lock:
            self._since = None
            self._writes.clear()

    async def _back(self) -> None:
        if self._nc is not None:  # nats-py subscribes again on reconnect: count again from a checked start
            self._loop.create_task(self._check(self._nc))

    async def _error(self, exc: Exception) -> None:
        return None  # a refused subscription is told by the check; reconnects are nats-py's
