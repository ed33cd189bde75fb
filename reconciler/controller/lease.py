"""Leader election for controllers sharing a target: a lease key in a JetStream KV bucket.

The bucket's ``max_age`` is the lease TTL: a key that is not rewritten within the TTL expires.
A candidate takes the lease with a create (succeeds only if the key does not exist); the holder
renews it every TTL/3 with an update that names the revision it last wrote (fails if anybody else
wrote since). The holder counts itself leader only until ``TTL * SAFETY`` after the moment it sent
its last successful write, so its belief always ends before the server can expire the key and let
another controller in. On shutdown the holder deletes the key so that a follower takes over at once.

The lease runs on its own thread with its own connection, so renewals go on during long rounds.

A holder's writes are fenced (:meth:`Lease.fence`, :mod:`jsops.reconciler.client.fence`): each
batch of writes begins with a renewal made by the apply path (the compare-and-set), and each write
checks the term's deadline right before it is sent. A term begins with the create that took the
lease and ends when a renewal is refused, the deadline passes, or the lease is released; a fence
belongs to one term and never opens again.
"""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from collections.abc import Callable

from ..client import Fence, JsClient, KvBucket, Target, WrongRevision

__all__ = ["Lease", "DEFAULT_BUCKET", "DEFAULT_KEY"]

DEFAULT_BUCKET = "JSOPS_CONTROLLER"
DEFAULT_KEY = "leader"
SAFETY = 0.8


class Lease(threading.Thread):
    def __init__(
        self,
        target: Target,
        *,
        ttl: float,
        bucket: str = DEFAULT_BUCKET,
        key: str = DEFAULT_KEY,
        identity: str | None = None,
        emit: Callable[..., None] | None = None,
        on_error: Callable[[str, BaseException], None] | None = None,
    ) -> None:
        super().__init__(name="jsops-lease", daemon=True)
        self.target = target
        self.ttl = ttl
        self.bucket = bucket
        self.key = key
        self.identity = identity or f"{socket.gethostname()}:{os.getpid()}"
        self._emit = emit or (lambda *a, **k: None)
        self._on_error = on_error or (lambda kind, exc: None)
        self._halt = threading.Event()
        self.attempted = threading.Event()  # set after the first try to take the lease (won or not)
        self._lock = threading.Lock()  # the state below
        self._io = threading.Lock()  # the connection: one request on it at a time (the thread's, or a fence's)
        self._valid_until = 0.0
        self._revision = 0
        self._term = 0  # counts the creates that took the lease
        self._client: JsClient | None = None
        self._kv: KvBucket | None = None
        self.holder: str | None = None

    # -- what the controller asks ------------------------------------------------------------------

    def held(self, margin: float = 0.0) -> bool:
        """True while this controller holds the lease (with at least ``margin`` seconds left)."""
        with self._lock:
            return self._revision > 0 and time.monotonic() + margin < self._valid_until

    def fence(self, batch: int = 64) -> Fence:
        """The fence for writes made in the current term (:mod:`jsops.reconciler.client.fence`):
        its deadline is this term's (0 once the term is over), its compare-and-set a renewal that
        names the revision this controller last wrote. Taken when the lease is not held, it refuses
        every write."""
        with self._lock:
            term = self._term if self._revision else -1

        def deadline() -> float:
            with self._lock:
                return self._valid_until if self._term == term and self._revision else 0.0

        return Fence(deadline=deadline, confirm=lambda: self._confirm(term), batch=batch)

    def _confirm(self, term: int) -> bool:
        """A renewal for a fence of ``term``: True when the server took it (the term goes on)."""
        with self._io:
            with self._lock:
                revision = self._revision if self._term == term else 0
            if not revision:
                return False
            if self._client is None or self._kv is None or self._client.connection_lost:
                raise ConnectionError("the lease's connection is down")
            sent = time.monotonic()
            try:
                new = self._client.run(self._kv.update(self.key, self._value(), last=revision))
            except WrongRevision:
                with self._lock:
                    if self._term == term:
                        self._revision, self._valid_until = 0, 0.0
                return False
            with self._lock:
                if self._term != term or self._revision != revision:
                    return False
                self._revision = new
                self._valid_until = sent + self.ttl * SAFETY
            return True

    def stop(self, timeout: float = 5.0) -> None:
        self._halt.set()
        self.join(timeout)

    # -- the thread --------------------------------------------------------------------------------

    def run(self) -> None:
        was_leader = False
        try:
            while not self._halt.is_set():
                with self._io:
                    try:
                        self._step()
                    except Exception as exc:  # connection trouble: drop the connection, try again next tick
                        self._on_error("lease", exc)
                        self._drop()
                self.attempted.set()
                leader = self.held()
                if leader != was_leader:
                    self._emit(
                        "leader_acquired" if leader else "leader_lost",
                        identity=self.identity,
                        bucket=self.bucket,
                        key=self.key,
                    )
                    was_leader = leader
                self._halt.wait(max(0.05, self.ttl / 3 if leader else self.ttl / 4))
        finally:
            with self._io:
                self._release()
                self._drop()
            if was_leader:
                self._emit("leader_released", identity=self.identity)

    def _connect(self) -> tuple[JsClient, KvBucket]:
        if self._client is not None and self._client.connection_lost:
            self._drop()
        if self._client is None:
            self._client = JsClient(self.target)
        if self._kv is None:
            self._kv = self._client.run(
                self._client.akey_value(self.bucket, ttl=self.ttl, description="jsops controller leader lease")
            )
            if self._kv.max_age > 0:
                self.ttl = self._kv.max_age  # the bucket's max_age decides, whatever this controller was told
        return self._client, self._kv

    def _value(self) -> bytes:
        return json.dumps({"holder": self.identity, "ttl": self.ttl, "at": time.time()}).encode()

    def _step(self) -> None:
        client, kv = self._connect()
        sent = time.monotonic()
        with self._lock:
            revision = self._revision
        try:
            if revision:
                new = client.run(kv.update(self.key, self._value(), last=revision))
            else:
                new = client.run(kv.create(self.key, self._value()))
        except WrongRevision:
            with self._lock:
                self._revision = 0
                self._valid_until = 0.0
            self.holder = self._read_holder()
            return
        with self._lock:
            if not revision:
                self._term += 1
            self._revision = new
            self._valid_until = sent + self.ttl * SAFETY
        self.holder = self.identity

    def _read_holder(self) -> str | None:
        if self._client is None or self._kv is None:
            return None
        try:
            value = self._client.run(self._kv.get(self.key))
            return str(json.loads(value or b"{}").get("holder") or "") or None
        except Exception:
            return None

    def _release(self) -> None:
        with self._lock:
            revision, self._revision, self._valid_until = self._revision, 0, 0.0
        if not revision or self._kv is None or self._client is None or self._client.connection_lost:
            return
        try:
            self._client.run(self._kv.delete(self.key, last=revision))
        except Exception:
            pass  # somebody else wrote since, or the server is gone: the key expires anyway

    def _drop(self) -> None:
        if self._client is not None:
            try:
                self._client.close()
            except Exception:
                pass
        self._client = None
        self._kv = None
