"""Issue 21 item 9: in-place changes that make an interest stream drop stored messages go through
the data-loss gate, counted from the live state: a consumer's narrower filter, and retention
limits -> interest (real nats-server; message counts and consumer positions before and after)."""

from __future__ import annotations

import json

import pytest

from .helpers import manifest, run

pytestmark = pytest.mark.integration

DOCS = """
apiVersion: jsops/v1
kind: Stream
metadata: {{name: ORDERS}}
spec: {{subjects: ["orders.>"], retention: {retention}}}
---
apiVersion: jsops/v1
kind: Consumer
metadata: {{name: c1, stream: ORDERS}}
spec: {{ack_wait: 30s, deliver_policy: all{filter}}}
"""


def _write(tmp_path, retention: str = "interest", filt: str = "") -> None:
    manifest(tmp_path / "m", "orders.yaml", DOCS.format(retention=retention, filter=filt))


def _plan(server, tmp_path, *flags: str) -> dict:
    rc, out, err = run("plan", str(tmp_path / "m"), "--server", server.url, "--format", "json", *flags)
    assert rc == 2, out + err
    return json.loads(out)


def test_narrowing_the_only_consumers_filter_is_data_loss(server, js, tmp_path):
    _write(tmp_path)
    assert run("apply", str(tmp_path / "m"), "--server", server.url, "--yes")[0] == 0
    js.publish("orders.a", 20)
    js.publish("orders.b", 30)
    _write(tmp_path, filt=", filter_subject: orders.a")
    [act] = _plan(server, tmp_path)["actions"]
    assert (act["action"], act["wanted"], act["data_loss"]) == ("blocked", "update", 30), act
    assert "needs --allow-data-loss" in act["reason"]
    rc, out, err = run("apply", str(tmp_path / "m"), "--server", server.url, "--yes")
    assert rc == 1, out + err
    assert js.stream("ORDERS")["state"]["messages"] == 50
    c = js.consumer("ORDERS", "c1")
    assert c["config"].get("filter_subject") is None and c["num_pending"] == 50
    # with the flag: the 30 messages outside the new filter go, the 20 inside stay pending
    assert _plan(server, tmp_path, "--allow-data-loss")["summary"]["data_loss"] == 30
    rc, out, err = run("apply", str(tmp_path / "m"), "--server", server.url, "--yes", "--allow-data-loss")
    assert rc == 0, out + err
    assert js.stream("ORDERS")["state"]["messages"] == 20
    assert js.consumer("ORDERS", "c1")["num_pending"] == 20


def test_narrowing_a_filter_another_consumer_covers_loses_nothing(server, js, tmp_path):
    _write(tmp_path)
    manifest(
        tmp_path / "m",
        "audit.yaml",
        """
        apiVersion: jsops/v1
        kind: Consumer
        metadata: {name: audit, stream: ORDERS}
        spec: {ack_wait: 30s, deliver_policy: all}
    """,
    )
    assert run("apply", str(tmp_path / "m"), "--server", server.url, "--yes")[0] == 0
    js.publish("orders.a", 5)
    js.publish("orders.b", 7)
    _write(tmp_path, filt=", filter_subject: orders.a")
    [act] = _plan(server, tmp_path)["actions"]
    assert act["action"] == "update" and "data_loss" not in act, act
    assert run("apply", str(tmp_path / "m"), "--server", server.url, "--yes")[0] == 0
    assert js.stream("ORDERS")["state"]["messages"] == 12
    assert js.consumer("ORDERS", "audit")["num_pending"] == 12


def test_retention_limits_to_interest_is_data_loss(server, js, tmp_path):
    _write(tmp_path, retention="limits")
    assert run("apply", str(tmp_path / "m"), "--server", server.url, "--yes")[0] == 0
    js.publish("orders.a", 100)
    assert len(js.fetch_ack("ORDERS", "c1", 60)) == 60
    _write(tmp_path, retention="interest")
    [act] = _plan(server, tmp_path)["actions"]
    assert (act["action"], act["wanted"], act["data_loss"]) == ("blocked", "update", 60), act
    rc, out, err = run("apply", str(tmp_path / "m"), "--server", server.url, "--yes")
    assert rc == 1, out + err
    info = js.stream("ORDERS")
    assert info["state"]["messages"] == 100 and info["config"]["retention"] == "limits"
    c = js.consumer("ORDERS", "c1")
    assert c["ack_floor"]["stream_seq"] == 60 and c["num_pending"] == 40
    rc, out, err = run("apply", str(tmp_path / "m"), "--server", server.url, "--yes", "--allow-data-loss")
    assert rc == 0, out + err
    assert js.stream("ORDERS")["state"]["messages"] == 40
    c = js.consumer("ORDERS", "c1")
    assert c["ack_floor"]["stream_seq"] == 60 and c["num_pending"] == 40
