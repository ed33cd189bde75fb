"""Issue 21 item 8: apply executes a dependency closure. A blocked action keeps what it would
replace: ORDERS renamed to ORDERS_V2 in the manifests (no rename annotation), ``apply --prune``:
the create is refused (the subjects overlap), the delete is blocked (data loss), and
ORDERS/shipper must keep its position. The plan says it looks like a rename (real nats-server)."""

from __future__ import annotations

import pytest

from .helpers import manifest, run

pytestmark = pytest.mark.integration

STREAM = """
apiVersion: jsops/v1
kind: Stream
metadata: {{name: {name}}}
spec: {{subjects: ["orders.>"], storage: file}}
---
apiVersion: jsops/v1
kind: Consumer
metadata: {{name: shipper, stream: {name}}}
spec: {{ack_wait: 30s, deliver_policy: all}}
"""


def test_rename_without_annotation_keeps_the_old_stream_and_its_consumer(server, js, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    manifest(tmp_path / "m", "orders.yaml", STREAM.format(name="ORDERS"))
    assert run("apply", "m", "--server", server.url, "--yes")[0] == 0
    js.publish("orders.new", 10)
    assert js.fetch_ack("ORDERS", "shipper", 4) == [1, 2, 3, 4]
    manifest(tmp_path / "m", "orders.yaml", STREAM.format(name="ORDERS_V2"))

    rc, out, err = run("plan", "m", "--server", server.url, "--prune")
    assert rc == 2, out + err
    assert "looks like a rename of ORDERS" in out and "jsops.io/renamed-from: ORDERS" in out and "--migrate" in out, out
    # the consumer delete is part of the blocked stream delete: shown blocked, not runnable
    assert "! Consumer ORDERS/shipper  (blocked delete:" in out, out

    rc, out, err = run("apply", "m", "--server", server.url, "--prune", "--yes")
    assert rc == 1, out + err
    assert js.streams() == ["ORDERS"]
    assert js.stream("ORDERS")["state"]["messages"] == 10
    c = js.consumer("ORDERS", "shipper")
    assert c is not None, out + err
    assert c["ack_floor"]["stream_seq"] == 4 and c["num_pending"] == 6
