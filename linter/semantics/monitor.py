"""Operational metadata a manifest declares: natscli's ``io.nats.monitor.*`` keys and jsops's own
``jsops.io/*`` annotations, with how their values are read.

``io.nats.monitor.*`` metadata is read by natscli through jsm.go's monitor package (``nats server
check stream`` for streams; ``nats audit`` for streams and consumers). Each key has one value
kind; natscli stops at the first value that does not parse.

jsops annotations (native and NACK manifests; NATS API JSON has no annotations):

- ``jsops.io/processing-time-p99`` (consumer): the P99 time a handler needs from delivery to ack,
  a duration (``"4s"``), used when no profile measures the consumer.
- ``jsops.io/publish-retry-horizon`` (stream): how long after its first attempt a publisher may
  still retry a message with the same ``Nats-Msg-Id`` (attempts x timeout + backoff), a duration.
- ``jsops.io/dead-letter`` (consumer, or its stream for all its consumers): names whatever handles
  the consumer's ``MAX_DELIVERIES`` advisories outside the estate.
- ``jsops.io/ignore-drift`` (stream or consumer): the config fields another client owns, which plan,
  apply, audit and the controller keep at their live values once the object exists (docs/drift.md):
  a string, the fields separated by commas or spaces, optionally in brackets (``"[num_replicas,
  max_age]"``). A field the kind does not have, a name field or ``metadata`` is not held.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Literal

from . import catalog
from .units import INT64_MAX, UnitError, parse_duration, parse_jsm_duration

__all__ = [
    "ValueKind",
    "MONITOR_PREFIX",
    "MONITOR_STREAM_KEYS",
    "MONITOR_CONSUMER_KEYS",
    "monitor_keys",
    "monitor_metadata",
    "parse_go_int",
    "parse_go_uint",
    "parse_go_bool",
    "parse_value",
    "monitor_value_problem",
    "PROCESSING_TIME",
    "PUBLISH_RETRY_HORIZON",
    "DEAD_LETTER",
    "annotation_duration",
    "IGNORE_DRIFT",
    "NEVER_HELD",
    "holdable_fields",
    "ignore_drift_fields",
    "unheld_fields",
]

ValueKind = Literal["bool", "int", "uint", "duration"]
"""``bool`` (Go ``strconv.ParseBool``), ``int`` (``strconv.Atoi``), ``uint`` (``strconv.ParseUint``,
base 10, 64 bits), ``duration`` (jsm.go ``ParseDuration``: Go units plus d, w, M, y)."""

MONITOR_PREFIX = "io.nats.monitor."

MONITOR_STREAM_KEYS: dict[str, ValueKind] = {
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
MONITOR_CONSUMER_KEYS: dict[str, ValueKind] = {
    "enabled": "bool",
    "outstanding-ack-critical": "int",
    "waiting-critical": "int",
    "unprocessed-critical": "int",
    "last-delivery-critical": "duration",
    "last-ack-critical": "duration",
    "redelivery-critical": "int",
    "pinned": "bool",
}

PROCESSING_TIME = "jsops.io/processing-time-p99"
PUBLISH_RETRY_HORIZON = "jsops.io/publish-retry-horizon"
DEAD_LETTER = "jsops.io/dead-letter"
IGNORE_DRIFT = "jsops.io/ignore-drift"
NEVER_HELD = frozenset({"name", "durable_name", "metadata"})  # what names the object, and jsops's own bookkeeping

_UINT64_MAX = (1 << 64) - 1
_DIGITS = re.compile(r"[0-9]+\Z")
_GO_BOOLS = {
    "1": True,
    "t": True,
    "T": True,
    "true": True,
    "TRUE": True,
    "True": True,
    "0": False,
    "f": False,
    "F": False,
    "false": False,
    "FALSE": False,
    "False": False,
}
_KIND_TEXT: dict[ValueKind, str] = {
    "bool": "true or false",
    "int": "a whole number",
    "uint": "a whole number, 0 or more",
    "duration": "a duration such as 30s, 5m or 1h",
}


def monitor_keys(kind: str) -> dict[str, ValueKind]:
    """Known ``io.nats.monitor.`` suffixes of a kind ("Stream" or "Consumer") and their value kinds."""
    return MONITOR_STREAM_KEYS if kind == "Stream" else MONITOR_CONSUMER_KEYS


def monitor_metadata(metadata: Mapping[str, str] | None) -> dict[str, str]:
    """The ``io.nats.monitor.*`` entries of a config's metadata, by key suffix (``lag-critical``),
    in the metadata's order."""
    if not metadata:
        return {}
    skip = len(MONITOR_PREFIX)
    return {k[skip:]: v for k, v in metadata.items() if k.startswith(MONITOR_PREFIX)}


def parse_go_int(text: str) -> int | None:
    """Go's ``strconv.Atoi`` on a 64-bit platform: optional sign, decimal digits, int64 range."""
    body = text[1:] if text[:1] in ("+", "-") else text
    if not _DIGITS.match(body):
        return None
    value = int(text)
    return value if -INT64_MAX - 1 <= value <= INT64_MAX else None


def parse_go_uint(text: str) -> int | None:
    """Go's ``strconv.ParseUint(s, 10, 64)``: decimal digits only (no sign), uint64 range."""
    if not _DIGITS.match(text):
        return None
    value = int(text)
    return value if value <= _UINT64_MAX else None


def parse_go_bool(text: str) -> bool | None:
    """Go's ``strconv.ParseBool``: exactly the twelve spellings it accepts."""
    return _GO_BOOLS.get(text)


def parse_value(kind: ValueKind, text: str) -> bool | int | None:
    """A monitor metadata value as natscli reads it (durations in nanoseconds), or None when natscli
    cannot parse it."""
    if kind == "bool":
        return parse_go_bool(text)
    if kind == "int":
        return parse_go_int(text)
    if kind == "uint":
        return parse_go_uint(text)
    try:
        return parse_jsm_duration(text)
    except UnitError:
        return None


def monitor_value_problem(kind: ValueKind, value: str) -> str | None:
    """Why natscli cannot parse ``value`` for a key of ``kind``, or None when it can."""
    return None if parse_value(kind, value) is not None else f"expected {_KIND_TEXT[kind]}"


def annotation_duration(annotations: Mapping[str, object], key: str) -> tuple[int | None, str | None]:
    """``(nanoseconds, None)`` for a readable positive duration annotation, ``(None, problem)`` for
    one that does not parse, ``(None, None)`` when the manifest does not declare it."""
    raw = annotations.get(key)
    if raw is None:
        return None, None
    try:
        ns = parse_duration(str(raw).strip())
    except UnitError as exc:
        return None, f"annotation {key} is not a duration: {exc}"
    if ns <= 0:
        return None, f"annotation {key} must be a positive duration, not {str(raw)[:40]!r}"
    return ns, None


def ignore_drift_fields(value: str | None) -> tuple[str, ...]:
    """The fields a ``jsops.io/ignore-drift`` value names, in order, each once."""
    if not value:
        return ()
    return tuple(dict.fromkeys(f for f in re.split(r"[\s,]+", value.strip().strip("[]")) if f))


def unheld_fields(kind: str, fields: Iterable[str]) -> list[str]:
    """The named fields an object of ``kind`` (``Stream``, ``Consumer``) has not, or that are never
    held (:data:`NEVER_HELD`): ``jsops.io/ignore-drift`` leaves them out."""
    record = catalog.RECORDS.get(kind)
    return [f for f in fields if record is None or f not in record or f in NEVER_HELD]


def holdable_fields(kind: str) -> tuple[str, ...]:
    """The fields of ``kind`` (``Stream``, ``Consumer``) ``jsops.io/ignore-drift`` can hold, in the catalog's order."""
    record = catalog.RECORDS.get(kind)
    return tuple(f for f in record.names() if f not in NEVER_HELD) if record is not None else ()
