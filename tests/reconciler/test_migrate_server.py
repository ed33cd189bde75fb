"""``jsops apply --migrate`` on a real nats-server: renames and storage changes keep every message
and every consumer's position; a rename without --migrate is refused before any request."""

from __future__ import annotations

import pytest

from .helpers import Js, run
from .migrate_helpers import positions, renamed, seed, snapshot, stored

pytestmark = pytest.mark.integration


def test_rename_keeps_every_message_and_position(server, js: Js, tmp_path) -> None:
    d = tmp_path / "m"
    stored(d)
    assert run("apply", str(d), "--server", server.url, "--yes")[0] == 0
    seed(js)
    before, pos = snapshot(js, "ORDERS"), positions(js, "ORDERS")
    renamed(d)

    rc, out, err = run("plan", str(d), "--server", server.url)
    assert rc == 2 and "renamed from ORDERS; needs --migrate" in out, out + err
    rc, out, err = run("apply", str(d), "--server", server.url, "--yes")
    assert rc == 1 and "needs --migrate" in out, out + err
    assert js.streams() == ["ORDERS"] and positions(js, "ORDERS") == pos  # nothing was sent

    rc, out, err = run("plan", str(d), "--server", server.url, "--migrate")
    assert rc == 2 and "=> Stream ORDERS_V2  (migrate from ORDERS)" in out and "cut-over" in out, out + err
    rc, out, err = run("apply", str(d), "--server", server.url, "--yes", "--migrate")
    assert rc == 0, out + err
    assert "migrated from ORDERS" in out and "cut-over window" in out, out
    assert js.streams() == ["ORDERS_V2"]
    assert snapshot(js, "ORDERS_V2") == before
    assert positions(js, "ORDERS_V2") == pos
    rc, out, err = run("plan", str(d), "--server", server.url, "--migrate")
    assert rc == 0 and out.startswith("No changes."), out + err
    js.publish("orders.new")  # the subjects are served by the new stream
    assert js.stream("ORDERS_V2")["state"]["last_seq"] == 101


def test_storage_change_keeps_every_message_and_position(server, js: Js, tmp_path) -> None:
    d = tmp_path / "m"
    stored(d)
    assert run("apply", str(d), "--server", server.url, "--yes")[0] == 0
    seed(js)
    before, pos = snapshot(js, "ORDERS"), positions(js, "ORDERS")
    stored(d, storage="memory")
    rc, out, err = run("plan", str(d), "--server", server.url, "--migrate")
    assert rc == 2 and "migrate in place" in out and "ORDERS_JSOPS_MIGRATING" in out, out + err
    rc, out, err = run("apply", str(d), "--server", server.url, "--yes", "--migrate")
    assert rc == 0, out + err
    assert js.streams() == ["ORDERS"]
    assert js.stream("ORDERS")["config"]["storage"] == "memory"
    assert snapshot(js, "ORDERS") == before
    assert positions(js, "ORDERS") == pos
    rc, out, err = run("plan", str(d), "--server", server.url, "--migrate")
    assert rc == 0 and out.startswith("No changes."), out + err
