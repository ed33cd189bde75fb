"""The controller's notices: events sent to the receivers of the operator's config (``notices:``).

The event log is the one seam (:meth:`jsops.reconciler.controller.events.EventLog.subscribe`): each
record is classified (:mod:`jsops.reconciler.controller.notice_events`) on the thread that logged
it, which only appends the notices to each receiver's queue. Every receiver has its own sender
thread, so a slow or dead receiver delays neither the reconcile rounds nor the other receivers:

- the queue is bounded (``notices.queue``): when it is full, the oldest waiting notice is dropped
  and counted (``jsops_controller_notices_total{result="dropped"}``);
- a send that fails (no connection, a timeout, HTTP 408, 429 or 5xx) is tried again with the same
  id after an exponential backoff with jitter (``backoff`` doubling up to ``max_backoff``), up to
  ``attempts`` sends; another answer (400, 401, 404, ...) or the last attempt gives it up
  (``result="failed"``, event ``notice_failed``);
- each request has ``timeout`` seconds to connect and to be answered.

The receivers' URLs and tokens are read once, at start, from their files (or variables), and are
blanked out of the event log.
"""

from __future__ import annotations

import random
import threading
import time
import urllib.error
import urllib.request
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from ..errors import PermanentError
from .notice_events import NOTICE_TYPES, Classifier, Notice
from .notice_payloads import FORMATS, Format, payload

__all__ = ["NoticeError", "Notifier", "NOTICE_TYPES"]

_RETRIED_STATUS = frozenset({408, 425, 429})


class NoticeError(PermanentError):
    """The notices' configuration cannot be used (an unreadable secret, an unknown notice type)."""


class _Secret(Protocol):
    def read(self, root: str = ".") -> str: ...


class _ReceiverSpec(Protocol):
    name: str
    format: str
    url: _Secret
    token: _Secret | None
    events: list[str] | None
    timeout: float


class _Metrics(Protocol):
    def inc(self, name: str, *labels: str, by: float = 1.0) -> None: ...

    def set(self, name: str, value: float, *labels: str) -> None: ...


class _NoticesSpec(Protocol):
    receivers: Sequence[_ReceiverSpec]
    queue: int
    attempts: int
    backoff: float
    max_backoff: float


def _read_secret(ref: _Secret, where: str, root: str) -> str:
    try:
        return ref.read(root)
    except ValueError as exc:
        raise NoticeError(f"{where}: {exc}") from None


class _Receiver:
    """One receiver: its queue and its sender thread."""

    def __init__(self, spec: _ReceiverSpec, notifier: Notifier, root: str) -> None:
        where = f"notices.receivers.{spec.name}"
        if spec.format not in FORMATS:
            raise NoticeError(f"{where}.format: {spec.format!r} is not one of {', '.join(FORMATS)}")
        unknown = sorted(set(spec.events or ()) - set(NOTICE_TYPES))
        if unknown:
            raise NoticeError(f"{where}.events: unknown notice type {unknown[0]!r} (known: {', '.join(NOTICE_TYPES)})")
        self.name = spec.name
        self.format: Format = spec.format
        self.url = _read_secret(spec.url, f"{where}.url", root)
        if not self.url.startswith(("http://", "https://")):
            raise NoticeError(f"{where}.url: the file holds no http:// or https:// URL")
        self.token = _read_secret(spec.token, f"{where}.token", root) if spec.token is not None else None
        self.events = frozenset(spec.events) if spec.events is not None else frozenset(NOTICE_TYPES)
        self.timeout = spec.timeout
        self._n = notifier
        self._queue: deque[Notice] = deque()
        self._cond = threading.Condition()
        self._busy = False
        self._thread = threading.Thread(target=self._work, name=f"jsops-notices-{spec.name}", daemon=True)

    def secrets(self) -> list[str]:
        return [s for s in (self.url, self.token) if s]

    def put(self, notice: Notice) -> None:
        with self._cond:
            if len(self._queue) >= self._n.queue:
                self._queue.popleft()
                self._n.metrics.inc("notices_total", self.name, "dropped")
            self._queue.append(notice)
            self._gauge()
            self._cond.notify()

    def _gauge(self) -> None:
        self._n.metrics.set("notices_queued", len(self._queue) + (1 if self._busy else 0), self.name)

    def idle(self) -> bool:
        with self._cond:
            return not self._queue and not self._busy

    def _work(self) -> None:
        while True:
            with self._cond:
                while not self._queue and not self._n.stopping.is_set():
                    self._cond.wait()
                if self._n.stopping.is_set():
                    return
                notice = self._queue.popleft()
                self._busy = True
            try:
                self._deliver(notice)
            finally:
                with self._cond:
                    self._busy = False
                    self._gauge()

    def _deliver(self, notice: Notice) -> None:
        n = self._n
        for attempt in range(1, n.attempts + 1):
            retry, reason = self._send(notice)
            if reason is None:
                n.metrics.inc("notices_total", self.name, "sent")
                return
            if not retry or attempt == n.attempts:
                break
            ceiling = min(n.max_backoff, n.backoff * 2 ** (attempt - 1))
            if n.stopping.wait(random.uniform(ceiling / 2, ceiling)):
                break
        n.metrics.inc("notices_total", self.name, "failed")
        n.log("notice_failed", receiver=self.name, id=notice.id, type=notice.type, attempts=attempt, reason=reason)

    def _send(self, notice: Notice) -> tuple[bool, str | None]:
        """One attempt: (whether a failure is worth a retry, why it failed; None: sent)."""
        body, headers = payload(notice, self.format, identity=self._n.identity, estate=self._n.estate)
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        request = urllib.request.Request(self.url, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as answer:
                answer.read(65536)
            return False, None
        except urllib.error.HTTPError as exc:
            exc.close()
            return exc.code in _RETRIED_STATUS or exc.code >= 500, f"HTTP {exc.code}"
        except (urllib.error.URLError, OSError, ValueError) as exc:
            why = getattr(exc, "reason", None) or exc
            return True, f"{type(exc).__name__}: {why}"


class Notifier:
    """Classifies the controller's events and queues the notices for every receiver that wants
    them. :meth:`observe` is the event log's listener; :meth:`close` stops the senders."""

    def __init__(
        self,
        spec: _NoticesSpec,
        *,
        log: Callable[..., None],
        metrics: _Metrics,
        leads: Callable[[str | None], bool],
        identity: str,
        estate: str | None = None,
        root: str = ".",
    ) -> None:
        self.log = log
        self.metrics = metrics
        self.identity = identity
        self.estate = estate
        self.queue = spec.queue
        self.attempts = spec.attempts
        self.backoff = spec.backoff
        self.max_backoff = max(spec.max_backoff, spec.backoff)
        self.stopping = threading.Event()
        self.classifier = Classifier(leads)
        names = [r.name for r in spec.receivers]
        twice = next((n for n in names if names.count(n) > 1), None)
        if twice is not None:
            raise NoticeError(f"notices.receivers: the name {twice!r} is given twice")
        self.receivers = [_Receiver(r, self, root) for r in spec.receivers]
        for r in self.receivers:
            metrics.set("notices_queued", 0, r.name)
            r._thread.start()

    def secrets(self) -> list[str]:
        return [s for r in self.receivers for s in r.secrets()]

    def observe(self, record: Mapping[str, Any]) -> None:
        for notice in self.classifier.observe(record):
            for r in self.receivers:
                if notice.type in r.events:
                    r.put(notice)

    def close(self, grace: float = 2.0) -> None:
        """Stop the senders: what is queued is sent for at most ``grace`` seconds, the rest is left."""
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline and not all(r.idle() for r in self.receivers):
            time.sleep(0.02)
        self.stopping.set()
        for r in self.receivers:
            with r._cond:
                r._cond.notify_all()
        for r in self.receivers:
            r._thread.join(max(0.0, deadline - time.monotonic()) + 0.1)
