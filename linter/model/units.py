"""Durations and sizes as manifests write them.

Durations are Go ``time.ParseDuration`` strings (``"90s"``, ``"1h30m"``, ``"1.5h"``) with two
extra units, ``d`` (24h) and ``w`` (7d), or integer nanoseconds. Sizes are integers or an integer
with a unit; like natscli, every unit is 1024-based (``KB`` and ``KiB`` are both 1024 bytes).
"""

from __future__ import annotations

import re

__all__ = ["parse_duration", "format_duration", "parse_size", "format_size", "UnitError"]

_INT64_MAX = (1 << 63) - 1

_DURATION_UNITS: dict[str, int] = {
    "ns": 1,
    "us": 1_000,
    "µs": 1_000,  # U+00B5 micro sign
    "μs": 1_000,  # U+03BC greek mu
    "ms": 1_000_000,
    "s": 1_000_000_000,
    "m": 60 * 1_000_000_000,
    "h": 3600 * 1_000_000_000,
    "d": 86400 * 1_000_000_000,
    "w": 7 * 86400 * 1_000_000_000,
}
_DURATION_PART = re.compile(r"([0-9]*(?:\.[0-9]*)?)(ns|us|µs|μs|ms|s|m|h|d|w)")

_SIZE_UNITS: dict[str, int] = {
    "": 1,
    "B": 1,
    "K": 1 << 10,
    "KB": 1 << 10,
    "KIB": 1 << 10,
    "M": 1 << 20,
    "MB": 1 << 20,
    "MIB": 1 << 20,
    "G": 1 << 30,
    "GB": 1 << 30,
    "GIB": 1 << 30,
    "T": 1 << 40,
    "TB": 1 << 40,
    "TIB": 1 << 40,
}
_SIZE_RE = re.compile(r"^\s*(-?[0-9]+)\s*([A-Za-z]*)\s*$")


class UnitError(ValueError):
    """A duration or size that cannot be read."""


def parse_duration(value: object) -> int:
    """Return nanoseconds for a Go duration string (plus ``d`` and ``w``) or an integer."""
    if isinstance(value, bool):
        raise UnitError("expected a duration like '90s' or integer nanoseconds, got a boolean")
    if isinstance(value, int):
        if not -_INT64_MAX - 1 <= value <= _INT64_MAX:
            raise UnitError("duration does not fit in 64-bit nanoseconds")
        return value
    if isinstance(value, float):
        if value.is_integer():
            return parse_duration(int(value))
        raise UnitError(
            f"duration {value!r} is not a whole number of nanoseconds; write it with a unit, like '1.5s'"
        )
    if not isinstance(value, str):
        raise UnitError(f"expected a duration like '90s' or integer nanoseconds, got {_kind(value)}")
    text = value.strip()
    if not text:
        raise UnitError("empty duration")
    sign = 1
    rest = text
    if rest[0] in "+-":
        sign = -1 if rest[0] == "-" else 1
        rest = rest[1:]
    if rest == "0":
        return 0
    if rest.isdigit():
        raise UnitError(
            f"duration {_short(text)!r} has no unit; write '{rest}s' for seconds or an unquoted integer for nanoseconds"
        )
    total = 0
    pos = 0
    while pos < len(rest):
        m = _DURATION_PART.match(rest, pos)
        if m is None or m.group(1) in ("", "."):
            raise UnitError(
                f"invalid duration {_short(text)!r}; use Go syntax like '90s', '1h30m', '7d' (units ns, us, ms, s, m, h, d, w)"
            )
        number, unit = m.group(1), m.group(2)
        scale = _DURATION_UNITS[unit]
        whole, _, frac = number.partition(".")
        part = int(whole or "0") * scale
        if frac:
            part += int(frac) * scale // (10 ** len(frac))
        total += part
        if total > _INT64_MAX + 1:
            raise UnitError(f"duration {_short(text)!r} overflows 64-bit nanoseconds")
        pos = m.end()
    total *= sign
    if total > _INT64_MAX:
        raise UnitError(f"duration {_short(text)!r} overflows 64-bit nanoseconds")
    return total


def format_duration(ns: int) -> str:
    """A short readable Go-style duration (``7d``, ``1h30m``, ``250ms``) that parses back to ``ns``."""
    if ns == 0:
        return "0s"
    sign = "-" if ns < 0 else ""
    n = abs(ns)
    if n % 1_000_000_000 == 0:
        secs = n // 1_000_000_000
        parts = []
        for unit, size in (("w", 604800), ("d", 86400), ("h", 3600), ("m", 60), ("s", 1)):
            if secs >= size:
                q, secs = divmod(secs, size)
                parts.append(f"{q}{unit}")
        # Weeks read oddly next to days ("1w2d"); prefer days unless it is whole weeks.
        if len(parts) > 1 and parts[0].endswith("w"):
            weeks = int(parts[0][:-1])
            rest = parts[1:]
            if rest[0].endswith("d"):
                rest[0] = f"{weeks * 7 + int(rest[0][:-1])}d"
            else:
                rest.insert(0, f"{weeks * 7}d")
            parts = rest
        return sign + "".join(parts)
    for unit, size in (("ms", 1_000_000), ("us", 1_000)):
        if n % size == 0:
            return f"{sign}{n // size}{unit}"
    return f"{sign}{n}ns"


def parse_size(value: object) -> int:
    """Return bytes for an integer or a string such as ``512MiB`` or ``10GB`` (1024-based)."""
    if isinstance(value, bool):
        raise UnitError("expected a size like '10GiB' or an integer number of bytes, got a boolean")
    if isinstance(value, int):
        if not -_INT64_MAX - 1 <= value <= _INT64_MAX:
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
    if not -_INT64_MAX - 1 <= result <= _INT64_MAX:
        raise UnitError(f"size {_short(value)!r} does not fit in 64 bits")
    return result


def format_size(n: int) -> str:
    """``1073741824`` -> ``1GiB``; values that are not whole units stay plain integers."""
    if n <= 0:
        return str(n)
    for unit, size in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n % size == 0:
            return f"{n // size}{unit}"
    return str(n)


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
