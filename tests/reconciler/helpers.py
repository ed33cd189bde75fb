"""Helpers for reconciler tests: a small synchronous JetStream client and in-process CLI runs."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import re
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import nats
import nats.errors
from natsserver import NatsCluster, NatsServer

# Reads asked again through a leader election, and the answers that mean one is going on.
_READS = (
    "$JS.API.INFO",
    "$JS.API.STREAM.INFO.",
    "$JS.API.STREAM.NAMES",
    "$JS.API.STREAM.LIST",
    "$JS.API.CONSUMER.INFO.",
    "$JS.API.CONSUMER.NAMES.",
    "$JS.API.CONSUMER.LIST.",
)
ELECTION_CODES = (10008, 10009)  # cluster unavailable (no meta leader), not the leader
ELECTION_PATIENCE = 60.0  # seconds a read waits for a leader

__all__ = ["ApiAudit", "Js", "run", "manifest", "writes", "WRITES", "NatsServer", "NatsCluster"]


class Js:
    """Raw JetStream API requests over one connection (what an operator would do by hand)."""

    def __init__(self, url: str, **opts: Any) -> None:
        self.loop = asyncio.new_event_loop()
        self.nc = self.loop.run_until_complete(
            nats.connect(url.split(","), connect_timeout=5, max_reconnect_attempts=0, **opts)
        )

    def request(
        self, subject: str, body: dict[str, Any] | None = None, *, patience: float = ELECTION_PATIENCE
    ) -> dict[str, Any]:
        """One API request; a read is asked again through a leader election (no answer in time, or
        10008/10009: nothing was done) for up to ``patience`` seconds, so that a test on a loaded
        machine does not fail while a cluster elects a leader."""
        payload = json.dumps(body).encode() if body is not None else b""
        read = subject.startswith(_READS)
        deadline = time.monotonic() + patience
        while True:
            try:
                msg = self.loop.run_until_complete(self.nc.request(subject, payload, timeout=10))
            except (nats.errors.TimeoutError, nats.errors.NoRespondersError):
                if not read or time.monotonic() > deadline:
                    raise
                time.sleep(0.5)
                continue
            answer: dict[str, Any] = json.loads(msg.data)
            code = (answer.get("error") or {}).get("err_code") if isinstance(answer.get("error"), dict) else None
            if read and code in ELECTION_CODES and time.monotonic() < deadline:
                time.sleep(0.5)
                continue
            return answer

    def ok(self, subject: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        resp = self.request(subject, body)
        assert "error" not in resp, resp["error"]
        return resp

    def stream(self, name: str) -> dict[str, Any] | None:
        resp = self.request(f"$JS.API.STREAM.INFO.{name}")
        return None if "error" in resp else resp

    def consumer(self, stream: str, name: str) -> dict[str, Any] | None:
        resp = self.request(f"$JS.API.CONSUMER.INFO.{stream}.{name}")
        return None if "error" in resp else resp

    def streams(self) -> list[str]:
        return sorted(self.ok("$JS.API.STREAM.NAMES", {}).get("streams") or [])

    def publish(self, subject: str, count: int = 1) -> None:
        async def go() -> None:
            for i in range(count):
                ack = await self.nc.request(subject, f"m{i}".encode(), timeout=5)
                assert "error" not in json.loads(ack.data)

        self.loop.run_until_complete(go())

    def fetch_ack(self, stream: str, consumer: str, count: int) -> list[int]:
        """Pull ``count`` messages and ack them; returns their stream sequences."""

        async def go() -> list[int]:
            inbox = self.nc.new_inbox()
            sub = await self.nc.subscribe(inbox)
            await self.nc.publish(
                f"$JS.API.CONSUMER.MSG.NEXT.{stream}.{consumer}",
                json.dumps({"batch": count, "expires": 2_000_000_000}).encode(),
                reply=inbox,
            )
            seqs: list[int] = []
            while len(seqs) < count:
                msg = await sub.next_msg(timeout=5)
                if not msg.reply:
                    continue
                seqs.append(int(msg.reply.split(".")[-4]))
                await self.nc.request(msg.reply, b"+ACK", timeout=5)
            await sub.unsubscribe()
            return seqs

        return self.loop.run_until_complete(go())

    def close(self) -> None:
        try:
            self.loop.run_until_complete(self.nc.close())
        finally:
            self.loop.close()


def run(command: str, *args: str) -> tuple[int, str, str]:
    """Run ``jsops <command> args`` in-process; returns (exit code, stdout, stderr)."""
    from jsops.reconciler.audit.cli import main as audit_main
    from jsops.reconciler.cli.commands import apply_main, export_main, plan_main

    fn = {"plan": plan_main, "apply": apply_main, "export": export_main, "audit": audit_main}[command]
    if command == "plan" and "--no-detailed-exitcode" not in args:
        # tests tell "changes" (2) from "none" (0), as CI gates do; the default (0 either way) is
        # tested with --no-detailed-exitcode, which this helper strips
        args = ("--detailed-exitcode", *args)
    args = tuple(a for a in args if a != "--no-detailed-exitcode")
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = fn(list(args))
    return rc, out.getvalue(), err.getvalue()


# The JetStream API requests that change something (what "before any request" counts).
WRITES = (
    "STREAM.CREATE.",
    "STREAM.UPDATE.",
    "STREAM.DELETE.",
    "CONSUMER.CREATE.",
    "CONSUMER.DELETE.",
    "CONSUMER.DURABLE.",
)


def writes(subjects: list[str]) -> list[str]:
    """The requests of ``subjects`` (the ``sent`` fixture's) that change something."""
    return [s for s in subjects if s.startswith(WRITES)]


def manifest(directory: Path, name: str, text: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text(textwrap.dedent(text).lstrip())
    return path


def free_port_url() -> str:
    """A URL nothing listens on."""
    from natsserver import free_port

    return f"nats://127.0.0.1:{free_port()}"


_STAMP = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?Z$")


def _nanos(stamp: str) -> int:
    """An advisory's RFC 3339 UTC timestamp (Go trims trailing zeros of the fraction) in ns."""
    import datetime

    m = _STAMP.match(stamp)
    assert m, stamp
    whole = datetime.datetime.fromisoformat(m.group(1)).replace(tzinfo=datetime.UTC)
    return int(whole.timestamp()) * 1_000_000_000 + int((m.group(2) or "0").ljust(9, "0"))


class ApiAudit:
    """The server's own record of JetStream API requests: every ``$JS.EVENT.ADVISORY.API`` audit
    advisory (subject, request body, server timestamp), collected on a thread from the moment
    it is made. Server-side evidence of what a client sent and when the server handled it."""

    def __init__(self, url: str) -> None:
        self.records: list[tuple[int, str, dict[str, Any]]] = []  # (server time ns, API subject, request)
        self._lock = threading.Lock()
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._stop: asyncio.Event | None = None
        self._thread = threading.Thread(target=self._run, args=(url,), daemon=True)
        self._thread.start()
        assert self._ready.wait(30), "the audit subscriber did not start"

    def _run(self, url: str) -> None:
        async def go() -> None:
            nc = await nats.connect(url, connect_timeout=5, max_reconnect_attempts=0)

            async def take(msg: Any) -> None:
                a = json.loads(msg.data)
                try:
                    request = json.loads(a.get("request") or "null")
                except ValueError:
                    request = None
                with self._lock:
                    self.records.append(
                        (
                            _nanos(a["timestamp"]),
                            str(a.get("subject", "")),
                            request if isinstance(request, dict) else {},
                        )
                    )

            await nc.subscribe("$JS.EVENT.ADVISORY.API", cb=take, pending_msgs_limit=-1, pending_bytes_limit=-1)
            await nc.flush()
            self._stop = asyncio.Event()
            self._ready.set()
            await self._stop.wait()
            await nc.drain()

        self._loop.run_until_complete(go())
        self._loop.close()

    def updates(self, prefix: str = "$JS.API.STREAM.UPDATE.") -> list[tuple[int, str, dict[str, Any]]]:
        """The audited requests on subjects starting with ``prefix``, in the server's order."""
        with self._lock:
            return sorted((r for r in self.records if r[1].startswith(prefix)), key=lambda r: (r[0], r[1]))

    def close(self) -> None:
        if self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(10)
