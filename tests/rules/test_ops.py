"""Operational rules JS401-JS410 (rules/ops_*.py): pass and fail cases on profiles with known
figures, annotations, the CLI with ``--profiles``, and the ack_wait ``--fix`` golden
(tests/golden/ops: ``ack_wait.yaml`` is fixed into ``ack_wait.fixed.yaml`` with
``ack_wait.profiles.json``; regenerate with JSOPS_UPDATE_GOLDEN=1 and review the diff).
"""

from __future__ import annotations

import json
import os
import shutil
from datetime import UTC
from pathlib import Path
from typing import Any

import pytest

from jsops.linter.cli.app import main
from jsops.linter.config import Config
from jsops.linter.engine import discover_rules, lint_estate
from jsops.linter.load import Estate, check_estate, load_text
from jsops.linter.model.profiles import Profiles
from jsops.rules.ops._common import readable_ceil, readable_floor

RULES = {r.code: r for r in discover_rules()}
OPS = [f"JS{n}" for n in range(401, 411)]
GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "ops"
UPDATE = os.environ.get("JSOPS_UPDATE_GOLDEN") == "1"
S = 1_000_000_000


def lint(
    text: str,
    code: str,
    profiles: dict[str, Any] | None = None,
    options: dict[str, Any] | None = None,
    files: dict[str, str] | None = None,
):
    """Findings of one rule on manifests given as text (one file, or several with ``files``)."""
    estate = Estate()
    for name, body in (files or {"m.yaml": text}).items():
        load_text(body.encode(), name, estate)
    check_estate(estate)
    assert estate.findings == [], estate.findings
    prof = (
        Profiles.model_validate({"version": 1, "generated_at": "2026-11-21T12:00:00Z", **profiles})
        if profiles is not None
        else None
    )
    cfg = Config(rules={code: options} if options else {})
    return lint_estate(estate, [RULES[code]], config=cfg, profiles=prof, read_source=None).findings


def stream(name: str = "ORDERS", spec: str = 'subjects: ["orders.>"]', annotations: str = "") -> str:
    meta = f"{{name: {name}" + (f", annotations: {{{annotations}}}" if annotations else "") + "}"
    return f"apiVersion: jsops/v1\nkind: Stream\nmetadata: {meta}\nspec: {{{spec}}}\n"


def consumer(name: str, spec: str, stream_name: str = "ORDERS", annotations: str = "") -> str:
    meta = f"{{name: {name}, stream: {stream_name}" + (f", annotations: {{{annotations}}}" if annotations else "") + "}"
    return f"---\napiVersion: jsops/v1\nkind: Consumer\nmetadata: {meta}\nspec: {{{spec}}}\n"


def ack_profile(p99: int, samples: int = 1000, redelivered: float | None = None, **extra: Any) -> dict[str, Any]:
    prof: dict[str, Any] = {
        "ack_time_ns": {
            "samples": samples,
            "p50": p99 // 4,
            "p90": p99 // 2,
            "p99": p99,
            "p999": p99 * 2,
            "max": p99 * 3,
        }
    }
    if redelivered is not None:
        prof["deliveries"] = {"first_try_ratio": 1 - redelivered, "redelivered_ratio": redelivered, "max": 5}
    prof.update(extra)
    return prof


# --- helpers ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "ns,up,down",
    [
        (8_200_000_000, 9 * S, 8 * S),
        (S // 2, S, 0),
        (60 * S, 60 * S, 60 * S),
        (61 * S, 70 * S, 60 * S),
        (83 * S, 90 * S, 80 * S),  # 1m30s / 1m20s
        (601 * S, 660 * S, 600 * S),
        (3601 * S, 3900 * S, 3600 * S),
    ],
)
def test_readable_rounding(ns, up, down):
    assert readable_ceil(ns) == up >= ns
    assert readable_floor(ns) == down <= ns


# --- JS401 ack_wait vs processing time ----------------------------------------------------------

FRAUD = stream() + consumer("fraud-check", "ack_wait: 5s, max_deliver: 3")


def test_js401_fires_below_twice_p99_with_safe_fix():
    found = lint(FRAUD, "JS401", {"consumers": {"ORDERS/fraud-check": ack_profile(4_100_000_000)}})
    assert len(found) == 1
    f = found[0]
    assert f.rule == "JS401" and f.severity.value == "warning"
    assert "ack_wait 5s is below 2 x the measured P99 ack time 4.1s (1000 samples) = 8.2s" in f.message
    assert "survivor" not in f.message
    assert f.fix.applicability == "safe"
    assert [(e.path, e.value) for e in f.fix.edits] == [(("spec", "ack_wait"), "9s")]
    lines = FRAUD.splitlines()
    line = next(i for i, text in enumerate(lines) if "ack_wait" in text)
    assert (f.line, f.column) == (line + 1, lines[line].index("5s") + 1)


@pytest.mark.parametrize("wait,fires", [("8s", True), ("8200ms", False), ("9s", False), ("1m", False)])
def test_js401_threshold(wait, fires):
    text = stream() + consumer("fraud-check", f"ack_wait: {wait}")
    assert bool(lint(text, "JS401", {"consumers": {"ORDERS/fraud-check": ack_profile(4_100_000_000)}})) is fires


def test_js401_default_ack_wait_counts():
    text = stream() + consumer("slow", "max_deliver: 3")  # server default ack_wait 30s
    assert lint(text, "JS401", {"consumers": {"ORDERS/slow": ack_profile(14 * S)}}) == []
    found = lint(text, "JS401", {"consumers": {"ORDERS/slow": ack_profile(16 * S)}})
    assert "ack_wait 30s is below" in found[0].message
    assert [(e.path, e.value) for e in found[0].fix.edits] == [(("spec", "ack_wait"), "32s")]


def test_js401_factor_and_min_samples_options():
    prof = {"consumers": {"ORDERS/fraud-check": ack_profile(3 * S)}}
    text = stream() + consumer("fraud-check", "ack_wait: 7s")
    assert lint(text, "JS401", prof) == []
    assert "3 x the measured" in lint(text, "JS401", prof, {"factor": 3})[0].message
    few = {"consumers": {"ORDERS/fraud-check": ack_profile(5 * S, samples=99)}}
    assert lint(text, "JS401", few) == []  # fewer samples than min_samples: no evidence
    assert len(lint(text, "JS401", few, {"min_samples": 50})) == 1


def test_js401_survivor_bias_is_said_when_redeliveries_are_high():
    biased = lint(FRAUD, "JS401", {"consumers": {"ORDERS/fraud-check": ack_profile(4_100_000_000, redelivered=0.18)}})
    assert "18% of deliveries were redeliveries, so this P99 is survivor-biased" in biased[0].message
    low = lint(FRAUD, "JS401", {"consumers": {"ORDERS/fraud-check": ack_profile(4_100_000_000, redelivered=0.04)}})
    assert "survivor" not in low[0].message


def test_js401_without_profile_uses_the_annotation_or_stays_silent():
    assert lint(FRAUD, "JS401") == []
    assert lint(FRAUD, "JS401", {"consumers": {}}) == []  # a profile that does not measure this consumer
    declared = stream() + consumer("fraud-check", "ack_wait: 5s", annotations="jsops.io/processing-time-p99: 4s")
    found = lint(declared, "JS401")
    assert "declared P99 processing time 4s (jsops.io/processing-time-p99) = 8s" in found[0].message
    assert found[0].fix.edits[0].value == "8s"
    # a measured P99 wins over the declaration
    assert lint(declared, "JS401", {"consumers": {"ORDERS/fraud-check": ack_profile(2 * S)}}) == []
    bad = stream() + consumer("fraud-check", "ack_wait: 5s", annotations="jsops.io/processing-time-p99: soon")
    found = lint(bad, "JS401")
    assert (
        len(found) == 1
        and "jsops.io/processing-time-p99 is not a duration: invalid duration 'soon'" in found[0].message
        and found[0].fix is None
    )


def test_js401_hostile_annotation_message_is_bounded():
    huge = "9" * 5000 + "x"
    found = lint(
        stream() + consumer("c", "ack_wait: 5s", annotations=f"jsops.io/processing-time-p99: '{huge}'"), "JS401"
    )
    assert len(found) == 1 and len(found[0].message) < 300


def test_js401_backoff_steps_are_checked_and_fixed():
    prof = {"consumers": {"ORDERS/w": ack_profile(17 * S)}}
    text = stream() + consumer("w", "ack_wait: 20s, max_deliver: 6, backoff: [20s, 30s, 2m]")
    f = lint(text, "JS401", prof)[0]
    assert "backoff[0] 20s (the effective ack_wait), backoff[1] 30s are below 2 x" in f.message
    assert sorted((e.path, e.value) for e in f.fix.edits) == [
        (("spec", "ack_wait"), "34s"),
        (("spec", "backoff", 0), "34s"),
        (("spec", "backoff", 1), "34s"),
    ]
    # only a later step is short: ack_wait is left alone
    later = stream() + consumer("w", "ack_wait: 40s, max_deliver: 6, backoff: [40s, 20s]")
    f = lint(later, "JS401", prof)[0]
    assert [(e.path, e.value) for e in f.fix.edits] == [(("spec", "backoff", 1), "34s")]
    ok = stream() + consumer("w", "max_deliver: 6, backoff: [40s, 1m]")
    assert lint(ok, "JS401", prof) == []


def test_js401_ack_none_and_nack_dialect():
    prof = {"consumers": {"ORDERS/fraud-check": ack_profile(4_100_000_000)}}
    assert lint(stream() + consumer("fraud-check", "ack_policy: none"), "JS401", prof) == []
    nack = (
        stream() + "---\napiVersion: jetstream.nats.io/v1beta2\nkind: Consumer\nmetadata: {name: fraud-check}\n"
        "spec: {streamName: ORDERS, durableName: fraud-check, ackPolicy: explicit, ackWait: 5s, maxDeliver: 3}\n"
    )
    f = lint(nack, "JS401", prof)[0]
    assert [(e.path, e.value) for e in f.fix.edits] == [(("spec", "ackWait"), "9s")]


# --- JS402 / JS403 / JS404 duplicate_window -----------------------------------------------------


def retry(p99: int, mx: int | None = None, ids: int = 8000) -> dict[str, Any]:
    return {
        "publish_retry": {
            "attempts": 1_210_000,
            "retried_ids": ids,
            "horizon_p99_ns": p99,
            "horizon_max_ns": mx or p99 * 2,
        }
    }


@pytest.mark.parametrize(
    "spec,horizon,fires",
    [
        ('subjects: ["o.>"], duplicate_window: 20s', 21 * S, True),
        ('subjects: ["o.>"], duplicate_window: 30s', 30 * S, False),
        ('subjects: ["o.>"]', 21 * S, False),  # default 2m
        ('subjects: ["o.>"]', 180 * S, True),
        ('subjects: ["o.>"], max_age: 1m', 61 * S, True),  # the default window is capped to max_age
    ],
)
def test_js402_measured_horizon(spec, horizon, fires):
    found = lint(stream(spec=spec), "JS402", {"streams": {"ORDERS": retry(horizon)}})
    assert bool(found) is fires
    if fires:
        assert "publish-retry horizon" in found[0].message and "8000 retried ids" in found[0].message


def test_js402_options_annotation_and_fix():
    text = stream(spec='subjects: ["o.>"], duplicate_window: 30s')
    assert lint(text, "JS402", {"streams": {"ORDERS": retry(20 * S, 50 * S)}}) == []
    assert len(lint(text, "JS402", {"streams": {"ORDERS": retry(20 * S, 50 * S)}}, {"use": "max"})) == 1
    assert lint(text, "JS402", {"streams": {"ORDERS": retry(60 * S, ids=0)}}) == []  # no retries measured
    assert lint(text, "JS402") == []
    declared = stream(
        spec='subjects: ["o.>"], duplicate_window: 30s', annotations="jsops.io/publish-retry-horizon: 65s"
    )
    f = lint(declared, "JS402")[0]
    assert "declared publish-retry horizon 1m5s" in f.message
    assert f.fix.applicability == "unsafe" and [(e.path, e.value) for e in f.fix.edits] == [
        (("spec", "duplicate_window"), "1m10s")
    ]
    capped = stream(
        spec='subjects: ["o.>"], duplicate_window: 30s, max_age: 1m', annotations="jsops.io/publish-retry-horizon: 65s"
    )
    f = lint(capped, "JS402")[0]
    assert f.fix.edits == () and "max_age 1m" in f.fix.description
    bad = stream(spec='subjects: ["o.>"]', annotations="jsops.io/publish-retry-horizon: -5s")
    assert "must be a positive duration, not '-5s'" in lint(bad, "JS402")[0].message
    mirror = stream(name="COPY", spec="mirror: {name: ORDERS}", annotations="jsops.io/publish-retry-horizon: 1h")
    assert lint(stream() + "---\n" + mirror, "JS402") == []


def ingest(peak: int) -> dict[str, Any]:
    return {"ingest": {"messages": 1_000_000, "mean_per_s": peak / 10, "peak_per_s": peak}}


def test_js403_memory_estimate_against_budget():
    prof = {"streams": {"CLICKS": ingest(2000)}}
    long = stream("CLICKS", 'subjects: ["c.>"], duplicate_window: 30m')
    f = lint(long, "JS403", prof)[0]
    # 2000/s x 1800 s = 3,600,000 ids x 150 B = 540,000,000 B
    assert "peak publish rate of 2000/s keeps up to 3,600,000 message ids" in f.message
    assert "about 515 MiB of server memory, above the 64 MiB budget" in f.message
    # the longest window that fits: 64 MiB / (2000 x 150 B) = 223.7 s, rounded down to 3m40s
    assert [(e.path, e.value) for e in f.fix.edits] == [(("spec", "duplicate_window"), "3m40s")]
    assert lint(stream("CLICKS", 'subjects: ["c.>"], duplicate_window: 2m'), "JS403", prof) == []  # 34 MiB
    r3 = lint(stream("CLICKS", 'subjects: ["c.>"], duplicate_window: 2m, num_replicas: 3'), "JS403", prof)[0]
    assert "x 3 replicas = 103 MiB" in r3.message  # 36,000,000 B x 3
    assert lint(long, "JS403", prof, {"budget": "1GiB"}) == []
    assert (
        len(lint(stream("CLICKS", 'subjects: ["c.>"], duplicate_window: 2m'), "JS403", prof, {"bytes_per_id": 300}))
        == 1
    )
    assert lint(long, "JS403") == [] and lint(long, "JS403", {"streams": {"CLICKS": {"ingest": {"messages": 5}}}}) == []


def test_js403_fix_never_undercuts_the_retry_horizon():
    prof = {"streams": {"CLICKS": {**ingest(2000), **retry(5 * 60 * S)}}}
    f = lint(stream("CLICKS", 'subjects: ["c.>"], duplicate_window: 30m'), "JS403", prof)[0]
    assert f.fix.edits == () and "budget" in f.fix.description


@pytest.mark.parametrize(
    "spec,annotations,options,fires",
    [
        ("duplicate_window: 6h", "", None, True),
        ("duplicate_window: 1h", "", None, False),
        ("duplicate_window: 61m", "", None, True),
        ("duplicate_window: 6h, max_age: 1h", "", None, False),  # a rejection: JS102
        ("duplicate_window: 6h, max_age: 30d", "jsops.io/publish-retry-horizon: 2h", None, False),
        ("duplicate_window: 6h", "jsops.io/publish-retry-horizon: 30m", None, True),
        ("duplicate_window: 6h", "", {"max_window": "12h"}, False),
    ],
)
def test_js404_long_windows(spec, annotations, options, fires):
    found = lint(stream(spec='subjects: ["o.>"], ' + spec, annotations=annotations), "JS404", None, options)
    assert bool(found) is fires
    if fires:
        assert found[0].fix.applicability == "unsafe" and found[0].fix.edits[0].value == "1h"


# --- JS405 / JS406 / JS407 max_deliver, dead letters, redelivery ------------------------------


def test_js405_unlimited_max_deliver():
    found = lint(stream() + consumer("printer", "ack_wait: 2m"), "JS405")
    assert len(found) == 1 and "max_deliver is not set (unlimited)" in found[0].message
    assert [(e.path, e.value) for e in found[0].fix.edits] == [(("spec", "max_deliver"), 5)]
    written = lint(stream() + consumer("printer", "max_deliver: -1"), "JS405")[0]
    assert "max_deliver -1 (unlimited)" in written.message and written.line == 9
    assert lint(stream() + consumer("printer", "max_deliver: 3"), "JS405") == []
    assert lint(stream() + consumer("printer", "ack_policy: none"), "JS405") == []
    assert lint(stream() + consumer("printer", "ack_policy: all"), "JS405") != []
    long = lint(stream() + consumer("printer", "backoff: [1s, 2s, 3s, 4s, 5s, 6s, 7s]"), "JS405")[0]
    assert long.fix.edits[0].value == 7
    wq = stream("JOBS", 'subjects: ["j.>"], retention: workqueue, discard: new, max_msgs: 100')
    assert lint(wq + consumer("w", "ack_wait: 1m", "JOBS"), "JS405")[0].fix.edits[0].value == 10
    assert (
        lint(stream() + consumer("printer", "ack_wait: 2m"), "JS405", None, {"suggested": 3})[0].fix.edits[0].value == 3
    )


DLQ = stream("DLQ", 'subjects: ["$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.>"], max_age: 30d')


@pytest.mark.parametrize(
    "extra,annotations,stream_annotations,fires",
    [
        ("", "", "", True),
        ("---\n" + DLQ, "", "", False),
        ("---\n" + stream("DLQ", 'subjects: ["$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.ORDERS.*"]'), "", "", False),
        (
            "---\n" + stream("DLQ", 'subjects: ["$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.ORDERS.fraud-check"]'),
            "",
            "",
            False,
        ),
        ("---\n" + stream("DLQ", 'subjects: ["$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.PAYMENTS.>"]'), "", "", True),
        ("---\n" + stream("DLQ", 'subjects: ["$JS.EVENT.>"]'), "", "", False),
        ("---\n" + stream("DLQ", 'subjects: ["$JS.EVENT.ADVISORY.CONSUMER.MSG_TERMINATED.>"]'), "", "", True),
        ("", "jsops.io/dead-letter: triage-service", "", False),
        ("", "", "jsops.io/dead-letter: triage-service", False),
        ("", "jsops.io/dead-letter: ' '", "", True),
    ],
)
def test_js406_dead_letter_path(extra, annotations, stream_annotations, fires):
    text = (
        stream(annotations=stream_annotations)
        + consumer("fraud-check", "max_deliver: 3", annotations=annotations)
        + extra
    )
    found = lint(text, "JS406")
    assert bool(found) is fires
    if fires:
        assert "$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.ORDERS.fraud-check" in found[0].message


def test_js406_sees_other_files_and_contexts():
    files = {"orders.yaml": stream() + consumer("fraud-check", "max_deliver: 3"), "dlq.yaml": DLQ}
    assert lint("", "JS406", files=files) == []
    other_context = DLQ.replace("metadata: {name: DLQ}", "metadata: {name: DLQ, context: prod}")
    assert len(lint("", "JS406", files={"orders.yaml": files["orders.yaml"], "dlq.yaml": other_context})) == 1
    assert lint(stream() + consumer("c", "ack_wait: 1m"), "JS406") == []  # unlimited: JS405's business
    assert lint(stream() + consumer("c", "ack_policy: none, max_deliver: 3"), "JS406") == []


def test_js407_high_redelivery():
    prof = {
        "consumers": {
            "ORDERS/fraud-check": ack_profile(
                4_800_000_000, redelivered=0.18, advisories={"max_deliver": 310, "nak": 12}
            )
        }
    }
    f = lint(FRAUD, "JS407", prof)[0]
    assert f.message.startswith("18% of deliveries in the profile were redeliveries, above 10%")
    assert "ack wait 5s against a P99 ack time of 4.8s, which is survivor-biased" in f.message
    assert "12 NAKs, 310 max-deliveries advisories" in f.message
    assert f.fix.edits == ()
    at = {"consumers": {"ORDERS/fraud-check": ack_profile(S, redelivered=0.10)}}
    assert lint(FRAUD, "JS407", at) == []  # not above the threshold
    assert lint(FRAUD, "JS407", prof, {"max_ratio": 0.2}) == []
    assert lint(FRAUD, "JS407") == []
    assert lint(FRAUD, "JS407", {"consumers": {"ORDERS/fraud-check": ack_profile(S)}}) == []  # no delivery mix measured


# --- JS408 / JS409 workqueue --------------------------------------------------------------------

WQ = stream("PAYMENTS", 'subjects: ["payments.>"], retention: workqueue, discard: new, max_msgs: 1000000')


@pytest.mark.parametrize(
    "stream_text,spec,options,expect",
    [
        (WQ, "ack_wait: 45s, max_deliver: 4", None, "max_deliver 4 is below 10"),
        (WQ, "ack_wait: 45s, max_deliver: 10", None, None),
        (WQ, "ack_wait: 10s, max_deliver: 10", None, "ack_wait 10s is below 30s"),
        (WQ, "max_deliver: 12, backoff: [10s, 1m]", None, "backoff[0] 10s is below 30s"),
        (WQ, "ack_wait: 10s, max_deliver: 3", None, "ack_wait 10s is below 30s and max_deliver 3 is below 10"),
        (WQ, "ack_wait: 1m", None, None),  # unlimited max_deliver: JS405
        (WQ, "ack_wait: 45s, max_deliver: 4", {"min_max_deliver": 4}, None),
        (WQ, "ack_wait: 45s, max_deliver: 10", {"min_ack_wait": "1m"}, "ack_wait 45s is below 1m"),
        (WQ.replace("discard: new", "discard: old"), "ack_wait: 5s, max_deliver: 2", None, None),
        (WQ.replace(", max_msgs: 1000000", ""), "ack_wait: 5s, max_deliver: 2", None, None),
        (WQ.replace("retention: workqueue", "retention: limits"), "ack_wait: 5s, max_deliver: 2", None, None),
    ],
)
def test_js408_workqueue_discard_new(stream_text, spec, options, expect):
    found = lint(stream_text + consumer("gw", spec, "PAYMENTS"), "JS408", None, options)
    assert [expect in f.message for f in found] == ([True] if expect else [])


def test_js408_across_files():
    files = {"payments.yaml": WQ, "consumers/gw.yaml": consumer("gw", "ack_wait: 45s, max_deliver: 4", "PAYMENTS")[4:]}
    found = lint("", "JS408", files=files)
    assert len(found) == 1 and found[0].file == "consumers/gw.yaml"


JOBS = stream("JOBS", 'subjects: ["jobs.eu", "jobs.us", "jobs.apac"], retention: workqueue')


@pytest.mark.parametrize(
    "consumers,uncovered",
    [
        (
            consumer("eu", "filter_subject: jobs.eu", "JOBS") + consumer("us", "filter_subject: jobs.us", "JOBS"),
            ["jobs.apac"],
        ),
        (
            consumer("eu", "filter_subject: jobs.eu", "JOBS")
            + consumer("rest", "filter_subjects: [jobs.us, jobs.apac]", "JOBS"),
            [],
        ),
        (consumer("all", "ack_wait: 1m", "JOBS"), []),  # unfiltered takes everything
        (consumer("wild", "filter_subject: 'jobs.*'", "JOBS"), []),
        (consumer("x", "filter_subject: other.x", "JOBS"), ["jobs.eu", "jobs.us", "jobs.apac"]),
        ("", []),  # no consumer in the estate: the applications may create them
    ],
)
def test_js409_uncovered_workqueue_subjects(consumers, uncovered):
    found = lint(JOBS + consumers, "JS409")
    assert [f.message.split("'")[1] for f in found] == uncovered
    for f in found:
        assert f.object.name == "JOBS" and f.fix.applicability == "unsafe"


def test_js409_partial_cover_and_other_files():
    partial = stream("JOBS", 'subjects: ["jobs.>"], retention: workqueue') + consumer(
        "eu", "filter_subject: jobs.eu", "JOBS"
    )
    assert lint(partial, "JS409") == []  # only subjects no filter touches are reported
    files = {
        "jobs.yaml": JOBS,
        "eu.yaml": consumer("eu", "filter_subject: jobs.eu", "JOBS")[4:],
        "us.yaml": consumer("us", "filter_subjects: [jobs.us]", "JOBS")[4:],
    }
    found = lint("", "JS409", files=files)
    assert len(found) == 1 and found[0].file == "jobs.yaml" and "'jobs.apac'" in found[0].message
    assert (
        lint(stream("JOBS", 'subjects: ["jobs.eu"]') + consumer("us", "filter_subject: jobs.us", "JOBS"), "JS409") == []
    )  # limits


# --- JS410 deliver policy ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "spec,expect",
    [
        ('deliver_policy: by_start_time, opt_start_time: "2100-01-01T00:00:00Z"', "like deliver_policy new"),
        ('deliver_policy: by_start_time, opt_start_time: "3000-01-01T00:00:00Z"', "year 2262"),
        ('deliver_policy: by_start_time, opt_start_time: "2020-01-01T00:00:00Z"', None),
        ("deliver_policy: new", None),
        ("deliver_policy: by_start_sequence, opt_start_seq: 5", None),
    ],
)
def test_js410_future_start_time(spec, expect):
    found = lint(stream() + consumer("replay", spec), "JS410")
    assert [expect in f.message for f in found] == ([True] if expect else [])


def test_js410_tolerance_option():
    from datetime import datetime, timedelta

    soon = (datetime.now(UTC) + timedelta(minutes=10)).strftime("%Y-%m-%dT%H:%M:%SZ")
    text = stream() + consumer("replay", f'deliver_policy: by_start_time, opt_start_time: "{soon}"')
    assert len(lint(text, "JS410")) == 1
    assert lint(text, "JS410", None, {"tolerance": "1h"}) == []


# --- CLI: --profiles, config, --fix golden ------------------------------------------------------


@pytest.fixture
def work(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    # only the rules of this file, so that other rules' findings on the sample do not matter
    (tmp_path / "ops.jsops.yaml").write_text("select: [" + ", ".join(OPS) + "]\n")
    return tmp_path


def test_cli_lint_with_profiles(work, capsys):
    shutil.copy(GOLDEN / "ack_wait.yaml", "orders.yaml")
    shutil.copy(GOLDEN / "ack_wait.profiles.json", "profiles.json")
    rc = main(["lint", "orders.yaml", "--config", "ops.jsops.yaml", "--format", "json"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0 and out["findings"] == []  # without a profile: silent, never a guess
    rc = main(
        [
            "lint",
            "orders.yaml",
            "--config",
            "ops.jsops.yaml",
            "--profiles",
            "profiles.json",
            "--format",
            "json",
            "--fail-on",
            "warning",
        ]
    )
    out = json.loads(capsys.readouterr().out)
    assert rc == 1
    got = [(f["rule"], f["object"]["name"], f["line"], (f["fix"] or {}).get("applicability")) for f in out["findings"]]
    assert got == [
        ("JS401", "fraud-check", 22, "safe"),
        ("JS407", "fraud-check", 22, "unsafe"),
        ("JS401", "projection", 36, "safe"),
    ]
    assert "survivor-biased" in out["findings"][0]["message"]
    assert out["summary"]["warning"] == 3


def test_cli_profiles_errors_exit_2(work, capsys):
    Path("orders.yaml").write_text(FRAUD)
    Path("bad.json").write_text(
        '{"version": 1, "generated_at": "2026-11-21T12:00:00Z", "consumers": {"ORDERS/x": {"ack_time_ns": {"samples": 0}}}}'
    )
    assert main(["lint", "orders.yaml", "--config", "ops.jsops.yaml", "--profiles", "bad.json"]) == 2
    assert "invalid profiles at consumers.ORDERS/x.ack_time_ns" in capsys.readouterr().err


def test_cli_options_from_config(work, capsys):
    Path("orders.yaml").write_text(FRAUD)
    Path("p.json").write_text(
        json.dumps(
            {
                "version": 1,
                "generated_at": "2026-11-21T12:00:00Z",
                "consumers": {"ORDERS/fraud-check": ack_profile(2 * S)},
            }
        )
    )
    Path("plain.yaml").write_text("select: [JS401]\n")
    assert main(["lint", "orders.yaml", "--config", "plain.yaml", "--profiles", "p.json", "--fail-on", "warning"]) == 0
    capsys.readouterr()
    Path("strict.yaml").write_text("select: [JS401]\nrules:\n  JS401: {factor: 3}\n")
    assert main(["lint", "orders.yaml", "--config", "strict.yaml", "--profiles", "p.json", "--fail-on", "warning"]) == 1
    assert "3 x the measured P99 ack time 2s" in capsys.readouterr().out
    Path("broken.yaml").write_text("rules:\n  JS401: {factor: -1}\n")
    assert main(["lint", "orders.yaml", "--config", "broken.yaml"]) == 2


def _golden(path: Path, text: str) -> None:
    if UPDATE:
        path.write_text(text)
    assert text == path.read_text(), (
        f"{path.name} differs; if intended, rerun with JSOPS_UPDATE_GOLDEN=1 and review the diff"
    )


def test_cli_fix_ack_wait_golden(work, capsys):
    shutil.copy(GOLDEN / "ack_wait.yaml", "orders.yaml")
    shutil.copy(GOLDEN / "ack_wait.profiles.json", "profiles.json")
    rc = main(["lint", "orders.yaml", "--config", "ops.jsops.yaml", "--profiles", "profiles.json", "--fix"])
    out, err = capsys.readouterr()
    assert rc == 0
    assert err == "jsops: fixed 2 findings in 1 file\n"
    assert "JS401" not in out and "JS407" in out  # redelivery has no automatic fix
    after = Path("orders.yaml").read_text()
    _golden(GOLDEN / "ack_wait.fixed.yaml", after)
    before = (GOLDEN / "ack_wait.yaml").read_text().splitlines(keepends=True)
    lines = after.splitlines(keepends=True)
    assert len(before) == len(lines)
    changed = [(b, a) for b, a in zip(before, lines) if a != b]
    assert [a.strip().split("#")[0].strip() for _, a in changed] == ["ack_wait: 9s", "ack_wait: 34s", "- 34s", "- 34s"]
    for b, a in changed:  # only the value changed: indentation and comments stay
        assert b.split(":")[0] == a.split(":")[0] or b.lstrip().startswith("- ")
        assert b.partition("#")[2] == a.partition("#")[2]
    # the fixed file lints clean for JS401 with the same profile
    assert (
        main(["lint", "orders.yaml", "--config", "ops.jsops.yaml", "--profiles", "profiles.json", "--format", "json"])
        == 0
    )
    assert [f["rule"] for f in json.loads(capsys.readouterr().out)["findings"]] == ["JS407"]


# --- nats-server behaviour the rules describe -----------------------------------------------------


@pytest.mark.integration
def test_server_future_start_time_starts_like_new():
    """JS410's claim: a future opt_start_time does not wait; the consumer starts after the last
    stored message and delivers what is published from then on."""
    import asyncio

    import nats
    from nats.js.api import ConsumerConfig, DeliverPolicy, StreamConfig
    from natsserver import NatsServer

    async def run(url: str) -> tuple[list[bytes], list[bytes]]:
        nc = await nats.connect(url)
        try:
            js = nc.jetstream()
            await js.add_stream(StreamConfig(name="S", subjects=["s.>"]))
            await js.publish("s.a", b"before")
            got = []
            for name, when in (("y2100", "2100-01-01T00:00:00Z"), ("y3000", "3000-01-01T00:00:00Z")):
                await js.add_consumer(
                    "S",
                    ConsumerConfig(durable_name=name, deliver_policy=DeliverPolicy.BY_START_TIME, opt_start_time=when),
                )
            await js.publish("s.a", b"after")
            for name in ("y2100", "y3000"):
                sub = await js.pull_subscribe_bind(name, "S")
                got.append([m.data for m in await sub.fetch(5, timeout=2)])
            return got[0], got[1]
        finally:
            await nc.close()

    server = NatsServer().start()
    try:
        y2100, y3000 = asyncio.run(run(server.url))
    finally:
        server.stop()
    assert y2100 == [b"after"]
    assert y3000 == [b"before", b"after"]


@pytest.mark.integration
def test_server_workqueue_keeps_exhausted_messages_and_refuses_publishes():
    """JS408's claim: on a workqueue stream a message that ran out of deliveries stays stored, and
    with discard new a full stream then refuses new publishes."""
    import asyncio

    import nats
    from nats.errors import TimeoutError as NatsTimeout
    from nats.js.api import AckPolicy, ConsumerConfig, DiscardPolicy, RetentionPolicy, StreamConfig
    from nats.js.errors import APIError
    from natsserver import NatsServer

    async def run(url: str) -> tuple[int, bool, int, int | None]:
        nc = await nats.connect(url)
        try:
            js = nc.jetstream()
            await js.add_stream(
                StreamConfig(
                    name="W",
                    subjects=["w.>"],
                    retention=RetentionPolicy.WORK_QUEUE,
                    discard=DiscardPolicy.NEW,
                    max_msgs=2,
                )
            )
            await js.add_consumer(
                "W", ConsumerConfig(durable_name="c", ack_policy=AckPolicy.EXPLICIT, ack_wait=0.3, max_deliver=1)
            )
            for body in (b"1", b"2"):
                await js.publish("w.a", body)
            sub = await js.pull_subscribe_bind("c", "W")
            fetched = len(await sub.fetch(2, timeout=2))  # never acked
            await asyncio.sleep(1)  # ack_wait passes: max_deliver 1 is reached
            try:
                await sub.fetch(1, timeout=1)
                redelivered = True
            except NatsTimeout:
                redelivered = False
            stored = (await js.stream_info("W")).state.messages
            code = None
            try:
                await js.publish("w.a", b"3")
            except APIError as exc:
                code = exc.err_code
            return fetched, redelivered, stored, code
        finally:
            await nc.close()

    server = NatsServer().start()
    try:
        fetched, redelivered, stored, code = asyncio.run(run(server.url))
    finally:
        server.stop()
    assert (fetched, redelivered, stored, code) == (2, False, 2, 10077)  # 10077: maximum messages exceeded
