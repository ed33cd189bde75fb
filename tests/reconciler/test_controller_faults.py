"""Fault tests for ``jsops controller`` on real nats-servers: kill -9 and restart of the server
under a running controller, two controllers with one leader (kill the leader), SIGTERM."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from .helpers import Js, NatsServer, manifest
from .test_controller_helpers import STREAM_YAML, Proc, Running, get, sample, wait_for

pytestmark = pytest.mark.integration


def test_rides_out_a_server_kill_and_restart(server: NatsServer, tmp_path: Path) -> None:
    manifest(tmp_path / "m", "orders.yaml", STREAM_YAML)
    with Running([str(tmp_path / "m")], server.url) as ctl:
        js = Js(server.url)
        try:
            wait_for(lambda: js.consumer("ORDERS", "shipper"), what="the estate to be created")
        finally:
            js.close()
        server.kill()
        wait_for(
            lambda: (
                (
                    sample(
                        ctl.metrics(),
                        "jsops_controller_errors_total",
                        context="default",
                        type="connection",
                        err_code="",
                    )
                    or 0
                )
                >= 2
            ),
            what="connection errors while the server is down",
        )
        server.restart()
        js = Js(server.url)
        try:
            wait_for(lambda: len(ctl.events("connected")) >= 2, what="a reconnect")
            # converging again: drift made after the restart is healed
            js.ok("$JS.API.CONSUMER.DELETE.ORDERS.shipper")
            wait_for(lambda: js.consumer("ORDERS", "shipper"), what="the consumer to come back after the restart")
            ctl.settle()
            assert ctl.controller.last_result == "success"
            assert sample(ctl.metrics(), "jsops_controller_drift_objects", context="default") == 0
        finally:
            js.close()
    assert ctl.code == 0


def _leader(p: Proc) -> float | None:
    try:
        return sample(p.metrics(), "jsops_controller_leader", context="default")
    except (OSError, AssertionError):
        return None


def test_two_controllers_one_leader_and_takeover(server: NatsServer, js: Js, tmp_path: Path) -> None:
    manifest(tmp_path / "m", "orders.yaml", STREAM_YAML)
    procs = [
        Proc([str(tmp_path / "m")], server.url, "--lease-ttl", "5s", "--identity", f"c{i}", log=tmp_path / f"c{i}.log")
        for i in (1, 2)
    ]
    try:
        wait_for(lambda: all(_leader(p) is not None for p in procs), 30, "both controllers serving /metrics")
        wait_for(lambda: sorted(_leader(p) or 0 for p in procs) == [0, 1], 30, "exactly one leader")
        wait_for(lambda: js.consumer("ORDERS", "shipper"), what="the estate to be created")
        leader, follower = (procs[0], procs[1]) if _leader(procs[0]) == 1 else (procs[1], procs[0])
        wait_for(lambda: get(follower.port, "/readyz")[0] == 200, what="the follower to plan successfully")
        # the follower plans and reports but never applies
        assert not any(k[0] == "jsops_controller_actions_total" for k in follower.metrics())
        assert follower.events("action") == [] and follower.events("leader_acquired") == []

        leader.process.kill()  # kill -9: no chance to release the lease
        leader.process.wait()
        wait_for(lambda: _leader(follower) == 1, 30, "the follower to take over")
        assert [e["identity"] for e in follower.events("leader_acquired")] == [
            follower.events("started")[0]["identity"]
        ]
        js.ok("$JS.API.STREAM.DELETE.ORDERS")
        wait_for(lambda: js.stream("ORDERS") and js.consumer("ORDERS", "shipper"), what="the new leader to heal drift")
        healed = {"Stream ORDERS", "Consumer ORDERS/shipper"}
        wait_for(
            lambda: {e["object"] for e in follower.events("action")} == healed, what="the new leader's action events"
        )
    finally:
        for p in procs:
            p.stop()


def test_sigterm_exits_zero_and_releases_the_lease(server: NatsServer, js: Js, tmp_path: Path) -> None:
    manifest(tmp_path / "m", "orders.yaml", STREAM_YAML)
    p = Proc([str(tmp_path / "m")], server.url, "--lease-ttl", "60s", log=tmp_path / "c.log")
    try:
        wait_for(lambda: get(p.port, "/readyz")[0] == 200, 30, "ready")
        assert js.stream("KV_JSOPS_CONTROLLER")["state"]["messages"] == 1  # type: ignore[index]
        p.process.send_signal(signal.SIGTERM)
        assert p.process.wait(timeout=20) == 0
        events = [e["event"] for e in p.events()]
        assert "leader_released" in events and events[-1] == "stopped"
        # the lease key is deleted (a delete marker), so a follower need not wait out the 60s TTL
        last = js.request("$JS.API.STREAM.MSG.GET.KV_JSOPS_CONTROLLER", {"last_by_subj": "$KV.JSOPS_CONTROLLER.leader"})
        assert "KV-Operation: DEL" in __import__("base64").b64decode(last["message"]["hdrs"]).decode()
    finally:
        p.stop()


def test_lease_is_exclusive_and_handed_over_on_release(server: NatsServer) -> None:
    from jsops.reconciler.client import Target
    from jsops.reconciler.controller.lease import Lease

    target = Target(servers=(server.url,))
    a = Lease(target, ttl=6.0, identity="a", bucket="LEASE_TEST")
    b = Lease(target, ttl=6.0, identity="b", bucket="LEASE_TEST")
    try:
        a.start()
        wait_for(a.held, what="a to take the lease")
        b.start()
        wait_for(lambda: b.holder == "a", what="b to see that a holds the lease")
        assert a.held() and not b.held()
        a.stop()  # releases: b need not wait out the TTL
        wait_for(b.held, 4.5, "b to take over after the release (well before the 6s TTL)")
        assert b.holder == "b" and not a.held()
    finally:
        a.stop()
        b.stop()
