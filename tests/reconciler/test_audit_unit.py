"""The live rules of ``jsops audit`` on recorded INFO shapes: each rule's pass and fail cases with its
code, the thresholds from options, the docs page, and the text output (golden)."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest

from jsops.linter import Severity
from jsops.linter.config import Config, ConfigError
from jsops.reconciler.audit.read import AuditState
from jsops.reconciler.audit.registry import LIVE_RULES, live_findings, select_live
from jsops.reconciler.live import LiveConsumer, LiveState, stream_from_info

GOLDEN = Path(__file__).parent / "golden" / "audit.txt"
DOCS = Path(__file__).parents[2] / "docs" / "audit.md"
NOW = "2026-01-10T12:00:00Z"
NOW_TS = 1768046400.0  # NOW as epoch seconds


def stream_info(
    name: str,
    *,
    messages: int = 0,
    nbytes: int = 0,
    created: str = "2026-01-10T11:00:00Z",
    last_ts: str = NOW,
    num_subjects: int = 0,
    cluster: dict[str, Any] | None = None,
    mirror: dict[str, Any] | None = None,
    consumers: int = 0,
    **cfg: Any,
) -> dict[str, Any]:
    info: dict[str, Any] = {
        "config": {
            "name": name,
            "subjects": [f"{name.lower()}.>"],
            "retention": "limits",
            "max_msgs": -1,
            "max_bytes": -1,
            "max_age": 3600_000_000_000,
            "discard": "old",
            "storage": "file",
            "num_replicas": 1,
            **cfg,
        },
        "created": created,
        "state": {
            "messages": messages,
            "bytes": nbytes,
            "first_seq": 1 if messages else 0,
            "last_seq": messages,
            "first_ts": created,
            "last_ts": last_ts,
            "num_subjects": num_subjects,
            "consumer_count": consumers,
        },
    }
    if cluster is not None:
        info["cluster"] = cluster
    if mirror is not None:
        info["mirror"] = mirror
    return info


def consumer_info(
    name: str,
    *,
    ephemeral: bool = False,
    ack_pending: int = 0,
    pending: int = 0,
    redelivered: int = 0,
    delivered: int = 0,
    last_active: str | None = NOW,
    created: str = "2026-01-10T11:00:00Z",
    **cfg: Any,
) -> dict[str, Any]:
    config = {"ack_policy": "explicit", "ack_wait": 30_000_000_000, "max_deliver": 5, "max_ack_pending": 1000, **cfg}
    config["name" if ephemeral else "durable_name"] = name
    return {
        "name": name,
        "created": created,
        "config": config,
        "num_ack_pending": ack_pending,
        "num_pending": pending,
        "num_redelivered": redelivered,
        "num_waiting": 0,
        "delivered": {
            "consumer_seq": delivered,
            "stream_seq": delivered,
            **({"last_active": last_active} if last_active else {}),
        },
        "ack_floor": {"consumer_seq": 0, "stream_seq": 0},
    }


def state_of(
    streams: list[dict[str, Any]],
    consumers: dict[str, list[dict[str, Any]]] | None = None,
    account: dict[str, Any] | None = None,
    missing: list[str] | None = None,
) -> AuditState:
    live = LiveState()
    st = AuditState(live, account=account or {}, server={"version": "2.15.1"}, read_at=NOW_TS, missing=missing or [])
    for info in streams:
        ls = stream_from_info(info)
        live.streams[ls.name] = ls
        st.streams[ls.name] = {k: info[k] for k in ("state", "cluster", "mirror", "sources", "created") if k in info}
    for stream, infos in (consumers or {}).items():
        for info in infos:
            c = LiveConsumer.from_json(stream, info["config"])
            live.consumers[(stream, c.name)] = c
            st.consumers[(stream, c.name)] = {k: v for k, v in info.items() if k != "config"}
    return st


def growing(before: int, now: int, seconds: float, **cfg: Any) -> AuditState:
    """A consumer S/c with ``now`` messages pending, against a baseline of ``before`` ``seconds`` earlier."""
    from jsops.reconciler.audit.snapshot import Snapshot

    st = state_of(
        [stream_info("S", consumers=1, messages=now, nbytes=now * 100, **cfg)], {"S": [consumer_info("c", pending=now)]}
    )
    st.baseline = Snapshot("nats://x", NOW_TS - seconds, consumers={("S", "c"): {"num_pending": before}})
    return st


def codes(state: AuditState, config: dict[str, Any] | None = None) -> set[tuple[str, str | None]]:
    return {(f.rule, f.file) for f in live_findings(state, select_live(config or {}))}


def _led_by(leader: str) -> dict[str, Any]:
    """A 3-node cluster part with ``leader`` leading and the other two as current replicas."""
    others = [n for n in ("n1", "n2", "n3") if n != leader]
    return {"leader": leader, "replicas": [{"name": n, "current": True, "active": 1, "lag": 0} for n in others]}


REPLICAS = {
    "leader": "n1",
    "replicas": [
        {"name": "n2", "current": True, "active": 100_000_000, "lag": 0},
        {"name": "n3", "current": True, "active": 100_000_000, "lag": 0},
    ],
}

# (code, failing state, passing state): every live rule fails on the first and passes on the second
CASES: list[tuple[str, AuditState, AuditState]] = [
    (
        "JS501",
        state_of([stream_info("S", messages=95, max_msgs=100)]),
        state_of([stream_info("S", messages=80, max_msgs=100)]),
    ),
    (
        "JS502",
        state_of([stream_info("S", messages=10, nbytes=950, max_bytes=1000)]),
        state_of([stream_info("S", messages=10, nbytes=500, max_bytes=1000)]),
    ),
    (
        "JS503",
        state_of([stream_info("S", messages=100, num_subjects=10, max_msgs_per_subject=10)]),
        state_of([stream_info("S", messages=50, num_subjects=10, max_msgs_per_subject=10)]),
    ),
    (
        "JS504",
        state_of([], account={"storage": 95, "memory": 0, "limits": {"max_storage": 100, "max_memory": -1}}),
        state_of([], account={"storage": 10, "memory": 0, "limits": {"max_storage": 100, "max_memory": -1}}),
    ),
    (
        "JS505",
        state_of([stream_info("S", consumers=1)], {"S": [consumer_info("c", ack_pending=10, max_ack_pending=10)]}),
        state_of([stream_info("S", consumers=1)], {"S": [consumer_info("c", ack_pending=5, max_ack_pending=10)]}),
    ),
    (
        "JS506",
        state_of([stream_info("S", consumers=1)], {"S": [consumer_info("c", pending=200_000)]}),
        state_of([stream_info("S", consumers=1)], {"S": [consumer_info("c", pending=10)]}),
    ),
    (
        "JS507",
        state_of([stream_info("S", consumers=1)], {"S": [consumer_info("c", redelivered=30, delivered=100)]}),
        state_of([stream_info("S", consumers=1)], {"S": [consumer_info("c", redelivered=3, delivered=100)]}),
    ),
    (
        "JS508",
        state_of(
            [stream_info("S", consumers=1)], {"S": [consumer_info("c", pending=5, last_active="2026-01-08T12:00:00Z")]}
        ),
        state_of(
            [stream_info("S", consumers=1)], {"S": [consumer_info("c", pending=0, last_active="2026-01-08T12:00:00Z")]}
        ),
    ),
    (
        "JS509",
        state_of(
            [stream_info("S", consumers=1)],
            {"S": [consumer_info("eph", ephemeral=True, last_active="2026-01-10T09:00:00Z")]},
        ),
        state_of(
            [stream_info("S", consumers=1)],
            {"S": [consumer_info("eph", ephemeral=True, last_active="2026-01-10T11:59:00Z")]},
        ),
    ),
    (
        "JS510",
        state_of(
            [
                stream_info(
                    "S",
                    num_replicas=3,
                    cluster={
                        "leader": "n1",
                        "replicas": [{"name": "n2", "current": False, "active": 100_000_000, "lag": 5000}],
                    },
                )
            ]
        ),
        state_of([stream_info("S", num_replicas=3, cluster=REPLICAS)]),
    ),
    (
        "JS511",
        state_of(
            [
                stream_info(
                    "S",
                    num_replicas=3,
                    cluster={
                        "leader": "n1",
                        "replicas": [{"name": "n2", "current": False, "offline": True, "active": 60_000_000_000}],
                    },
                )
            ]
        ),
        state_of([stream_info("S", num_replicas=3, cluster=REPLICAS)]),
    ),
    (
        "JS512",
        state_of([stream_info("S", num_replicas=3, cluster={"replicas": []})]),
        state_of([stream_info("S", num_replicas=3, cluster=REPLICAS)]),
    ),
    (
        "JS513",
        state_of([stream_info("M", mirror={"name": "S", "lag": 50_000, "active": 1_000_000_000})]),
        state_of([stream_info("M", mirror={"name": "S", "lag": 0, "active": 1_000_000_000})]),
    ),
    (
        "JS514",
        state_of(
            [
                stream_info(
                    "KV_cfg",
                    subjects=["$KV.cfg.>"],
                    messages=10,
                    nbytes=900,
                    max_bytes=1000,
                    discard="new",
                    max_msgs_per_subject=5,
                )
            ]
        ),
        state_of(
            [
                stream_info(
                    "KV_cfg",
                    subjects=["$KV.cfg.>"],
                    messages=10,
                    nbytes=100,
                    max_bytes=1000,
                    discard="new",
                    max_msgs_per_subject=5,
                )
            ]
        ),
    ),
    ("JS515", growing(1000, 5000, 60, max_msgs=100_000), growing(4900, 5000, 60, max_msgs=100_000)),
    (
        "JS516",
        state_of([stream_info(f"S{i}", num_replicas=3, cluster={**REPLICAS, "name": "C1"}) for i in range(6)]),
        state_of(
            [stream_info(f"S{i}", num_replicas=3, cluster={**_led_by(f"n{1 + i % 3}"), "name": "C1"}) for i in range(6)]
        ),
    ),
    (
        "JS540",
        state_of([stream_info("S", messages=5, metadata={"io.nats.monitor.msgs-warn": "10"})]),
        state_of([stream_info("S", messages=11, metadata={"io.nats.monitor.msgs-warn": "10"})]),
    ),
    (
        "JS541",
        state_of(
            [stream_info("S", consumers=1)],
            {"S": [consumer_info("c", pending=100, metadata={"io.nats.monitor.unprocessed-critical": "100"})]},
        ),
        state_of(
            [stream_info("S", consumers=1)],
            {"S": [consumer_info("c", pending=99, metadata={"io.nats.monitor.unprocessed-critical": "100"})]},
        ),
    ),
]


@pytest.mark.parametrize(
    ("state", "expected"),
    [
        (
            growing(0, 2000, 100, max_msgs=10_000),
            "grew from 0 to 2000 in 1m40s (20 messages/s more than it consumes); at this rate the backlog reaches the stream's max_msgs 10000 in ~6m40s",
        ),
        (
            growing(0, 2000, 100, max_bytes=1_000_000, discard="new"),
            "max_bytes 1000000 (at 100 bytes a message) in ~6m40s: the server then refuses new messages (discard: new)",
        ),
        (growing(0, 2000, 100, max_msgs=2000), "already reaches the stream's max_msgs 2000"),
        (growing(0, 2000, 100), "the stream has no max_msgs or max_bytes"),
        (growing(0, 2000, 5), None),  # min_interval 10s: too close to tell
        (growing(0, 2000, 3000), None),  # 0.67/s: under min_rate 1
        (growing(3000, 2000, 100), None),  # shrinking
    ],
)
def test_backlog_growth_rate_and_time_to_full(state: AuditState, expected: str | None) -> None:
    found = [f.message for f in live_findings(state, select_live({}), only={"JS515"})]
    assert found == [] if expected is None else (len(found) == 1 and expected in found[0]), found


def test_every_live_rule_has_a_case() -> None:
    select_live({})  # loads the rules
    assert {c for c, _f, _p in CASES} == set(LIVE_RULES)


@pytest.mark.parametrize("code,failing,passing", CASES, ids=[c for c, _f, _p in CASES])
def test_live_rule_fails_and_passes(code: str, failing: AuditState, passing: AuditState) -> None:
    assert code in {c for c, _ in codes(failing)}
    assert code not in {c for c, _ in codes(passing)}


def test_thresholds_come_from_the_options() -> None:
    st = state_of([stream_info("S", messages=85, max_msgs=100)])
    assert ("JS501", "nats://S") not in codes(st)
    assert ("JS501", "nats://S") in codes(st, {"JS501": {"warn_at": 0.8}})
    assert not codes(st, {"live-stream-near-max-msgs": {"warn_at": 0.8, "severity": "off"}})
    sev = {f.severity for f in live_findings(st, select_live({"JS501": {"warn_at": 0.8, "severity": "info"}}))}
    assert sev == {Severity.INFO}


@pytest.mark.parametrize(
    "settings,message",
    [
        ({"JS599": {}}, "audit.JS599: not a live rule"),
        ({"JS501": {"warn_at": 0}}, "audit.JS501.warn_at"),
        ({"JS501": {"warn": 0.5}}, "audit.JS501.warn: unknown option"),
        ({"JS508": {"inactive_for": "soon"}}, "audit.JS508.inactive_for"),
        ({"JS501": {"severity": "loud"}}, "audit.JS501.severity"),
    ],
)
def test_bad_settings_are_config_errors(settings: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(message)):
        select_live(settings)


def test_time_to_full_when_the_rate_is_known() -> None:
    # 3600 messages over the hour since creation: 1/s; 40 left to max_msgs 1000 (96%)
    st = state_of([stream_info("S", messages=960, max_msgs=1000)])
    st.live.streams["S"].last_seq = 3600
    (f,) = live_findings(st, select_live({}))
    assert "(1/s) it is full in ~40s" in f.message


def test_the_docs_list_every_live_rule_with_its_thresholds() -> None:
    select_live({})
    text = DOCS.read_text()
    for rule in LIVE_RULES.values():
        assert f"## {rule.code} {rule.name}" in text, rule.code
        section = text.split(f"## {rule.code} {rule.name}", 1)[1].split("\n## ", 1)[0]
        for option in rule.Options.model_fields:
            assert f"`{option}`" in section, (rule.code, option)
    for code in ("JS520", "JS521", "JS522", "JS530"):
        assert f"## {code} " in text


def test_text_output_golden() -> None:
    from jsops.linter import LintResult
    from jsops.linter.engine import discover_rules
    from jsops.reconciler.audit.registry import select_live as sel
    from jsops.reconciler.audit.render import render_audit_text
    from jsops.reconciler.audit.run import audit_result

    st = state_of(
        [
            stream_info("FULL", messages=96, nbytes=4000, max_msgs=100, duplicate_window=60_000_000_000),
            stream_info("WORK", consumers=2, duplicate_window=60_000_000_000),
            stream_info("CALM", consumers=1, max_msgs=10_000, duplicate_window=60_000_000_000),
        ],
        {
            "WORK": [
                consumer_info("stalled", ack_pending=5, pending=5, max_ack_pending=5, delivered=5),
                consumer_info(
                    "retrying", ack_pending=10, redelivered=10, delivered=20, ack_wait=1_000_000_000, max_deliver=20
                ),
            ],
            "CALM": [consumer_info("reader", delivered=3)],
        },
    )
    st.requests = 4
    result = audit_result(st, Config(), discover_rules(), sel({}))
    assert isinstance(result, LintResult)
    out = render_audit_text(result, [("nats://nats.example.com:4222", st)])
    if os.environ.get("JSOPS_UPDATE_GOLDEN") == "1":
        GOLDEN.write_text(out)
    assert out == GOLDEN.read_text(), (
        f"{GOLDEN} differs; if the change is intended, rerun with JSOPS_UPDATE_GOLDEN=1 and review the diff"
    )


def test_every_format_names_a_live_object_without_a_position() -> None:
    import json

    from jsops.linter import LintResult
    from jsops.linter.engine import discover_rules
    from jsops.linter.report import REPORTERS, RenderContext, render_result

    st = state_of([stream_info("FULL", messages=96, max_msgs=100)])
    result = LintResult(live_findings(st, select_live({})), 1, 1, ["nats://FULL"])
    ctx = RenderContext("0", discover_rules())
    out = {fmt: render_result(result, fmt, ctx) for fmt in REPORTERS}
    assert out["text"].startswith("nats://FULL: warning JS501 ")
    assert "::warning file=nats://FULL,title=JS501" in out["github"].replace("%3A", ":")
    (loc,) = json.loads(out["sarif"])["runs"][0]["results"][0]["locations"]
    assert loc["physicalLocation"] == {"artifactLocation": {"uri": "nats://FULL"}}  # no region: no line to point at
    assert "nats://FULL: warning JS501" in out["junit"]
    assert json.loads(out["json"])["findings"][0]["line"] == 0


@pytest.mark.parametrize(
    ("version", "says"),
    [
        ("2.16.0", "newer than the newest release jsops knows (2.15.1)"),
        ("3.0", "newer than the newest release jsops knows (2.15.1)"),
        ("2.9.25", "older than the oldest release jsops supports (2.10.26)"),
        ("soon", "not a release"),
    ],
)
def test_an_unknown_target_version_is_refused_naming_what_jsops_knows(
    version: str, says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # refused before any connection (the URL has no server): a release jsops cannot describe is not silently audited
    from jsops.reconciler.audit.cli import main

    rc = main(["-s", "nats://127.0.0.1:1", "--target-version", version])
    err = capsys.readouterr().err
    assert rc == 2 and f"argument --target-version: {version!r}: {says}" in err and "Traceback" not in err


@pytest.mark.parametrize("version", ["2.10.26", "2.12", "2.15.9", "v2.14.6"])
def test_a_release_of_a_known_line_is_known(version: str) -> None:
    from jsops.linter.semantics.releases import unknown_release

    assert unknown_release(version) is None


M = "io.nats.monitor."


@pytest.mark.parametrize(
    ("info", "expected"),
    [
        # subjects-warn > subjects-critical: floors (natscli inverts them)
        (
            stream_info("S", num_subjects=4, metadata={M + "subjects-warn": "5", M + "subjects-critical": "2"}),
            [("warning", "4 subjects, at or below subjects-warn 5")],
        ),
        (
            stream_info("S", num_subjects=2, metadata={M + "subjects-warn": "5", M + "subjects-critical": "2"}),
            [("error", "2 subjects, at or below subjects-critical 2")],
        ),
        (
            stream_info("S", num_subjects=9, metadata={M + "subjects-warn": "3", M + "subjects-critical": "8"}),
            [("error", "9 subjects, at or above subjects-critical 8")],
        ),
        (stream_info("S", num_subjects=6, metadata={M + "subjects-warn": "5", M + "subjects-critical": "2"}), []),
        # a replicated stream: its peers against peer-expect, its replicas' lag and silence
        (stream_info("S", num_replicas=3, cluster=REPLICAS, metadata={M + "peer-expect": "3"}), []),
        (
            stream_info("S", num_replicas=3, cluster=REPLICAS, metadata={M + "peer-expect": "5"}),
            [("error", "3 peers, peer-expect is 5")],
        ),
        (stream_info("S", metadata={M + "peer-expect": "3"}), [("error", "the stream is not clustered")]),
        (
            stream_info(
                "S",
                num_replicas=3,
                cluster=REPLICAS,
                metadata={M + "peer-expect": "3", M + "peer-seen-critical": "50ms"},
            ),
            [("error", "2 replicas not seen for more than")],
        ),
        # a mirror's lag
        (
            stream_info("S", mirror={"name": "O", "lag": 20, "active": 0}, metadata={M + "lag-critical": "10"}),
            [("error", "the mirror lags by 20 operations")],
        ),
        (stream_info("S", mirror={"name": "O", "lag": 2, "active": 0}, metadata={M + "lag-critical": "10"}), []),
    ],
)
def test_monitor_stream_thresholds_with_natscli_meaning(info: dict[str, Any], expected: list[tuple[str, str]]) -> None:
    found = [(f.severity.value, f.message) for f in live_findings(state_of([info]), select_live({}), only={"JS540"})]
    assert len(found) == len(expected), found
    for (sev, msg), (want_sev, want) in zip(found, expected, strict=True):
        assert sev == want_sev and msg.startswith(want), (sev, msg)


def test_monitor_consumer_pinned_and_last_delivery() -> None:
    meta = {M + "pinned": "true", M + "last-delivery-critical": "10m"}
    st = state_of(
        [stream_info("S", consumers=1)], {"S": [consumer_info("c", metadata=meta, last_active="2026-01-10T11:00:00Z")]}
    )
    found = sorted(f.message for f in live_findings(st, select_live({}), only={"JS541"}))
    assert len(found) == 2
    assert found[0].startswith("last delivery 1h ago, last-delivery-critical is 10m")
    assert found[1].startswith("pinned is set but the consumer is not in pinned-client priority mode")


@pytest.mark.parametrize(
    ("leaders", "skewed"),
    [
        (["n1"] * 6, "server 'n1' leads 6 of the 6 replicated streams of cluster 'C1' (3 servers, about 2 each"),
        (["n1"] * 4 + ["n2", "n3"], None),  # 4 of 6: twice its share, not more
        (["n1"] * 4, None),  # 4 of 4 over 3 servers: 2.7 over its share, under min_excess 3
        (["n1"] * 60 + ["n2"] * 20 + ["n3"] * 20, None),
        (["n1"] * 70 + ["n2"] * 15 + ["n3"] * 15, "leads 70 of the 100"),
    ],
)
def test_leader_skew_is_measured_against_the_fair_share(leaders: list[str], skewed: str | None) -> None:
    streams = [
        stream_info(f"S{i}", num_replicas=3, cluster={**_led_by(n), "name": "C1"}) for i, n in enumerate(leaders)
    ]
    found = [f.message for f in live_findings(state_of(streams), select_live({}), only={"JS516"})]
    assert found == [] if skewed is None else (len(found) == 1 and skewed in found[0]), found
