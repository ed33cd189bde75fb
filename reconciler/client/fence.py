"""The fence a lease holder's writes pass through: a leader that lost its lease sends no write.

A :class:`Fence` is what a lease holder hands to the apply path (the controller's lease makes one:
``jsops.reconciler.controller.lease``). While a client is fenced (:meth:`JsClient.fenced`), every
JetStream API request that may change something (every request but the reads) passes two checks:

- **the batch's compare-and-set**: before the first write of each batch of :attr:`Fence.batch`
  writes (the request window), :attr:`Fence.confirm` rewrites the lease key naming the revision the
  holder last wrote; the server refuses it when anybody else wrote the key since (a new leader),
  and then no write of the batch is sent;
- **the deadline**: right before each write is handed to the connection, in the same step of the
  event loop that writes it to the socket, the lease's deadline (:attr:`Fence.deadline`, on the
  monotonic clock) must still be ahead. A controller paused past its lease (SIGSTOP, a long GC, a
  stalled disk) finds it passed when it resumes, whatever it was doing when it was paused.

A refused write raises :class:`LeaseLost`; so does every later one (the fence stays closed).
What cannot be fenced: requests handed to the connection before the pause (at most the request
window); the server answers them while the holder is paused, before the lease can expire.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass

from ..errors import PermanentError

__all__ = ["Fence", "LeaseLost"]


class LeaseLost(PermanentError):
    """A write was refused by the fence: the lease's deadline passed, or the compare-and-set on the
    lease key failed (another controller wrote it since)."""


@dataclass(frozen=True)
class Fence:
    """One lease term's fence.

    ``deadline``: the monotonic instant (:func:`time.monotonic`) until which the holder may write in
    this term (0 or less: the term is over). ``confirm``: the compare-and-set on the lease key
    (blocking; called on a worker thread): True when the server took it, so the term goes on.
    ``batch``: the writes admitted per compare-and-set (the request window)."""

    deadline: Callable[[], float]
    confirm: Callable[[], bool]
    batch: int = 64

    def __post_init__(self) -> None:
        if self.batch < 1:
            raise ValueError("a fence's batch is at least one write")


class _Gate:
    """One fenced run of a client: the writes admitted since the last compare-and-set, and whether
    the fence has closed (for good: a term does not come back)."""

    def __init__(self, fence: Fence) -> None:
        self.fence = fence
        self.admitted = 0  # writes admitted since the last compare-and-set
        self.refused = 0  # writes refused (the number of requests the fence stopped)
        self.closed: str | None = None  # why, once closed
        self._confirming: asyncio.Lock | None = None

    def _close(self, why: str) -> LeaseLost:
        if self.closed is None:
            self.closed = why
        self.refused += 1
        return LeaseLost(f"lease lost: {self.closed}; the write was not sent")

    async def admit(self) -> None:
        """Before a write takes a place in the request window: the batch's compare-and-set when a
        batch begins (the other writes wait for it)."""
        if self._confirming is None:
            self._confirming = asyncio.Lock()
        async with self._confirming:
            if self.closed is not None:
                raise self._close(self.closed)
            if self.admitted % self.fence.batch == 0:
                try:
                    held = await asyncio.to_thread(self.fence.confirm)
                except Exception as exc:  # no answer from the server: the term cannot be confirmed
                    raise self._close(f"the lease could not be confirmed ({type(exc).__name__}: {exc})") from None
                if not held:
                    raise self._close("another controller holds the lease (its compare-and-set was refused)")
            self.admitted += 1

    def check(self) -> None:
        """Right before the write is handed to the connection: the deadline is still ahead."""
        if self.closed is not None:
            raise self._close(self.closed)
        deadline = self.fence.deadline()
        if deadline <= 0:
            raise self._close("the term ended (a renewal was refused or the lease released)")
        late = time.monotonic() - deadline
        if late >= 0:
            raise self._close(f"its deadline passed {late:.1f}s ago")
