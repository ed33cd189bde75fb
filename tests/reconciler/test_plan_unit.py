"""Pure functions: normalisation, diff, planning, ordering, rendering (golden), targets."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

import pytest

from jsops.reconciler.client import Target, TargetError, add_target_arguments, load_context, target_from_args
from jsops.reconciler.diff import diff_configs, normalise
from jsops.reconciler.live import LiveConsumer, LiveState, LiveStream
from jsops.reconciler.plan import Desired, Plan, PlanError, PlanOptions, build_plan, resume_config, stamp, stream_order
from jsops.reconciler.render_json import render_json
from jsops.reconciler.render_refusal import reason_of
from jsops.reconciler.render_text import render_text

from .records import consumer_record, stream_record

GOLDEN = Path(__file__).parent / "golden"
H = 3_600_000_000_000
OWN = {"io.jsops.managed-by": "jsops", "io.jsops.source": "m/orders.yaml"}


def stream(name: str, **kw):
    base = {
        "name": name,
        "subjects": [f"{name.lower()}.>"],
        "retention": "limits",
        "max_age": H,
        "storage": "file",
        "num_replicas": 1,
    }
    base.update(kw)
    return stream_record(base)


def consumer(name: str, **kw):
    base = {
        "durable_name": name,
        "name": name,
        "deliver_policy": "all",
        "ack_policy": "explicit",
        "ack_wait": 30_000_000_000,
        "max_waiting": 512,
    }
    base.update(kw)
    return consumer_record(base)


def test_normalise_ignores_server_and_bookkeeping_metadata_and_subject_order():
    live = stream("A", subjects=["b", "a"], metadata={"_nats.ver": "2.15.1", **OWN, "team": "x"}, sealed=False)
    desired = stream("A", subjects=["a", "b"], metadata={"team": "x"})
    assert diff_configs("Stream", live, desired) == []
    assert normalise("Stream", live)["subjects"] == ["a", "b"]


def test_resumed_consumer_compares_with_the_manifest_start():
    live = resume_config(consumer("c"), 42)
    assert live.deliver_policy == "by_start_sequence" and live.opt_start_seq == 42
    assert diff_configs("Consumer", live, consumer("c")) == []
    changes = diff_configs("Consumer", live, consumer("c", deliver_policy="new"))
    assert [(c.path, c.old, c.new, c.cls) for c in changes] == [("deliver_policy", "all", "new", "recreate")]


def live_state() -> LiveState:
    st = LiveState()
    st.streams["ORDERS"] = LiveStream(stream("ORDERS", metadata=dict(OWN)), messages=12, consumer_count=2)
    st.streams["HAND"] = LiveStream(stream("HAND"), messages=0)
    st.streams["GONE"] = LiveStream(stream("GONE", metadata=dict(OWN)), messages=0)
    st.streams["GONE_MIRROR"] = LiveStream(
        stream_record({"name": "GONE_MIRROR", "mirror": {"name": "GONE"}, "metadata": dict(OWN)})
    )
    st.consumers[("ORDERS", "billing")] = LiveConsumer("ORDERS", consumer("billing", metadata=dict(OWN)), ack_floor=7)
    st.consumers[("ORDERS", "audit")] = LiveConsumer("ORDERS", consumer("audit", metadata=dict(OWN)))
    return st


def desired() -> list[Desired]:
    return [
        Desired(
            "Stream",
            "ORDERS",
            None,
            stream("ORDERS", max_age=2 * H, subjects=["orders.>", "refunds.>"]),
            "m/orders.yaml",
        ),
        Desired("Stream", "HAND", None, stream("HAND", max_age=2 * H), "m/hand.yaml"),
        Desired(
            "Stream", "NEW_MIRROR", None, stream_record({"name": "NEW_MIRROR", "mirror": {"name": "NEW"}}), "m/new.yaml"
        ),
        Desired("Stream", "NEW", None, stream("NEW", deny_delete=True), "m/new.yaml"),
        Desired("Consumer", "billing", "ORDERS", consumer("billing", deliver_policy="new"), "m/orders.yaml"),
        Desired("Consumer", "audit", "ORDERS", consumer("audit", ack_wait=60_000_000_000), "m/orders.yaml"),
    ]


def test_build_plan_safety_and_order():
    plan = build_plan(desired(), live_state(), PlanOptions(prune=True), target="nats://h:4222")
    acts = [(a.action, a.kind, a.stream, a.name, a.wanted) for a in plan.actions]
    assert acts == [
        ("blocked", "Stream", None, "HAND", "update"),  # not owned
        ("create", "Stream", None, "NEW", None),  # origin before its mirror
        ("update", "Stream", None, "ORDERS", None),
        ("create", "Stream", None, "NEW_MIRROR", None),
        ("blocked", "Consumer", "ORDERS", "billing", "recreate"),  # needs --allow-recreate
        ("update", "Consumer", "ORDERS", "audit", None),
        ("delete", "Stream", None, "GONE_MIRROR", None),  # mirror deleted before its origin
        ("delete", "Stream", None, "GONE", None),
    ]
    assert plan.summary() == {"create": 2, "update": 2, "recreate": 0, "delete": 2, "blocked": 2, "adopt": 0}
    hand = plan.actions[0]
    assert "--adopt HAND" in (reason_of(hand) or "")
    orders = plan.actions[2]
    assert [c.path for c in orders.changes] == ["max_age", "subjects"]
    assert orders.config is not None and orders.config.metadata["io.jsops.managed-by"] == "jsops"


def test_adopt_recreate_and_data_loss_flags():
    st = live_state()
    d = desired()
    d[0] = Desired("Stream", "ORDERS", None, stream("ORDERS", storage="memory"), "m/orders.yaml")
    p = build_plan(d, st, PlanOptions(adopt=frozenset({"HAND"}), allow_recreate=True))
    by = {(a.kind, a.name): a for a in p.actions}
    assert by[("Stream", "HAND")].action == "adopt"
    assert by[("Stream", "ORDERS")].action == "blocked" and "--allow-data-loss" in (
        reason_of(by[("Stream", "ORDERS")]) or ""
    )
    assert "12 stored messages are lost" in (by[("Stream", "ORDERS")].consequence or "")
    assert by[("Consumer", "billing")].action == "recreate"
    assert "from stream sequence 8" in (by[("Consumer", "billing")].consequence or "")
    p = build_plan(d, st, PlanOptions(allow_recreate=True, allow_data_loss=True))
    by = {(a.kind, a.name): a for a in p.actions}
    assert by[("Stream", "ORDERS")].action == "recreate"
    assert by[("Consumer", "billing")].action == "create"  # comes back with its stream
    gone = by[
        ("Stream", "GONE")
    ]  # no prune without --prune: shown, blocked (issue 21: every owned object is accounted for)
    assert (gone.action, gone.wanted) == ("blocked", "delete") and "left the manifests" in (reason_of(gone) or "")


def test_unowned_identical_object_is_not_an_action_and_forbidden_is_blocked():
    st = LiveState()
    st.streams["HAND"] = LiveStream(stream("HAND"))
    st.streams["X"] = LiveStream(stream("X", metadata=dict(OWN)), consumer_count=1)
    st.consumers[("X", "p")] = LiveConsumer("X", consumer("p", metadata=dict(OWN)))
    d = [
        Desired("Stream", "HAND", None, stream("HAND")),
        Desired("Stream", "X", None, stream("X")),
        Desired("Consumer", "p", "X", consumer("p", pause_until="2030-01-01T00:00:00Z")),
    ]
    p = build_plan(d, st)
    assert [(a.action, a.name) for a in p.actions] == [("blocked", "p")]
    assert "pause API" in (p.actions[0].consequence or "")


def test_stream_order_breaks_cycles():
    def order(specs):
        return stream_order({n: stream_record({"name": n, **spec}) for n, spec in specs.items()})

    assert order({"A": {"sources": [{"name": "B"}]}, "B": {"sources": [{"name": "A"}]}, "C": {}}) == ["C", "A", "B"]
    assert order({"M": {"mirror": {"name": "O"}}, "O": {}, "X": {"sources": [{"name": "M"}]}}) == ["O", "M", "X"]


def test_plan_json_round_trip_and_bad_plans():
    plan = build_plan(desired(), live_state(), PlanOptions(prune=True), target="t")
    again = Plan.from_json(json.loads(render_json(plan)))
    assert again.to_json() == plan.to_json()
    for bad in (
        [],
        {"version": 9},
        {"version": 1, "fingerprint": "x", "actions": [{"action": "explode"}]},
        {
            "version": 1,
            "fingerprint": "x",
            "actions": [{"action": "create", "object": {"kind": "Stream", "name": "A"}}],
        },
    ):
        with pytest.raises(PlanError):
            Plan.from_json(bad)


def test_fingerprint_tracks_configs_not_message_counts():
    a, b = live_state(), live_state()
    assert a.fingerprint() == b.fingerprint()
    b.streams["ORDERS"].messages = 99  # still non-empty: same plan
    assert a.fingerprint() == b.fingerprint()
    b.streams["HAND"].messages = 1  # empty -> non-empty changes what a recreate costs
    assert a.fingerprint() != b.fingerprint()
    c = live_state()
    c.streams["ORDERS"].config = c.streams["ORDERS"].config._replace(max_age=5)
    assert a.fingerprint() != c.fingerprint()


def _golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("UPDATE_GOLDEN"):
        path.write_text(text)
    assert text == path.read_text()


def test_golden_plan_text_and_json():
    plan = build_plan(
        desired(), live_state(), PlanOptions(prune=True, allow_recreate=True), target="nats://127.0.0.1:4222"
    )
    _golden("plan.txt", render_text(plan))
    _golden("plan.json", render_json(plan))
    data = json.loads(render_json(plan))
    # contracts §5 keys, plus the per-target headers (an additive extension)
    assert set(data) == {"version", "target", "fingerprint", "actions", "summary", "targets"}
    assert data["targets"] == [
        {
            "context": "default",
            "contexts": ["default"],
            "target": data["target"],
            "fingerprint": data["fingerprint"],
            "summary": data["summary"],
        }
    ]
    for a in data["actions"]:
        assert a["context"] == "default"
        assert {"action", "object", "changes", "consequence"} <= set(a)
        assert a["action"] in ("create", "update", "recreate", "delete", "adopt", "blocked")
        for c in a["changes"]:
            assert {"path", "from", "to", "class"} <= set(c) and c["class"] in (
                "in-place",
                "one-way",
                "recreate",
                "forbidden",
            )


def test_empty_plan_text():
    assert render_text(Plan("nats://x:1", "sha256:0")) == "No changes. nats://x:1 matches the manifests.\n"


def test_stamp():
    assert stamp(stream_record({"name": "A"}), "f.yaml").metadata == {
        "io.jsops.managed-by": "jsops",
        "io.jsops.source": "f.yaml",
    }


def _args(*argv: str) -> argparse.Namespace:
    p = argparse.ArgumentParser()
    add_target_arguments(p)
    return p.parse_args(list(argv))


def test_targets_never_display_secrets(tmp_path, monkeypatch):
    t = target_from_args(
        _args("--server", "nats://bob:s3cret@h1:4222,tls://tok@h2", "--user", "bob", "--password", "hunter2")
    )
    assert t.display() == "nats://h1:4222,tls://h2"
    assert "hunter2" not in repr(t) and "s3cret" not in t.display()
    assert Target(js_domain="hub").api == "$JS.hub.API" and Target().api == "$JS.API"
    with pytest.raises(TargetError):
        target_from_args(_args("--password", "x"))
    ctx = tmp_path / "nats" / "context"
    ctx.mkdir(parents=True)
    (ctx / "prod.json").write_text(
        json.dumps({"url": "nats://u:pw@prod:4222", "token": "T0K", "jetstream_domain": "hub", "tls_first": True})
    )
    (ctx / "broken.json").write_text("{not json")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    t = load_context("prod")
    assert (t.display(), t.token, t.js_domain, t.tls_first, t.context) == (
        "nats://prod:4222",
        "T0K",
        "hub",
        True,
        "prod",
    )
    t = target_from_args(_args("--context", "prod", "--server", "nats://other:1"))
    assert t.servers == ("nats://other:1",) and t.token == "T0K"
    for bad in ("missing", "broken", "../etc"):
        with pytest.raises(TargetError):
            load_context(bad)
    with pytest.raises(TargetError):
        Target(creds=str(tmp_path / "nope.creds")).connect_options()
