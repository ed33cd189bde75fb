"""Helpers shared by the capacity and cost rules (``ops_*``, JS431-JS459). Not a rule module:
skipped by discovery.

Everything here is a pure function of a config, a profile or the target; estate indexes are built
once per lint run and cached on the context, so every rule stays linear in the estate size.
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING, Any

from linter.api import RuleContext
from linter.loader import Resource
from linter.model.target import Target
from linter.model.units import format_duration

if TYPE_CHECKING:
    from linter.model.profiles import StreamProfile

__all__ = [
    "SECOND",
    "KIB",
    "MIB",
    "GIB",
    "stream_profile",
    "byte_rate",
    "human_bytes",
    "human_rate",
    "ceil_size",
    "multi_node",
    "hard_byte_bound",
    "profiled_bytes",
    "sourced_origins",
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

SECOND = 1_000_000_000
KIB = 1 << 10
MIB = 1 << 20
GIB = 1 << 30
_INT64_MAX = (1 << 63) - 1
_UINT64_MAX = (1 << 64) - 1


# ---------------------------------------------------------------------------------------------
# profiles and figures


def stream_profile(ctx: RuleContext, resource: Resource) -> StreamProfile | None:
    """The measured profile of a stream (profiles are keyed by stream name), or None."""
    if ctx.profiles is None:
        return None
    return ctx.profiles.stream(resource.name)


def byte_rate(profile: StreamProfile | None, which: str = "mean") -> float | None:
    """Stored bytes per second from a stream profile: ``bytes.mean_per_s`` (``which="mean"``) or
    ``bytes.peak_per_s`` (``"peak"``); None when the profile lacks the figure (never a guess)."""
    if profile is None or profile.bytes is None:
        return None
    value = profile.bytes.mean_per_s if which == "mean" else profile.bytes.peak_per_s
    return float(value) if value is not None else None


def human_bytes(n: float) -> str:
    """``7100`` -> ``6.9KiB``: 1024-based, at most one decimal, for messages (not for edits)."""
    for unit, size in (("TiB", 1 << 40), ("GiB", GIB), ("MiB", MIB), ("KiB", KIB)):
        if n >= size:
            q = n / size
            text = f"{q:.1f}".rstrip("0").rstrip(".")
            return f"{text}{unit}"
    return f"{n:.0f}B" if n == int(n) else f"{n:.1f}B"


def human_rate(bytes_per_s: float) -> str:
    return f"{human_bytes(bytes_per_s)}/s"


def ceil_size(n: float) -> int:
    """``n`` bytes rounded up to a whole KiB, MiB or GiB (whichever unit ``n`` reaches), so that
    :func:`linter.model.units.format_size` prints it readably."""
    for size in (GIB, MIB, KIB):
        if n >= size:
            return int(math.ceil(n / size)) * size
    return int(math.ceil(n))


def hard_byte_bound(eff: dict[str, Any], target: Target) -> int | None:
    """The most a stream can store per replica by its declared limits alone: ``max_bytes``, else
    ``max_msgs`` times the largest message (``max_msg_size``, else the target's ``max_payload``);
    None when nothing declared bounds it."""
    max_bytes = eff.get("max_bytes", -1)
    if max_bytes > 0:
        return int(max_bytes)
    max_msgs = eff.get("max_msgs", -1)
    largest = eff.get("max_msg_size", -1)
    if largest <= 0:
        largest = target.max_payload or -1
    if max_msgs > 0 and largest > 0:
        return int(max_msgs) * int(largest)
    return None


def profiled_bytes(eff: dict[str, Any], profile: StreamProfile | None) -> tuple[float, str] | None:
    """What a stream is expected to hold per replica by the profile, with how it was computed:
    the smaller of mean byte rate x ``max_age`` and ``max_msgs`` x mean stored message size.
    None when the profile lacks the figures for both."""
    if profile is None or profile.bytes is None:
        return None
    out: list[tuple[float, str]] = []
    rate = profile.bytes.mean_per_s
    max_age = eff.get("max_age", 0)
    if rate and max_age > 0:
        out.append((rate * max_age / SECOND, f"profiled mean {human_rate(rate)} over max_age {format_duration(max_age)}"))
    size = profile.bytes.stored_msg_size_mean
    max_msgs = eff.get("max_msgs", -1)
    if size and max_msgs > 0:
        out.append((size * max_msgs, f"max_msgs x profiled mean stored size {human_bytes(size)}"))
    return min(out) if out else None


# ---------------------------------------------------------------------------------------------
# target


def multi_node(target: Target) -> bool | None:
    """True when the target is a JetStream cluster of more than one node, False when it is known
    to be a single node, None when the target does not say."""
    if target.cluster_size is not None:
        return target.cluster_size > 1
    if target.clustered is not None:
        # Clustered JetStream needs a meta group; a "cluster" of one node is not clustered mode.
        return target.clustered
    return None


# ---------------------------------------------------------------------------------------------
# estate indexes (cached per lint run)


def sourced_origins(ctx: RuleContext) -> set[tuple[str, str]]:
    """(context, stream name) of every stream that another stream of the estate mirrors or sources
    (not through ``external``): the server keeps a consumer on the origin for each of them."""
    store: dict[str, Any] = ctx.__dict__.setdefault("_jsops_capacity_cache", {})
    hit = store.get("sourced_origins")
    if hit is not None:
        return hit  # type: ignore[no-any-return]
    out: set[tuple[str, str]] = set()
    for r in ctx.estate.resources:
        if r.kind != "Stream":
            continue
        cfg: Any = r.config
        mirror = getattr(cfg, "mirror", None)
        if mirror is not None and mirror.external is None and mirror.name:
            out.add((r.context, mirror.name))
        for src in getattr(cfg, "sources", None) or ():
            if src.external is None and src.name:
                out.add((r.context, src.name))
    store["sourced_origins"] = out
    return out


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
