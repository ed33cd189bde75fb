"""Issue 12: the live state is checked again right before each destructive request.

Messages published while the interactive prompt waited must not be deleted without
--allow-data-loss (the plan saw an empty stream)."""

from __future__ import annotations

import builtins
import sys

import pytest

from .helpers import Js, manifest, run

pytestmark = pytest.mark.integration

KEEP = """
apiVersion: jsops/v1
kind: Stream
metadata: {name: KEEP}
spec: {subjects: ["keep.>"]}
"""
OLD = """
apiVersion: jsops/v1
kind: Stream
metadata: {name: OLD}
spec: {subjects: ["old.>"]SPEC}
"""


def _prompt_publishes(monkeypatch, server, subject: str, count: int) -> list[str]:
    """An interactive prompt during which someone publishes ``count`` messages, then 'yes'."""
    asked: list[str] = []

    def answer(prompt: str = "") -> str:
        asked.append(prompt)
        js = Js(server.url)
        try:
            js.publish(subject, count)
        finally:
            js.close()
        return "yes"

    monkeypatch.setattr(sys.stdin, "isatty", lambda: True, raising=False)
    monkeypatch.setattr(builtins, "input", answer)
    return asked


def test_prune_rechecks_stream_after_prompt(server, js, tmp_path, monkeypatch):
    d = tmp_path / "m"
    manifest(d, "keep.yaml", KEEP)
    manifest(d, "old.yaml", OLD.replace("SPEC", ""))
    assert run("apply", str(d), "--server", server.url, "--yes")[0] == 0
    (d / "old.yaml").unlink()
    asked = _prompt_publishes(monkeypatch, server, "old.x", 100)
    rc, out, err = run("apply", str(d), "--server", server.url, "--prune")
    assert asked and "- Stream OLD" in out  # planned while empty, confirmed at the prompt
    assert rc == 1, out + err
    assert "not deleted: the stream now holds 100 messages" in out
    assert js.stream("OLD")["state"]["messages"] == 100
    # with the flag the re-run deletes it (a deliberate loss)
    rc, out, err = run("apply", str(d), "--server", server.url, "--prune", "--allow-data-loss", "--yes")
    assert rc == 0 and js.stream("OLD") is None, out + err


def test_recreate_and_limit_update_recheck_after_prompt(server, js, tmp_path, monkeypatch):
    d = tmp_path / "m"
    manifest(d, "old.yaml", OLD.replace("SPEC", ", max_msgs: 100"))
    assert run("apply", str(d), "--server", server.url, "--yes")[0] == 0
    # storage file -> memory is a recreate; max_msgs 100 -> 5 tightens a limit: both fine while empty
    manifest(d, "old.yaml", OLD.replace("SPEC", ", max_msgs: 100, storage: memory"))
    _prompt_publishes(monkeypatch, server, "old.x", 10)
    rc, out, err = run("apply", str(d), "--server", server.url, "--allow-recreate")
    assert rc == 1 and "-/+ Stream OLD" in out, out + err
    assert "not deleted: the stream now holds 10 messages" in out
    info = js.stream("OLD")
    assert (info["config"]["storage"], info["state"]["messages"]) == ("file", 10)
    js.ok("$JS.API.STREAM.PURGE.OLD")
    manifest(d, "old.yaml", OLD.replace("SPEC", ", max_msgs: 5"))
    _prompt_publishes(monkeypatch, server, "old.x", 10)
    rc, out, err = run("apply", str(d), "--server", server.url)
    assert rc == 1 and "~ Stream OLD" in out, out + err
    assert "not updated: the stream now holds 10 messages" in out and "remove up to 5" in out
    info = js.stream("OLD")
    assert (info["config"]["max_msgs"], info["state"]["messages"]) == (100, 10)


INTEREST = """
apiVersion: jsops/v1
kind: Stream
metadata: {name: EVENTS}
spec: {subjects: ["ev.>"], retention: interest}
---
apiVersion: jsops/v1
kind: Consumer
metadata: {name: reader, stream: EVENTS}
spec: {ack_policy: explicit, max_waiting: WAITING}
"""


def test_consumer_delete_on_interest_stream_is_data_loss(server, js, tmp_path, monkeypatch):
    d = tmp_path / "m"
    manifest(d, "ev.yaml", INTEREST.replace("WAITING", "64"))
    assert run("apply", str(d), "--server", server.url, "--yes")[0] == 0
    js.publish("ev.a", 10)
    js.fetch_ack("EVENTS", "reader", 3)
    # a recreate deletes the consumer first: on an interest stream that removes its 7 messages
    manifest(d, "ev.yaml", INTEREST.replace("WAITING", "128"))
    rc, out, _ = run("plan", str(d), "--server", server.url, "--allow-recreate")
    assert rc == 2 and "(blocked recreate: the consumer has 7 unacknowledged messages on an interest stream" in out, out
    assert run("apply", str(d), "--server", server.url, "--yes", "--allow-recreate")[0] == 1
    assert js.stream("EVENTS")["state"]["messages"] == 7
    # a prune of it likewise
    (d / "ev.yaml").write_text(INTEREST.split("---")[0])
    rc, out, _ = run("apply", str(d), "--server", server.url, "--yes", "--verbose", "--prune")
    assert rc == 1 and "! Consumer EVENTS/reader" in out, out
    assert js.consumer("EVENTS", "reader") is not None and js.stream("EVENTS")["state"]["messages"] == 7
    # planned with nothing pending; 5 published while the prompt waited: not deleted
    js.fetch_ack("EVENTS", "reader", 7)
    _prompt_publishes(monkeypatch, server, "ev.b", 5)
    rc, out, _ = run("apply", str(d), "--server", server.url, "--prune")
    assert (
        rc == 1 and "- Consumer EVENTS/reader" in out and "not deleted: the consumer now has 5 unacknowledged" in out
    ), out
    assert js.stream("EVENTS")["state"]["messages"] == 5


def test_flags_do_not_cover_a_loss_the_plan_did_not_show(server, js, tmp_path):
    """The controller applies with every flag on (its annotations decide): a prune planned on an
    empty stream is still re-checked, and refused once the stream holds messages."""
    from jsops.reconciler.apply import execute_plan
    from jsops.reconciler.client import JsClient, Target
    from jsops.reconciler.live import read_live
    from jsops.reconciler.plan import PlanOptions, build_plan

    d = tmp_path / "m"
    manifest(d, "keep.yaml", KEEP)
    manifest(d, "old.yaml", OLD.replace("SPEC", ""))
    assert run("apply", str(d), "--server", server.url, "--yes")[0] == 0
    opt = PlanOptions(prune=True, allow_recreate=True, allow_data_loss=True)
    with JsClient(Target(servers=(server.url,))) as client:
        live = read_live(client)
        plan = build_plan([], live, opt)
        assert {a.label for a in plan.actions if a.action == "delete"} == {"Stream KEEP", "Stream OLD"}
        js.publish("old.x", 4)
        outcome = execute_plan(client, plan, live, opt)
    by = {r.action.label: r for r in outcome.results}
    assert by["Stream KEEP"].status == "done" and js.stream("KEEP") is None
    assert by["Stream OLD"].status == "failed" and "now holds 4 messages" in by["Stream OLD"].detail
    assert js.stream("OLD")["state"]["messages"] == 4
