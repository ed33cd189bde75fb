"""Issue 12: tightening a stream's limits removes stored messages; plans count it as data loss.

Each limit on a real server with stored messages: the plan shows the count per limit, blocks it
without --allow-data-loss (apply leaves every message), and with the flag the server ends with
what the plan said. A limit that removes nothing (or an empty stream) stays a plain update."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from jsops.linter import EffectiveStream, stream_from_api_json
from jsops.reconciler.dataloss import LimitLoss, limit_losses, tightened

from .helpers import Js, manifest, run
from .records import desired_of, live_stream

pytestmark = pytest.mark.integration


def _stream(d: Path, limits: str, discard: str = "old") -> None:
    manifest(
        d,
        "s.yaml",
        f"""
        apiVersion: jsops/v1
        kind: Stream
        metadata: {{name: LIM}}
        spec: {{subjects: ["lim.>"], discard: {discard}{limits}}}
    """,
    )


def _publish(js: Js, subject: str, n: int) -> None:
    js.publish(subject, n)


def _plan_json(server, d: Path, *flags: str) -> dict:
    rc, out, err = run("plan", str(d), "--server", server.url, "--format", "json", *flags)
    assert rc == 2, out + err
    return json.loads(out)


def _check(server, js: Js, d: Path, limits: str, lost: int, per_limit: dict[str, str], discard: str = "old") -> None:
    before = js.stream("LIM")["state"]["messages"]
    _stream(d, limits, discard)
    plan = _plan_json(server, d)
    [act] = plan["actions"]
    assert (act["action"], act["wanted"], act["data_loss"]) == ("blocked", "update", lost), act
    assert "needs --allow-data-loss" in act["reason"]
    shown = {c["path"]: c["consequence"] for c in act["changes"] if c["class"] == "data-loss"}
    for limit, text in per_limit.items():
        assert text in shown[limit], shown
    rc, out, _ = run("plan", str(d), "--server", server.url)
    assert "[data-loss]" in out and "! Stream LIM" in out
    assert run("apply", str(d), "--server", server.url, "--yes")[0] == 1
    assert js.stream("LIM")["state"]["messages"] == before  # nothing removed without the flag
    plan = _plan_json(server, d, "--allow-data-loss")
    assert plan["summary"]["data_loss"] == lost and plan["actions"][0]["action"] == "update"
    rc, out, _ = run("plan", str(d), "--server", server.url, "--allow-data-loss")
    assert f"up to {lost} stored messages lost (data loss)" in out
    rc, out, err = run("apply", str(d), "--server", server.url, "--yes", "--allow-data-loss")
    assert rc == 0, out + err
    assert js.stream("LIM")["state"]["messages"] == before - lost


def test_max_msgs_and_max_bytes(server, js, tmp_path):
    d = tmp_path / "m"
    _stream(d, "")
    assert run("apply", str(d), "--server", server.url, "--yes")[0] == 0
    _publish(js, "lim.a", 100)
    _check(server, js, d, ", max_msgs: 10", 90, {"max_msgs": "removes 90 of 100 stored messages"})
    size = js.stream("LIM")["state"]["bytes"] // 10
    _check(server, js, d, f", max_msgs: 10, max_bytes: {size * 4}", 6, {"max_bytes": "removes about 6 of 10"})


def test_discard_new_keeps_messages_so_no_loss(server, js, tmp_path):
    d = tmp_path / "m"
    _stream(d, "", "new")
    assert run("apply", str(d), "--server", server.url, "--yes")[0] == 0
    _publish(js, "lim.a", 20)
    _stream(d, ", max_msgs: 5", "new")
    act = _plan_json(server, d)["actions"][0]
    assert act["action"] == "update" and "data_loss" not in act
    assert run("apply", str(d), "--server", server.url, "--yes")[0] == 0
    assert js.stream("LIM")["state"]["messages"] == 20


def test_max_msgs_per_subject_measured(server, js, tmp_path):
    d = tmp_path / "m"
    _stream(d, "")
    assert run("apply", str(d), "--server", server.url, "--yes")[0] == 0
    _publish(js, "lim.a", 6)
    _publish(js, "lim.b", 2)
    _publish(js, "lim.c", 5)
    # 6, 2, 5 per subject: a limit of 6 removes nothing and stays a plain in-place update
    _stream(d, ", max_msgs_per_subject: 6")
    act = _plan_json(server, d)["actions"][0]
    assert act["action"] == "update" and "data_loss" not in act
    assert run("apply", str(d), "--server", server.url, "--yes")[0] == 0
    _check(server, js, d, ", max_msgs_per_subject: 3", 5, {"max_msgs_per_subject": "removes 5 of 13 stored messages"})


def test_max_age_measured(server, js, tmp_path):
    d = tmp_path / "m"
    _stream(d, "")
    assert run("apply", str(d), "--server", server.url, "--yes")[0] == 0
    _publish(js, "lim.a", 7)
    time.sleep(2.5)
    _publish(js, "lim.b", 3)
    # a max_age longer than the oldest message's age removes nothing
    _stream(d, ", max_age: 1h")
    act = _plan_json(server, d)["actions"][0]
    assert act["action"] == "update" and "data_loss" not in act
    assert run("apply", str(d), "--server", server.url, "--yes")[0] == 0
    _stream(d, ", max_age: 2s")
    plan = _plan_json(server, d)
    [act] = plan["actions"]
    assert act["data_loss"] == 7 and "removes 7 of 10 stored messages" in json.dumps(act)
    assert run("apply", str(d), "--server", server.url, "--yes")[0] == 1
    assert js.stream("LIM")["state"]["messages"] == 10


def test_empty_stream_tightening_is_in_place(server, js, tmp_path):
    d = tmp_path / "m"
    _stream(d, "")
    assert run("apply", str(d), "--server", server.url, "--yes")[0] == 0
    _stream(d, ", max_msgs: 1, max_age: 1s, max_msgs_per_subject: 1, max_bytes: 1024")
    act = _plan_json(server, d)["actions"][0]
    assert act["action"] == "update" and "data_loss" not in act
    assert run("apply", str(d), "--server", server.url, "--yes")[0] == 0


def _want(limits: dict) -> EffectiveStream:
    """A desired stream with ``limits`` (the others left at zero: unlimited)."""
    return stream_from_api_json({"name": "S", **limits})[0]


def test_limit_losses_pure():
    s = live_stream(
        {"name": "S", "max_msgs": 100}, messages=50, bytes=5000, first_ts=1000.0, last_ts=2000.0, num_subjects=2
    )
    assert tightened(s.config, _want({"max_msgs": 10, "max_age": 0})) == ["max_msgs"]
    assert tightened(s.config, _want({"max_msgs": 200})) == []
    assert limit_losses(s, _want({"max_msgs": 10}), 3000.0) == [LimitLoss("max_msgs", 40)]
    assert limit_losses(s, _want({"max_msgs": 10, "discard": "new"}), 3000.0) == []
    assert limit_losses(s, _want({"max_bytes": 1000}), 3000.0) == [LimitLoss("max_bytes", 40, True)]
    assert limit_losses(s, _want({"max_age": 5000 * 10**9}), 3000.0) == []  # oldest is 2000s old
    assert limit_losses(s, _want({"max_age": 500 * 10**9}), 3000.0) == [LimitLoss("max_age", 50)]  # all older than 500s
    assert limit_losses(s, _want({"max_age": 1500 * 10**9}), 3000.0) == [LimitLoss("max_age", None)]  # not measured
    assert limit_losses(s, _want({"max_age": 1500 * 10**9}), 3000.0, {"max_age": 12}) == [LimitLoss("max_age", 12)]
    assert limit_losses(s, _want({"max_msgs_per_subject": 60}), 3000.0) == []
    assert limit_losses(s, _want({"max_msgs_per_subject": 20}), 3000.0) == [LimitLoss("max_msgs_per_subject", None)]
    assert limit_losses(live_stream({"name": "E"}), _want({"max_msgs": 1}), 3000.0) == []


def test_controller_policy_needs_data_loss_annotation():
    from jsops.reconciler.controller.policy import Policy
    from jsops.reconciler.live import LiveState
    from jsops.reconciler.plan import Desired, build_plan
    from jsops.reconciler.render_refusal import reason_of

    def policy_plan(desired: list[Desired], live: LiveState, policy: Policy) -> Any:
        return build_plan(desired, live, grants=policy.grants())

    live_cfg = {"name": "S", "subjects": ["s.>"], "max_msgs": 1000, "metadata": {"io.jsops.managed-by": "jsops"}}
    live = LiveState(streams={"S": live_stream(live_cfg, messages=100, bytes=3500)})
    desired = [desired_of("Stream", "S", None, {"name": "S", "subjects": ["s.>"], "max_msgs": 10})]
    key = ("Stream", None, "S")
    [act] = policy_plan(desired, live, Policy({key: {}})).actions
    assert (act.action, act.wanted, act.data_loss) == ("blocked", "update", 90)
    assert "jsops.io/allow-data-loss" in (reason_of(act) or "")
    [act] = policy_plan(desired, live, Policy({key: {"jsops.io/allow-data-loss": "true"}})).actions
    assert (act.action, act.data_loss) == ("update", 90)
    # a limit that removes nothing is a plain in-place update, no annotation needed
    desired = [desired_of("Stream", "S", None, {"name": "S", "subjects": ["s.>"], "max_msgs": 500})]
    [act] = policy_plan(desired, live, Policy({key: {}})).actions
    assert (act.action, act.data_loss) == ("update", None)
