"""The controller's own subscription to the API audit advisories (``--advisory-subscription``, issue 37)
on a real nats-server with two users (the controller's and an application's): without any record
stream, the controller names who changed a field while it ran and stops a tug-of-war; a controller
not permitted to subscribe says so once and attributes nothing; with two accounts, each target
hears its own account."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from .helpers import Js, NatsServer, manifest
from .test_controller_helpers import Running, get, wait_for
from .test_drift_controller import ESTATE, HOUR, _max_age, _set

pytestmark = pytest.mark.integration

USERS = (
    "accounts { A { jetstream: enabled, users: ["
    "{user: controller, password: c0ntrol}, {user: app, password: app},"
    "{user: deaf, password: deaf, permissions: {subscribe: {deny: ['$JS.EVENT.ADVISORY.API']}}}"
    "] } }"
)


@pytest.fixture
def users_server() -> Iterator[NatsServer]:
    s = NatsServer(extra_config=USERS).start()
    try:
        yield s
    finally:
        s.stop()


def _listening(ctl: Running) -> bool:
    run = ctl.controller.targets.get("default")
    return run is not None and run.listener is not None and run.listener.heard() is not None


def test_without_a_record_the_controller_names_the_author_it_heard_and_stops_a_tug_of_war(
    users_server: NatsServer, tmp_path: Path
) -> None:
    d = tmp_path / "m"
    manifest(d, "estate.yaml", ESTATE.replace("MAX_AGE", "1h"))  # no record stream
    url = f"nats://controller:c0ntrol@127.0.0.1:{users_server.port}"
    app = Js(f"nats://127.0.0.1:{users_server.port}", user="app", password="app", name="orders-svc")
    try:
        with Running([str(d)], url, quarantine_after=3, quarantine_window=600.0, advisory_subscription=True) as ctl:
            wait_for(lambda: app.stream("ORDERS") and app.stream("OTHER"), what="the estate to be created")
            wait_for(lambda: _listening(ctl), what="the subscription to hear")
            assert not [n for n in app.ok("$JS.API.STREAM.NAMES").get("streams") or [] if n.startswith("JSOPS_API")]
            for _ in range(2):
                _set(app, "ORDERS", HOUR // 2)
                wait_for(lambda: _max_age(app, "ORDERS") == HOUR, what="max_age to be healed")
            _set(app, "ORDERS", HOUR // 2)
            wait_for(lambda: ctl.events("quarantined"), what="the quarantine")
            drifts = [e for e in ctl.events("drift") if e["object"] == "Stream ORDERS" and "changed_by" in e]
            assert drifts and all(e["changed_by"]["max_age"]["client_name"] == "orders-svc" for e in drifts)
            assert drifts[0]["changed_by"]["max_age"]["user"] == "app"
            (event,) = ctl.events("quarantined")
            assert event["field"] == "Stream//ORDERS/max_age" and event["changes"] == 3
            assert event["author"]["client_name"] == "orders-svc"
            ctl.settle()
            assert _max_age(app, "ORDERS") == HOUR // 2  # no longer healed
            assert "quarantined default Stream//ORDERS/max_age" in get(ctl.port, "/readyz")[1]
            assert ctl.events("advisories_unheard") == []
    finally:
        app.close()


def test_a_controller_not_permitted_to_subscribe_says_so_and_names_nobody(
    users_server: NatsServer, tmp_path: Path
) -> None:
    d = tmp_path / "m"
    manifest(d, "estate.yaml", ESTATE.replace("MAX_AGE", "1h"))
    url = f"nats://deaf:deaf@127.0.0.1:{users_server.port}"
    app = Js(f"nats://127.0.0.1:{users_server.port}", user="app", password="app", name="orders-svc")
    try:
        with Running([str(d)], url, advisory_subscription=True) as ctl:
            wait_for(lambda: app.stream("ORDERS"), what="the estate to be created")
            wait_for(lambda: ctl.events("advisories_unheard"), 60, "the controller to say it hears nothing")
            (event,) = ctl.events("advisories_unheard")
            assert "not permitted to subscribe" in event["reason"]
            _set(app, "ORDERS", HOUR // 2)
            wait_for(lambda: _max_age(app, "ORDERS") == HOUR, what="max_age to be healed")  # it still reconciles
            drifts = [e for e in ctl.events("drift") if e["object"] == "Stream ORDERS"]
            assert drifts and all("changed_by" not in e for e in drifts)  # nobody named on what it did not hear
            time.sleep(0.5)
            assert len(ctl.events("advisories_unheard")) == 1  # said once
    finally:
        app.close()


TWO_ACCOUNTS = (
    "accounts {\n"
    " A { jetstream: enabled, users: [{user: ctl-a, password: a}, {user: app-a, password: a}] }\n"
    " B { jetstream: enabled, users: [{user: ctl-b, password: b}, {user: app-b, password: b}] }\n"
    "}"
)


def test_each_target_hears_the_changes_of_its_own_account(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from jsops.linter.config import load_config

    server = NatsServer(extra_config=TWO_ACCOUNTS).start()
    try:
        monkeypatch.chdir(tmp_path)
        monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))  # no natscli contexts
        (tmp_path / ".jsops.yaml").write_text(
            f"contexts:\n  default: {{server: 'nats://ctl-a:a@127.0.0.1:{server.port}'}}\n"
            f"  east: {{server: 'nats://ctl-b:b@127.0.0.1:{server.port}'}}\n"
            "access: [{paths: [m], contexts: [east]}]\n"
        )
        config = load_config(str(tmp_path / ".jsops.yaml"))
        manifest(tmp_path / "m", "orders.yaml", ESTATE.replace("MAX_AGE", "1h"))
        manifest(
            tmp_path / "m",
            "invoices.yaml",
            "apiVersion: jsops/v1\nkind: Stream\nmetadata: {name: INVOICES, context: east}\n"
            "spec: {subjects: ['inv.>'], max_age: 1h}\n",
        )
        apps = {
            user: Js(f"nats://127.0.0.1:{server.port}", user=user, password=user[-1], name=f"{user}-svc")
            for user in ("app-a", "app-b")
        }
        try:
            url = f"nats://ctl-a:a@127.0.0.1:{server.port}"
            with Running(["m"], url, config=config, advisory_subscription=True) as ctl:
                wait_for(
                    lambda: apps["app-a"].stream("ORDERS") and apps["app-b"].stream("INVOICES"), 30, "both accounts"
                )
                wait_for(
                    lambda: (
                        all(
                            r.listener is not None and r.listener.heard() is not None
                            for r in ctl.controller.targets.values()
                        )
                        and len(ctl.controller.targets) == 2
                    ),
                    what="both subscriptions to hear",
                )
                for user, stream in (("app-a", "ORDERS"), ("app-b", "INVOICES")):
                    _set(apps[user], stream, HOUR // 2)
                    js, name = apps[user], stream
                    wait_for(lambda js=js, name=name: _max_age(js, name) == HOUR, what=f"{stream} to be healed")
                authors = {
                    (e["context"], e["object"]): e["changed_by"]["max_age"]
                    for e in ctl.events("drift")
                    if "changed_by" in e
                }
                assert {k: (v["account"], v["user"], v["client_name"]) for k, v in authors.items()} == {
                    ("default", "Stream ORDERS"): ("A", "app-a", "app-a-svc"),
                    ("east", "Stream INVOICES"): ("B", "app-b", "app-b-svc"),
                }
        finally:
            for js in apps.values():
                js.close()
    finally:
        server.stop()


def test_a_gap_in_the_subscription_starts_it_over(users_server: NatsServer, tmp_path: Path) -> None:
    """The server is killed and restarted under the controller: what was heard before the gap is
    dropped (changes made meanwhile were missed), and it hears again from a checked start. The
    tug-of-war state (a change was counted before the kill) is read through the new connection."""
    from datetime import UTC, datetime

    d = tmp_path / "m"
    manifest(d, "estate.yaml", ESTATE.replace("MAX_AGE", "1h"))
    url = f"nats://controller:c0ntrol@127.0.0.1:{users_server.port}"
    with Running([str(d)], url, advisory_subscription=True, max_backoff=0.5) as ctl:
        app = Js(f"nats://127.0.0.1:{users_server.port}", user="app", password="app", name="orders-svc")
        try:
            wait_for(lambda: app.stream("ORDERS") and _listening(ctl), what="the estate and the subscription")
            _set(app, "ORDERS", HOUR // 2)
            wait_for(lambda: _max_age(app, "ORDERS") == HOUR, what="max_age to be healed")
            wait_for(lambda: app.stream("KV_JSOPS_DRIFT"), what="the change counted in the tug-of-war state")
        finally:
            app.close()
        listener = ctl.controller.targets["default"].listener
        assert listener is not None
        before = listener.heard()
        assert before is not None and len(before.advisories) >= 2  # the change and the heal
        users_server.kill()
        wait_for(lambda: listener.heard() is None, what="the gap to be noticed")
        restarted = datetime.now(UTC)
        users_server.restart()
        wait_for(lambda: listener.heard() is not None, 60, "the subscription to hear again")
        after = listener.heard()
        assert after is not None and after.since >= restarted
        assert all(a.at >= after.since for a in after.advisories)  # nothing from before the gap
        app = Js(f"nats://127.0.0.1:{users_server.port}", user="app", password="app", name="orders-svc")
        try:
            wait_for(lambda: app.stream("ORDERS"), what="the stream after the restart")
            _set(app, "ORDERS", HOUR // 2)
            wait_for(lambda: _max_age(app, "ORDERS") == HOUR, 60, "max_age to be healed after the restart")
            drifts = [e for e in ctl.events("drift") if e["object"] == "Stream ORDERS" and "changed_by" in e]
            assert drifts and drifts[-1]["changed_by"]["max_age"]["client_name"] == "orders-svc"
        finally:
            app.close()


def test_the_listener_keeps_its_bound_and_then_reaches_back_only_as_far_as_it_kept(users_server: NatsServer) -> None:
    from jsops.reconciler.client import Target
    from jsops.reconciler.controller.heard import Listener

    listener = Listener(Target(servers=(f"nats://controller:c0ntrol@127.0.0.1:{users_server.port}",)), keep=3)
    app = Js(f"nats://127.0.0.1:{users_server.port}", user="app", password="app", name="orders-svc")
    try:
        wait_for(lambda: listener.heard() is not None, what="the listener to hear")
        started = listener.heard()
        assert started is not None and started.advisories == ()
        for i in range(5):  # five writes, each a create of its own stream; reads are not kept
            app.ok(f"$JS.API.STREAM.CREATE.S{i}", {"name": f"S{i}", "subjects": [f"s{i}.>"], "storage": "memory"})
            app.ok(f"$JS.API.STREAM.INFO.S{i}")
        wait_for(lambda: (h := listener.heard()) is not None and h.advisories[0].subject.endswith(".S4"), what="S4")
        heard = listener.heard()
        assert heard is not None
        assert [a.subject for a in heard.advisories] == [f"$JS.API.STREAM.CREATE.S{i}" for i in (4, 3, 2)]
        assert (
            heard.since == heard.advisories[-1].at > started.since
        )  # older ones were dropped: it reaches back no further
    finally:
        app.close()
        listener.close()
    assert not listener.alive
