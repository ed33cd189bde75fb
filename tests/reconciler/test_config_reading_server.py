"""lint, plan, apply and audit read the same files the same way: the config's ``exclude`` and
``consumer-streams`` (plan and audit read neither before; the controller and lint did, so plan and the
controller could disagree about what is in the estate). Real nats-server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .helpers import NatsServer, manifest, run

pytestmark = pytest.mark.integration

STREAM = """
apiVersion: jsops/v1
kind: Stream
metadata: {{name: {name}}}
spec: {{subjects: ["{subject}.>"], max_age: 1h}}
"""
# natscli's layout: a bare consumer file naming no stream (`nats consumer add ORDERS --config ...`)
BARE_CONSUMER = '{"durable_name": "shipper", "ack_policy": "explicit", "max_deliver": 5}\n'


def _tree(tmp_path: Path) -> Path:
    m = tmp_path / "m"
    manifest(m, "orders.yaml", STREAM.format(name="ORDERS", subject="orders"))
    manifest(m / "scratch", "tmp.yaml", STREAM.format(name="SCRATCH", subject="scratch"))
    manifest(m / "natscli", "shipper.json", BARE_CONSUMER)
    (tmp_path / ".jsops.yaml").write_text("exclude: [scratch]\nconsumer-streams: {m/natscli/*.json: ORDERS}\n")
    return m


def test_plan_and_audit_read_the_config_s_excludes_and_consumer_streams(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = NatsServer().start()
    try:
        _tree(tmp_path)
        monkeypatch.chdir(tmp_path)
        rc, out, err = run("plan", "m", "-s", server.url, "--format", "json")
        assert rc == 2, err
        planned = {
            (a["object"]["kind"], a["object"]["stream"], a["object"]["name"]) for a in json.loads(out)["actions"]
        }
        assert planned == {("Stream", None, "ORDERS"), ("Consumer", "ORDERS", "shipper")}, planned
        rc, out, err = run("apply", "m", "-s", server.url, "--yes")
        assert rc == 0, out + err
        rc, out, err = run("audit", "-s", server.url, "m", "--format", "json")
        found = json.loads(out)["findings"]
        # SCRATCH is excluded (not declared here, not on the server: no JS520-style "missing"), shipper is
        # ORDERS's consumer (declared, on the server: not "unmanaged")
        assert not [f for f in found if "SCRATCH" in f["message"]], found
        assert not [f for f in found if "shipper" in f["message"] and f["rule"] == "JS521"], found
    finally:
        server.stop()
