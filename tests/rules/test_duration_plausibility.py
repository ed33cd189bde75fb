"""JS446 ops-duration-implausibly-small, and JS405/JS406 not chasing each other.

Cases are err-free: nats-server accepts every consumer here (checked on the real binary below,
which also shows that a bare integer is stored as nanoseconds); the rule fires on the fail cases
and is silent on the pass cases."""

from __future__ import annotations

import asyncio
import json

import pytest
from natsserver import NatsServer

from jsops.linter.engine import discover_rules, lint_estate
from jsops.linter.load import Estate, check_estate, load_text
from tests.rules.test_ops import consumer, lint, stream

# (id, consumer spec, fires, expected message part); the server accepts all of them
CASES = [
    ("bare-ack-wait", "ack_wait: 30", True, "ack_wait: 30 is 30ns: a bare number is nanoseconds (the API's unit)"),
    (
        "bare-backoff",
        "max_deliver: 3, backoff: [30000, 60000000000]",
        True,
        "did you mean 30000s or 30s (if 30000 was milliseconds)?",
    ),
    ("tiny-inactive", "inactive_threshold: 5ms", True, "inactive_threshold 5ms is implausibly small"),
    ("ack-wait-30s", "ack_wait: 30s", False, ""),
    ("ack-wait-ns-int", "ack_wait: 30000000000", False, ""),
    ("ack-wait-100ms", "ack_wait: 100ms", False, ""),
    ("no-durations", "max_deliver: 5", False, ""),
]


@pytest.mark.parametrize("case_id,spec,fires,part", CASES, ids=[c[0] for c in CASES])
def test_js446_cases(case_id: str, spec: str, fires: bool, part: str) -> None:
    found = lint(stream() + consumer("c", spec), "JS446")
    assert bool(found) is fires, found
    if fires:
        assert part in found[0].message


def test_js446_fix_writes_the_unit_and_points_at_the_value() -> None:
    f = lint(stream() + consumer("c", "ack_wait: 30"), "JS446")[0]
    assert f.fix.applicability == "unsafe" and [(e.path, e.value) for e in f.fix.edits] == [
        (("spec", "ack_wait"), "30s")
    ]
    assert f.line == 9 and "every message is redelivered" in f.message
    s = lint(stream(spec='subjects: ["orders.>"], max_age: 3600'), "JS446")[0]
    assert "max_age: 3600 is 3600ns" in s.message and "did you mean 3600s?" in s.message


def test_js446_nack_default_ack_wait() -> None:
    nack = (
        "apiVersion: jetstream.nats.io/v1beta2\nkind: Consumer\nmetadata: {name: c}\n"
        "spec: {streamName: ORDERS, durableName: c, ackPolicy: explicit, ackWait: 1ns, maxDeliver: 3}\n"
    )
    f = lint(stream() + "---\n" + nack, "JS446")[0]
    assert "ackWait 1ns is implausibly small (NACK's CRD default ackWait is 1ns)" in f.message
    assert "remove ackWait" in f.fix.description


def _all_findings(text: str) -> list[tuple[str, str]]:
    estate = Estate()
    load_text(text.encode(), "m.yaml", estate)
    check_estate(estate)
    return [(f.rule, f.severity.value) for f in lint_estate(estate, discover_rules(), read_source=None).findings]


def test_a_minimal_consumer_can_lint_clean() -> None:
    base = stream(spec='subjects: ["orders.>"], max_age: 7d, max_bytes: 1GiB')
    before = _all_findings(base + consumer("c", "ack_wait: 30s"))
    assert ("JS405", "warning") in before
    after = _all_findings(base + consumer("c", "ack_wait: 30s, max_deliver: 5"))  # as JS405 asks
    assert [f for f in after if f[1] != "info"] == [], after  # no new warning in its place
    assert ("JS406", "info") in after


@pytest.mark.integration
def test_server_accepts_the_cases_and_stores_bare_integers_as_nanoseconds() -> None:
    import nats

    server = NatsServer().start()

    async def go() -> list[dict]:
        nc = await nats.connect(server.url)
        try:
            msg = await nc.request(
                "$JS.API.STREAM.CREATE.ORDERS",
                json.dumps({"name": "ORDERS", "subjects": ["orders.>"]}).encode(),
                timeout=5,
            )
            assert "error" not in json.loads(msg.data)
            out = []
            for i, cfg in enumerate(
                [
                    {"ack_wait": 30},
                    {"ack_wait": 30_000_000_000},
                    {"inactive_threshold": 5_000_000},
                    {"max_deliver": 3, "backoff": [30000, 60_000_000_000]},
                ]
            ):
                body = {"stream_name": "ORDERS", "config": {"durable_name": f"c{i}", "ack_policy": "explicit", **cfg}}
                msg = await nc.request(f"$JS.API.CONSUMER.CREATE.ORDERS.c{i}", json.dumps(body).encode(), timeout=5)
                out.append(json.loads(msg.data))
            return out
        finally:
            await nc.close()

    try:
        answers = asyncio.run(go())
    finally:
        server.stop()
    assert all("error" not in a for a in answers), answers
    assert answers[0]["config"]["ack_wait"] == 30  # 30 ns: the server does not reinterpret it
    assert answers[3]["config"]["backoff"][0] == 30000


def test_js432_minimum_window_and_window_named() -> None:
    from jsops.linter.config import Config
    from jsops.linter.engine import lint_estate
    from jsops.linter.model.profiles import Profiles

    def run(window_s: float | None, options: dict | None = None) -> list:
        estate = Estate()
        load_text(stream(spec='subjects: ["orders.>"], max_age: 30d, max_bytes: 1GiB').encode(), "m.yaml", estate)
        check_estate(estate)
        doc = {
            "version": 1,
            "generated_at": "2026-11-21T12:00:00Z",
            "streams": {"ORDERS": {"bytes": {"mean_per_s": 7100.0}}},
        }
        if window_s is not None:
            doc["window"] = {
                "start": "2026-11-21T11:00:00Z",
                "end": f"2026-11-21T11:{int(window_s // 60):02d}:{int(window_s % 60):02d}Z",
            }
        rules = [r for r in discover_rules() if r.code == "JS432"]
        return lint_estate(
            estate,
            rules,
            config=Config(rules={"JS432": options} if options else {}),
            profiles=Profiles.model_validate(doc),
            read_source=None,
        ).findings

    # 70 s of traffic say little about 30 days: info, naming the window and the minimum (default 1h)
    (short,) = run(70)
    assert short.severity.value == "info"
    assert (
        "(over a 1m10s profile window, shorter than min_window 1h: an extrapolation, not a measurement)"
        in short.message
    )
    assert short.fix is not None and "profile at least 1h of traffic first" in short.fix.description
    (long,) = run(59 * 60 + 59, {"min_window": "30m"})
    assert long.severity.value == "warning" and "(over a 59m59s profile window)" in long.message
    (unknown,) = run(None)
    assert unknown.severity.value == "warning" and "profile window" not in unknown.message
    (configured,) = run(25, {"min_window": "10s"})
    assert configured.severity.value == "warning" and "(over a 25s profile window)" in configured.message
