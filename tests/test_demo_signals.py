"""Ctrl-C and SIGHUP during `make demo` stop everything it started (nats-server, jsops collect, the
traffic generator), with no traceback; the demo's own words are marked "demo:" and carry no
colour codes when not on a terminal. Needs no Java: the signal arrives during the traffic step."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.integration


def _processes_mentioning(text: str) -> list[int]:
    out = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if text in cmdline:
            out.append(int(pid))
    return out


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGHUP])
def test_signal_during_traffic_stops_everything(sig: signal.Signals, tmp_path: Path) -> None:
    work = tmp_path / "run"
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    proc = subprocess.Popen(
        [sys.executable, "-m", "jsops.reconciler.demo", "--workdir", str(work), "--traffic-seconds", "120"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    assert proc.stdout is not None
    lines, url = [], None
    deadline = time.monotonic() + 180
    for line in proc.stdout:
        lines.append(line)
        m = re.search(r"listening on (nats://127\.0\.0\.1:(\d+))", line)
        if m:
            url = m.group(2)
        if line.startswith("  traffic ") or time.monotonic() > deadline:  # the traffic is running
            break
    assert url is not None, "".join(lines)
    assert _processes_mentioning(str(work)), "collect should be running"
    proc.send_signal(sig)
    rest = proc.stdout.read()
    rc = proc.wait(timeout=60)
    out = "".join(lines) + rest
    assert "Traceback" not in out, out
    assert rc == (130 if sig == signal.SIGINT else 129), out
    assert "everything it started is stopped" in out
    time.sleep(0.5)
    assert _processes_mentioning(str(work)) == [], "a process the demo started is still running"
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", int(url)), timeout=1).close()
    assert "\x1b" not in out  # not a terminal: no colour codes
    assert "demo: nats-server listening on" in out and "demo: shop-like traffic" in out
