"""``jsops apply --migrate`` per retention and downstream shape, on a real nats-server (issue 21,
items 1-7): what is migrated keeps every message and every consumer's position; what cannot be
is refused in the plan, named; a failed attempt leaves nothing behind; an interrupted one is
never reported done."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .helpers import Js, manifest, run
from .migrate_helpers import positions, renamed, seed, snapshot, state, stored

pytestmark = pytest.mark.integration

JSOPS = str(Path(sys.executable).parent / "jsops")
INTEREST = ", retention: interest"


def _apply(url: str, d: Path, *flags: str) -> tuple[int, str, str]:
    return run("apply", str(d), "--server", url, "--yes", *flags)


def _jsops(url: str, d: Path, fault: str, *flags: str) -> subprocess.Popen[str]:
    """``jsops apply --migrate`` in a process with the fault hook ``fault``."""
    env = {**os.environ, "JSOPS_FAULT": fault}
    return subprocess.Popen(
        [JSOPS, "apply", str(d), "--server", url, "--yes", "--migrate", *flags],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _wait_for(path: Path, proc: subprocess.Popen[str], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.02)


def _kept(js: Js, stream: str, before: dict[str, tuple[int, int]], added: int = 0) -> None:
    """Each consumer kept its position: as many messages pending (plus ``added`` published since)
    and an ack floor not below the old one, with nothing it wants between (on an interest stream a
    message no consumer wants any more is gone, and a consumer created after it reports its floor
    past the gap)."""
    from .migrate_helpers import truth

    got = positions(js, stream)
    assert got == truth(js, stream, snapshot(js, stream)), got
    assert {n: p for n, (_, p) in got.items()} == {n: p + added for n, (_, p) in before.items()}, (got, before)
    assert all(got[n][0] >= f for n, (f, _) in before.items()), (got, before)


def _converged(url: str, d: Path) -> None:
    rc, out, err = run("plan", str(d), "--server", url, "--migrate")
    assert rc == 0 and out.startswith("No changes."), out + err


# -- 1, 2: interest streams ------------------------------------------------------------------------


def test_interest_publishes_acknowledged_after_the_promotion_are_kept(server, js: Js, tmp_path) -> None:
    """Item 1: the consumers exist on the copy before it takes the subjects, so a publish the new
    stream acknowledges is held by them even when jsops dies right after the promotion."""
    d = tmp_path / "m"
    stored(d, extra=INTEREST)
    assert _apply(server.url, d)[0] == 0
    seed(js)
    before, pos = snapshot(js, "ORDERS"), positions(js, "ORDERS")
    renamed(d, extra=INTEREST)
    proc = _jsops(server.url, d, "migrate-after-promote")
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 137, out + err
    js.publish("orders.new", 50)  # acknowledged by ORDERS_V2 (the subjects moved with the promotion)
    assert state(js, "ORDERS_V2")["messages"] == len(before) + 50
    rc, out, err = _apply(server.url, d, "--migrate")
    assert rc == 0, out + err
    assert js.streams() == ["ORDERS_V2"]
    after = snapshot(js, "ORDERS_V2")
    assert {s: m for s, m in after.items() if s in before} == before and len(after) == len(before) + 50
    _kept(js, "ORDERS_V2", pos, 50)
    _converged(server.url, d)


def test_interest_stream_with_a_backlog_migrates_its_storage(server, js: Js, tmp_path) -> None:
    """Item 2: the copy keeps the backlog (limits retention until it is promoted to interest)."""
    d = tmp_path / "m"
    stored(d, extra=INTEREST)
    assert _apply(server.url, d)[0] == 0
    seed(js)
    before, pos = snapshot(js, "ORDERS"), positions(js, "ORDERS")
    assert len(before) > 60  # a backlog: audit has acked 31, shipper 12 of the orders.new ones
    stored(d, storage="memory", extra=INTEREST)
    rc, out, err = _apply(server.url, d, "--migrate")
    assert rc == 0, out + err
    assert js.streams() == ["ORDERS"]
    cfg = js.stream("ORDERS")["config"]
    assert (cfg["storage"], cfg["retention"]) == ("memory", "interest")
    assert snapshot(js, "ORDERS") == before
    _kept(js, "ORDERS", pos)
    _converged(server.url, d)
    js.fetch_ack("ORDERS", "audit", 5)  # still an interest stream: acked by both consumers, a message goes
    assert state(js, "ORDERS")["messages"] < len(before)


def test_interest_stream_whose_consumer_is_not_carried_is_refused_in_the_plan(server, js: Js, tmp_path) -> None:
    """Item 2: what the new stream would drop (the messages only an undeclared consumer wants) is
    refused in the plan with the reason, never called a migration without loss."""
    d = tmp_path / "m"
    stored(d, extra=INTEREST)
    assert _apply(server.url, d)[0] == 0
    seed(js)
    before = snapshot(js, "ORDERS")
    text = (d / "orders.yaml").read_text()
    (d / "orders.yaml").write_text(
        text.split("---")[0].replace("storage: file", "storage: memory") + "---" + text.split("---")[1]
    )
    rc, out, err = run("plan", str(d), "--server", server.url, "--migrate")
    assert rc == 2 and "! Stream ORDERS" in out and "audit are not declared" in out, out + err
    assert "migration without loss" not in out
    assert _apply(server.url, d, "--migrate")[0] == 1
    assert js.streams() == ["ORDERS"] and snapshot(js, "ORDERS") == before


def test_a_failed_copy_is_rolled_back_and_a_revert_applies(server, js: Js, tmp_path) -> None:
    """Items 2 and 6: a copy that does not match (a message missing on it) is deleted again, every
    time; the stream keeps its messages and a revert of the manifest applies at once."""
    d = tmp_path / "m"
    stored(d)
    assert _apply(server.url, d)[0] == 0
    seed(js)
    before, pos = snapshot(js, "ORDERS"), positions(js, "ORDERS")
    stored(d, storage="memory")
    for attempt in range(2):
        gate = tmp_path / f"go{attempt}"
        proc = _jsops(server.url, d, f"migrate-after-create:pause:{gate}")
        _wait_for(Path(f"{gate}.reached"), proc)
        copy = "ORDERS_JSOPS_MIGRATING"
        deadline = time.monotonic() + 30
        while state(js, copy)["last_seq"] < state(js, "ORDERS")["last_seq"]:
            assert time.monotonic() < deadline
            time.sleep(0.02)
        js.ok(f"$JS.API.STREAM.MSG.DELETE.{copy}", {"seq": 50})
        gate.touch()
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 1 and "message 50 of ORDERS is missing" in out and "rolled back" in out, out + err
        assert js.streams() == ["ORDERS"]
        assert snapshot(js, "ORDERS") == before and positions(js, "ORDERS") == pos
    stored(d)  # the revert
    _converged(server.url, d)
    assert _apply(server.url, d)[0] == 0


@pytest.mark.parametrize("point", ["after-sync", "in-window", "after-promote"])
def test_a_reverted_rename_rolls_back_its_unfinished_copy(server, js: Js, tmp_path, point: str) -> None:
    """Item 6: a rename interrupted (kill -9) and then reverted in the manifests does not leave the
    copy behind for good: before the promotion the plan rolls it back (the old stream gets its
    subjects back); after it, the plan says it cannot and how to finish."""
    d = tmp_path / "m"
    stored(d)
    assert _apply(server.url, d)[0] == 0
    seed(js)
    before, pos = snapshot(js, "ORDERS"), positions(js, "ORDERS")
    renamed(d)
    proc = _jsops(server.url, d, f"migrate-{point}")
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 137, out + err
    stored(d)  # the revert
    rc, out, err = run("plan", str(d), "--server", server.url, "--migrate")
    if point == "after-promote":
        assert rc == 2 and "past its promotion" in out and "jsops.io/renamed-from: ORDERS" in out, out + err
        assert _apply(server.url, d, "--migrate")[0] == 1
        assert js.streams() == ["ORDERS", "ORDERS_V2"] and state(js, "ORDERS_V2")["messages"] == len(before)
        return
    assert rc == 2 and "=> Stream ORDERS_V2  (roll back the migration from ORDERS)" in out, out + err
    rc, out, err = _apply(server.url, d, "--migrate")
    assert rc == 0 and "rolled back the unfinished migration from ORDERS" in out, out + err
    assert js.streams() == ["ORDERS"]
    assert snapshot(js, "ORDERS") == before and positions(js, "ORDERS") == pos
    js.publish("orders.new")  # ORDERS takes its subjects again
    assert state(js, "ORDERS")["last_seq"] == 101
    _converged(server.url, d)


# -- 3: work queues --------------------------------------------------------------------------------

JOBS = """
    apiVersion: jsops/v1
    kind: Stream
    metadata: {{name: JOBS}}
    spec: {{subjects: ["jobs.>"], storage: {storage}, retention: {retention}}}
    ---
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {{name: worker, stream: JOBS}}
    spec: {{ack_policy: explicit}}
"""


def test_work_queue_migrates_and_its_worker_takes_every_job_left_once(server, js: Js, tmp_path) -> None:
    """Item 3: the worker is created at the first message (the only start a work queue allows),
    which is its position: the copy holds exactly the jobs not yet acknowledged."""
    d = tmp_path / "m"
    manifest(d, "jobs.yaml", JOBS.format(storage="file", retention="workqueue"))
    assert _apply(server.url, d)[0] == 0
    js.publish("jobs.a", 30)
    done = js.fetch_ack("JOBS", "worker", 10)
    assert state(js, "JOBS")["messages"] == 20
    manifest(d, "jobs.yaml", JOBS.format(storage="memory", retention="workqueue"))
    rc, out, err = _apply(server.url, d, "--migrate")
    assert rc == 0, out + err
    assert js.streams() == ["JOBS"] and js.stream("JOBS")["config"]["storage"] == "memory"
    assert state(js, "JOBS")["messages"] == 20
    c = js.consumer("JOBS", "worker")
    assert c is not None and c["num_pending"] == 20 and c["num_ack_pending"] == 0
    js.publish("jobs.a", 5)  # new jobs land where the worker is
    left = js.fetch_ack("JOBS", "worker", 25)
    assert sorted(left) == list(range(11, 36)) and not set(left) & set(done)
    assert state(js, "JOBS")["messages"] == 0
    _converged(server.url, d)


def test_a_retention_change_into_a_work_queue_with_messages_is_refused_in_the_plan(server, js: Js, tmp_path) -> None:
    d = tmp_path / "m"
    manifest(d, "jobs.yaml", JOBS.format(storage="file", retention="limits"))
    assert _apply(server.url, d)[0] == 0
    js.publish("jobs.a", 10)
    manifest(d, "jobs.yaml", JOBS.format(storage="file", retention="workqueue"))
    rc, out, err = run("plan", str(d), "--server", server.url, "--migrate")
    assert rc == 2 and "! Stream JOBS" in out and "10101" in out and "migration without loss" not in out, out + err
    assert _apply(server.url, d, "--migrate")[0] == 1
    assert js.streams() == ["JOBS"] and state(js, "JOBS")["messages"] == 10


# -- 4: a start change inside a migration ----------------------------------------------------------

C1 = """
    apiVersion: jsops/v1
    kind: Stream
    metadata: {{name: ORDERS}}
    spec: {{subjects: ["orders.>"], storage: {storage}}}
    ---
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {{name: c1, stream: ORDERS}}
    spec: {{ack_policy: explicit, deliver_policy: {policy}}}
"""


def test_a_start_change_inside_a_migration_keeps_the_pending_messages(server, js: Js, tmp_path) -> None:
    """Item 4: as the in-place path resets after the ack floor, the migration creates c1 after its
    ack floor: the 10 messages it never acked stay pending (no flag asked, none skipped)."""
    d = tmp_path / "m"
    manifest(d, "o.yaml", C1.format(storage="file", policy="all"))
    assert _apply(server.url, d)[0] == 0
    js.publish("orders.new", 10)
    c = js.consumer("ORDERS", "c1")
    assert c is not None and (c["ack_floor"]["stream_seq"], c["num_pending"]) == (0, 10)
    manifest(d, "o.yaml", C1.format(storage="memory", policy="new"))
    rc, out, err = _apply(server.url, d, "--migrate")
    assert rc == 0, out + err
    c = js.consumer("ORDERS", "c1")
    assert c is not None and c["num_pending"] == 10 and c["ack_floor"]["stream_seq"] == 0, c
    assert sorted(js.fetch_ack("ORDERS", "c1", 10)) == list(range(1, 11))
    _converged(server.url, d)


def test_a_reset_inside_a_migration_needs_its_flags(server, js: Js, tmp_path) -> None:
    """Item 4: --reset-position starts c1 at its manifest's start, as in place; on an interest stream
    that skips messages, which needs --allow-data-loss as well."""
    d = tmp_path / "m"
    manifest(
        d,
        "o.yaml",
        C1.format(storage="file", policy="all").replace("storage: file", "storage: file, retention: interest"),
    )
    assert _apply(server.url, d)[0] == 0
    js.publish("orders.new", 10)
    manifest(
        d,
        "o.yaml",
        C1.format(storage="memory", policy="new").replace("storage: memory", "storage: memory, retention: interest"),
    )
    rc, out, err = run("plan", str(d), "--server", server.url, "--migrate", "--reset-position")
    assert rc == 2 and "skips up to 10 messages of an interest stream" in out and "needs --allow-data-loss)" in out, (
        out + err
    )
    assert _apply(server.url, d, "--migrate", "--reset-position")[0] == 1
    c = js.consumer("ORDERS", "c1")
    assert c is not None and c["num_pending"] == 10 and state(js, "ORDERS")["messages"] == 10
    rc, out, err = _apply(server.url, d, "--migrate", "--reset-position", "--allow-data-loss")
    assert rc == 0, out + err
    c = js.consumer("ORDERS", "c1")
    assert c is not None and c["num_pending"] == 0 and c["config"]["deliver_policy"] == "new", c
    js.publish("orders.new", 3)
    assert js.consumer("ORDERS", "c1")["num_pending"] == 3
    _converged(server.url, d)


# -- 5: downstream streams -------------------------------------------------------------------------


def test_streams_that_mirror_or_source_the_migrated_stream_are_named_and_refused(server, js: Js, tmp_path) -> None:
    d = tmp_path / "m"
    stored(d)
    assert _apply(server.url, d)[0] == 0
    seed(js)
    js.ok("$JS.API.STREAM.CREATE.BACKUP", {"name": "BACKUP", "mirror": {"name": "ORDERS"}})
    js.ok("$JS.API.STREAM.CREATE.AGG", {"name": "AGG", "sources": [{"name": "ORDERS"}]})
    deadline = time.monotonic() + 30
    while min(state(js, "BACKUP")["last_seq"], state(js, "AGG")["messages"]) < 99:
        assert time.monotonic() < deadline
        time.sleep(0.02)
    held = {s: state(js, s)["messages"] for s in ("ORDERS", "BACKUP", "AGG")}
    for change in (lambda: renamed(d), lambda: stored(d, storage="memory")):
        change()
        rc, out, err = run("plan", str(d), "--server", server.url, "--migrate")
        assert rc == 2 and "BACKUP (a mirror of it)" in out and "AGG (sources it)" in out, out + err
        assert "migration without loss" not in out
        assert _apply(server.url, d, "--migrate")[0] == 1
        assert js.streams() == ["AGG", "BACKUP", "ORDERS"]
        assert {s: state(js, s)["messages"] for s in held} == held


# -- 6: more than the new limits hold --------------------------------------------------------------


def test_a_stream_holding_more_than_the_new_limits_is_refused_in_the_plan(server, js: Js, tmp_path) -> None:
    """Item 6: with discard new the copy could never catch up; refused at once, nothing changes,
    and the revert of the manifest plans nothing."""
    d = tmp_path / "m"
    stored(d, extra=", discard: new")
    assert _apply(server.url, d)[0] == 0
    seed(js)
    before = snapshot(js, "ORDERS")
    stored(d, storage="memory", extra=", discard: new, max_msgs: 50")
    began = time.monotonic()
    rc, out, err = run("plan", str(d), "--server", server.url, "--migrate")
    assert rc == 2 and "max_msgs 50 < 99 messages" in out and "migration without loss" not in out, out + err
    rc, out, err = _apply(server.url, d, "--migrate")
    assert rc == 1 and time.monotonic() - began < 30, out + err
    assert js.streams() == ["ORDERS"] and snapshot(js, "ORDERS") == before
    stored(d, extra=", discard: new")
    _converged(server.url, d)


# -- 7: an interrupted migration is not reported done ----------------------------------------------


def test_a_server_restart_after_the_promotion_is_not_reported_done_and_the_rerun_finishes(
    server, js: Js, tmp_path
) -> None:
    d = tmp_path / "m"
    stored(d)
    assert _apply(server.url, d)[0] == 0
    seed(js)
    before, pos = snapshot(js, "ORDERS"), positions(js, "ORDERS")
    renamed(d)
    gate = tmp_path / "go"
    proc = _jsops(server.url, d, f"migrate-after-promote:pause:{gate}", "--read-back-wait", "20s")
    _wait_for(Path(f"{gate}.reached"), proc)
    server.kill()
    server.restart()
    gate.touch()
    out, err = proc.communicate(timeout=120)
    assert proc.returncode != 0, out + err
    assert "read back after reconnecting: not applied: the migration is unfinished" in out, out + err
    js2 = Js(server.url)
    try:
        rc, out, err = run("plan", str(d), "--server", server.url, "--migrate")
        assert rc == 2 and "resumes the migration recorded on the server" in out, out + err
        rc, out, err = _apply(server.url, d, "--migrate")
        assert rc == 0, out + err
        assert js2.streams() == ["ORDERS_V2"]
        assert snapshot(js2, "ORDERS_V2") == before and positions(js2, "ORDERS_V2") == pos
        _converged(server.url, d)
    finally:
        js2.close()
