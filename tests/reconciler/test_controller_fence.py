"""A leader that lost its lease writes nothing (issue 33, item 2): the fence every write of the
controller passes (:mod:`jsops.reconciler.client.fence`), its parts, and two controllers on a real
nats-server with the leader stopped (SIGSTOP) mid-round past its lease."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path

import pytest

from jsops.reconciler.client import Fence, LeaseLost
from jsops.reconciler.client.fence import _Gate

from .helpers import ApiAudit, Js, NatsServer
from .test_controller_helpers import Proc, wait_for

# -- the gate, alone ---------------------------------------------------------------------------------


def _gate(deadline: float, held: bool = True, batch: int = 64) -> tuple[_Gate, list[int]]:
    calls: list[int] = []

    def confirm() -> bool:
        calls.append(1)
        return held

    return _Gate(Fence(deadline=lambda: deadline, confirm=confirm, batch=batch)), calls


def test_a_passed_deadline_refuses_the_write_and_every_later_one() -> None:
    gate, _ = _gate(time.monotonic() - 1.0)
    with pytest.raises(LeaseLost, match="lease lost: its deadline passed"):
        gate.check()
    with pytest.raises(LeaseLost):
        asyncio.run(gate.admit())  # closed for good, even before a compare-and-set
    assert gate.refused == 2


def test_a_refused_compare_and_set_refuses_the_batch() -> None:
    gate, calls = _gate(time.monotonic() + 60.0, held=False)
    with pytest.raises(LeaseLost, match="another controller holds the lease"):
        asyncio.run(gate.admit())
    with pytest.raises(LeaseLost):
        gate.check()
    assert calls == [1]


def test_a_compare_and_set_that_gets_no_answer_refuses() -> None:
    def confirm() -> bool:
        raise TimeoutError("timed out")

    gate = _Gate(Fence(deadline=lambda: time.monotonic() + 60.0, confirm=confirm))
    with pytest.raises(LeaseLost, match="could not be confirmed"):
        asyncio.run(gate.admit())


def test_one_compare_and_set_per_batch_and_the_deadline_before_each_write() -> None:
    gate, calls = _gate(time.monotonic() + 60.0, batch=3)

    async def seven() -> None:
        for _ in range(7):
            await gate.admit()
            gate.check()

    asyncio.run(seven())
    assert len(calls) == 3  # writes 1, 4 and 7 begin a batch
    assert gate.refused == 0


# -- the lease's fence on a real server -----------------------------------------------------------


@pytest.mark.integration
def test_the_lease_fence_is_refused_once_another_controller_wrote_the_key(server: NatsServer, js: Js) -> None:
    from jsops.reconciler.client import Target
    from jsops.reconciler.controller.lease import Lease

    a = Lease(Target(servers=(server.url,)), ttl=30.0, identity="a", bucket="FENCE_TEST")
    a.start()
    try:
        wait_for(a.held, what="a to take the lease")
        fence = a.fence()
        assert fence.confirm() is True  # a compare-and-set on the lease key: a renewal
        assert fence.deadline() > time.monotonic()
        # another controller takes the key (as a new leader would after a's lease expired)
        js.ok("$JS.API.STREAM.PURGE.KV_FENCE_TEST")
        js.loop.run_until_complete(js.nc.publish("$KV.FENCE_TEST.leader", b'{"holder":"b"}'))
        js.loop.run_until_complete(js.nc.flush())
        assert fence.confirm() is False
        assert fence.deadline() == 0.0
        assert not a.held()
        # a fence taken while the lease is not held refuses every write
        assert (
            Lease(Target(servers=(server.url,)), ttl=30.0, identity="c", bucket="FENCE_TEST").fence().deadline() == 0.0
        )
    finally:
        a.stop()


# -- two controllers, the leader stopped mid-round -----------------------------------------------

STREAMS = 240


def _tree(d: Path, max_msgs: int) -> None:
    d.mkdir(parents=True, exist_ok=True)
    for f in range(STREAMS // 10):
        docs = [
            f'apiVersion: jsops/v1\nkind: Stream\nmetadata: {{name: F{i:04d}}}\nspec: {{subjects: ["f{i}.>"], max_age: 1h, max_msgs: {max_msgs}}}\n'
            for i in range(f * 10, f * 10 + 10)
        ]
        (d / f"f{f:03d}.yaml").write_text("---\n".join(docs))


def _stopped(pid: int) -> bool:
    with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
        return fh.read().rsplit(")", 1)[1].split()[0] == "T"


def _at(js: Js, max_msgs: int) -> int:
    names = [f"F{i:04d}" for i in range(STREAMS)]
    return sum(1 for n in names if ((js.stream(n) or {}).get("config") or {}).get("max_msgs") == max_msgs)


@pytest.mark.integration
def test_a_leader_stopped_past_its_lease_sends_no_write_when_it_resumes(
    server: NatsServer, js: Js, tmp_path: Path
) -> None:
    from jsops.reconciler.controller.cli import main

    tree = tmp_path / "m"
    _tree(tree, 1000)
    assert (
        main(
            [
                str(tree),
                "--server",
                server.url,
                "--listen",
                "none",
                "--once",
                "--no-lease",
                "--log-file",
                str(tmp_path / "c0.log"),
            ]
        )
        == 0
    )
    audit = ApiAudit(server.url)
    old = new = None
    try:
        _tree(tree, 1001)  # revision A: the old leader stops (SIGSTOP, by itself) at its 80th action
        old = Proc(
            [str(tree)],
            server.url,
            "--lease-ttl",
            "3s",
            "--identity",
            "old",
            log=tmp_path / "old.log",
            env={"JSOPS_FAULT": "before-action:stop:80"},
        )
        wait_for(lambda: _stopped(old.process.pid), 120, "the old leader to stop mid-round")
        _tree(tree, 1002)  # revision B, which the next leader applies once the old one's lease expired
        new = Proc([str(tree)], server.url, "--lease-ttl", "3s", "--identity", "new", log=tmp_path / "new.log")
        wait_for(lambda: _at(js, 1002) == STREAMS, 180, "the new leader to apply revision B everywhere")
        rounds = len(old.events("round"))
        os.kill(old.process.pid, signal.SIGCONT)
        wait_for(lambda: len(old.events("round")) > rounds, 120, "the old leader's round to end after it resumed")
        js.ok("$JS.API.STREAM.CREATE.SENTINEL", {"name": "SENTINEL", "subjects": ["sentinel"]})
        js.ok("$JS.API.STREAM.UPDATE.SENTINEL", {"name": "SENTINEL", "subjects": ["sentinel"], "max_msgs": 5})
        wait_for(lambda: audit.updates("$JS.API.STREAM.UPDATE.SENTINEL"), 30, "the audit advisories to catch up")
        updates = [(t, s.rsplit(".", 1)[1], r.get("max_msgs")) for t, s, r in audit.updates("$JS.API.STREAM.UPDATE.F")]
    finally:
        audit.close()
        for p in (old, new):
            if p is not None:
                if p.process.poll() is None:
                    os.kill(p.process.pid, signal.SIGCONT)
                p.stop()
    first_b = min(t for t, _, m in updates if m == 1002)
    late = [name for t, name, m in updates if m == 1001 and t > first_b]
    assert late == [], f"{len(late)} updates from the old revision reached the server after the new leader began"
    last_b = {name: t for t, name, m in updates if m == 1002}
    undone = sorted(name for t, name, m in updates if m == 1001 and t > last_b.get(name, 0))
    assert undone == [], f"{len(undone)} objects left at the old revision"
    a_updates = sum(1 for _, _, m in updates if m == 1001)
    assert 1 <= a_updates < STREAMS  # the old leader really was stopped mid-round
    lost = old.events("lease_lost")
    assert len(lost) == 1, lost
    # the 79 actions that began before the stop may have sent their write; every later one was stopped
    assert STREAMS - 79 <= lost[0]["stopped_before"] <= STREAMS - a_updates
    assert lost[0]["reason"].startswith("lease lost: ")
    assert (
        lost[0]["stopped_before"] + len(old.events("action")) == STREAMS
    )  # the stopped ones are summed up, not listed
