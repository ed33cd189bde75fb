"""Migrations per nats-server release, and the cut-over window under a steady publish load."""

from __future__ import annotations

from pathlib import Path

import pytest
from natsserver import release_or_skip

from .helpers import Js, NatsServer, run
from .migrate_helpers import cut_over_under_load, positions, renamed, seed, snapshot, stored

pytestmark = pytest.mark.integration


def _release(version: str) -> NatsServer:
    binary = release_or_skip(version)
    return NatsServer(binary=binary).start()


@pytest.mark.parametrize("version", ["2.12.8", "2.14.6", "2.15.1"])
def test_rename_on_releases_that_promote_mirrors(tmp_path: Path, version: str) -> None:
    server = _release(version)
    js = Js(server.url)
    try:
        d = tmp_path / "m"
        stored(d)
        assert run("apply", str(d), "--server", server.url, "--yes")[0] == 0
        seed(js)
        before, pos = snapshot(js, "ORDERS"), positions(js, "ORDERS")
        renamed(d)
        rc, out, err = run("apply", str(d), "--server", server.url, "--yes", "--migrate")
        assert rc == 0, out + err
        assert js.streams() == ["ORDERS_V2"] and snapshot(js, "ORDERS_V2") == before
        after = positions(js, "ORDERS_V2")
        if version == "2.12.8":
            # 2.12 reports the ack floor of a consumer created at a start sequence as 0 until its
            # first ack; it starts right after the old floor, with the same messages pending
            for name, (floor, pending) in pos.items():
                c = js.consumer("ORDERS_V2", name)
                assert c is not None and c["config"]["opt_start_seq"] == floor + 1 and after[name][1] == pending
            assert js.fetch_ack("ORDERS_V2", "audit", 1) == [pos["audit"][0] + 1]
        else:
            assert after == pos
        assert run("plan", str(d), "--server", server.url, "--migrate")[0] == 0
    finally:
        js.close()
        server.stop()


@pytest.mark.parametrize("version", ["2.10.26", "2.11.11"])
def test_releases_without_mirror_promotion_refuse_before_any_request(tmp_path: Path, version: str) -> None:
    server = _release(version)
    js = Js(server.url)
    try:
        d = tmp_path / "m"
        stored(d)
        assert run("apply", str(d), "--server", server.url, "--yes")[0] == 0
        seed(js)
        before = snapshot(js, "ORDERS")
        renamed(d)
        rc, out, err = run("apply", str(d), "--server", server.url, "--yes", "--migrate")
        assert rc == 1 and f"nats-server {version} cannot promote a mirror" in out, out + err
        assert js.streams() == ["ORDERS"] and snapshot(js, "ORDERS") == before
    finally:
        js.close()
        server.stop()


def test_cut_over_window_under_steady_publishing(
    server: NatsServer, js: Js, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    d = tmp_path / "m"
    stored(d)
    assert run("apply", str(d), "--server", server.url, "--yes")[0] == 0
    seed(js)
    renamed(d)
    with capsys.disabled():
        cut_over_under_load(server.url, js, d, "standalone")
