"""kill -9 of the server in the middle of an apply; a re-run converges and no message is lost."""

from __future__ import annotations

import subprocess

import pytest

from .helpers import Js, NatsServer, run
from .test_interrupt_apply import JSOPS, estate

pytestmark = pytest.mark.integration


def test_kill_9_mid_apply_then_rerun_converges(tmp_path):
    server = NatsServer().start()
    try:
        d = tmp_path / "m"
        estate(d, server, bulk=150)

        # the server stays down until apply ends: do not wait the default 30s to read answers back
        proc = subprocess.Popen(
            [JSOPS, "apply", str(d), "--server", server.url, "--yes", "--read-back-wait", "2s"],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        assert proc.stdout is not None
        lines = []
        for line in proc.stdout:
            lines.append(line)
            if line.strip().startswith("done"):
                server.kill()  # kill -9, mid-apply
                break
        rest = proc.stdout.read()
        rc = proc.wait(timeout=60)
        out = "".join(lines) + rest
        assert "Traceback" not in out
        assert rc == 1, out
        assert "failed" in out or "not attempted" in out
        assert "has not converged" in out
        # the requests in flight were neither reported done nor failed: nobody could tell
        assert "could not read it back: unknown whether the server carried it out" in out, out

        server.restart()
        rc, out, err = run("apply", str(d), "--server", server.url, "--yes")
        assert rc == 0, out + err
        rc, out, _ = run("plan", str(d), "--server", server.url)
        assert (rc, out.startswith("No changes.")) == (0, True), out
        js = Js(server.url)
        try:
            info = js.stream("KEEP")
            assert info["state"]["messages"] == 50
            assert info["config"]["max_msgs"] == 1000
            assert len(js.streams()) == 151
        finally:
            js.close()
    finally:
        server.stop()
