"""Issue 12: SIGINT (Ctrl-C) and SIGTERM (a CI cancel) during `jsops apply`, and requests whose
answer is lost (server paused with SIGSTOP, or killed with kill -9 and restarted): no traceback, an
honest account of what was done, and a re-run that converges with nothing lost (real nats-server,
real `jsops` subprocess)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from .helpers import Js, NatsServer, manifest, run

pytestmark = pytest.mark.integration

JSOPS = str(Path(sys.executable).parent / "jsops")
BULK = 100
LINE = re.compile(r"^  (done|failed|skipped|blocked|unknown)\s+(\S+) (Stream|Consumer) (\S+?)(?::|$)")


def estate(d: Path, server: NatsServer, bulk: int = BULK) -> None:
    """KEEP (with 50 messages and a reader) applied; then ``bulk`` new streams with a consumer each
    and a change to KEEP."""
    manifest(
        d,
        "keep.yaml",
        """
        apiVersion: jsops/v1
        kind: Stream
        metadata: {name: KEEP}
        spec: {subjects: ["keep.>"]}
        ---
        apiVersion: jsops/v1
        kind: Consumer
        metadata: {name: reader, stream: KEEP}
        spec: {max_deliver: 3}
    """,
    )
    assert run("apply", str(d), "--server", server.url, "--yes")[0] == 0
    js = Js(server.url)
    js.publish("keep.x", 50)
    js.close()
    docs = []
    for i in range(bulk):
        docs.append(
            f'apiVersion: jsops/v1\nkind: Stream\nmetadata: {{name: BULK_{i:03d}}}\nspec: {{subjects: ["bulk.{i}.>"], max_age: 1h}}\n'
        )
        docs.append(
            f"apiVersion: jsops/v1\nkind: Consumer\nmetadata: {{name: c, stream: BULK_{i:03d}}}\nspec: {{max_deliver: 5}}\n"
        )
    (d / "bulk.yaml").write_text("---\n".join(docs))
    # and an in-place update of a stream that holds messages
    (d / "keep.yaml").write_text((d / "keep.yaml").read_text().replace('["keep.>"]', '["keep.>"], max_msgs: 1000'))


Step = tuple[Callable[[str, int], bool], Callable[["subprocess.Popen[str]"], None]]


def apply_until(d: Path, server: NatsServer, *steps: Step) -> tuple[int, str]:
    """Run `jsops apply` as a subprocess; for each (when, act) step in turn, call ``act(proc)``
    once ``when(line, done lines so far)`` holds."""
    proc = subprocess.Popen(
        [JSOPS, "apply", str(d), "--server", server.url, "--yes"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert proc.stdout is not None
    lines: list[str] = []
    done = 0
    todo = list(steps)
    try:
        for line in proc.stdout:
            lines.append(line)
            done += line.startswith("  done ")
            if todo and todo[0][0](line, done):
                todo.pop(0)[1](proc)
        rc = proc.wait(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert not todo, "".join(lines)
    return rc, "".join(lines)


def reported(out: str) -> dict[tuple[str, str], str]:
    """(kind, object) -> status, from the progress lines."""
    got = {}
    for line in out.splitlines():
        m = LINE.match(line)
        if m:
            got[(m.group(3), m.group(4))] = m.group(1)
    return got


def live_objects(server: NatsServer) -> tuple[set[str], set[str]]:
    js = Js(server.url)
    try:
        streams = set(js.streams())
        consumers = {f"{s}/c" for s in streams if s.startswith("BULK_") and js.consumer(s, "c") is not None}
        return streams, consumers
    finally:
        js.close()


def assert_honest(out: str, server: NatsServer) -> dict[tuple[str, str], str]:
    """Every BULK object reported done exists; none reported otherwise does."""
    rep = reported(out)
    streams, consumers = live_objects(server)
    for (kind, name), status in rep.items():
        if not name.startswith("BULK_"):
            continue
        exists = name in streams if kind == "Stream" else name in consumers
        assert exists == (status == "done"), (kind, name, status, out)
    made = {n for n in streams if n.startswith("BULK_")} | consumers
    claimed = {n for (k, n), s in rep.items() if s == "done" and n.startswith("BULK_")}
    assert made == claimed, out
    return rep


def assert_rerun_converges(d: Path, server: NatsServer) -> None:
    rc, out, err = run("apply", str(d), "--server", server.url, "--yes")
    assert rc == 0, out + err
    rc, out, _ = run("plan", str(d), "--server", server.url)
    assert (rc, out.startswith("No changes.")) == (0, True), out
    js = Js(server.url)
    try:
        info = js.stream("KEEP")
        assert info["state"]["messages"] == 50 and info["config"]["max_msgs"] == 1000
        assert js.consumer("KEEP", "reader") is not None
        assert len(js.streams()) == BULK + 1
    finally:
        js.close()


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_signal_stops_between_requests_and_reports(sig: signal.Signals, server: NatsServer, tmp_path: Path) -> None:
    d = tmp_path / "m"
    estate(d, server)
    rc, out = apply_until(d, server, (lambda line, done: done >= 20, lambda proc: proc.send_signal(sig)))
    assert "Traceback" not in out and "Task was destroyed" not in out, out
    assert rc == 128 + sig, out
    assert f"Interrupted ({sig.name}): stopped after the requests in flight;" in out, out
    m = re.search(r"Apply: (\d+) done, (\d+) failed, (\d+) not attempted, (\d+) blocked\.", out)
    assert m is not None, out
    done, failed, skipped = int(m.group(1)), int(m.group(2)), int(m.group(3))
    assert done >= 20 and failed == 0 and skipped > 0 and done + skipped == 2 * BULK + 1, out
    assert "Run apply again to finish" in out
    assert_honest(out, server)
    assert_rerun_converges(d, server)


def after(n: int) -> Callable[[str, int], bool]:
    return lambda line, done: done >= n


def reading_back(line: str, done: int) -> bool:
    return "whose request got no answer" in line


def test_paused_server_timeouts_are_read_back_not_reported_failed(server: NatsServer, tmp_path: Path) -> None:
    """SIGSTOP mid-apply: the requests in flight time out, yet the server carries them out once
    resumed. apply stops sending, reads the objects back, and reports them done."""
    d = tmp_path / "m"
    estate(d, server)
    assert server.process is not None
    pid = server.process.pid
    try:
        rc, out = apply_until(
            d,
            server,
            (after(20), lambda _: os.kill(pid, signal.SIGSTOP)),
            (reading_back, lambda _: os.kill(pid, signal.SIGCONT)),
        )
    finally:
        os.kill(pid, signal.SIGCONT)
    assert "Traceback" not in out, out
    assert rc == 1 and "has not converged" in out, out
    assert re.search(r"^  done .*no answer to .* request.*; read back: applied(  \[\d+/\d+\])?$", out, re.M), out
    assert "not attempted: an earlier request got no answer" in out
    assert "unknown" not in out
    assert_honest(out, server)
    assert_rerun_converges(d, server)


def test_kill_9_and_restart_mid_apply_reports_what_the_server_did(server: NatsServer, tmp_path: Path) -> None:
    """kill -9 then restart mid-apply: the answers in flight are lost with the connection; apply
    reconnects, reads those objects back and reports applied / not applied as they really are."""
    d = tmp_path / "m"
    estate(d, server)

    def bounce(_: object) -> None:
        server.kill()
        server.restart()

    rc, out = apply_until(d, server, (after(20), bounce))
    assert "Traceback" not in out, out
    assert rc == 1 and "has not converged" in out, out
    assert reading_back(out, 0), out
    assert re.search(r"read back after reconnecting: (applied|not applied)(  \[\d+/\d+\])?$", out, re.M), out
    assert "unknown" not in out
    assert_honest(out, server)
    assert_rerun_converges(d, server)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_signal_at_the_prompt_sends_nothing(sig: signal.Signals, server: NatsServer, tmp_path: Path) -> None:
    """A signal before anything is sent (here: at the confirmation prompt, stdin a terminal)."""
    import pty

    manifest(
        tmp_path / "m", "a.yaml", "apiVersion: jsops/v1\nkind: Stream\nmetadata: {name: A}\nspec: {subjects: [a.>]}\n"
    )
    master, slave = pty.openpty()
    try:
        proc = subprocess.Popen(
            [JSOPS, "apply", str(tmp_path / "m"), "--server", server.url],
            stdin=slave,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert proc.stdout is not None and proc.stderr is not None
        seen = b""
        while b"Only 'yes' is accepted" not in seen:
            chunk = proc.stdout.read1(4096)  # type: ignore[attr-defined]
            assert chunk, seen
            seen += chunk
        # A signal that lands between the prompt's write and its read waits for the read to return
        # (true of any Python program at input()); a second one, as a user would send, gets through.
        for _ in range(30):
            proc.send_signal(sig)
            try:
                rest, err = proc.communicate(timeout=1)
                break
            except subprocess.TimeoutExpired:
                continue
        else:
            proc.kill()
            raise AssertionError("apply did not stop at the prompt")
    finally:
        os.close(master)
        os.close(slave)
    text = (seen + rest + err).decode()
    assert proc.returncode == 128 + sig, text
    assert "Traceback" not in text
    assert f"Interrupted ({sig.name}) before anything was sent; nothing was changed." in err.decode(), text
    js = Js(server.url)
    try:
        assert js.streams() == []
    finally:
        js.close()
