"""Operational metadata (linter/semantics/monitor.py): natscli's monitor keys and jsops annotations."""

from __future__ import annotations

import pytest

from jsops.linter.semantics import monitor
from jsops.linter.semantics.units import DAY, SECOND


def test_keys_by_kind() -> None:
    assert monitor.monitor_keys("Stream") is monitor.MONITOR_STREAM_KEYS
    assert monitor.monitor_keys("Consumer") is monitor.MONITOR_CONSUMER_KEYS
    assert monitor.MONITOR_STREAM_KEYS["seen-critical"] == "duration"
    assert monitor.MONITOR_CONSUMER_KEYS["pinned"] == "bool"
    assert monitor.MONITOR_PREFIX == "io.nats.monitor."


@pytest.mark.parametrize(
    "kind,text,value",
    [
        ("bool", "T", True),
        ("bool", "FALSE", False),
        ("bool", "yes", None),
        ("bool", " true", None),
        ("int", "-7", -7),
        ("int", "+7", 7),
        ("int", "9223372036854775808", None),
        ("int", "1.0", None),
        ("uint", "18446744073709551615", (1 << 64) - 1),
        ("uint", "18446744073709551616", None),
        ("uint", "+1", None),
        ("duration", "1d", DAY),
        ("duration", "0", 0),
        ("duration", "30", None),
        ("duration", "1M", 30 * DAY),
    ],
)
def test_parse_value(kind: monitor.ValueKind, text: str, value: object) -> None:
    assert monitor.parse_value(kind, text) == value
    problem = monitor.monitor_value_problem(kind, text)
    assert (problem is None) is (value is not None)


def test_value_problem_says_what_is_expected() -> None:
    assert monitor.monitor_value_problem("uint", "-1") == "expected a whole number, 0 or more"
    assert monitor.monitor_value_problem("duration", "soon") == "expected a duration such as 30s, 5m or 1h"


def test_annotation_duration() -> None:
    notes = {monitor.PROCESSING_TIME: " 4s ", monitor.PUBLISH_RETRY_HORIZON: "0s", monitor.DEAD_LETTER: "later"}
    assert monitor.annotation_duration(notes, monitor.PROCESSING_TIME) == (4 * SECOND, None)
    assert monitor.annotation_duration(notes, "absent") == (None, None)
    _, problem = monitor.annotation_duration(notes, monitor.PUBLISH_RETRY_HORIZON)
    assert problem == "annotation jsops.io/publish-retry-horizon must be a positive duration, not '0s'"
    _, problem = monitor.annotation_duration(notes, monitor.DEAD_LETTER)
    assert problem is not None and problem.startswith(
        "annotation jsops.io/dead-letter is not a duration: invalid duration"
    )


# --- natscli parsers (Go strconv and jsm.go ParseDuration semantics) ------------------------------


@pytest.mark.parametrize(
    "text,ns",
    [
        ("0", 0),
        ("5m", 300 * SECOND),
        ("1h30m", 5400 * SECOND),
        ("1.5h", 5400 * SECOND),
        (".5s", SECOND // 2),
        ("250ms", 250_000_000),
        ("2d", 2 * 86400 * SECOND),
        ("1w", 7 * 86400 * SECOND),
        ("1W", 7 * 86400 * SECOND),
        ("1M", 30 * 86400 * SECOND),
        ("1y", 365 * 86400 * SECOND),
        ("1.5d", 36 * 3600 * SECOND),
        ("-5m", -300 * SECOND),
        ("  5m ", 300 * SECOND),
        ("5m-30s", 330 * SECOND),  # only the first sign counts
        ("1d 2h", 26 * 3600 * SECOND),  # text between parts is skipped
        ("0s", 0),
    ],
)
def test_parse_jsm_duration_value(text: str, ns: int) -> None:
    assert monitor.parse_value("duration", text) == ns


@pytest.mark.parametrize("text", ["", " ", "300", "5x", "5H", "5mo", "abc", "1..5h", ".h", "99999999999h", "5µs", " 0"])
def test_parse_jsm_duration_value_errors(text: str) -> None:
    assert monitor.parse_value("duration", text) is None


def test_go_strconv() -> None:
    assert monitor.parse_go_int("+7") == 7 and monitor.parse_go_int("-7") == -7
    assert (
        monitor.parse_go_int("9223372036854775807") is not None and monitor.parse_go_int("9223372036854775808") is None
    )
    assert (
        monitor.parse_go_int("") is None and monitor.parse_go_int(" 1") is None and monitor.parse_go_int("0x10") is None
    )
    assert (
        monitor.parse_go_uint("18446744073709551615") is not None
        and monitor.parse_go_uint("18446744073709551616") is None
    )
    assert monitor.parse_go_uint("+1") is None and monitor.parse_go_uint("-0") is None
    for t in ("1", "t", "T", "true", "TRUE", "True"):
        assert monitor.parse_go_bool(t) is True
    for t in ("0", "f", "F", "false", "FALSE", "False"):
        assert monitor.parse_go_bool(t) is False
    for t in ("yes", "tRUE", "", " true"):
        assert monitor.parse_go_bool(t) is None
    assert monitor.monitor_value_problem("duration", "300") == "expected a duration such as 30s, 5m or 1h"
    assert monitor.monitor_value_problem("uint", "1") is None


def test_monitor_metadata_by_suffix() -> None:
    meta = {"owner": "x", "io.nats.monitor.lag-critical": "10", "io.nats.monitor.enabled": "true"}
    assert monitor.monitor_metadata(meta) == {"lag-critical": "10", "enabled": "true"}
    assert list(monitor.monitor_metadata(meta)) == ["lag-critical", "enabled"]
    assert monitor.monitor_metadata(None) == {} and monitor.monitor_metadata({"a": "b"}) == {}
