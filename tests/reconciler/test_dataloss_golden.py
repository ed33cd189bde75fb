"""Golden plan output for the issue-12 safety lines: tightened limits (blocked and allowed),
a resumed interrupted recreate, a leftover recreate record, another estate's object, a consumer
of an interest stream (pure: a LiveState built by hand)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from jsops.reconciler.live import LiveState
from jsops.reconciler.plan import Desired, Plan, PlanOptions, PlanSet, build_plan
from jsops.reconciler.render_json import render_json
from jsops.reconciler.render_refusal import reason_of
from jsops.reconciler.render_text import render_text

from .records import desired_of, live_consumer, live_stream

GOLDEN = Path(__file__).parent / "golden"
OWN = {"io.jsops.managed-by": "jsops", "io.jsops.source": "m/s.yaml", "io.jsops.estate": "team-a"}
INTENT = '{"digest":"0000000000000000","seq":42}'


def _golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("UPDATE_GOLDEN"):
        path.write_text(text)
    assert text == path.read_text()


def _state() -> LiveState:
    live = LiveState(read_at=10_000.0)
    live.streams["LIMITED"] = live_stream(
        {"name": "LIMITED", "subjects": ["l.>"], "metadata": OWN},
        messages=100,
        bytes=4000,
        first_seq=1,
        last_seq=100,
        first_ts=1_000.0,
        last_ts=9_990.0,
        num_subjects=3,
    )
    live.limit_loss["LIMITED"] = {"max_msgs_per_subject": 30}
    live.streams["ORDERS"] = live_stream(
        {
            "name": "ORDERS",
            "subjects": ["o.>"],
            "metadata": {**OWN, "io.jsops.recreate.gone": INTENT, "io.jsops.recreate.back": INTENT},
        },
        messages=50,
        consumer_count=1,
    )
    live.consumers[("ORDERS", "back")] = live_consumer(
        "ORDERS", {"durable_name": "back", "ack_policy": "explicit", "metadata": OWN}
    )
    live.streams["THEIRS"] = live_stream(
        {"name": "THEIRS", "subjects": ["t.>"], "metadata": {**OWN, "io.jsops.estate": "team-b"}}
    )
    live.streams["EVENTS"] = live_stream(
        {"name": "EVENTS", "subjects": ["e.>"], "retention": "interest", "metadata": OWN}, messages=9, consumer_count=1
    )
    live.consumers[("EVENTS", "old")] = live_consumer(
        "EVENTS", {"durable_name": "old", "ack_policy": "explicit", "metadata": OWN}, pending=9
    )
    return live


def _desired() -> list[Desired]:
    return [
        desired_of(
            "Stream",
            "LIMITED",
            None,
            {
                "name": "LIMITED",
                "subjects": ["l.>"],
                "max_msgs": 40,
                "max_age": 3_600_000_000_000,
                "max_msgs_per_subject": 10,
            },
            "m/s.yaml",
        ),
        desired_of("Stream", "ORDERS", None, {"name": "ORDERS", "subjects": ["o.>"]}, "m/s.yaml"),
        desired_of("Stream", "THEIRS", None, {"name": "THEIRS", "subjects": ["t.>", "u.>"]}, "m/s.yaml"),
        desired_of(
            "Stream", "EVENTS", None, {"name": "EVENTS", "subjects": ["e.>"], "retention": "interest"}, "m/s.yaml"
        ),
        desired_of(
            "Consumer",
            "gone",
            "ORDERS",
            {"durable_name": "gone", "ack_policy": "explicit", "deliver_policy": "new"},
            "m/s.yaml",
        ),
        desired_of("Consumer", "back", "ORDERS", {"durable_name": "back", "ack_policy": "explicit"}, "m/s.yaml"),
    ]


def _opt(**kw: object) -> PlanOptions:
    return PlanOptions(prune=True, estates=True, estate="team-a", **kw)  # type: ignore[arg-type]


def test_golden_data_loss_plan():
    blocked = build_plan(_desired(), _state(), _opt(), target="nats://127.0.0.1:4222")
    allowed = build_plan(_desired(), _state(), _opt(allow_data_loss=True), target="nats://127.0.0.1:4222")
    _golden("plan_dataloss.txt", render_text(blocked) + "\n" + render_text(allowed))
    _golden("plan_dataloss.json", render_json(PlanSet([allowed])))
    acts = {a.label: a for a in blocked.actions}
    assert acts["Stream LIMITED"].action == "blocked" and acts["Stream LIMITED"].data_loss == 100
    assert acts["Consumer ORDERS/gone"].resume_seq == 42
    assert acts["Stream THEIRS"].action == "blocked" and "team-b" in (reason_of(acts["Stream THEIRS"]) or "")
    assert acts["Consumer EVENTS/old"].action == "blocked"
    assert allowed.summary()["data_loss"] == 109
    assert "data_loss" not in blocked.summary()
    again = Plan.from_json(json.loads(render_json(PlanSet([allowed]))))
    assert [(a.data_loss, a.resume_seq) for a in again.actions] == [
        (a.data_loss, a.resume_seq) for a in allowed.actions
    ]
