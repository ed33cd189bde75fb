"""``jsops collect``: record JetStream telemetry as JSON lines (docs/formats.md) (the only module importing nats).

    jsops collect [TARGET OPTIONS] OUT_DIR [--duration 10m] [--snapshot-interval 10s] [--gzip] [--rotate-mb N]

* the target is named as for ``jsops plan``: ``--server URL`` (default ``$NATS_URL``, else
  nats://127.0.0.1:4222), ``--context NAME`` (jsops config, then natscli context files), credentials
  (``--creds``, ``--nkey``, ``--user/--password``, ``--token``) and TLS (``--tls-ca``, ``--tls-cert``,
  ``--tls-key``, ``--tls-first``; natscli's ``--tlsca/--tlscert/--tlskey/--tlsfirst`` spellings too).
  Secrets are handed to the client and never printed: messages name the servers without user info.

* subscribes to ``$JS.EVENT.METRIC.CONSUMER.ACK.>`` and ``$JS.EVENT.ADVISORY.>`` and writes every event
  body as the server published it, one per line (the collector's own API audit advisories are dropped);
* every snapshot interval pages through ``$JS.API.STREAM.LIST`` and ``$JS.API.CONSUMER.LIST.<stream>``
  and writes each StreamInfo / ConsumerInfo object as the API returned it;
* files are ``jsops-<start>-<n>.jsonl[.gz]``, written as ``*.part`` and renamed when complete, rotated
  after ``--rotate-mb`` MiB written to disk;
* reconnects forever after a server restart; the gap is reported on stderr and recorded as an
  ``io.jsops.collect.v1.gap`` event (servers do not buffer events: whatever was emitted in the gap is lost);
* stops after ``--duration`` (``0``: run until signalled) or on SIGINT/SIGTERM, draining the subscriptions
  and flushing the files.

It never changes a stream or consumer: ack samples exist only for consumers whose ``sample_freq`` the user set.
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import json
import os
import signal
import ssl
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from jsops.linter import UnitError, parse_duration
from jsops.linter.cli.kit import Parser, add_config, config_from_args, run
from jsops.linter.errors import LinterError
from jsops.profiler.errors import ProfilerError
from jsops.reconciler.client import (
    NO_JETSTREAM,
    Connection,
    ConnectOptions,
    Message,
    NatsError,
    NoResponders,
    RequestTimeout,
    Target,
    TargetError,
    aconnect,
    add_target_arguments,
    target_from_args,
)

__all__ = ["CollectOptions", "CollectStats", "RotatingWriter", "collect", "main"]

ACK_SUBJECT = "$JS.EVENT.METRIC.CONSUMER.ACK.>"
ADVISORY_SUBJECT = "$JS.EVENT.ADVISORY.>"
AUDIT_SUBJECT = "$JS.EVENT.ADVISORY.API"
GAP_TYPE = "io.jsops.collect.v1.gap"
CLIENT_NAME = "jsops-collect"


def _safe_error(exc: BaseException, target: Target) -> str:
    """``Type: message`` with any secret of the target blanked out (client errors may echo URLs)."""
    return target.scrub(f"{type(exc).__name__}: {exc}".rstrip(": ").rstrip())


def _now_rfc3339() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


@dataclass(frozen=True)
class CollectOptions:
    target: Target
    out_dir: Path
    duration_s: float = 600.0  # 0: until signalled
    snapshot_interval_s: float = 10.0
    gzip: bool = False
    rotate_bytes: int = 64 * 1024 * 1024
    connect_timeout_s: float = 10.0
    # A line of counts per snapshot interval (what arrived since the last one, and the consumers that
    # send no ack samples); None: only when the log is a terminal.
    progress: bool | None = None

    @property
    def server(self) -> str:
        """The servers without user information (safe to print)."""
        return self.target.display()


@dataclass
class CollectStats:
    acks: int = 0
    advisories: int = 0
    stream_snapshots: int = 0
    consumer_snapshots: int = 0
    snapshot_errors: int = 0
    gaps: list[tuple[str, str, float]] = field(default_factory=list)  # (start, end, seconds)
    files: list[str] = field(default_factory=list)

    def render(self) -> str:
        text = (
            f"{self.acks} ack samples, {self.advisories} advisories, {self.stream_snapshots} stream and "
            f"{self.consumer_snapshots} consumer snapshots in {len(self.files)} files"
        )
        if self.gaps:
            total = sum(g[2] for g in self.gaps)
            text += f"; {len(self.gaps)} connection gaps ({total:.1f} s without events)"
        if self.snapshot_errors:
            text += f"; {self.snapshot_errors} snapshot requests failed"
        return text


class RotatingWriter:
    """JSON lines into ``OUT_DIR/jsops-<start>-<n>.jsonl[.gz]``; ``.part`` until the file is complete."""

    def __init__(self, out_dir: Path, use_gzip: bool = False, rotate_bytes: int = 64 * 1024 * 1024) -> None:
        self.out_dir = out_dir
        self.gzip = use_gzip
        self.rotate_bytes = max(1, rotate_bytes)
        self.stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ") + f"-{os.getpid()}"
        self.n = 0
        self.done: list[str] = []
        self._raw: IO[bytes] | None = None
        self._out: IO[bytes] | None = None
        self._path: Path | None = None
        out_dir.mkdir(parents=True, exist_ok=True)

    def _open(self) -> IO[bytes]:
        self.n += 1
        self._path = self.out_dir / f"jsops-{self.stamp}-{self.n:04d}.jsonl{'.gz' if self.gzip else ''}"
        self._raw = open(self._path.with_name(self._path.name + ".part"), "wb")
        gz = gzip.GzipFile(fileobj=self._raw, mode="wb", compresslevel=6) if self.gzip else None
        out: IO[bytes] = gz if gz is not None else self._raw  # type: ignore[assignment]  # a GzipFile is a binary file; typeshed does not call it IO[bytes]
        self._out = out
        return out

    def write(self, line: bytes) -> None:
        out = self._out or self._open()
        if b"\n" in line or b"\r" in line:  # keep one event per line whatever the payload looks like
            line = json.dumps(json.loads(line), separators=(",", ":")).encode()
        out.write(line.rstrip() + b"\n")
        assert self._raw is not None
        if self._raw.tell() >= self.rotate_bytes:
            self._finish()

    def flush(self) -> None:
        if self._out is not None:
            self._out.flush()
            if self._raw is not self._out and self._raw is not None:
                self._raw.flush()

    def _finish(self) -> None:
        if self._out is None or self._path is None:
            return
        self._out.close()
        if self._raw is not None and self._raw is not self._out:
            self._raw.close()
        self._path.with_name(self._path.name + ".part").replace(self._path)
        self.done.append(str(self._path))
        self._out = self._raw = None

    def close(self) -> None:
        self._finish()


class _Collector:
    def __init__(self, opts: CollectOptions, stop: asyncio.Event, log: IO[str]) -> None:
        self.opts = opts
        self.stop = stop
        self.log = log
        self.stats = CollectStats()
        self.writer = RotatingWriter(opts.out_dir, opts.gzip, opts.rotate_bytes)
        self.nc: Any = None
        self._gap_start: float | None = None
        self._gap_start_text = ""
        self._last_error = ""
        self._telling_error = ""  # the last error the server itself sent (auth, TLS), not a broken pipe
        self._last_counts = (0, 0, 0, 0)
        self._unsampled: list[str] = []
        self._said_unsampled: set[str] = set()

    def say(self, text: str) -> None:
        print(f"jsops collect: {text}", file=self.log, flush=True)

    async def on_event(self, msg: Message) -> None:
        if msg.subject == AUDIT_SUBJECT:
            try:
                audit = json.loads(msg.data)
                if (audit.get("client") or {}).get("name") == CLIENT_NAME:
                    return  # our own STREAM.LIST / CONSUMER.LIST polling
            except (ValueError, AttributeError):
                pass
        try:
            self.writer.write(msg.data)
        except ValueError:  # not JSON at all: keep the line count honest but do not break the file
            return
        if msg.subject.startswith("$JS.EVENT.METRIC."):
            self.stats.acks += 1
        else:
            self.stats.advisories += 1

    async def on_disconnected(self) -> None:
        if self._gap_start is None and not self.stop.is_set():
            self._gap_start = time.monotonic()
            self._gap_start_text = _now_rfc3339()
            self.say(f"disconnected from {self.opts.server} at {self._gap_start_text}; reconnecting")

    async def on_reconnected(self) -> None:
        if self._gap_start is None:
            return
        seconds = time.monotonic() - self._gap_start
        end = _now_rfc3339()
        self.stats.gaps.append((self._gap_start_text, end, seconds))
        self.writer.write(
            json.dumps(
                {
                    "type": GAP_TYPE,
                    "ts": end,
                    "start": self._gap_start_text,
                    "end": end,
                    "gap_ns": int(seconds * 1e9),
                    "server": self.opts.server,
                },
                separators=(",", ":"),
            ).encode()
        )
        self.writer.flush()
        self.say(
            f"reconnected at {end}: gap of {seconds:.1f} s ({self._gap_start_text} to {end}); events the server emitted in the gap are lost"
        )
        self._gap_start = None

    async def on_error(self, exc: Exception) -> None:
        text = _safe_error(exc, self.opts.target)
        if text != self._last_error and self._gap_start is None:
            self.say(f"connection error: {text}")
        self._last_error = text
        if isinstance(exc, (NatsError, ssl.SSLError)) or not self._telling_error:
            self._telling_error = text

    async def _jetstream_problem(self) -> str | None:
        return await _no_jetstream(self.nc, self.opts.target.api)

    async def _paged(self, subject: str, key: str) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = []
        offset = 0
        while True:
            resp = await self.nc.request(
                f"{self.opts.target.api}.{subject}", json.dumps({"offset": offset}).encode(), timeout=5
            )
            body = json.loads(resp.data)
            if "error" in body:
                raise RuntimeError(f"{subject}: {body['error'].get('description', body['error'])}")
            page = body.get(key) or []
            items.extend(page)
            offset += len(page)
            if not page or offset >= int(body.get("total", 0)):
                return items

    async def snapshot(self) -> None:
        try:
            streams = await self._paged("STREAM.LIST", "streams")
            consumers: list[dict[str, Any]] = []
            for s in streams:
                name = (s.get("config") or {}).get("name")
                if name:
                    consumers.extend(await self._paged(f"CONSUMER.LIST.{name}", "consumers"))
        except Exception as exc:  # disconnected, timeout, no JetStream: skip this tick
            self.stats.snapshot_errors += 1
            if self._gap_start is None:
                self.say(f"snapshot skipped: {type(exc).__name__}: {exc}")
            return
        for s in streams:
            self.writer.write(json.dumps(s, separators=(",", ":")).encode())
        for c in consumers:
            self.writer.write(json.dumps(c, separators=(",", ":")).encode())
        self.stats.stream_snapshots += len(streams)
        self.stats.consumer_snapshots += len(consumers)
        self.writer.flush()
        self._unsampled = sorted(
            f"{c.get('stream_name')}/{c.get('name')}"
            for c in consumers
            if not ((c.get("config") or {}).get("sample_freq"))
        )
        if self._progress():
            self.report_interval()

    def _progress(self) -> bool:
        if self.opts.progress is not None:
            return self.opts.progress
        isatty = getattr(self.log, "isatty", None)
        return bool(isatty and isatty())

    def report_interval(self) -> None:
        """One line of what arrived since the last one; the consumers that send no ack samples (no
        ``sample_freq``) are named once."""
        st = self.stats
        now = (st.acks, st.advisories, st.stream_snapshots, st.consumer_snapshots)
        d = [a - b for a, b in zip(now, self._last_counts)]
        self._last_counts = now
        line = (
            f"{time.strftime('%H:%M:%S')} +{d[0]} ack samples, +{d[1]} advisories, "
            f"{d[2]} stream and {d[3]} consumer snapshots (total {st.acks} samples, {st.advisories} advisories)"
        )
        new = [c for c in self._unsampled if c not in self._said_unsampled]
        if new:
            self._said_unsampled.update(new)
            shown = ", ".join(new[:8]) + (f" and {len(new) - 8} more" if len(new) > 8 else "")
            line += f"; no ack samples from {shown}: no sample_freq"
        self.say(line)

    async def _snapshots(self) -> None:
        while not self.stop.is_set():
            await self.snapshot()
            try:
                await asyncio.wait_for(self.stop.wait(), self.opts.snapshot_interval_s)
            except TimeoutError:
                pass

    async def _flusher(self) -> None:
        while not self.stop.is_set():
            try:
                await asyncio.wait_for(self.stop.wait(), 1.0)
            except TimeoutError:
                self.writer.flush()

    async def run(self) -> int:
        o = self.opts
        try:
            conn = o.target.connect_options()  # carries secrets: never printed
        except TargetError as exc:
            self.say(f"error: {exc}")
            self.writer.close()
            return 2
        try:
            options: ConnectOptions = {
                **conn,
                "name": CLIENT_NAME,
                "allow_reconnect": True,
                "max_reconnect_attempts": -1,
                "reconnect_time_wait": 0.5,
                "disconnected_cb": self.on_disconnected,
                "reconnected_cb": self.on_reconnected,
                "error_cb": self.on_error,
                "pending_size": 8 * 1024 * 1024,
            }
            self.nc = await asyncio.wait_for(aconnect(**options), o.connect_timeout_s)
        except (TimeoutError, OSError, NatsError, ssl.SSLError) as exc:
            why = _safe_error(exc, o.target)
            if isinstance(exc, TimeoutError) and self._telling_error:
                why = f"no connection within {o.connect_timeout_s:g} s (last error: {self._telling_error})"
            self.say(f"error: cannot connect to {o.server}: {why}")
            self.writer.close()
            return 1
        problem = await self._jetstream_problem()
        if problem:
            self.say(f"error: {problem}; nothing was collected")
            await self.nc.close()
            self.writer.close()
            return 1
        try:
            await self.nc.subscribe(ACK_SUBJECT, cb=self.on_event, pending_msgs_limit=1_000_000)
            await self.nc.subscribe(ADVISORY_SUBJECT, cb=self.on_event, pending_msgs_limit=1_000_000)
            await self.nc.flush()
            self.say(f"collecting from {o.server} into {o.out_dir} (ready)")
            tasks = [asyncio.create_task(self._snapshots()), asyncio.create_task(self._flusher())]
            try:
                if o.duration_s > 0:
                    await asyncio.wait_for(self.stop.wait(), o.duration_s)
                else:
                    await self.stop.wait()
            except TimeoutError:
                pass
            self.stop.set()
            await asyncio.gather(*tasks, return_exceptions=True)
        finally:
            try:
                await asyncio.wait_for(self.nc.drain(), 10)  # deliver what is buffered, then close
            except Exception:
                await self.nc.close()
            self.writer.close()
            self.stats.files = self.writer.done
        self.say("stopped: " + self.stats.render())
        return 0


async def _no_jetstream(nc: Connection, api: str) -> str | None:
    """Why ``$JS.API.INFO`` does not answer as a JetStream server does, or None."""
    try:
        resp = await nc.request(f"{api}.INFO", b"", timeout=5)
    except NoResponders:
        return NO_JETSTREAM
    except (TimeoutError, RequestTimeout):
        return "JetStream did not answer $JS.API.INFO within 5 s"
    try:
        body = json.loads(resp.data)
    except ValueError:
        return "JetStream answered $JS.API.INFO with something that is not JSON"
    err = body.get("error") if isinstance(body, dict) else None
    if err:
        return f"JetStream: {err.get('description', err)}"
    return None


async def collect(
    opts: CollectOptions, stop: asyncio.Event | None = None, log: IO[str] | None = None
) -> tuple[int, CollectStats]:
    """Run the collector until ``opts.duration_s`` passes or ``stop`` is set; returns (exit code, stats)."""
    c = _Collector(opts, stop or asyncio.Event(), log or sys.stderr)
    rc = await c.run()
    return rc, c.stats


def _seconds(text: str) -> float:
    try:
        return parse_duration(text.strip()) / 1e9
    except UnitError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _parser() -> argparse.ArgumentParser:
    p = Parser(prog="jsops collect", description="Record JetStream ack samples, advisories and state snapshots.")
    p.add_argument("out_dir", metavar="OUT_DIR")
    add_target_arguments(p)
    for act in p._actions:  # collect reads no server limits
        if act.dest == "monitor":
            act.help = argparse.SUPPRESS
    for flag in ("ca", "cert", "key"):  # natscli's spellings
        p.add_argument(f"--tls{flag}", dest=f"tls_{flag}", metavar="FILE", help=argparse.SUPPRESS)
    p.add_argument("--tlsfirst", dest="tls_first", action="store_true", help=argparse.SUPPRESS)
    add_config(p, "jsops config (its contexts); default: found from . upward")
    p.add_argument(
        "--duration", type=_seconds, default=600.0, help="how long to collect (default 10m; 0: until signalled)"
    )
    p.add_argument("--snapshot-interval", type=_seconds, default=10.0, help="state snapshot interval (default 10s)")
    p.add_argument("--gzip", action="store_true", help="write .jsonl.gz files")
    p.add_argument("--rotate-mb", type=float, default=64.0, help="start a new file after N MiB (default 64)")
    p.add_argument("--connect-timeout", type=_seconds, default=10.0)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``jsops collect`` (under :func:`jsops.linter.cli.kit.run`: one line on stderr, never a
    traceback)."""
    return run(_main, argv, prog="jsops collect", errors=(LinterError, ProfilerError))


def _main(argv: list[str]) -> int:
    a = _parser().parse_args(argv)
    if a.snapshot_interval <= 0 or a.rotate_mb <= 0 or a.duration < 0:
        print(
            "jsops collect: error: --snapshot-interval and --rotate-mb must be positive, --duration not negative",
            file=sys.stderr,
        )
        return 2
    out = Path(a.out_dir)
    if out.exists() and not out.is_dir():
        print(f"jsops collect: error: {out} is not a directory", file=sys.stderr)
        return 2
    if not a.server and not a.context and os.environ.get("NATS_URL"):
        a.server = os.environ["NATS_URL"]
    from jsops.linter import ConfigError

    try:
        config = config_from_args(a)
        target = target_from_args(a, config)
        target.connect_options()  # unreadable creds, nkey or TLS files fail here, before any output
    except (TargetError, ConfigError) as exc:
        print(f"jsops collect: error: {exc}", file=sys.stderr)
        return 2
    opts = CollectOptions(
        target=target,
        out_dir=out,
        duration_s=a.duration,
        snapshot_interval_s=a.snapshot_interval,
        gzip=a.gzip,
        rotate_bytes=int(a.rotate_mb * 1024 * 1024),
        connect_timeout_s=a.connect_timeout,
    )

    async def run() -> int:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        try:
            rc, _ = await collect(opts, stop)
        finally:
            for sig in (signal.SIGINT, signal.SIGTERM):
                loop.remove_signal_handler(sig)
        return rc

    try:
        return asyncio.run(run())
    except OSError as exc:
        print(f"jsops collect: error: {exc.strerror or exc}", file=sys.stderr)
        return 2
