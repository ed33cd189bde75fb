"""Every duration and size jsops reads or writes, in each dialect's spelling: the one home.

Reading:

* :func:`parse_duration` -- a manifest duration: Go ``time.ParseDuration`` text plus ``d`` (24h)
  and ``w`` (7d), or integer nanoseconds;
* :func:`parse_go_duration` -- exactly Go's ``time.ParseDuration`` (no ``d`` or ``w``): what NACK
  and every Go tool reads;
* :func:`parse_jsm_duration` -- natscli/jsm.go's ``ParseDuration`` (Go units plus ``d``, ``w``,
  ``M``, ``y``), how ``io.nats.monitor.*`` metadata values are read;
* :func:`parse_seconds` -- a command-line duration flag, in seconds;
* :func:`parse_size` -- an integer or ``10GiB`` (1024-based like natscli: ``KB`` == ``KiB``).

Writing, exact (each parses back to the same value):

* :func:`format_duration` -- jsops/natscli readable (``7d``, ``1w``, ``1h30m``, ``250ms``);
* :func:`go_duration` -- Go's ``time.Duration.String`` (``1.5s``, ``2h0m0s``, ``1.5µs``);
* :func:`nack_duration` -- what jsops writes into a NACK manifest (``1.5s``, ``36h``, ``1m30s``);
* :func:`dialect_duration` -- the spelling of a manifest dialect (native, NACK, NATS API JSON);
* :func:`readable_duration` / :func:`readable_size` -- a value for a generated native manifest;
* :func:`format_size` -- ``1GiB``, or the plain integer when not a whole unit.

Writing, rounded for people (messages and reports, never parsed back): :func:`approx_duration`,
:func:`measured_duration`, :func:`approx_size`, :func:`human_size`, :func:`measured_size`.

This module is the bottom layer of jsops: it imports nothing from the rest of jsops except the
dependency-free base exception :class:`jsops.linter.errors.LinterError`.
"""

from __future__ import annotations

import math
import re

from jsops.linter.errors import LinterError

__all__ = [
    "NANOSECOND",
    "MICROSECOND",
    "MILLISECOND",
    "SECOND",
    "MINUTE",
    "HOUR",
    "DAY",
    "WEEK",
    "KIB",
    "MIB",
    "GIB",
    "TIB",
    "INT64_MAX",
    "UnitError",
    "parse_duration",
    "parse_go_duration",
    "parse_jsm_duration",
    "parse_seconds",
    "parse_size",
    "format_duration",
    "go_duration",
    "nack_duration",
    "dialect_duration",
    "readable_duration",
    "readable_size",
    "approx_duration",
    "measured_duration",
    "format_size",
    "approx_size",
    "human_size",
    "measured_size",
    "significant",
]

NANOSECOND = 1
MICROSECOND = 1_000 * NANOSECOND
MILLISECOND = 1_000 * MICROSECOND
SECOND = 1_000 * MILLISECOND
MINUTE = 60 * SECOND
HOUR = 60 * MINUTE
DAY = 24 * HOUR
WEEK = 7 * DAY

KIB = 1 << 10
MIB = 1 << 20
GIB = 1 << 30
TIB = 1 << 40

INT64_MAX = (1 << 63) - 1
_INT64_MIN = -INT64_MAX - 1


class UnitError(LinterError, ValueError):
    """A duration or size that cannot be read."""


# --- reading durations --------------------------------------------------------------------------

_GO_UNITS: dict[str, int] = {
    "ns": NANOSECOND,
    "us": MICROSECOND,
    "µs": MICROSECOND,  # U+00B5 micro sign
    "μs": MICROSECOND,  # U+03BC greek mu
    "ms": MILLISECOND,
    "s": SECOND,
    "m": MINUTE,
    "h": HOUR,
}
_MANIFEST_UNITS: dict[str, int] = {**_GO_UNITS, "d": DAY, "w": WEEK}
_MANIFEST_PART = re.compile(r"([0-9]*(?:\.[0-9]*)?)(ns|us|µs|μs|ms|s|m|h|d|w)")
_GO_PART = re.compile(r"([0-9]*(?:\.[0-9]*)?)(ns|us|µs|μs|ms|s|m|h)")
_GO_NUMBER = re.compile(r"(?:[0-9]+\.?[0-9]*|\.[0-9]+)\Z")


def _part(number: str, scale: int) -> int:
    """``number`` (digits with an optional fraction, validated by the caller) times ``scale``; the
    fraction is truncated to whole nanoseconds."""
    whole, _, frac = number.partition(".")
    total = int(whole or "0") * scale
    if frac:
        total += int(frac) * scale // (10 ** len(frac))
    return total


def _sum_parts(text: str, rest: str, pattern: re.Pattern[str], units: dict[str, int], hint: str) -> int:
    """The sum of ``rest``'s ``<number><unit>`` runs (no sign), or UnitError naming ``text``."""
    total = 0
    pos = 0
    while pos < len(rest):
        m = pattern.match(rest, pos)
        if m is None or m.group(1) in ("", "."):
            raise UnitError(f"invalid duration {_short(text)!r}; {hint}")
        total += _part(m.group(1), units[m.group(2)])
        if total > INT64_MAX + 1:
            raise UnitError(f"duration {_short(text)!r} overflows 64-bit nanoseconds")
        pos = m.end()
    return total


def _signed(text: str) -> tuple[int, str]:
    if text[:1] in ("+", "-"):
        return (-1 if text[0] == "-" else 1), text[1:]
    return 1, text


def _fit(total: int, text: str) -> int:
    if not _INT64_MIN <= total <= INT64_MAX:
        raise UnitError(f"duration {_short(text)!r} overflows 64-bit nanoseconds")
    return total


def parse_duration(value: object) -> int:
    """Return nanoseconds for a Go duration string (plus ``d`` and ``w``) or an integer."""
    if isinstance(value, (bool, int, float)):
        return _nanoseconds(value)
    if not isinstance(value, str):
        raise UnitError(f"expected a duration like '90s' or integer nanoseconds, got {_kind(value)}")
    text = value.strip()
    if not text:
        raise UnitError("empty duration")
    sign, rest = _signed(text)
    if not rest:  # a sign alone is no duration (Go's time.ParseDuration refuses it too)
        raise UnitError(f"duration {_short(text)!r} has no number; use Go syntax like '90s'")
    if rest == "0":
        return 0
    if rest.isdigit():
        raise UnitError(
            f"duration {_short(text)!r} has no unit; write '{rest}s' for seconds or an unquoted integer for nanoseconds"
        )
    hint = "use Go syntax like '90s', '1h30m', '7d' (units ns, us, ms, s, m, h, d, w)"
    return _fit(sign * _sum_parts(text, rest, _MANIFEST_PART, _MANIFEST_UNITS, hint), text)


def _nanoseconds(value: bool | int | float) -> int:
    """A duration written as a number: whole nanoseconds that fit in 64 bits."""
    if isinstance(value, bool):
        raise UnitError("expected a duration like '90s' or integer nanoseconds, got a boolean")
    if isinstance(value, float):
        if not value.is_integer():
            raise UnitError(
                f"duration {value!r} is not a whole number of nanoseconds; write it with a unit, like '1.5s'"
            )
        value = int(value)
    if not _INT64_MIN <= value <= INT64_MAX:
        raise UnitError("duration does not fit in 64-bit nanoseconds")
    return value


def parse_go_duration(text: str) -> int:
    """Nanoseconds as Go's ``time.ParseDuration`` reads ``text`` (no trimming, no ``d`` or ``w``):
    an optional sign, then ``0`` or one or more ``<number><unit>`` runs of ns, us, µs, ms, s, m, h."""
    sign, rest = _signed(text)
    if rest == "0":
        return 0
    if not rest:
        raise UnitError(f"invalid duration {_short(text)!r}")
    hint = "Go's time.ParseDuration reads units ns, us, ms, s, m, h (no d or w)"
    return _fit(sign * _sum_parts(text, rest, _GO_PART, _GO_UNITS, hint), text)


# jsm.go finds every "<sign?><digits and dots><letters>" run in the trimmed text (text between runs
# is not looked at) and adds the runs up; only the first run's sign counts.
_JSM_RUN = re.compile(r"([-+]?)(([0-9.]+)([a-zA-Z]+))")
_JSM_GO_UNITS = {u: _GO_UNITS[u] for u in ("ns", "us", "ms", "s", "m", "h")}
_JSM_LONG_UNITS = {
    "w": WEEK,
    "W": WEEK,
    "d": DAY,
    "D": DAY,
    "M": 30 * DAY,
    "y": 365 * DAY,
    "Y": 365 * DAY,
}


def _jsm_run(number: str, unit: str, text: str) -> int:
    if not _GO_NUMBER.match(number) or (unit not in _JSM_LONG_UNITS and unit not in _JSM_GO_UNITS):
        raise UnitError(f"invalid duration {_short(text)!r}")
    if unit in _JSM_LONG_UNITS:
        ns = float(number) * _JSM_LONG_UNITS[unit]  # jsm.go computes these in floating point
        if ns >= INT64_MAX:
            raise UnitError(f"duration {_short(text)!r} overflows 64-bit nanoseconds")
        return int(ns)
    value = _part(number, _JSM_GO_UNITS[unit])
    if value > INT64_MAX:
        raise UnitError(f"duration {_short(text)!r} overflows 64-bit nanoseconds")
    return value


def parse_jsm_duration(text: str) -> int:
    """Nanoseconds as jsm.go's ``ParseDuration`` reads a value (natscli's monitor metadata):
    ``"0"`` is zero; otherwise every number needs a unit: Go's ``ns``, ``us``, ``ms``, ``s``,
    ``m``, ``h``, plus ``d``/``D``, ``w``/``W``, ``M`` (30 days), ``y``/``Y`` (365 days)."""
    if text == "0":
        return 0
    body = text.strip()
    runs = list(_JSM_RUN.finditer(body))
    if not runs:
        raise UnitError(f"invalid duration {_short(text)!r}")
    total = 0
    for run in runs:
        total += _jsm_run(run.group(3), run.group(4), text)
        if total > INT64_MAX:
            raise UnitError(f"duration {_short(text)!r} overflows 64-bit nanoseconds")
    return -total if runs[0].group(1) == "-" else total


_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)\Z")


def parse_seconds(text: str) -> float:
    """A command-line duration flag in seconds: a manifest duration (``30s``, ``1m30s``,
    ``500ms``, ``1d``) or a plain number of seconds (``2.5``). Negative values are refused."""
    body = text.strip()
    if _DECIMAL.match(body):
        seconds = float(body)
    else:
        try:
            seconds = parse_duration(body) / SECOND
        except UnitError:
            raise UnitError(f"not a duration: {_short(text)!r} (use e.g. 30s, 1m, 500ms)") from None
    if seconds < 0:
        raise UnitError(f"duration {_short(text)!r} must not be negative")
    return seconds


# --- writing durations --------------------------------------------------------------------------


def format_duration(ns: int, *, weeks: bool = True) -> str:
    """A short readable Go-style duration (``7d``, ``1h30m``, ``250ms``) that parses back to ``ns``.

    Whole weeks read ``1w`` (``weeks=False``: ``7d``); weeks never mix with days (``9d``)."""
    if ns == 0:
        return "0s"
    sign = "-" if ns < 0 else ""
    n = abs(ns)
    if n % SECOND == 0:
        days, secs = divmod(n // SECOND, 86400)
        parts = [f"{days}d"] if days else []
        if weeks and days and days % 7 == 0 and not secs:
            parts = [f"{days // 7}w"]
        for unit, size in (("h", 3600), ("m", 60), ("s", 1)):
            if secs >= size:
                q, secs = divmod(secs, size)
                parts.append(f"{q}{unit}")
        return sign + "".join(parts)
    for unit, size in (("ms", MILLISECOND), ("us", MICROSECOND)):
        if n % size == 0:
            return f"{sign}{n // size}{unit}"
    return f"{sign}{n}ns"


def _fraction(value: int, digits: int) -> str:
    """``value`` / 10**digits as a decimal without trailing zeros (``1500``, 3 -> ``1.5``)."""
    whole, frac = divmod(value, 10**digits)
    text = f"{frac:0{digits}d}".rstrip("0")
    return f"{whole}.{text}" if text else str(whole)


def _go_text(ns: int, micro: str, zeros: bool) -> str:
    if ns == 0:
        return "0s"
    sign = "-" if ns < 0 else ""
    n = abs(ns)
    if n < SECOND:
        if n < MICROSECOND:
            return f"{sign}{n}ns"
        if n < MILLISECOND:
            return f"{sign}{_fraction(n, 3)}{micro}"
        return f"{sign}{_fraction(n, 6)}ms"
    hours, rest = divmod(n, HOUR)
    minutes, rest = divmod(rest, MINUTE)
    out = f"{hours}h" if hours else ""
    if minutes or (zeros and hours):
        out += f"{minutes}m"
    if rest or zeros:
        out += f"{_fraction(rest, 9)}s"
    return sign + out


def go_duration(ns: int) -> str:
    """Go's ``time.Duration.String``: ``1.5s``, ``1m30s``, ``2h0m0s``, ``1.5ms``, ``1.5µs``, ``0s``.
    What a Go program (and NACK, through ``metav1.Duration``) prints for a duration."""
    return _go_text(ns, "µs", zeros=True)


def nack_duration(ns: int) -> str:
    """A duration as jsops writes it into a NACK manifest: Go's ``time.Duration.String`` spelling
    (what NACK reads with ``time.ParseDuration`` and prints) without its zero components and with
    an ASCII ``us``: ``1.5s``, ``36h``, ``1h30m``, ``250ms``, ``1.5us``."""
    return _go_text(ns, "us", zeros=False)


def dialect_duration(ns: int, dialect: str) -> str | int:
    """A duration as a manifest dialect writes it: ``7d`` natively (``"native"``), Go's spelling in
    NACK (``"nack/..."``: Go's parser has no days), integer nanoseconds in NATS API JSON."""
    if dialect == "native":
        return format_duration(ns)
    if dialect.startswith("nack"):
        return nack_duration(ns)
    return ns


def readable_duration(ns: int) -> str | int:
    """A duration for a native manifest jsops generates (``30s``, ``3d``, ``1w``, ``1h30m``,
    ``250ms``), exact; 0 and negative values stay numbers."""
    return format_duration(ns) if ns > 0 else ns


def approx_duration(ns: int) -> str:
    """A duration for messages, rounded for reading: ``8.2s``, ``250ms``, ``0.125ms``, ``1m30s``,
    ``7d`` (sub-second to 3 decimals of ms, under a minute to 2 decimals of s, else whole seconds)."""
    if ns % SECOND == 0 or ns <= 0:
        return format_duration(ns)
    if ns < SECOND:
        return f"{ns / MILLISECOND:.3f}".rstrip("0").rstrip(".") + "ms"
    if ns < MINUTE:
        return f"{ns / SECOND:.2f}".rstrip("0").rstrip(".") + "s"
    return format_duration(round(ns / SECOND) * SECOND)


_MEASURED_UNITS = (
    (365 * DAY, "y"),
    (DAY, "d"),
    (HOUR, "h"),
    (MINUTE, "m"),
    (SECOND, "s"),
    (MILLISECOND, "ms"),
    (MICROSECOND, "µs"),
)


def measured_duration(ns: float) -> str:
    """A measured duration, three significant digits: ``120ms``, ``4.1s``, ``95s``, ``2.5m``, ``30d``."""
    for size, unit in _MEASURED_UNITS:
        if abs(ns) >= (2 * size if unit == "m" else size):  # 95s reads better than 1.58m
            return f"{significant(ns / size)}{unit}"
    return f"{significant(ns)}ns" if ns else "0s"


# --- sizes --------------------------------------------------------------------------------------

_SIZE_UNITS: dict[str, int] = {
    "": 1,
    "B": 1,
    **{f"{p}{s}": size for p, size in (("K", KIB), ("M", MIB), ("G", GIB), ("T", TIB)) for s in ("", "B", "IB")},
}
_SIZE_RE = re.compile(r"^\s*(-?[0-9]+)\s*([A-Za-z]*)\s*$")
_BINARY = (("TiB", TIB), ("GiB", GIB), ("MiB", MIB), ("KiB", KIB))


def parse_size(value: object) -> int:
    """Return bytes for an integer or a string such as ``512MiB`` or ``10GB`` (1024-based)."""
    if isinstance(value, bool):
        raise UnitError("expected a size like '10GiB' or an integer number of bytes, got a boolean")
    if isinstance(value, int):
        if not _INT64_MIN <= value <= INT64_MAX:
            raise UnitError("size does not fit in 64 bits")
        return value
    if isinstance(value, float):
        if value.is_integer():
            return parse_size(int(value))
        raise UnitError(f"size {value!r} is not a whole number of bytes")
    if not isinstance(value, str):
        raise UnitError(f"expected a size like '10GiB' or an integer, got {_kind(value)}")
    m = _SIZE_RE.match(value)
    if m is None or m.group(2).upper() not in _SIZE_UNITS:
        raise UnitError(
            f"invalid size {_short(value)!r}; use an integer or a unit B, KB, KiB, MB, MiB, GB, GiB, TB, TiB"
        )
    result = int(m.group(1)) * _SIZE_UNITS[m.group(2).upper()]
    if not _INT64_MIN <= result <= INT64_MAX:
        raise UnitError(f"size {_short(value)!r} does not fit in 64 bits")
    return result


def format_size(n: int) -> str:
    """``1073741824`` -> ``1GiB``; values that are not whole units stay plain integers."""
    if n <= 0:
        return str(n)
    for unit, size in _BINARY:
        if n % size == 0:
            return f"{n // size}{unit}"
    return str(n)


def readable_size(n: int) -> str | int:
    """A size for a native manifest jsops generates: ``1GiB``, ``64KiB`` when it is an exact
    binary multiple of at least 1 KiB, else the number itself."""
    return format_size(n) if n >= KIB and n % KIB == 0 else n


def approx_size(n: int) -> str:
    """``540000000`` -> ``515 MiB``: an estimate rounded for reading (one decimal below 10)."""
    for unit, size in _BINARY:
        if n >= size:
            value = n / size
            return f"{value:.1f} {unit}" if value < 10 else f"{value:.0f} {unit}"
    return f"{n} B"


def human_size(n: float) -> str:
    """``7100`` -> ``6.9KiB``: 1024-based, at most one decimal, no space (for messages)."""
    for unit, size in _BINARY:
        if n >= size:
            text = f"{n / size:.1f}".rstrip("0").rstrip(".")
            return f"{text}{unit}"
    return f"{n:.0f}B" if n == int(n) else f"{n:.1f}B"


def measured_size(n: float) -> str:
    """A measured size, three significant digits: ``1.5 GiB``, ``980 B``."""
    for unit, size in _BINARY:
        if abs(n) >= size:
            return f"{significant(n / size)} {unit}"
    return f"{significant(n)} B"


def significant(x: float, digits: int = 3) -> str:
    """``x`` with ``digits`` significant digits, no exponent, no trailing zeros."""
    if x == 0:
        return "0"
    mag = math.floor(math.log10(abs(x)))
    decimals = max(0, digits - 1 - mag)
    text = f"{round(x, decimals):.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


# --- messages -----------------------------------------------------------------------------------


def _kind(value: object) -> str:
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if value is None:
        return "null"
    return type(value).__name__


def _short(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."
