"""Predicted subject overlaps come from an index of the live and planned subjects (no scan of
every stream per put): the same refusals as comparing every pair, wildcards and odd subjects
included (issue 14, Speed)."""

from __future__ import annotations

import random

from jsops.linter import EffectiveStream, stream_from_api_json
from jsops.linter.semantics.subjects import subjects_collide
from jsops.reconciler.live import LiveState, LiveStream
from jsops.reconciler.plan import Intent, Plan, PlanItem, predict
from jsops.reconciler.vocabulary import ActionKind

OVERLAP = 10065


def _subject(rng: random.Random) -> str:
    tokens = [rng.choice(["a", "b", "c", "*"]) for _ in range(rng.randint(1, 4))]
    if rng.random() < 0.3:
        tokens[-1] = ">"
    if rng.random() < 0.1:  # not a valid subject: compared with everything, as the server would refuse it anyway
        tokens[rng.randrange(len(tokens))] = rng.choice(["", "*x", "d>", ">"])
    return ".".join(tokens)


def _stream(data: dict) -> EffectiveStream:
    return stream_from_api_json(data)[0]


def _subjects(a: PlanItem) -> list[str]:
    return list(a.config.subjects) if isinstance(a.config, EffectiveStream) else []


def _collides(mine: list[str], theirs: list[str]) -> bool:
    return any(subjects_collide(x, y) for x in mine for y in theirs)


def test_overlaps_predicted_from_the_index_are_those_of_every_pair() -> None:
    rng = random.Random(14)
    for _ in range(400):
        live = LiveState()
        for i in range(rng.randint(0, 12)):
            live.streams[f"L{i}"] = LiveStream.from_json(
                {"name": f"L{i}", "subjects": [_subject(rng) for _ in range(rng.randint(0, 3))]}
            )
        creates = [
            PlanItem(
                Intent(
                    ActionKind.CREATE,
                    "Stream",
                    f"N{i}",
                    None,
                    [],
                    None,
                    _stream({"name": f"N{i}", "subjects": [_subject(rng) for _ in range(rng.randint(1, 3))]}),
                )
            )
            for i in range(rng.randint(1, 12))
        ]
        found = predict(Plan("nats://x:1", "fp", list(creates)), live)
        for i, a in enumerate(creates):  # one level: every create runs beside the others
            mine = _subjects(a)
            others = [list(s.config.subjects) for s in live.streams.values()] + [
                _subjects(p) for p in creates if p is not a
            ]
            expected = any(_collides(mine, theirs) for theirs in others)
            assert (i in found and found[i].err_code == OVERLAP) == expected, (mine, others, found.get(i))


def test_the_first_overlapping_stream_is_named() -> None:
    live = LiveState()
    for name, subjects in [("A", ["x.1"]), ("B", ["orders.*"]), ("C", ["orders.>"]), ("D", ["y"])]:
        live.streams[name] = LiveStream.from_json({"name": name, "subjects": subjects})
    plan = Plan(
        "nats://x:1",
        "fp",
        [
            PlanItem(
                Intent(
                    ActionKind.CREATE, "Stream", "N", None, [], None, _stream({"name": "N", "subjects": ["orders.eu"]})
                )
            )
        ],
    )
    assert predict(plan, live)[0].reason == "subjects overlap with live stream B (orders.eu ~ orders.*)"
