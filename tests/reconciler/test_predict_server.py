"""Plans checked against the live estate before the first request (issue 14, item 1), on a real
nats-server: predicted refusals are shown blocked with their err_code, block what depends on them,
and apply sends nothing for them; sealing an existing stream plans and applies as an update."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .helpers import Js, NatsServer, manifest, run, writes

pytestmark = pytest.mark.integration


def stream_doc(name: str, subjects: str, extra: str = "", consumer: str = "shipper") -> str:
    return f"""
        apiVersion: jsops/v1
        kind: Stream
        metadata: {{name: {name}}}
        spec: {{subjects: {subjects}{extra}}}
        ---
        apiVersion: jsops/v1
        kind: Consumer
        metadata: {{name: {consumer}, stream: {name}}}
        spec: {{ack_policy: explicit, max_deliver: 5}}
    """


def actions(out: str) -> dict[str, dict[str, Any]]:
    return {
        f"{a['object']['kind']} {(a['object']['stream'] + '/') if a['object']['stream'] else ''}{a['object']['name']}": a
        for a in json.loads(out)["actions"]
    }


def _held(js: Js) -> tuple[int, int]:
    """ORDERS's messages and its consumer shipper's ack floor."""
    stream, consumer = js.stream("ORDERS"), js.consumer("ORDERS", "shipper")
    assert stream is not None and consumer is not None
    return stream["state"]["messages"], consumer["ack_floor"]["stream_seq"]


def test_rename_with_prune_is_refused_before_any_request(
    server: NatsServer, js: Js, tmp_path: Path, sent: list[str]
) -> None:
    d = tmp_path / "m"
    manifest(d, "orders.yaml", stream_doc("ORDERS", '["orders.>"]'))
    rc, out, err = run("apply", str(d), "--server", server.url, "--yes")
    assert rc == 0, out + err
    js.publish("orders.new", 10)
    js.fetch_ack("ORDERS", "shipper", 4)
    before = _held(js)
    (d / "orders.yaml").unlink()
    manifest(d, "orders_v2.yaml", stream_doc("ORDERS_V2", '["orders.>"]'))
    sent.clear()
    rc, out, err = run("plan", str(d), "--server", server.url, "--prune", "--allow-data-loss", "--format", "json")
    acts = actions(out)
    create = acts["Stream ORDERS_V2"]
    assert create["action"] == "blocked" and create["wanted"] == "create" and create["err_code"] == 10065
    assert "subjects overlap with live stream ORDERS" in create["reason"]
    for label in ("Consumer ORDERS_V2/shipper", "Stream ORDERS"):
        assert acts[label]["action"] == "blocked" and "err_code" not in acts[label], acts[label]
    assert all(a["action"] == "blocked" for a in acts.values()), acts
    rc, out, err = run("plan", str(d), "--server", server.url, "--prune", "--allow-data-loss")
    assert "(blocked create: the server would refuse it: subjects overlap with live stream ORDERS" in out
    assert "(err_code 10065)" in out
    sent.clear()
    rc, out, err = run("apply", str(d), "--server", server.url, "--prune", "--allow-data-loss", "--yes")
    assert rc == 1 and writes(sent) == [], (writes(sent), out + err)
    assert js.streams() == ["ORDERS"]
    assert _held(js) == before


def test_create_overlapping_an_unmanaged_stream_is_refused_in_the_plan(
    server: NatsServer, js: Js, tmp_path: Path, sent: list[str]
) -> None:
    js.ok("$JS.API.STREAM.CREATE.LEGACY", {"name": "LEGACY", "subjects": ["events.eu.*"]})
    d = tmp_path / "m"
    manifest(d, "events.yaml", stream_doc("EVENTS", '["events.>"]'))
    manifest(d, "other.yaml", stream_doc("OTHER", '["other.>"]', consumer="reader"))
    rc, out, _ = run("plan", str(d), "--server", server.url, "--format", "json")
    acts = actions(out)
    assert (
        acts["Stream EVENTS"]["err_code"] == 10065
        and "live stream LEGACY (events.> ~ events.eu.*)" in acts["Stream EVENTS"]["reason"]
    )
    assert acts["Consumer EVENTS/shipper"]["action"] == "blocked"
    assert acts["Stream OTHER"]["action"] == "create" and acts["Consumer OTHER/reader"]["action"] == "create"
    sent.clear()
    rc, out, err = run("apply", str(d), "--server", server.url, "--yes")
    assert rc == 1, out + err  # the independent stream is created; the refused one is never sent
    assert not any("EVENTS" in s for s in writes(sent)), writes(sent)
    assert js.streams() == ["LEGACY", "OTHER"]


def test_r3_on_a_standalone_server_is_refused_before_any_request(
    server: NatsServer, js: Js, tmp_path: Path, sent: list[str]
) -> None:
    d = tmp_path / "m"
    manifest(d, "s.yaml", stream_doc("REPL", '["repl.>"]', ", num_replicas: 3"))
    rc, out, err = run("apply", str(d), "--server", server.url, "--yes")
    assert rc == 1 and "JS315" in err and "would refuse 1 object(s); nothing was sent" in err, out + err
    assert writes(sent) == [] and js.streams() == []


def test_workqueue_filter_overlapping_a_live_consumer_is_refused(
    server: NatsServer, js: Js, tmp_path: Path, sent: list[str]
) -> None:
    d = tmp_path / "m"
    manifest(
        d,
        "wq.yaml",
        """
        apiVersion: jsops/v1
        kind: Stream
        metadata: {name: JOBS}
        spec: {subjects: ["jobs.>"], retention: workqueue}
    """,
    )
    rc, out, err = run("apply", str(d), "--server", server.url, "--yes")
    assert rc == 0, out + err
    js.ok(
        "$JS.API.CONSUMER.CREATE.JOBS.manual",
        {
            "stream_name": "JOBS",
            "config": {"durable_name": "manual", "ack_policy": "explicit", "filter_subject": "jobs.eu.>"},
        },
    )
    manifest(
        d,
        "workers.yaml",
        """
        apiVersion: jsops/v1
        kind: Consumer
        metadata: {name: eu, stream: JOBS}
        spec: {ack_policy: explicit, filter_subject: "jobs.eu.*"}
        ---
        apiVersion: jsops/v1
        kind: Consumer
        metadata: {name: us, stream: JOBS}
        spec: {ack_policy: explicit, filter_subject: "jobs.us.*"}
    """,
    )
    rc, out, _ = run("plan", str(d), "--server", server.url, "--format", "json")
    acts = actions(out)
    assert acts["Consumer JOBS/eu"]["err_code"] == 10100 and "consumer manual" in acts["Consumer JOBS/eu"]["reason"]
    assert acts["Consumer JOBS/us"]["action"] == "create"
    sent.clear()
    rc, out, err = run("apply", str(d), "--server", server.url, "--yes")
    assert rc == 1 and not any(s.endswith("JOBS.eu") for s in writes(sent)), writes(sent)
    assert js.consumer("JOBS", "us") is not None and js.consumer("JOBS", "eu") is None


def test_account_limits_against_live_usage(tmp_path: Path, sent: list[str]) -> None:
    from .helpers import NatsServer

    acc = "accounts { A { jetstream { max_streams: 2, max_file: 10MB }, users [{user: a, password: a}] } }"
    with NatsServer(extra_config=acc) as server:
        url = server.url.replace("nats://", "nats://a:a@")
        js = Js(url)
        try:
            js.ok("$JS.API.STREAM.CREATE.HAND", {"name": "HAND", "subjects": ["hand.>"], "max_bytes": 8 << 20})
            d = tmp_path / "m"
            manifest(d, "a.yaml", stream_doc("BIG", '["big.>"]', ", max_bytes: 4MiB"))
            manifest(d, "b.yaml", stream_doc("SMALL", '["small.>"]', ", max_bytes: 1MiB", consumer="reader"))
            rc, out, _ = run("plan", str(d), "--server", url, "--format", "json")
            acts = actions(out)
            assert acts["Stream BIG"]["err_code"] == 10047, acts["Stream BIG"]
            assert acts["Stream SMALL"]["action"] == "create"
            rc, out, err = run("apply", str(d), "--server", url, "--yes")
            assert rc == 1 and js.streams() == ["HAND", "SMALL"], out + err
        finally:
            js.close()


def test_sealing_an_existing_stream_plans_and_applies_as_an_update(server: NatsServer, js: Js, tmp_path: Path) -> None:
    d = tmp_path / "m"
    manifest(d, "audit.yaml", stream_doc("AUDIT", '["audit.>"]', ", max_age: 1h"))
    rc, out, err = run("apply", str(d), "--server", server.url, "--yes")
    assert rc == 0, out + err
    js.publish("audit.x", 3)
    manifest(d, "audit.yaml", stream_doc("AUDIT", '["audit.>"]', ", max_age: 1h, sealed: true"))
    rc, out, err = run("plan", str(d), "--server", server.url, "--format", "json")
    acts = actions(out)
    assert rc == 2 and acts["Stream AUDIT"]["action"] == "update", out + err
    assert "sealed" in {c["path"] for c in acts["Stream AUDIT"]["changes"]}
    rc, out, err = run("apply", str(d), "--server", server.url, "--yes")
    assert rc == 0, out + err
    info = js.stream("AUDIT")
    assert info is not None and info["config"]["sealed"] is True and info["state"]["messages"] == 3
    assert run("plan", str(d), "--server", server.url)[0] == 0  # what the server stored is what the manifest says
    manifest(d, "new.yaml", stream_doc("SEALED_NEW", '["sn.>"]', ", sealed: true", consumer="c"))
    rc, out, err = run("plan", str(d), "--server", server.url)
    assert rc == 1 and "new.yaml:4" in err and "JS114" in err and "nothing was sent" in err, out + err
