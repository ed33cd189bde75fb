import pytest

from linter.semantics.units import UnitError, format_duration, format_size, parse_duration, parse_size

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
def test_parse_duration(text, ns):
    assert parse_duration(text) == ns


@pytest.mark.parametrize("bad", ["", "10", "1x", "s", "1h 30m", "abc", True, [1], {"a": 1}, 1.5, "9999999999999999999h"])
def test_parse_duration_rejects(bad):
    with pytest.raises(UnitError):
        parse_duration(bad)


def test_duration_no_unit_message_is_helpful():
    with pytest.raises(UnitError, match="has no unit"):
        parse_duration("30")


@pytest.mark.parametrize("ns", [0, 1, 999, 1_000, 250_000_000, S, 90 * S, 5400 * S, 86400 * S, 9 * 86400 * S, 7 * 86400 * S, 3601 * S, -30 * S])
def test_format_duration_round_trips(ns):
    assert parse_duration(format_duration(ns)) == ns


def test_format_duration_readable():
    assert format_duration(7 * 86400 * S) == "1w"
    assert format_duration(9 * 86400 * S) == "9d"
    assert format_duration(5400 * S) == "1h30m"
    assert format_duration(250_000_000) == "250ms"


@pytest.mark.parametrize(
    "text,n",
    [("10GiB", 10 << 30), ("10GB", 10 << 30), ("512mb", 512 << 20), ("1K", 1024), ("1TiB", 1 << 40), ("100", 100), ("100B", 100), (4096, 4096), (-1, -1), ("-1", -1)],
)
def test_parse_size(text, n):
    assert parse_size(text) == n


@pytest.mark.parametrize("bad", ["10XB", "ten", "1.5GB", True, None, "", "99999999999TiB"])
def test_parse_size_rejects(bad):
    with pytest.raises(UnitError):
        parse_size(bad)


def test_format_size():
    assert format_size(10 << 30) == "10GiB"
    assert format_size(1536) == "1536"
    assert format_size(-1) == "-1"
    assert parse_size(format_size(3 << 20)) == 3 << 20
