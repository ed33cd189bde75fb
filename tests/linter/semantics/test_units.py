import pytest

from jsops.linter.semantics.units import UnitError, format_duration, format_size, parse_duration, parse_size

S = 1_000_000_000


@pytest.mark.parametrize(
    "text,ns",
    [
        ("90s", 90 * S),
        ("2m", 120 * S),
        ("1h30m", 5400 * S),
        ("1.5h", 5400 * S),
        ("7d", 7 * 86400 * S),
        ("2w", 14 * 86400 * S),
        ("1w2d3h", (9 * 86400 + 3 * 3600) * S),
        ("250ms", 250_000_000),
        ("10us", 10_000),
        ("10µs", 10_000),
        ("5ns", 5),
        ("-1s", -S),
        ("0", 0),
        (".5s", S // 2),
        (3_600_000_000_000, 3600 * S),
        (0, 0),
    ],
)
def test_parse_duration(text: object, ns: int) -> None:
    assert parse_duration(text) == ns


@pytest.mark.parametrize(
    "bad", ["", "10", "1x", "s", "1h 30m", "abc", True, [1], {"a": 1}, 1.5, "9999999999999999999h"]
)
def test_parse_duration_rejects(bad: object) -> None:
    with pytest.raises(UnitError):
        parse_duration(bad)


def test_duration_no_unit_message_is_helpful() -> None:
    with pytest.raises(UnitError, match="has no unit"):
        parse_duration("30")


@pytest.mark.parametrize(
    "ns",
    [0, 1, 999, 1_000, 250_000_000, S, 90 * S, 5400 * S, 86400 * S, 9 * 86400 * S, 7 * 86400 * S, 3601 * S, -30 * S],
)
def test_format_duration_round_trips(ns: int) -> None:
    assert parse_duration(format_duration(ns)) == ns


def test_format_duration_readable() -> None:
    assert format_duration(7 * 86400 * S) == "1w"
    assert format_duration(9 * 86400 * S) == "9d"
    assert format_duration(5400 * S) == "1h30m"
    assert format_duration(250_000_000) == "250ms"


@pytest.mark.parametrize(
    "text,n",
    [
        ("10GiB", 10 << 30),
        ("10GB", 10 << 30),
        ("512mb", 512 << 20),
        ("1K", 1024),
        ("1TiB", 1 << 40),
        ("100", 100),
        ("100B", 100),
        (4096, 4096),
        (-1, -1),
        ("-1", -1),
    ],
)
def test_parse_size(text: object, n: int) -> None:
    assert parse_size(text) == n


@pytest.mark.parametrize("bad", ["10XB", "ten", "1.5GB", True, None, "", "99999999999TiB"])
def test_parse_size_rejects(bad: object) -> None:
    with pytest.raises(UnitError):
        parse_size(bad)


def test_format_size() -> None:
    assert format_size(10 << 30) == "10GiB"
    assert format_size(1536) == "1536"
    assert format_size(-1) == "-1"
    assert parse_size(format_size(3 << 20)) == 3 << 20


# --- the rest of jsops.linter.semantics.units: every function, both directions, each dialect ----------

from jsops.linter.semantics import units  # noqa: E402

MS = units.MILLISECOND
H = units.HOUR
D = units.DAY


def test_constants() -> None:
    assert (units.NANOSECOND, units.MICROSECOND, units.MILLISECOND, units.SECOND) == (1, 10**3, 10**6, 10**9)
    assert (units.MINUTE, units.HOUR, units.DAY, units.WEEK) == (60 * S, 3600 * S, 86400 * S, 7 * 86400 * S)
    assert (units.KIB, units.MIB, units.GIB, units.TIB) == (1 << 10, 1 << 20, 1 << 30, 1 << 40)
    assert issubclass(units.UnitError, ValueError)


def test_parse_duration_limits() -> None:
    assert parse_duration("-9223372036854775808ns") == -(1 << 63)
    assert parse_duration(units.INT64_MAX) == units.INT64_MAX
    for bad in (1 << 63, "9223372036854775808ns", "106752d", 2.5e19):
        with pytest.raises(UnitError, match="64-bit|fit"):
            parse_duration(bad)
    assert parse_duration(1.5e9) == 1_500_000_000  # a float that is a whole number of nanoseconds
    assert parse_duration("1.0000000001s") == S  # the fraction is truncated to whole nanoseconds


GO_STRINGS = [
    (0, "0s"),
    (1, "1ns"),
    (999, "999ns"),
    (1_000, "1µs"),
    (1_500, "1.5µs"),
    (MS, "1ms"),
    (1_500_000, "1.5ms"),
    (250 * MS, "250ms"),
    (S, "1s"),
    (1_500 * MS, "1.5s"),
    (90 * S, "1m30s"),
    (2 * H, "2h0m0s"),
    (H + S // 2, "1h0m0.5s"),
    (7 * D, "168h0m0s"),
    (-1_500 * MS, "-1.5s"),
    (-90 * S, "-1m30s"),
    (units.INT64_MAX, "2562047h47m16.854775807s"),
    (-(1 << 63), "-2562047h47m16.854775808s"),
]


@pytest.mark.parametrize("ns,text", GO_STRINGS)
def test_go_duration_is_go_string(ns: int, text: str) -> None:
    assert units.go_duration(ns) == text
    assert units.parse_go_duration(text) == ns


NACK_STRINGS = [
    (0, "0s"),
    (5, "5ns"),
    (1_500, "1.5us"),
    (1_500_000, "1.5ms"),
    (250 * MS, "250ms"),
    (1_500 * MS, "1.5s"),
    (90 * S, "1m30s"),
    (2 * H, "2h"),
    (36 * H, "36h"),
    (7 * D, "168h"),
    (H + S // 2, "1h0.5s"),
    (H + 30 * S, "1h30s"),
    (-2 * H, "-2h"),
    (-90_500 * MS, "-1m30.5s"),
]


@pytest.mark.parametrize("ns,text", NACK_STRINGS)
def test_nack_duration(ns: int, text: str) -> None:
    assert units.nack_duration(ns) == text
    assert units.parse_go_duration(text) == ns  # NACK reads it with Go's time.ParseDuration


@pytest.mark.parametrize(
    "text", ["", "1d", "1w", "10", "1h 30m", " 1s", "1s ", ".s", "s", "1x", "+", "-", "9223372036854775808ns"]
)
def test_parse_go_duration_rejects(text: str) -> None:
    with pytest.raises(UnitError):
        units.parse_go_duration(text)


@pytest.mark.parametrize(
    "text,ns",
    [
        ("0", 0),
        ("-0", 0),
        ("+5s", 5 * S),
        ("1.5h", 90 * units.MINUTE),
        ("10µs", 10_000),
        ("10μs", 10_000),
        (".5s", S // 2),
        ("1h1m1s1ms1us1ns", H + 61 * S + MS + 1001),
    ],
)
def test_parse_go_duration(text: str, ns: int) -> None:
    assert units.parse_go_duration(text) == ns


@pytest.mark.parametrize(
    "text,ns",
    [
        ("0", 0),
        ("30s", 30 * S),
        ("1d", D),
        ("2W", 14 * D),
        ("1M", 30 * D),
        ("1y", 365 * D),
        ("1.5d", 36 * H),
        ("-1h30m", -(90 * units.MINUTE)),
        ("1h, 30m", 90 * units.MINUTE),
        (" 5m ", 300 * S),
        ("250ms", 250 * MS),
    ],
)
def test_parse_jsm_duration(text: str, ns: int) -> None:
    assert units.parse_jsm_duration(text) == ns


@pytest.mark.parametrize("text", ["", " ", "30", "1x", "1..5s", "999999999999y", "3000000h", "-"])
def test_parse_jsm_duration_rejects(text: str) -> None:
    with pytest.raises(UnitError):
        units.parse_jsm_duration(text)


@pytest.mark.parametrize(
    "text,seconds",
    [
        ("30s", 30.0),
        ("1m30s", 90.0),
        ("200ms", 0.2),
        ("2.5", 2.5),
        ("0", 0.0),
        ("10", 10.0),
        ("1d", 86400.0),
        (" 5s ", 5.0),
        ("1us", 1e-6),
    ],
)
def test_parse_seconds(text: str, seconds: float) -> None:
    assert units.parse_seconds(text) == pytest.approx(seconds)


@pytest.mark.parametrize(
    "text,message",
    [
        ("soon", "not a duration"),
        ("", "not a duration"),
        ("inf", "not a duration"),
        ("-5s", "negative"),
        ("-1", "negative"),
    ],
)
def test_parse_seconds_rejects(text: str, message: str) -> None:
    with pytest.raises(UnitError, match=message):
        units.parse_seconds(text)


def test_format_duration_days_instead_of_weeks() -> None:
    assert format_duration(14 * D, weeks=False) == "14d"
    assert format_duration(-7 * D, weeks=False) == "-7d"
    assert format_duration(14 * D) == "2w" and format_duration(-7 * D) == "-1w"
    assert format_duration(7 * D + 3 * H) == "7d3h"
    assert format_duration(1_500 * MS) == "1500ms" and format_duration(1_500) == "1500ns"  # exact, no fractions


@pytest.mark.parametrize(
    "ns,dialect,out",
    [
        (7 * D, "native", "1w"),
        (1_500 * MS, "native", "1500ms"),
        (0, "native", "0s"),
        (7 * D, "nack/v1beta2", "168h"),
        (1_500 * MS, "nack/v1beta1", "1.5s"),
        (36 * H, "nack/v1beta2", "36h"),
        (7 * D, "api", 7 * D),
        (-1, "api", -1),
    ],
)
def test_dialect_duration(ns: int, dialect: str, out: str | int) -> None:
    assert units.dialect_duration(ns, dialect) == out


def test_readable_values_for_generated_manifests() -> None:
    assert [units.readable_duration(v) for v in (3 * D, 7 * D, 30 * S, 5400 * S, 250 * MS, 30, 0, -S)] == [
        "3d",
        "1w",
        "30s",
        "1h30m",
        "250ms",
        "30ns",
        0,
        -S,
    ]
    assert [units.readable_size(v) for v in (1 << 30, 64 << 10, 1000, 1536, -1, 0)] == [
        "1GiB",
        "64KiB",
        1000,
        1536,
        -1,
        0,
    ]


@pytest.mark.parametrize(
    "ns,text",
    [
        (0, "0s"),
        (-S, "-1s"),
        (7 * D, "1w"),
        (8_200 * MS, "8.2s"),
        (250 * MS, "250ms"),
        (125_000, "0.125ms"),
        (1, "0ms"),
        (1_234_567, "1.235ms"),
        (59_999 * MS, "60s"),
        (90_400 * MS, "1m30s"),
        (H + 700 * MS, "1h1s"),
        (12_345 * MS, "12.35s"),
    ],
)
def test_approx_duration(ns: int, text: str) -> None:
    assert units.approx_duration(ns) == text


@pytest.mark.parametrize(
    "ns,text",
    [
        (0, "0s"),
        (5, "5ns"),
        (1_500, "1.5µs"),
        (120 * MS, "120ms"),
        (4_100 * MS, "4.1s"),
        (95 * S, "95s"),
        (150 * S, "2.5m"),
        (30 * D, "30d"),
        (400 * D, "1.1y"),
        (-2 * S, "-2s"),
        (0.5, "0.5ns"),
    ],
)
def test_measured_duration(ns: float, text: str) -> None:
    assert units.measured_duration(ns) == text


def test_sizes_for_people() -> None:
    assert [units.approx_size(n) for n in (540_000_000, 5 << 30, 1 << 40, 1023, 0)] == [
        "515 MiB",
        "5.0 GiB",
        "1.0 TiB",
        "1023 B",
        "0 B",
    ]
    assert [units.human_size(n) for n in (7100, 1 << 20, 1023, 10.5, 0)] == ["6.9KiB", "1MiB", "1023B", "10.5B", "0B"]
    assert [units.measured_size(n) for n in (1.5 * (1 << 30), 980, 0, -2048)] == ["1.5 GiB", "980 B", "0 B", "-2 KiB"]
    assert [units.significant(x) for x in (0, 1234, 0.012345, 99.96, 100)] == [
        "0",
        "1234",
        "0.0123",
        "100",
        "100",
    ]  # never rounds whole digits away
    assert units.significant(99.96, 5) == "99.96"


def test_format_size_all_units_round_trip() -> None:
    for n in (1 << 10, 3 << 20, 5 << 30, 2 << 40, (1 << 40) + (1 << 30), 1, 1025):
        assert parse_size(format_size(n)) == n
    assert format_size(0) == "0" and format_size((1 << 40) + (1 << 30)) == "1025GiB"
    assert parse_size(" 10 kib ") == 10 << 10 and parse_size("2T") == 2 << 40
    assert parse_size(str(units.INT64_MAX)) == units.INT64_MAX
    with pytest.raises(UnitError):
        parse_size(1 << 63)
