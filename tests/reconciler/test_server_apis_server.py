"""Issue 14: pause_until through the pause API (2.11+), changed starts through the reset API
(2.14+), on the real nats-server releases; recreation (and a clear refusal) where the release lacks them."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.natsserver import release_binary, release_or_skip

from .helpers import Js, NatsServer, manifest, run

pytestmark = pytest.mark.integration

FUTURE = "2031-06-01T12:00:00+02:00"
FUTURE_UTC = "2031-06-01T10:00:00Z"

DOC = """
apiVersion: jsops/v1
kind: Stream
metadata: {name: ORDERS}
spec: {subjects: ["orders.>"]RETENTION}
---
apiVersion: jsops/v1
kind: Consumer
metadata: {name: shipper, stream: ORDERS}
spec: {ack_policy: explicit, max_waiting: 64SPEC}
"""


def _doc(spec: str = "", retention: str = "") -> str:
    return DOC.replace("SPEC", spec).replace("RETENTION", retention)


@pytest.fixture(params=["2.10.26", "2.11.11", "2.12.8", "2.14.6", "2.15.1"])
def release(request: pytest.FixtureRequest) -> Iterator[tuple[str, NatsServer]]:
    binary = release_or_skip(request.param)
    server = NatsServer(binary=binary).start()
    try:
        yield request.param, server
    finally:
        server.stop()


def _setup(server: NatsServer, d: Path, spec: str = "", retention: str = "") -> Js:
    manifest(d, "orders.yaml", _doc(spec, retention))
    rc, out, err = run("apply", str(d), "--server", server.url, "--yes")
    assert rc == 0, out + err
    js = Js(server.url)
    js.publish("orders.a", 10)
    assert js.fetch_ack("ORDERS", "shipper", 4) == [1, 2, 3, 4]
    return js


def _empty_plan(server: NatsServer, d: Path) -> None:
    rc, out, err = run("plan", str(d), "--server", server.url)
    assert (rc, out.startswith("No changes.")) == (0, True), out + err


def test_pause_and_resume_through_the_pause_api(release: tuple[str, NatsServer], tmp_path: Path) -> None:
    version, server = release
    d = tmp_path / "m"
    js = _setup(server, d)
    try:
        manifest(d, "orders.yaml", _doc(f", pause_until: '{FUTURE}', ack_wait: 45s"))
        rc, out, err = run("plan", str(d), "--server", server.url)
        assert rc == 2, out + err
        if version == "2.10.26":  # no pause API: refused before any request, and said why
            assert "! Consumer ORDERS/shipper" in out and "has no pause API (2.11.0+)" in out, out
            rc, out, err = run("apply", str(d), "--server", server.url, "--yes")
            assert rc == 1 and "blocked" in out, out + err
            info = js.consumer("ORDERS", "shipper")
            assert (
                info is not None
                and "pause_until" not in info["config"]
                and info["config"]["ack_wait"] == 30_000_000_000
            )
            return
        assert "|| Consumer ORDERS/shipper" in out and "through the pause API" in out and "1 to pause" in out, out
        rc, out, err = run("plan", str(d), "--server", server.url, "--format", "json")
        act = json.loads(out)["actions"][0]
        assert act["action"] == "pause" and {c["path"] for c in act["changes"]} == {"ack_wait", "pause_until"}, act
        rc, out, err = run("apply", str(d), "--server", server.url, "--yes")
        assert rc == 0, out + err
        info = js.consumer("ORDERS", "shipper")
        assert info is not None and info.get("paused") is True and info["config"]["pause_until"] == FUTURE_UTC
        assert info["config"]["ack_wait"] == 45_000_000_000  # the other change went as an update
        assert (info["num_pending"], info["ack_floor"]["stream_seq"]) == (6, 4)  # the position is kept
        _empty_plan(server, d)

        manifest(d, "orders.yaml", _doc(", ack_wait: 45s"))
        rc, out, err = run("plan", str(d), "--server", server.url)
        assert rc == 2 and "|> Consumer ORDERS/shipper" in out and "1 to resume" in out, out
        rc, out, err = run("apply", str(d), "--server", server.url, "--yes")
        assert rc == 0 and "resumed" in out, out + err
        info = js.consumer("ORDERS", "shipper")
        assert info is not None and not info.get("paused") and "pause_until" not in info["config"]
        _empty_plan(server, d)
        assert js.fetch_ack("ORDERS", "shipper", 2) == [5, 6]
    finally:
        js.close()


@pytest.mark.parametrize("keep", [True, False])
def test_a_changed_start_resets_instead_of_recreating(
    release: tuple[str, NatsServer], tmp_path: Path, keep: bool
) -> None:
    version, server = release
    d = tmp_path / "m"
    js = _setup(server, d)
    try:
        created = js.consumer("ORDERS", "shipper")["created"]  # type: ignore[index]  # it exists: _setup acked on it
        manifest(d, "orders.yaml", _doc(", deliver_policy: by_start_sequence, opt_start_seq: 2"))
        flags = [] if keep else ["--reset-position"]
        rc, out, err = run("plan", str(d), "--server", server.url, *flags)
        assert rc == 2, out + err
        has_reset = version in ("2.14.6", "2.15.1")
        if not has_reset:  # no reset API: a recreate, which needs --allow-recreate as before
            assert "! Consumer ORDERS/shipper" in out and "--allow-recreate" in out, out
            return
        assert "<< Consumer ORDERS/shipper" in out and "reset API" in out and "1 to reset" in out, out
        rc, out, err = run("apply", str(d), "--server", server.url, "--yes", *flags)
        assert rc == 0, out + err
        info = js.consumer("ORDERS", "shipper")
        assert info is not None and info["created"] == created  # not deleted
        assert info["config"]["deliver_policy"] == "all"  # the server keeps the live start
        # by default the consumer starts again after its ack floor; with --reset-position at the new start
        assert (info["num_pending"], info["ack_floor"]["stream_seq"]) == ((6, 4) if keep else (9, 1))
        _empty_plan(server, d)
        assert js.fetch_ack("ORDERS", "shipper", 1) == ([5] if keep else [2])
    finally:
        js.close()


def test_a_reset_forward_on_an_interest_stream_is_data_loss(tmp_path: Path) -> None:
    binary = release_binary("2.15.1")
    server = NatsServer(binary=binary).start()
    d = tmp_path / "m"
    try:
        js = _setup(server, d, retention=", retention: interest")
        try:
            manifest(
                d, "orders.yaml", _doc(", deliver_policy: by_start_sequence, opt_start_seq: 9", ", retention: interest")
            )
            rc, out, err = run("plan", str(d), "--server", server.url, "--reset-position")
            assert rc == 2 and "blocked reset" in out and "--allow-data-loss" in out, out + err
            rc, out, err = run("apply", str(d), "--server", server.url, "--yes", "--reset-position")
            assert rc == 1, out + err
            assert js.stream("ORDERS")["state"]["messages"] == 6  # type: ignore[index]  # nothing skipped
            rc, out, err = run(
                "apply", str(d), "--server", server.url, "--yes", "--reset-position", "--allow-data-loss"
            )
            assert rc == 0, out + err
            assert js.stream("ORDERS")["state"]["messages"] == 2  # type: ignore[index]  # 5..8 skipped and removed
        finally:
            js.close()
    finally:
        server.stop()


def test_a_saved_plan_pauses_and_resets(tmp_path: Path) -> None:
    binary = release_binary("2.15.1")
    server = NatsServer(binary=binary).start()
    d = tmp_path / "m"
    try:
        js = _setup(server, d)
        try:
            manifest(
                d,
                "orders.yaml",
                _doc(f", pause_until: '{FUTURE}', deliver_policy: by_start_sequence, opt_start_seq: 3"),
            )
            saved = tmp_path / "plan.json"
            rc, out, err = run("plan", str(d), "--server", server.url, "--reset-position", "--out", str(saved))
            assert rc == 2, out + err
            act = json.loads(saved.read_text())["actions"][0]
            assert (act["action"], act["reset_seq"]) == ("reset", 3), act
            rc, out, err = run("apply", str(d), "--server", server.url, "--yes", "--plan", str(saved))
            assert rc == 0, out + err
            info = js.consumer("ORDERS", "shipper")
            assert info is not None and info.get("paused") is True and info["config"]["pause_until"] == FUTURE_UTC
            assert (info["num_pending"], info["ack_floor"]["stream_seq"]) == (8, 2)
            _empty_plan(server, d)
        finally:
            js.close()
    finally:
        server.stop()
