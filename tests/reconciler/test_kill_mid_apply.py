"""kill -9 of the server in the middle of an apply; a re-run converges and no message is lost."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from .helpers import Js, NatsServer, manifest, run

pytestmark = pytest.mark.integration

JSOPS = str(Path(sys.executable).parent / "jsops")


def test_kill_9_mid_apply_then_rerun_converges(tmp_path):
    server = NatsServer().start()
    try:
        d = tmp_path / "m"
        manifest(d, "keep.yaml", """
            apiVersion: jsops/v1
            kind: Stream
            metadata: {name: KEEP}
            spec: {subjects: ["keep.>"]}
            ---
            apiVersion: jsops/v1
            kind: Consumer
            metadata: {name: reader, stream: KEEP}
            spec: {max_deliver: 3}
        """)
        assert run("apply", str(d), "--server", server.url, "--yes")[0] == 0
        js = Js(server.url)
        js.publish("keep.x", 50)
        js.close()
        docs = []
        for i in range(150):
            docs.append(f"apiVersion: jsops/v1\nkind: Stream\nmetadata: {{name: BULK_{i:03d}}}\nspec: {{subjects: [\"bulk.{i}.>\"], max_age: 1h}}\n")
            docs.append(f"apiVersion: jsops/v1\nkind: Consumer\nmetadata: {{name: c, stream: BULK_{i:03d}}}\nspec: {{max_deliver: 5}}\n")
        (d / "bulk.yaml").write_text("---\n".join(docs))
        # keep.yaml changes too: an in-place update of a stream holding messages
        (d / "keep.yaml").write_text((d / "keep.yaml").read_text().replace('["keep.>"]', '["keep.>"], max_msgs: 1000'))

        # the server stays down until apply ends: do not wait the default 30s to read answers back
        proc = subprocess.Popen([JSOPS, "apply", str(d), "--server", server.url, "--yes", "--read-back-wait", "2s"],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
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
