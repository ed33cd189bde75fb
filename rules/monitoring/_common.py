"""Helpers shared by the monitoring rules (``rules/monitoring/``): ``io.nats.monitor.*`` metadata as
natscli reads it through jsm.go's monitor package."""

from __future__ import annotations

import re

from linter.api import SECOND

__all__ = [
    "MONITOR_PREFIX",
    "MONITOR_STREAM_KEYS",
    "MONITOR_CONSUMER_KEYS",
    "monitor_keys",
    "monitor_value_problem",
    "parse_go_int",
    "parse_go_uint",
    "parse_go_bool",
    "parse_jsm_duration",
]

_INT64_MAX = (1 << 63) - 1
_UINT64_MAX = (1 << 64) - 1

# ---------------------------------------------------------------------------------------------
# io.nats.monitor.* metadata, as natscli reads it through jsm.go's monitor package
# (`nats server check stream` for streams; `nats audit` for streams and consumers). Each key has
# one value type; parsing stops at the first value that does not parse.

MONITOR_PREFIX = "io.nats.monitor."

# value kinds: "bool" (Go strconv.ParseBool), "int" (strconv.Atoi), "uint" (strconv.ParseUint,
# base 10, 64 bits), "duration" (jsm.go ParseDuration: Go units plus d, w, M, y)
MONITOR_STREAM_KEYS: dict[str, str] = {
    "enabled": "bool",
    "lag-critical": "uint",
    "seen-critical": "duration",
    "min-sources": "int",
    "max-sources": "int",
    "peer-expect": "int",
    "peer-lag-critical": "uint",
    "peer-seen-critical": "duration",
    "msgs-warn": "uint",
    "msgs-critical": "uint",
    "subjects-warn": "int",
    "subjects-critical": "int",
}
MONITOR_CONSUMER_KEYS: dict[str, str] = {
    "enabled": "bool",
    "outstanding-ack-critical": "int",
    "waiting-critical": "int",
    "unprocessed-critical": "int",
    "last-delivery-critical": "duration",
    "last-ack-critical": "duration",
    "redelivery-critical": "int",
    "pinned": "bool",
}


def monitor_keys(kind: str) -> dict[str, str]:
    """Known ``io.nats.monitor.`` suffixes of a kind ("Stream" or "Consumer") and their value kinds."""
    return MONITOR_STREAM_KEYS if kind == "Stream" else MONITOR_CONSUMER_KEYS


_DIGITS = re.compile(r"[0-9]+\Z")


def parse_go_int(text: str) -> int | None:
    """Go's ``strconv.Atoi`` on a 64-bit platform: optional sign, decimal digits, int64 range."""
    body = text[1:] if text[:1] in ("+", "-") else text
    if not _DIGITS.match(body):
        return None
    value = int(text)
    return value if -_INT64_MAX - 1 <= value <= _INT64_MAX else None


def parse_go_uint(text: str) -> int | None:
    """Go's ``strconv.ParseUint(s, 10, 64)``: decimal digits only (no sign), uint64 range."""
    if not _DIGITS.match(text):
        return None
    value = int(text)
    return value if value <= _UINT64_MAX else None


_GO_BOOLS = {
    "1": True, "t": True, "T": True, "true": True, "TRUE": True, "True": True,
    "0": False, "f": False, "F": False, "false": False, "FALSE": False, "False": False,
}


def parse_go_bool(text: str) -> bool | None:
    """Go's ``strconv.ParseBool``: exactly the twelve spellings it accepts."""
    return _GO_BOOLS.get(text)


# jsm.go finds every "<sign?><digits and dots><letters>" run in the trimmed text (text between
# runs is not looked at), then adds the runs up; only the first run's sign counts.
_JSM_PART = re.compile(r"([-+]?)(([0-9.]+)([a-zA-Z]+))")
_GO_UNITS = {"ns": 1, "us": 1_000, "ms": 1_000_000, "s": SECOND, "m": 60 * SECOND, "h": 3600 * SECOND}
_LONG_UNITS = {
    "w": 7 * 86400 * SECOND, "W": 7 * 86400 * SECOND,
    "d": 86400 * SECOND, "D": 86400 * SECOND,
    "M": 30 * 86400 * SECOND,
    "y": 365 * 86400 * SECOND, "Y": 365 * 86400 * SECOND,
}
_GO_FLOAT = re.compile(r"(?:[0-9]+\.?[0-9]*|\.[0-9]+)\Z")


def _go_duration_part(number: str, unit: str) -> int | None:
    """One ``<number><unit>`` of Go's ``time.ParseDuration`` (no sign), in ns, or None."""
    if not _GO_FLOAT.match(number):
        return None
    whole, _, frac = number.partition(".")
    scale = _GO_UNITS[unit]
    total = int(whole or "0") * scale
    if frac:
        total += int(frac) * scale // (10 ** len(frac))
    return total if total <= _INT64_MAX else None


def parse_jsm_duration(text: str) -> int | None:
    """Nanoseconds as jsm.go's ``ParseDuration`` reads a monitor metadata value, or None when it
    returns an error. ``"0"`` is zero; otherwise every number needs a unit: Go's ``ns``, ``us``,
    ``ms``, ``s``, ``m``, ``h``, plus ``d``/``D``, ``w``/``W``, ``M`` (30 days), ``y``/``Y``."""
    if text == "0":
        return 0
    body = text.strip()
    if not body:
        return None
    parts = list(_JSM_PART.finditer(body))
    if not parts:
        return None
    total = 0
    for part in parts:
        number, unit = part.group(3), part.group(4)
        if unit in _LONG_UNITS:
            if not _GO_FLOAT.match(number):
                return None
            ns = float(number) * _LONG_UNITS[unit]
            if ns >= _INT64_MAX:
                return None
            value = int(ns)
        elif unit in _GO_UNITS:
            got = _go_duration_part(number, unit)
            if got is None:
                return None
            value = got
        else:
            return None
        total += value
        if total > _INT64_MAX:
            return None
    return -total if parts[0].group(1) == "-" else total


_KIND_TEXT = {
    "bool": "true or false",
    "int": "a whole number",
    "uint": "a whole number, 0 or more",
    "duration": "a duration such as 30s, 5m or 1h",
}


def monitor_value_problem(value_kind: str, value: str) -> str | None:
    """Why natscli cannot parse ``value`` for a key of ``value_kind``, or None when it can."""
    if value_kind == "bool":
        ok = parse_go_bool(value) is not None
    elif value_kind == "int":
        ok = parse_go_int(value) is not None
    elif value_kind == "uint":
        ok = parse_go_uint(value) is not None
    else:
        ok = parse_jsm_duration(value) is not None
    return None if ok else f"expected {_KIND_TEXT[value_kind]}"
