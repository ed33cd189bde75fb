"""No tug-of-war (issue 37) on a real nats-server with two users from its config file: the controller
(user ``controller``) heals a field an application (user ``app``, connection ``orders-svc``) keeps
changing back; after the third change within the window it stops healing that field, keeps
reconciling everything else, says so (event, metric, ``/readyz``), keeps the quarantine across a
restart (JetStream KV), and ends it when the manifest changes."""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from .helpers import ApiAudit, Js, NatsServer, manifest, run
from .test_controller_helpers import Proc, Running, get, sample, wait_for
from .test_drift_server import HOUR, RECORD, USERS  # the drift example's accounts and audit record

pytestmark = pytest.mark.integration

ESTATE = """
apiVersion: jsops/v1
kind: Stream
metadata: {name: ORDERS}
spec: {subjects: ['orders.>'], max_age: MAX_AGE}
---
apiVersion: jsops/v1
kind: Stream
metadata: {name: OTHER}
spec: {subjects: ['other.>'], max_age: 1h}
"""


@pytest.fixture
def users_server() -> Iterator[NatsServer]:
    s = NatsServer(extra_config=USERS).start()
    try:
        yield s
    finally:
        s.stop()


def _max_age(js: Js, name: str) -> int:
    return int(js.ok(f"$JS.API.STREAM.INFO.{name}")["config"]["max_age"])


def _set(js: Js, name: str, max_age: int) -> None:
    config = js.ok(f"$JS.API.STREAM.INFO.{name}")["config"]
    js.ok(f"$JS.API.STREAM.UPDATE.{name}", {**config, "max_age": max_age})


def _rounds(ctl: Running, n: int) -> None:
    start = ctl.rounds()
    wait_for(lambda: ctl.rounds() >= start + n, 60, f"{n} more rounds")


def test_a_field_changed_back_three_times_is_quarantined_and_stays_so_across_a_restart(
    users_server: NatsServer, tmp_path: Path
) -> None:
    d = tmp_path / "m"
    manifest(d, "estate.yaml", ESTATE.replace("MAX_AGE", "1h"))
    shutil.copy(RECORD, d / "record.yaml")
    url = f"nats://controller:c0ntrol@127.0.0.1:{users_server.port}"
    app = Js(f"nats://127.0.0.1:{users_server.port}", user="app", password="app", name="orders-svc")
    audit = ApiAudit(f"nats://controller:c0ntrol@127.0.0.1:{users_server.port}")
    try:
        with Running([str(d)], url, quarantine_after=3, quarantine_window=600.0) as ctl:
            wait_for(lambda: app.stream("ORDERS") and app.stream("OTHER"), what="the estate to be created")
            for _ in range(2):  # changed, healed; changed back, healed
                _set(app, "ORDERS", HOUR // 2)
                wait_for(lambda: _max_age(app, "ORDERS") == HOUR, what="max_age to be healed")
            _set(app, "ORDERS", HOUR // 2)  # the third change within the window
            wait_for(lambda: ctl.events("quarantined"), what="the quarantine")
            _rounds(ctl, 1)
            healed = len([u for u in audit.updates("$JS.API.STREAM.UPDATE.ORDERS")])
            _set(app, "OTHER", HOUR // 2)  # everything else is still reconciled
            wait_for(lambda: _max_age(app, "OTHER") == HOUR, what="OTHER to be healed")
            _rounds(ctl, 5)
            assert _max_age(app, "ORDERS") == HOUR // 2
            assert len(audit.updates("$JS.API.STREAM.UPDATE.ORDERS")) == healed  # 0 further updates of it

            drifts = [e for e in ctl.events("drift") if e["object"] == "Stream ORDERS" and "changed_by" in e]
            assert drifts and {e["changed_by"]["max_age"]["client_name"] for e in drifts} == {
                "orders-svc"
            }  # every heal names its author

            event = ctl.events("quarantined")[0]
            assert event["field"] == "Stream//ORDERS/max_age" and event["changes"] == 3
            assert event["author"] == {"user": "app", "account": "A", "client_name": "orders-svc", "host": "127.0.0.1"}
            m = ctl.metrics()
            labels = {
                "context": "default",
                "kind": "Stream",
                "stream": "",
                "name": "ORDERS",
                "field": "max_age",
                "author": "orders-svc",
            }
            assert sample(m, "jsops_controller_drift_quarantined", **labels) == 1
            code, text = get(ctl.port, "/readyz")
            assert (
                code == 200
                and "quarantined default Stream//ORDERS/max_age: changed back 3 times by orders-svc (user app, 127.0.0.1)"
                in text
            )

            # jsops plan shows the quarantined field as the controller holds it, and plans no change of it
            rc, out, err = run("plan", str(d), "-s", url)
            assert rc == 0, out + err
            assert (
                "= Stream ORDERS max_age: 30m kept, quarantined: changed back 3 times by orders-svc (user app, 127.0.0.1); not healed; "
                "`nats kv del JSOPS_DRIFT tugs` ends it; the manifest says 1h" in out
            )

        with Running(
            [str(d)], url, quarantine_after=3, quarantine_window=600.0
        ) as again:  # a restart: the state is in JetStream
            _rounds(again, 5)
            assert _max_age(app, "ORDERS") == HOUR // 2
            assert len(audit.updates("$JS.API.STREAM.UPDATE.ORDERS")) == healed
            assert sample(again.metrics(), "jsops_controller_drift_quarantined", **labels) == 1

            manifest(d, "estate.yaml", ESTATE.replace("MAX_AGE", "2h"))  # the manifest changes: the quarantine ends
            wait_for(lambda: _max_age(app, "ORDERS") == 2 * HOUR, what="the new manifest value to be applied")
            assert again.events("quarantine_released")[0]["field"] == "Stream//ORDERS/max_age"
            time.sleep(0.5)
            assert "quarantined" not in get(again.port, "/readyz")[1]
    finally:
        audit.close()
        app.close()


THIRD = """
---
apiVersion: jsops/v1
kind: Stream
metadata: {name: THIRD}
spec: {subjects: ['third.>'], max_age: 1h}
"""


def _leads(p: Proc) -> float | None:
    try:
        return sample(p.metrics(), "jsops_controller_leader", context="default")
    except (OSError, AssertionError):
        return None


def _successes(p: Proc) -> float:
    return sample(p.metrics(), "jsops_controller_reconcile_total", result="success") or 0


def _tug(app: Js, name: str, times: int) -> None:
    """The application changes ``name``'s max_age ``times`` times, each one healed by the leader."""
    for _ in range(times):
        _set(app, name, HOUR // 2)
        wait_for(lambda: _max_age(app, name) == HOUR, what=f"{name}'s max_age to be healed")


def test_attribution_and_quarantine_survive_a_change_of_leader(users_server: NatsServer, tmp_path: Path) -> None:
    """Two controllers with the HA lease (as test_controller_faults): the leader quarantines a field
    and counts two changes back of another; killed (-9), the follower takes over, keeps the
    quarantine (no update of the field over 5 rounds, its gauge and /readyz), reconciles the rest,
    and counts on from the changes its predecessor recorded (the third quarantines the other field)."""
    d = tmp_path / "m"
    manifest(d, "estate.yaml", ESTATE.replace("MAX_AGE", "1h") + THIRD)
    shutil.copy(RECORD, d / "record.yaml")
    url = f"nats://controller:c0ntrol@127.0.0.1:{users_server.port}"
    app = Js(f"nats://127.0.0.1:{users_server.port}", user="app", password="app", name="orders-svc")
    audit = ApiAudit(url)
    procs = [
        Proc(
            [str(d)],
            url,
            "--lease-ttl",
            "5s",
            "--identity",
            f"c{i}",
            "--quarantine-after",
            "3",
            "--quarantine-window",
            "10m",
            log=tmp_path / f"c{i}.log",
        )
        for i in (1, 2)
    ]
    try:
        wait_for(lambda: sorted(_leads(p) or 0 for p in procs) == [0, 1], 60, "exactly one leader")
        leader, follower = (procs[0], procs[1]) if _leads(procs[0]) == 1 else (procs[1], procs[0])
        wait_for(lambda: all(app.stream(n) for n in ("ORDERS", "OTHER", "THIRD")), what="the estate to be created")

        _tug(app, "ORDERS", 2)
        _set(app, "ORDERS", HOUR // 2)  # the third change within the window
        wait_for(lambda: leader.events("quarantined"), what="the leader's quarantine")
        _tug(app, "OTHER", 2)  # two changes of another field counted by this leader
        line = "quarantined default Stream//ORDERS/max_age: changed back 3 times by orders-svc (user app, 127.0.0.1)"
        wait_for(lambda: line in get(follower.port, "/readyz")[1], what="the follower to read the quarantine")
        assert follower.events("quarantined") == []  # followers read the state, never count

        leader.process.kill()  # kill -9: no chance to release the lease
        leader.process.wait()
        wait_for(lambda: _leads(follower) == 1, 60, "the follower to take over")
        updates = len(audit.updates("$JS.API.STREAM.UPDATE.ORDERS"))
        start = _successes(follower)
        wait_for(lambda: _successes(follower) >= start + 5, 60, "5 rounds of the new leader")
        assert _max_age(app, "ORDERS") == HOUR // 2
        assert len(audit.updates("$JS.API.STREAM.UPDATE.ORDERS")) == updates  # 0 updates of it under the new leader
        labels = {"kind": "Stream", "stream": "", "name": "ORDERS", "field": "max_age", "author": "orders-svc"}
        assert sample(follower.metrics(), "jsops_controller_drift_quarantined", context="default", **labels) == 1
        code, text = get(follower.port, "/readyz")
        assert code == 200 and line in text

        app.ok("$JS.API.STREAM.DELETE.THIRD")  # everything else is reconciled by the new leader
        wait_for(lambda: app.stream("THIRD"), what="the new leader to heal THIRD")

        _set(app, "OTHER", HOUR // 2)  # the third change of OTHER: two were counted by the old leader
        wait_for(lambda: follower.events("quarantined"), what="the new leader's quarantine of OTHER")
        (event,) = follower.events("quarantined")
        assert event["field"] == "Stream//OTHER/max_age" and event["changes"] == 3
        assert event["author"] == {"user": "app", "account": "A", "client_name": "orders-svc", "host": "127.0.0.1"}
        drifts = [e for e in follower.events("drift") if e["object"] == "Stream OTHER" and "changed_by" in e]
        assert drifts and drifts[-1]["changed_by"]["max_age"]["client_name"] == "orders-svc"
    finally:
        for p in procs:
            p.stop()
        audit.close()
        app.close()
