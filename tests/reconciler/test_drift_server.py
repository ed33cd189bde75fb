"""Drift attribution on real nats-servers (issue 37): two users of one account from the server's
config file, jsops applying as ``controller``, an application (user ``app``, connection name
``orders-svc``) changing a managed stream; the plan names the application from the account's record
of API audit advisories (docs/examples/drift/api-audit-record.yaml), on every supported release."""

from __future__ import annotations

import base64
import json
import shutil
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from natsserver import release_or_skip

from .helpers import Js, NatsServer, manifest, run

pytestmark = pytest.mark.integration

RELEASES = ("2.10.26", "2.11.11", "2.12.8", "2.14.6", "2.15.1")
USERS = (
    "accounts { A { jetstream: enabled, users: [{user: controller, password: c0ntrol}, {user: app, password: app}] } }"
)
RECORD = Path(__file__).parents[2] / "docs" / "examples" / "drift" / "api-audit-record.yaml"
ORDERS = """
apiVersion: jsops/v1
kind: Stream
metadata: {name: ORDERS}
spec: {subjects: ['orders.>'], max_age: MAX_AGE}
---
apiVersion: jsops/v1
kind: Consumer
metadata: {name: C1, stream: ORDERS}
spec: {ack_policy: explicit, max_deliver: 5}
"""
HOUR = 3_600_000_000_000


@pytest.fixture(params=RELEASES)
def users_server(request: pytest.FixtureRequest) -> Iterator[NatsServer]:
    binary = release_or_skip(request.param)
    s = NatsServer(extra_config=USERS, binary=binary).start()
    try:
        yield s
    finally:
        s.stop()


def _url(server: NatsServer) -> str:
    return f"nats://controller:c0ntrol@127.0.0.1:{server.port}"


def _app(server: NatsServer) -> Js:
    return Js(f"nats://127.0.0.1:{server.port}", user="app", password="app", name="orders-svc")


def _set_max_age(app: Js, value: int) -> None:
    config = app.ok("$JS.API.STREAM.INFO.ORDERS")["config"]
    app.ok("$JS.API.STREAM.UPDATE.ORDERS", {**config, "max_age": value})


def _plan_json(directory: Path, server: NatsServer) -> dict[tuple[str, str], dict[str, object]]:
    rc, out, err = run("plan", str(directory), "-s", _url(server), "--format", "json")
    assert rc in (0, 2), err
    return {(a["object"]["name"], c["path"]): c for a in json.loads(out)["actions"] for c in a["changes"]}


def _wait_recorded(server: NatsServer, writes: int) -> None:
    """Until the record holds ``writes`` STREAM.UPDATE advisories of ORDERS (they are stored
    asynchronously), read newest first (a get of a message gone is audited: an error answer)."""
    js = Js(f"nats://127.0.0.1:{server.port}", user="controller", password="c0ntrol")
    try:
        deadline = time.monotonic() + 30
        found = 0
        while time.monotonic() < deadline:
            state = js.ok("$JS.API.STREAM.INFO.JSOPS_API_AUDIT")["state"]
            found = 0
            for seq in range(state["last_seq"], max(state["first_seq"], state["last_seq"] - 300) - 1, -1):
                msg = js.request("$JS.API.STREAM.MSG.GET.JSOPS_API_AUDIT", {"seq": seq})
                if "message" in msg and b"STREAM.UPDATE.ORDERS" in base64.b64decode(msg["message"]["data"]):
                    found += 1
            if found >= writes:
                return
            time.sleep(0.2)
        raise AssertionError(f"the record holds {found} of {writes} updates of ORDERS")
    finally:
        js.close()


def test_plan_names_the_application_that_changed_a_managed_field(users_server: NatsServer, tmp_path: Path) -> None:
    d = tmp_path / "m"
    manifest(d, "orders.yaml", ORDERS.replace("MAX_AGE", "1h"))
    shutil.copy(RECORD, d / "record.yaml")
    rc, _, err = run("apply", str(d), "-s", _url(users_server), "--yes")
    assert rc == 0, err

    before = datetime.now(UTC).replace(microsecond=0)
    app = _app(users_server)
    try:
        _set_max_age(app, HOUR // 2)
        _wait_recorded(users_server, 1)
        changes = _plan_json(d, users_server)
        by = changes[("ORDERS", "max_age")]["changed_by"]
        assert isinstance(by, dict)
        assert (by["user"], by["account"], by["client_name"], by["host"], by["request"]) == (
            "app",
            "A",
            "orders-svc",
            "127.0.0.1",
            "$JS.API.STREAM.UPDATE.ORDERS",
        )
        at = datetime.fromisoformat(str(by["at"]))
        assert before <= at <= datetime.now(UTC)

        rc, out, err = run("plan", str(d), "-s", _url(users_server))
        assert rc == 2, err
        line = next(s for s in out.splitlines() if "max_age" in s)
        assert (
            "~ max_age: 30m -> 1h  [in-place]  changed by orders-svc (user app, 127.0.0.1) " in line
            and line.endswith(" ago")
        )

        # jsops heals it; the application changes it back: the plan names the change back
        assert run("apply", str(d), "-s", _url(users_server), "--yes")[0] == 0
        assert run("plan", str(d), "-s", _url(users_server))[0] == 0
        healed = datetime.now(UTC)
        _set_max_age(app, HOUR // 2)
        _wait_recorded(users_server, 3)
        by = _plan_json(d, users_server)[("ORDERS", "max_age")]["changed_by"]
        assert (
            isinstance(by, dict)
            and by["user"] == "app"
            and datetime.fromisoformat(str(by["at"])) >= healed.replace(microsecond=0)
        )
    finally:
        app.close()

    # a field jsops set itself, that the manifest now changes, is nobody's drift
    assert run("apply", str(d), "-s", _url(users_server), "--yes")[0] == 0
    manifest(d, "orders.yaml", ORDERS.replace("MAX_AGE", "2h"))
    change = _plan_json(d, users_server)[("ORDERS", "max_age")]
    assert "changed_by" not in change and "author_unknown" not in change


def test_without_a_record_that_reaches_back_the_author_is_unknown(tmp_path: Path) -> None:
    server = NatsServer(extra_config=USERS).start()
    try:
        d = tmp_path / "m"
        manifest(d, "orders.yaml", ORDERS.replace("MAX_AGE", "1h"))
        assert run("apply", str(d), "-s", _url(server), "--yes")[0] == 0
        app = _app(server)
        try:
            _set_max_age(app, HOUR // 2)
        finally:
            app.close()
        assert "changed_by" not in _plan_json(d, server)[("ORDERS", "max_age")]  # no record: attribution is off
        started = datetime.now(UTC).replace(microsecond=0)
        js = Js(f"nats://127.0.0.1:{server.port}", user="controller", password="c0ntrol")
        try:  # the record starts after the change (declared by hand: the plan leaves an undeclared stream alone)
            js.ok(
                "$JS.API.STREAM.CREATE.AUDIT",
                {"name": "AUDIT", "subjects": ["$JS.EVENT.ADVISORY.API"], "max_msgs": 1000, "storage": "memory"},
            )
            js.ok("$JS.API.STREAM.INFO.AUDIT")  # one advisory in it at least
        finally:
            js.close()
        change = _plan_json(d, server)[("ORDERS", "max_age")]
        assert change["changed_by"] is None
        unknown = change["author_unknown"]
        assert isinstance(unknown, dict) and datetime.fromisoformat(str(unknown["since"])) >= started
        rc, out, _ = run("plan", str(d), "-s", _url(server))
        assert rc == 2 and f"[in-place]  author unknown (no audit record since {unknown['since']})" in out
    finally:
        server.stop()


def test_a_plan_without_drift_reads_nothing_of_the_record_and_the_record_stays_bounded(
    tmp_path: Path, sent: list[str]
) -> None:
    server = NatsServer(extra_config=USERS).start()
    try:
        d = tmp_path / "m"
        manifest(d, "orders.yaml", ORDERS.replace("MAX_AGE", "1h"))
        manifest(d, "record.yaml", RECORD.read_text().replace("max_msgs: 200000", "max_msgs: 500"))
        assert run("apply", str(d), "-s", _url(server), "--yes")[0] == 0
        sent.clear()
        assert run("plan", str(d), "-s", _url(server))[0] == 0
        assert sent and not [s for s in sent if s.startswith("STREAM.MSG.GET.")]  # no drift: the record is not read

        app = _app(server)
        try:
            for _ in range(2000):  # API requests, reads and writes: each one an advisory
                app.ok("$JS.API.STREAM.INFO.ORDERS")
            _set_max_age(app, HOUR // 2)
            _wait_recorded(server, 1)
            state = app.ok("$JS.API.STREAM.INFO.JSOPS_API_AUDIT")["state"]
            assert state["last_seq"] > 2000 and state["messages"] <= 500
        finally:
            app.close()
        sent.clear()
        by = _plan_json(d, server)[("ORDERS", "max_age")]["changed_by"]
        assert isinstance(by, dict) and by["client_name"] == "orders-svc"
        gets = [s for s in sent if s.startswith("STREAM.MSG.GET.")]
        assert 0 < len(gets) <= 500  # read back only until the change was found, within the bound
    finally:
        server.stop()


IGNORED = """
apiVersion: jsops/v1
kind: Stream
metadata:
  name: ORDERS
  annotations: {jsops.io/ignore-drift: "[max_msgs]"}
spec: {subjects: ['orders.>'], max_age: 1h, max_msgs: 100}
"""


def test_ignore_drift_leaves_a_field_to_its_owner_in_plan_apply_and_the_controller(
    tmp_path: Path, sent: list[str]
) -> None:
    from jsops.reconciler.controller.cli import main

    server = NatsServer(extra_config=USERS).start()
    try:
        d = tmp_path / "m"
        manifest(d, "orders.yaml", IGNORED)
        assert run("apply", str(d), "-s", _url(server), "--yes")[0] == 0  # created as the manifest says
        app = _app(server)
        try:
            assert app.ok("$JS.API.STREAM.INFO.ORDERS")["config"]["max_msgs"] == 100
            config = app.ok("$JS.API.STREAM.INFO.ORDERS")["config"]
            app.ok("$JS.API.STREAM.UPDATE.ORDERS", {**config, "max_msgs": 5000})
            rc, out, err = run("plan", str(d), "-s", _url(server))
            assert rc == 0, err
            assert (
                "No changes." in out
                and "= Stream ORDERS max_msgs: 5000 kept, owned elsewhere (jsops.io/ignore-drift); the manifest says 100"
                in out
            )
            rc, out, _ = run("plan", str(d), "-s", _url(server), "--format", "json")
            doc = json.loads(out)
            assert doc["actions"] == [] and [(h["path"], h["live"], h["manifest"]) for h in doc["held"]] == [
                ("max_msgs", 5000, 100)
            ]

            # another field drifts: it is healed, and the held one is sent back as it is live
            config = app.ok("$JS.API.STREAM.INFO.ORDERS")["config"]
            app.ok("$JS.API.STREAM.UPDATE.ORDERS", {**config, "max_age": HOUR // 2})
            sent.clear()
            assert run("apply", str(d), "-s", _url(server), "--yes")[0] == 0
            assert [s for s in sent if s.startswith("STREAM.UPDATE.")] == ["STREAM.UPDATE.ORDERS"]
            config = app.ok("$JS.API.STREAM.INFO.ORDERS")["config"]
            assert (config["max_age"], config["max_msgs"]) == (HOUR, 5000)

            # the controller: one round heals max_age, never max_msgs
            app.ok("$JS.API.STREAM.UPDATE.ORDERS", {**config, "max_age": HOUR // 2, "max_msgs": 7000})
            log = tmp_path / "log"
            assert (
                main(
                    [
                        str(d),
                        "--server",
                        _url(server),
                        "--listen",
                        "none",
                        "--once",
                        "--no-lease",
                        "--log-file",
                        str(log),
                    ]
                )
                == 0
            )
            config = app.ok("$JS.API.STREAM.INFO.ORDERS")["config"]
            assert (config["max_age"], config["max_msgs"]) == (HOUR, 7000)
        finally:
            app.close()
    finally:
        server.stop()


TWO_ACCOUNTS = (
    "accounts {\n"
    " A { jetstream: enabled, users: [{user: ctl-a, password: a}, {user: app-a, password: a}] }\n"
    " B { jetstream: enabled, users: [{user: ctl-b, password: b}, {user: app-b, password: b}] }\n"
    "}"
)


def test_each_account_names_its_own_authors_from_its_own_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = NatsServer(extra_config=TWO_ACCOUNTS).start()
    try:
        monkeypatch.chdir(tmp_path)
        monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))  # no natscli contexts
        (tmp_path / ".jsops.yaml").write_text(
            f"contexts:\n  default: {{server: 'nats://ctl-a:a@127.0.0.1:{server.port}'}}\n"
            f"  east: {{server: 'nats://ctl-b:b@127.0.0.1:{server.port}'}}\n"
            "access: [{paths: [m], contexts: [east]}]\n"
        )
        manifest(tmp_path / "m", "orders.yaml", ORDERS.replace("MAX_AGE", "1h"))
        manifest(
            tmp_path / "m",
            "invoices.yaml",
            "apiVersion: jsops/v1\nkind: Stream\nmetadata: {name: INVOICES, context: east}\nspec: {subjects: ['inv.>'], max_age: 1h}\n",
        )
        shutil.copy(RECORD, tmp_path / "m" / "record.yaml")
        manifest(
            tmp_path / "m",
            "record-east.yaml",
            RECORD.read_text().replace("name: JSOPS_API_AUDIT", "name: JSOPS_API_AUDIT\n  context: east"),
        )
        assert run("apply", "m", "--yes")[0] == 0
        for user, stream in (("app-a", "ORDERS"), ("app-b", "INVOICES")):
            js = Js(f"nats://127.0.0.1:{server.port}", user=user, password=user[-1], name=f"{user}-svc")
            try:
                config = js.ok(f"$JS.API.STREAM.INFO.{stream}")["config"]
                js.ok(f"$JS.API.STREAM.UPDATE.{stream}", {**config, "max_age": HOUR // 2})
            finally:
                js.close()
        time.sleep(0.5)  # the advisories are stored asynchronously
        rc, out, err = run("plan", "m", "--format", "json")
        assert rc == 2, err
        authors = {
            (a["context"], a["object"]["name"]): c["changed_by"]
            for a in json.loads(out)["actions"]
            for c in a["changes"]
        }
        assert {k: (v["account"], v["user"], v["client_name"]) for k, v in authors.items()} == {
            ("default", "ORDERS"): ("A", "app-a", "app-a-svc"),
            ("east", "INVOICES"): ("B", "app-b", "app-b-svc"),
        }
        for user, own, other in (
            ("ctl-a", b"ORDERS", b"INVOICES"),
            ("ctl-b", b"INVOICES", b"ORDERS"),
        ):  # each account's advisories stay in it
            js = Js(f"nats://127.0.0.1:{server.port}", user=user, password=user[-1])
            try:
                state = js.ok("$JS.API.STREAM.INFO.JSOPS_API_AUDIT")["state"]
                held = [
                    base64.b64decode(js.ok("$JS.API.STREAM.MSG.GET.JSOPS_API_AUDIT", {"seq": s})["message"]["data"])
                    for s in range(state["first_seq"], state["last_seq"] + 1)
                ]
                assert any(b"STREAM.UPDATE." + own in m for m in held) and not any(other in m for m in held)
            finally:
                js.close()
    finally:
        server.stop()
