"""The local topologies of tests/supercluster.py (issue 39): a supercluster of clusters joined by
gateways and a hub with a leaf node in its own JetStream domain come up on loopback, are what they
claim (servers, clusters, tags, storage, domains), and leave no process behind when stopped, also
when a start fails half-way."""

from __future__ import annotations

import asyncio
import json

import nats
import pytest
from procs import live
from supercluster import SYS_USER, ClusterSpec, HubLeaf, ServerSpec, Supercluster

pytestmark = pytest.mark.integration


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(") ", 1)[1][0] != "Z"
    except (FileNotFoundError, IndexError):
        return False


async def _varz(url: str) -> dict[str, dict[str, object]]:
    nc = await nats.connect(url)
    try:
        sub = await nc.subscribe(nc.new_inbox())
        await nc.publish("$SYS.REQ.SERVER.PING.VARZ", b"{}", reply=sub.subject)
        out: dict[str, dict[str, object]] = {}
        while True:
            try:
                msg = await sub.next_msg(timeout=2)
            except Exception:
                return out
            data = json.loads(msg.data)["data"]
            out[data["server_name"]] = data
    finally:
        await nc.close()


def test_two_clusters_joined_by_gateways_then_stopped_by_pid() -> None:
    specs = (
        ClusterSpec("EAST", (ServerSpec(("az:1",), "64MB"), ServerSpec(("az:2",), "64MB"))),
        ClusterSpec("WEST", (ServerSpec(("az:3",), "32MB"),)),
    )
    sc = Supercluster(specs).start()
    pids = [n.server.process.pid for n in sc.nodes if n.server.process is not None]
    try:
        assert len(pids) == 3 and sc.ready_seconds is not None
        # asked in WEST, every server of both clusters answers (the gateways carry $SYS)
        seen = asyncio.run(_varz(sc.urls("WEST", SYS_USER)[0]))
        assert {
            name: (d["cluster"]["name"], d["tags"], d["jetstream"]["config"]["max_storage"]) for name, d in seen.items()
        } == {  # type: ignore[index]
            "EAST-1": ("EAST", ["az:1"], 64 << 20),
            "EAST-2": ("EAST", ["az:2"], 64 << 20),
            "WEST-1": ("WEST", ["az:3"], 32 << 20),
        }
    finally:
        sc.stop()
    assert not [p for p in pids if _alive(p)]


def test_hub_and_leaf_in_their_own_domains() -> None:
    with HubLeaf() as hl:
        pids = [s.process.pid for s in (hl.hub, hl.leaf) if s.process is not None]

        async def domains() -> tuple[str, str]:
            nc = await nats.connect(hl.hub.url)
            try:
                hub = json.loads((await nc.request("$JS.API.INFO", b"", timeout=5)).data)
                leaf = json.loads((await nc.request("$JS.leaf.API.INFO", b"", timeout=5)).data)
                return hub["domain"], leaf["domain"]
            finally:
                await nc.close()

        assert asyncio.run(domains()) == ("hub", "leaf")
    assert len(pids) == 2 and not [p for p in pids if _alive(p)]


def test_a_start_that_fails_half_way_leaves_nothing_running() -> None:
    before = set(live())
    # A's server starts; B's refuses its config (a max_file it cannot read): A's is stopped too
    sc = Supercluster((ClusterSpec("A"), ClusterSpec("B", (ServerSpec(max_file="plenty"),))))
    with pytest.raises(RuntimeError, match="nats-server exited"):
        sc.start(timeout=30)
    assert sc.nodes[0].server.store_dir and set(live()) == before


def test_ctrl_c_while_waiting_stops_what_was_started(monkeypatch: pytest.MonkeyPatch) -> None:
    before = set(live())
    started: list[int] = []

    def interrupted(self: Supercluster, timeout: float) -> float:
        started.extend(n.server.process.pid for n in self.nodes if n.server.process is not None)
        raise KeyboardInterrupt

    monkeypatch.setattr(Supercluster, "_wait", interrupted)
    with pytest.raises(KeyboardInterrupt):
        Supercluster((ClusterSpec("A"), ClusterSpec("B"))).start()
    assert len(started) == 2 and not [p for p in started if _alive(p)] and set(live()) == before
