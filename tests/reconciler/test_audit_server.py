"""``jsops audit`` against real nats-servers: live health, the static rules as lint finds them on an
export, drift from manifests, release readiness, and that nothing is written."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import time
from pathlib import Path
from typing import Any

import pytest

from .audit_seed import HOUR_NS, SECOND_NS, consumer, seed_unhealthy_and_healthy, stream
from .helpers import Js, NatsServer, manifest, run

pytestmark = pytest.mark.integration

UNHEALTHY = {("nats://FULL", "JS501"), ("nats://WORK/stalled", "JS505"), ("nats://WORK/retrying", "JS507")}


def audit(*args: str) -> tuple[int, str, str]:
    from jsops.reconciler.audit.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(["--no-config", *args])
    return rc, out.getvalue(), err.getvalue()


def audit_json(*args: str) -> tuple[int, list[dict[str, Any]]]:
    rc, out, err = audit("--format", "json", *args)
    assert rc in (0, 1), err
    return rc, json.loads(out)["findings"]


def lint_codes(directory: Path) -> set[str]:
    from jsops.linter.cli.app import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        main(["lint", "--no-config", "--format", "json", str(directory)])
    return {f["rule"] for f in json.loads(out.getvalue())["findings"]}


def test_unhealthy_objects_are_warned_on_and_healthy_ones_are_not(server: NatsServer, js: Js, tmp_path: Path) -> None:
    seed_unhealthy_and_healthy(js)
    rc, findings = audit_json("-s", server.url)
    assert rc == 1
    warned = {(f["file"], f["rule"]) for f in findings if f["severity"] in ("warning", "error")}
    assert warned == UNHEALTHY
    assert all(f["line"] == 0 and f["object"] for f in findings)

    # every code lint reports on an export of the same server, audit reports too (on the same objects)
    rc, _, err = run("export", "-s", server.url, str(tmp_path / "exported"))
    assert rc == 0, err
    exported = lint_codes(tmp_path / "exported")
    assert exported, "the seeded configs give lint findings (JS406): the comparison would be empty otherwise"
    assert exported <= {f["rule"] for f in findings}


def test_fail_on_error_and_thresholds_from_the_config(server: NatsServer, js: Js, tmp_path: Path) -> None:
    seed_unhealthy_and_healthy(js)
    rc, _out, _err = audit("-s", server.url, "--fail-on", "error")
    assert rc == 0  # warnings only
    config = tmp_path / ".jsops.yaml"
    config.write_text(
        "audit:\n  JS501: {warn_at: 0.97}\n  live-consumer-redelivering: {severity: 'off'}\n  JS505: {severity: error}\n"
    )
    from jsops.reconciler.audit.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        rc = main(["--config", str(config), "--format", "json", "-s", server.url, "--fail-on", "error"])
    assert rc == 1  # JS505 is an error now
    found = {
        (f["file"], f["rule"], f["severity"])
        for f in json.loads(out.getvalue())["findings"]
        if f["rule"].startswith("JS5")
    }
    assert found == {("nats://WORK/stalled", "JS505", "error")}  # 96% < 0.97; redeliveries off


def test_a_bad_threshold_is_a_config_error(server: NatsServer, tmp_path: Path) -> None:
    config = tmp_path / ".jsops.yaml"
    config.write_text("audit:\n  JS501: {warn_at: 2}\n")
    from jsops.reconciler.audit.cli import main

    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        rc = main(["--config", str(config), "-s", server.url])
    assert rc == 2 and "audit.JS501.warn_at" in err.getvalue()


def test_unreachable_target_could_not_run() -> None:
    from .helpers import free_port_url

    rc, _out, err = audit("-s", free_port_url())
    assert rc == 2 and "cannot connect" in err


def _listen(js: Js) -> tuple[list[str], Any]:
    subjects: list[str] = []

    async def on(msg: Any) -> None:
        subjects.append(msg.subject)

    sub = js.loop.run_until_complete(js.nc.subscribe("$JS.API.>", cb=on))
    js.loop.run_until_complete(js.nc.flush())
    return subjects, sub


def test_audit_sends_only_listings(server: NatsServer, js: Js, tmp_path: Path) -> None:
    """What the server received while audit ran, seen by another client of the account: listings only."""
    seed_unhealthy_and_healthy(js)
    manifest(
        tmp_path / "m",
        "calm.yaml",
        """
        apiVersion: jsops/v1
        kind: Stream
        metadata: {name: CALM}
        spec: {subjects: ["calm.>"], max_age: 2h}
    """,
    )
    subjects, sub = _listen(js)
    audit("-s", server.url, str(tmp_path / "m"), "--target-version", "2.11.11")
    js.loop.run_until_complete(asyncio.sleep(0.5))
    js.loop.run_until_complete(sub.unsubscribe())
    from jsops.reconciler.audit.read import READ_SUBJECTS

    assert subjects, "the listener saw the audit's requests"
    asked = [s.removeprefix("$JS.API.") for s in subjects]
    assert all(a.startswith(READ_SUBJECTS) for a in asked), asked
    assert not [a for a in asked if any(w in a for w in ("CREATE", "UPDATE", "DELETE", "PURGE", "MSG."))]
    assert asked.count("STREAM.LIST") == 1 and sum(a.startswith("CONSUMER.LIST.") for a in asked) == 2  # WORK and CALM


def test_drift_per_field_unmanaged_and_missing(server: NatsServer, js: Js, tmp_path: Path) -> None:
    m = tmp_path / "m"
    orders = manifest(
        m,
        "orders.yaml",
        """
        apiVersion: jsops/v1
        kind: Stream
        metadata: {name: ORDERS}
        spec:
          subjects: ["orders.>"]
          max_age: 1h
          max_msgs: 1000
        ---
        apiVersion: jsops/v1
        kind: Consumer
        metadata: {name: shipper, stream: ORDERS}
        spec:
          ack_wait: 30s
          max_deliver: 5
    """,
    )
    rc, _, err = run("apply", str(m), "-s", server.url, "--yes")
    assert rc == 0, err
    live = js.ok("$JS.API.STREAM.INFO.ORDERS")["config"]
    js.ok("$JS.API.STREAM.UPDATE.ORDERS", {**live, "max_age": 2 * HOUR_NS, "max_msgs": 500})
    c = js.ok("$JS.API.CONSUMER.INFO.ORDERS.shipper")["config"]
    js.ok(
        "$JS.API.CONSUMER.CREATE.ORDERS.shipper", {"stream_name": "ORDERS", "config": {**c, "ack_wait": 60 * SECOND_NS}}
    )
    stream(js, "STRAY", ["stray.>"])
    consumer(js, "ORDERS", "handmade")
    manifest(
        m,
        "later.yaml",
        """
        apiVersion: jsops/v1
        kind: Stream
        metadata: {name: LATER}
        spec: {subjects: ["later.>"], max_age: 1h}
    """,
    )
    _rc, findings = audit_json("-s", server.url, str(m))
    drift = {
        (f["object"]["name"], f["message"].split(":")[0], f["file"], f["line"])
        for f in findings
        if f["rule"] == "JS520"
    }
    assert drift == {
        ("ORDERS", "max_age", str(orders), 6),
        ("ORDERS", "max_msgs", str(orders), 7),
        ("shipper", "ack_wait", str(orders), 13),
    }
    msg = next(f["message"] for f in findings if f["rule"] == "JS520" and f["message"].startswith("max_age"))
    assert "the server has 2h" in msg and "the manifest says 1h" in msg
    assert {f["file"] for f in findings if f["rule"] == "JS521"} == {"nats://STRAY", "nats://ORDERS/handmade"}
    assert [f["object"]["name"] for f in findings if f["rule"] == "JS522"] == ["LATER"]


def test_target_version_names_what_the_older_release_refuses_or_changes(tmp_path: Path) -> None:
    from natsserver import release_binary

    binary = release_binary("2.15.1")
    if binary is None:
        pytest.skip("nats-server 2.15.1 is not installed (make install fetches it)")
    with NatsServer(binary=binary) as server:
        js = Js(server.url)
        try:
            stream(
                js,
                "TTL",
                ["ttl.>"],
                allow_msg_ttl=True,
                subject_delete_marker_ttl=60 * SECOND_NS,
                allow_rollup_hdrs=True,
            )
            stream(js, "PLAIN", ["plain.>"], duplicate_window=60 * SECOND_NS)
            consumer(
                js,
                "PLAIN",
                "pinned",
                priority_policy="pinned_client",
                priority_groups=["jobs"],
                priority_timeout=60 * SECOND_NS,
            )
            consumer(js, "PLAIN", "steady", ack_wait=30 * SECOND_NS)
            _rc, now = audit_json("-s", server.url)
            _rc, then = audit_json("-s", server.url, "--target-version", "2.10.26")
        finally:
            js.close()
    added = [f for f in then if f not in now]
    assert added and all(f["message"].startswith("on nats-server 2.10.26 (downgrade): ") for f in added)
    named = {f["file"] for f in added}
    assert {"nats://TTL", "nats://PLAIN/pinned"} <= named and "nats://PLAIN/steady" not in named
    ttl = " ".join(f["message"] for f in added if f["file"] == "nats://TTL")
    assert "allow_msg_ttl" in ttl and "subject_delete_marker_ttl" in ttl
    pinned = " ".join(f["message"] for f in added if f["file"] == "nats://PLAIN/pinned")
    assert "priority_policy" in pinned or "priority_groups" in pinned


def test_monitor_gives_the_servers_own_limits() -> None:
    """With --monitor, the server's jetstream { limits } from /varz judge the live configs (the
    server refuses to recover a consumer past them, so they are checked on the target facts)."""
    from natsserver import free_port

    from jsops.reconciler.audit.read import read_audit
    from jsops.reconciler.audit.static import live_target
    from jsops.reconciler.client import JsClient, Target
    from jsops.reconciler.limits import monitor_json

    http = free_port()
    with NatsServer(
        extra_config=f"http: 127.0.0.1:{http}", jetstream_config="limits { max_request_batch: 100 }"
    ) as server:
        rc, _out, err = audit("-s", server.url, "--monitor", f"http://127.0.0.1:{http}")
        assert rc == 0, err
        target = Target(servers=(server.url,), monitor=f"http://127.0.0.1:{http}")
        with JsClient(target) as client:
            state = read_audit(client)
        assert live_target(state).limits.max_request_batch is None
        state.varz = monitor_json(target, "varz")
        assert live_target(state).limits.max_request_batch == 100
        rc, _out, err = audit("-s", server.url, "--monitor", f"http://127.0.0.1:{free_port()}")
        assert rc == 2 and "cannot read the server's limits" in err


def test_failing_mirror_and_a_bucket_near_full(server: NatsServer, js: Js) -> None:
    js.ok("$JS.API.STREAM.CREATE.ORPHAN", {"name": "ORPHAN", "mirror": {"name": "NOPE"}, "max_age": HOUR_NS})
    js.ok(
        "$JS.API.STREAM.CREATE.KV_cfg",
        {
            "name": "KV_cfg",
            "subjects": ["$KV.cfg.>"],
            "max_msgs_per_subject": 5,
            "max_bytes": 4096,
            "discard": "new",
            "allow_rollup_hdrs": True,
            "deny_delete": True,
            "allow_direct": True,
            "duplicate_window": 120 * SECOND_NS,
            "num_replicas": 1,
            "max_msgs": -1,
        },
    )
    stored = 0
    i = 0
    while stored < 0.85 * 4096:
        js.publish(f"$KV.cfg.k{i}")
        i += 1
        stored = int(js.ok("$JS.API.STREAM.INFO.KV_cfg")["state"]["bytes"])
    deadline = time.monotonic() + 30
    while not (js.ok("$JS.API.STREAM.INFO.ORPHAN").get("mirror") or {}).get("error"):  # the mirror has tried its origin
        assert time.monotonic() < deadline, "the mirror reported no error"
        time.sleep(0.2)
    _rc, findings = audit_json("-s", server.url)
    live = {(f["file"], f["rule"], f["severity"]) for f in findings if f["rule"] in ("JS513", "JS514")}
    assert live == {("nats://ORPHAN", "JS513", "error"), ("nats://KV_cfg", "JS514", "warning")}
    orphan = next(f["message"] for f in findings if f["rule"] == "JS513")
    assert "NOPE" in orphan and "10059" in orphan


def test_inactive_backlog_and_ephemeral_leftover_with_short_thresholds(
    server: NatsServer, js: Js, tmp_path: Path
) -> None:
    stream(js, "Q", ["q.>"], duplicate_window=60 * SECOND_NS)
    consumer(js, "Q", "idle")  # durable, never fetched from
    js.ok(
        "$JS.API.CONSUMER.CREATE.Q",
        {"stream_name": "Q", "config": {"name": "eph", "ack_policy": "explicit", "inactive_threshold": HOUR_NS}},
    )
    consumer(js, "Q", "busy")
    js.publish("q.x", 3)
    js.fetch_ack("Q", "busy", 3)
    time.sleep(1.5)
    config = tmp_path / ".jsops.yaml"
    config.write_text("audit:\n  JS506: {max_pending: 3}\n  JS508: {inactive_for: 1s}\n  JS509: {idle_for: 1s}\n")
    from jsops.reconciler.audit.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        main(["--config", str(config), "--format", "json", "-s", server.url])
    found = {
        (f["file"], f["rule"])
        for f in json.loads(out.getvalue())["findings"]
        if f["rule"] in ("JS506", "JS508", "JS509")
    }
    # busy delivered everything; idle and eph were never fetched from, and eph has no client
    assert found == {
        ("nats://Q/idle", "JS506"),
        ("nats://Q/idle", "JS508"),
        ("nats://Q/eph", "JS506"),
        ("nats://Q/eph", "JS508"),
        ("nats://Q/eph", "JS509"),
    }


def test_account_storage_near_its_limit() -> None:
    accounts = "accounts { APP { jetstream: { max_file: 16384, max_mem: 0 }, users: [{user: app, password: s3cret}] } }"
    with NatsServer(extra_config=accounts) as server:
        url = server.url.replace("nats://", "nats://app:s3cret@")
        js = Js(url)
        try:
            stream(js, "LOGS", ["logs.>"], duplicate_window=60 * SECOND_NS)
            used = 0
            while used < 0.92 * 16384:
                js.publish("logs.x", 10)
                used = int(js.ok("$JS.API.INFO")["storage"])
        finally:
            js.close()
        _rc, findings = audit_json("-s", url)
    (hit,) = [f for f in findings if f["rule"] == "JS504"]
    assert hit["file"] == "nats://" and hit["object"] is None and "16KiB" in hit["message"]


def test_stream_near_max_bytes_and_per_subject(server: NatsServer, js: Js) -> None:
    stream(js, "BYTES", ["bytes.>"], max_bytes=2048, duplicate_window=60 * SECOND_NS)
    while int(js.ok("$JS.API.STREAM.INFO.BYTES")["state"]["bytes"]) < 0.93 * 2048:
        js.publish("bytes.x", 5)
    stream(js, "LAST", ["last.>"], max_msgs_per_subject=4, duplicate_window=60 * SECOND_NS)
    for subject in ("last.a", "last.b", "last.c"):
        js.publish(subject, 6)
    stream(js, "ROOMY", ["roomy.>"], max_msgs_per_subject=100, max_bytes=1 << 20, duplicate_window=60 * SECOND_NS)
    js.publish("roomy.a", 5)
    _rc, findings = audit_json("-s", server.url)
    found = {(f["file"], f["rule"]) for f in findings if f["rule"] in ("JS501", "JS502", "JS503")}
    assert found == {("nats://BYTES", "JS502"), ("nats://LAST", "JS503")}


def test_manifests_route_the_audit_to_every_target(two_servers: tuple[NatsServer, NatsServer], tmp_path: Path) -> None:
    a, b = two_servers
    m = tmp_path / "m"
    manifest(
        m,
        "a.yaml",
        """
        apiVersion: jsops/v1
        kind: Stream
        metadata: {name: HOME}
        spec: {subjects: ["home.>"], max_age: 1h}
    """,
    )
    manifest(
        m,
        "b.yaml",
        """
        apiVersion: jsops/v1
        kind: Stream
        metadata: {name: AWAY, context: b}
        spec: {subjects: ["away.>"], max_age: 1h}
    """,
    )
    config = tmp_path / ".jsops.yaml"
    config.write_text(f"contexts:\n  b: {{server: {b.url!r}}}\n")
    for server in (a, b):
        js = Js(server.url)
        try:
            stream(js, "STRAY", ["stray.>"])
        finally:
            js.close()
    from jsops.reconciler.audit.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(["--config", str(config), "--format", "json", "-s", a.url, str(m)])
    assert rc == 1, err.getvalue()
    findings = json.loads(out.getvalue())["findings"]
    assert {(f["rule"], f["object"]["name"]) for f in findings if f["rule"] == "JS522"} == {
        ("JS522", "HOME"),
        ("JS522", "AWAY"),
    }
    unmanaged = sorted(f["message"] for f in findings if f["rule"] == "JS521")
    assert unmanaged == [
        "context b: stream STRAY is on the server but in no manifest (`jsops export` writes one)",
        "context default: stream STRAY is on the server but in no manifest (`jsops export` writes one)",
    ]
    assert "for context b" in err.getvalue()
