"""What nats-server refuses of a mirror, and how a migration (a copy made as a mirror, then promoted) deals
with it: the facts (:mod:`jsops.linter.semantics.mirrors`) held against the five releases; a setting the
promotion can set is left off the copy and set then; a migration the server would refuse (a counter
stream; a stream with ``consumer_limits.max_ack_pending``, whose mirrors never copy a message) is blocked
in the plan with the server's err_code and the field named, before any request."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from jsops.linter import MIRROR_REFUSES, ORIGIN_MAX_ACK_PENDING, parse_version
from jsops.reconciler.live import LiveState
from jsops.reconciler.plan import Desired, PlanOptions, build_plan
from jsops.reconciler.render_refusal import reason_of
from jsops.reconciler.render_text import render_text
from tests.natsserver import release_or_skip

from .helpers import Js, NatsServer, run, writes
from .migrate_helpers import positions, renamed, seed, snapshot, stored
from .records import desired_of, live_stream

RELEASES = ["2.10.26", "2.11.11", "2.12.8", "2.14.6", "2.15.1"]
MIGRATING = ["2.12.8", "2.14.6", "2.15.1"]  # a migration promotes a mirror: 2.12+
S = 1_000_000_000
OWN = {"io.jsops.managed-by": "jsops", "io.jsops.source": "m/s.yaml"}
VALUES: dict[str, Any] = {"subject_delete_marker_ttl": 60 * S}  # the others are flags


def _server(version: str) -> NatsServer:
    binary = release_or_skip(version)
    return NatsServer(binary=binary).start()


def _set(field: str) -> dict[str, Any]:
    """A stream config that sets ``field`` (subject delete markers need message TTLs)."""
    value = VALUES.get(field, True)
    return {field: value, "allow_msg_ttl": True} if field == "subject_delete_marker_ttl" else {field: value}


def _synced(js: Js, name: str, messages: int) -> dict[str, Any] | None:
    """None once mirror ``name`` holds ``messages``; else (after a few seconds) its mirror error."""
    deadline = time.monotonic() + 5.0
    while True:
        info = js.request(f"$JS.API.STREAM.INFO.{name}")
        if info["state"]["messages"] == messages:
            return None
        if time.monotonic() > deadline:
            error: dict[str, Any] = info.get("mirror", {}).get("error") or {"err_code": None}
            return error
        time.sleep(0.1)


@pytest.mark.integration
@pytest.mark.parametrize("version", RELEASES)
def test_what_the_server_refuses_of_a_mirror_and_of_what_it_mirrors(version: str) -> None:
    """Each setting of MIRROR_REFUSES fails a mirror's create with its err_code from its release on (before:
    dropped, the field unknown) and, when ``promoted``, is set by the promotion (2.12+); a stream with
    ``consumer_limits.max_ack_pending`` is never copied by its mirror (10082), one with
    ``consumer_limits.inactive_threshold`` is."""
    release = parse_version(version) or (0, 0, 0)
    server = _server(version)
    js = Js(server.url)
    try:
        js.ok("$JS.API.STREAM.CREATE.A", {"name": "A", "subjects": ["a.>"]})
        js.publish("a.x", 3)
        for n, r in enumerate(MIRROR_REFUSES):
            if release < r.since:
                continue
            got = js.request(f"$JS.API.STREAM.CREATE.M{n}", {"name": f"M{n}", "mirror": {"name": "A"}, **_set(r.field)})
            assert got.get("error", {}).get("err_code") == r.err_code, (r.field, got)
            if release >= (2, 12, 0):
                js.ok(f"$JS.API.STREAM.CREATE.P{n}", {"name": f"P{n}", "mirror": {"name": "A"}})
                got = js.request(
                    f"$JS.API.STREAM.UPDATE.P{n}", {"name": f"P{n}", "subjects": [f"p{n}.>"], **_set(r.field)}
                )
                assert ("error" not in got) == r.promoted, (r.field, got)
        for n, (limit, copied) in enumerate(
            ((ORIGIN_MAX_ACK_PENDING, {"max_ack_pending": 100}), (None, {"inactive_threshold": 30 * S}))
        ):
            js.ok(f"$JS.API.STREAM.CREATE.O{n}", {"name": f"O{n}", "subjects": [f"o{n}.>"], "consumer_limits": copied})
            js.publish(f"o{n}.x", 3)
            js.ok(f"$JS.API.STREAM.CREATE.OM{n}", {"name": f"OM{n}", "mirror": {"name": f"O{n}"}})
            error = _synced(js, f"OM{n}", 3)
            assert (error or {}).get("err_code") == limit, (copied, error)
    finally:
        js.close()
        server.stop()


def _applied(server: NatsServer, js: Js, d: Path, extra: str, seeded: bool = True) -> None:
    stored(d, extra=extra)
    rc, out, err = run("apply", str(d), "--server", server.url, "--yes")
    assert rc == 0, out + err
    if seeded:
        seed(js)


@pytest.mark.integration
@pytest.mark.parametrize("version", MIGRATING)
def test_a_migration_sets_at_the_promotion_what_a_mirror_cannot_have(version: str, tmp_path: Path) -> None:
    """A rename of a stream with atomic publishing, message schedules, subject delete markers (and batch
    publishing from 2.14): the copy is created without them (the server refuses them on a mirror) and
    promoted with them; every message and position kept, the plan right after empty. Before: the copy's
    create failed (10198)."""
    later = {"allow_atomic": True, "allow_msg_schedules": True, "subject_delete_marker_ttl": 60 * S}
    if (parse_version(version) or (0, 0, 0)) >= (2, 14, 0):
        later["allow_batched"] = True
    extra = ", allow_msg_ttl: true, " + ", ".join(f"{k}: {str(v).lower()}" for k, v in later.items())
    server = _server(version)
    js = Js(server.url)
    try:
        d = tmp_path / "m"
        _applied(server, js, d, extra)
        before, pos = snapshot(js, "ORDERS"), positions(js, "ORDERS")
        renamed(d, extra=extra)
        rc, out, err = run("plan", str(d), "--server", server.url, "--migrate")
        assert rc == 2 and "each copy is created without them and gets them when it is promoted" in out, out + err
        for field in later:
            assert field in out.split("a mirror cannot have ")[1], out
        rc, out, err = run("apply", str(d), "--server", server.url, "--yes", "--migrate")
        assert rc == 0 and "migrated from ORDERS" in out, out + err
        info = js.stream("ORDERS_V2")
        assert info is not None and js.streams() == ["ORDERS_V2"]
        assert {k: info["config"].get(k) for k in later} == later
        assert snapshot(js, "ORDERS_V2") == before
        assert {n: p for n, (_, p) in positions(js, "ORDERS_V2").items()} == {n: p for n, (_, p) in pos.items()}
        rc, out, err = run("plan", str(d), "--server", server.url, "--migrate")
        assert rc == 0 and out.startswith("No changes."), out + err
    finally:
        js.close()
        server.stop()


REFUSED = {
    # the old stream's limit: its mirrors never copy a message (10082)
    "max_ack_pending": (
        ", consumer_limits: {max_ack_pending: 1000}",
        "",
        "consumer_limits.max_ack_pending",
        10082,
        True,
    ),
    # a counter stream: a mirror cannot count (10173), the promotion cannot turn counters on (10052)
    "counter": (", allow_msg_counter: true", ", allow_msg_counter: true", "allow_msg_counter", 10173, False),
}


@pytest.mark.integration
@pytest.mark.parametrize("version", MIGRATING)
@pytest.mark.parametrize("case", sorted(REFUSED))
def test_a_migration_the_server_would_refuse_is_blocked_before_any_request(
    version: str, case: str, tmp_path: Path, sent: list[str]
) -> None:
    """Blocked in the plan (the server's err_code, the field named, what to do), and apply sends nothing:
    no copy made, no wait for a mirror that never catches up. Before: the mirror was made and waited for
    120 s (10082), or its create failed (10173)."""
    old, new, field, code, seeded = REFUSED[case]
    server = _server(version)
    js = Js(server.url)
    try:
        d = tmp_path / "m"
        _applied(server, js, d, old, seeded)
        before = snapshot(js, "ORDERS")
        renamed(d, extra=new)
        rc, out, err = run("plan", str(d), "--server", server.url, "--migrate", "--format", "json")
        assert rc == 2, out + err
        (action,) = [a for a in json.loads(out)["actions"] if a["object"]["name"] == "ORDERS_V2"]
        assert action["action"] == "blocked" and action["err_code"] == code, action
        sent.clear()
        rc, out, err = run("apply", str(d), "--server", server.url, "--yes", "--migrate")
        assert rc == 1 and field in out and f"err_code {code}" in out, out + err
        assert writes(sent) == [] and js.streams() == ["ORDERS"] and snapshot(js, "ORDERS") == before
    finally:
        js.close()
        server.stop()


def _refused_plans() -> str:
    live = LiveState(read_at=10_000.0)
    specs = {
        "LIMITED": {"consumer_limits": {"max_ack_pending": 1000}},
        "COUNTER": {"allow_msg_counter": True},
        "ATOMIC": {"allow_atomic": True, "allow_msg_schedules": True},
    }
    desired: list[Desired] = []
    for name, extra in specs.items():
        spec = {"name": name, "subjects": [f"{name.lower()}.>"], "metadata": OWN, **extra}
        live.streams[name] = live_stream(spec, messages=100, bytes=4000, first_seq=1, last_seq=100)
        desired.append(desired_of("Stream", name, None, {**spec, "storage": "memory"}, "m/s.yaml"))
    plan = build_plan(desired, live, PlanOptions(migrate=True, server_version="2.15.1"), target="nats://127.0.0.1:4222")
    by = {a.name: a for a in plan.actions}
    assert (by["LIMITED"].action, by["LIMITED"].err_code) == ("blocked", ORIGIN_MAX_ACK_PENDING)
    assert (by["COUNTER"].action, by["COUNTER"].err_code) == ("blocked", 10173) and "COUNTER_JSOPS_MIGRATING" in (
        reason_of(by["COUNTER"]) or ""
    )
    assert by["ATOMIC"].action == "migrate"
    return render_text(plan)


def test_golden_a_plan_names_what_the_server_refuses_of_a_migration() -> None:
    text = _refused_plans()
    path = Path(__file__).parent / "golden" / "plan_migrate_refused.txt"
    if os.environ.get("UPDATE_GOLDEN"):
        path.write_text(text)
    assert text == path.read_text()
