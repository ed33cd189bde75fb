"""Golden plan output of migrations per retention and downstream shape (pure: a LiveState built by
hand): what is migrated, and each refusal with its reason and names (issue 21, items 1-6)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from jsops.reconciler.live import LiveState
from jsops.reconciler.plan import Desired, PlanOptions, build_plan
from jsops.reconciler.render_refusal import reason_of
from jsops.reconciler.render_text import render_text

from .records import desired_of, live_consumer, live_stream

GOLDEN = Path(__file__).parent / "golden"
OWN = {"io.jsops.managed-by": "jsops", "io.jsops.source": "m/s.yaml"}


def _golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("UPDATE_GOLDEN"):
        path.write_text(text)
    assert text == path.read_text()


def _stream(name: str, retention: str, storage: str = "file", **extra: Any) -> dict[str, Any]:
    return {"name": name, "subjects": [f"{name.lower()}.>"], "retention": retention, "storage": storage, **extra}


def _state() -> LiveState:
    live = LiveState(read_at=10_000.0)
    for name, retention in (
        ("LIM", "limits"),
        ("INT", "interest"),
        ("WQ", "workqueue"),
        ("INTDROP", "interest"),
        ("TOWQ", "limits"),
        ("READ", "limits"),
        ("FULL", "limits"),
    ):
        live.streams[name] = live_stream(
            {**_stream(name, retention), "metadata": OWN},
            messages=100,
            bytes=4000,
            first_seq=1,
            last_seq=100,
            consumer_count=1,
        )
        live.consumers[(name, "c")] = live_consumer(
            name, {"durable_name": "c", "ack_policy": "explicit", "metadata": OWN}, ack_floor=40, pending=60
        )
    live.consumers[("INTDROP", "left")] = live_consumer(
        "INTDROP", {"durable_name": "left", "ack_policy": "explicit", "metadata": OWN}, ack_floor=10, pending=90
    )
    live.streams["BACKUP"] = live_stream({"name": "BACKUP", "mirror": {"name": "READ"}, "metadata": OWN}, messages=100)
    live.streams["AGG"] = live_stream({"name": "AGG", "sources": [{"name": "READ"}], "metadata": OWN}, messages=100)
    return live


def _desired() -> list[Desired]:
    out = []
    for name, retention, extra in (
        ("LIM", "limits", {}),
        ("INT", "interest", {}),
        ("WQ", "workqueue", {}),
        ("INTDROP", "interest", {}),
        ("TOWQ", "workqueue", {}),
        ("READ", "limits", {}),
        ("FULL", "limits", {"discard": "new", "max_msgs": 50}),
    ):
        out.append(desired_of("Stream", name, None, _stream(name, retention, "memory", **extra), "m/s.yaml"))
        out.append(desired_of("Consumer", "c", name, {"durable_name": "c", "ack_policy": "explicit"}, "m/s.yaml"))
    out += [
        desired_of("Stream", "BACKUP", None, {"name": "BACKUP", "mirror": {"name": "READ"}}, "m/s.yaml"),
        desired_of("Stream", "AGG", None, {"name": "AGG", "sources": [{"name": "READ"}]}, "m/s.yaml"),
    ]
    return out


def test_golden_migrations_per_retention_and_downstream_shape() -> None:
    plan = build_plan(
        _desired(), _state(), PlanOptions(migrate=True, server_version="2.15.1"), target="nats://127.0.0.1:4222"
    )
    _golden("plan_migrate.txt", render_text(plan))
    acts = {a.name: a for a in plan.actions if a.kind == "Stream"}
    assert {n: a.action for n, a in acts.items() if a.migration is not None} == {
        "LIM": "migrate",
        "INT": "migrate",
        "WQ": "migrate",
        "INTDROP": "blocked",
        "TOWQ": "blocked",
        "READ": "blocked",
        "FULL": "blocked",
    }
    assert "left are not declared" in (reason_of(acts["INTDROP"]) or "")
    assert "AGG (sources it), BACKUP (a mirror of it)" in (reason_of(acts["READ"]) or "")
    assert "max_msgs 50 < 100 messages" in (reason_of(acts["FULL"]) or "")
    assert "10101" in (reason_of(acts["TOWQ"]) or "")
    for name in ("INTDROP", "TOWQ", "READ", "FULL"):
        assert "migration without loss" not in (acts[name].consequence or "")
        assert not any("migrated instead" in (c.consequence or "") for c in acts[name].changes)


def test_golden_one_story_per_consumer() -> None:
    """Issue 35 item 12: the plan tells each consumer's migration on one line, where it is now and what
    happens to it (moved at its position, reset by --reset-position, new, deleted with the old stream),
    instead of a list of names and the deleted ones on another step's line."""
    live = LiveState(read_at=10_000.0)
    live.streams["ORDERS"] = live_stream(
        {**_stream("ORDERS", "limits"), "metadata": OWN}, messages=100, bytes=4000, first_seq=1, last_seq=100
    )
    for name, floor, pending in (("ship", 40, 60), ("audit", 10, 90), ("legacy", 5, 95), ("idle", 0, 100)):
        live.consumers[("ORDERS", name)] = live_consumer(
            "ORDERS",
            {"durable_name": name, "ack_policy": "explicit", "metadata": OWN},
            ack_floor=floor,
            pending=pending,
        )
    desired = [
        desired_of("Stream", "ORDERS_V2", None, _stream("ORDERS_V2", "limits"), "m/s.yaml", renamed_from="ORDERS")
    ]
    for name, extra in (("ship", {}), ("audit", {"deliver_policy": "new"}), ("idle", {}), ("billing", {})):
        spec = {"durable_name": name, "ack_policy": "explicit", **extra}
        desired.append(desired_of("Consumer", name, "ORDERS_V2", spec, "m/s.yaml"))
    plan = build_plan(
        desired,
        live,
        PlanOptions(migrate=True, keep_position=False, server_version="2.15.1"),
        target="nats://127.0.0.1:4222",
    )
    text = render_text(plan)
    _golden("plan_migrate_consumers.txt", text)
    said = [line.strip() for line in text.splitlines()]
    for name in ("ship", "audit", "legacy", "idle", "billing"):  # each consumer on one line, which names it first
        about = [line for line in said if f" {name} " in f" {line.replace('(', ' ')} "]
        assert len(about) == 1 and about[0].startswith(f"# consumer {name} ("), (name, about)
    assert "# consumer ship (on ORDERS after ack floor 40, 60 pending): re-created on ORDERS_V2 at its position" in text
    assert (
        "# consumer audit (on ORDERS after ack floor 10, 90 pending): re-created on ORDERS_V2 where its manifest says"
        in text
    )
    assert (
        "# consumer legacy (on ORDERS after ack floor 5, 95 pending): not declared on the new stream: deleted" in text
    )
    assert "# consumer idle (on ORDERS nothing acked, 100 pending): re-created on ORDERS_V2 at its position" in text
    assert "# consumer billing (not on ORDERS): created on ORDERS_V2 where its manifest says" in text
