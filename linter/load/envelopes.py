"""Request envelopes of the NATS API JSON dialect: the keys a request body holds beside the config.

A ``$JS.API.CONSUMER.CREATE`` body is ``{stream_name, config, action, pedantic}``; a stream request
body is the StreamConfig's fields and ``pedantic``. Which release reads which key is data
(:data:`jsops.linter.semantics.releases.CONSUMER_REQUEST_KEYS`, ``STREAM_REQUEST_KEYS``); so is what the
server answers: a key no release reads is an unknown field (10025 from 2.12, dropped before), a value
of a key the release reads that does not decode is 10025 (a release that does not read the key
drops it: the finding records the release it applies from, ``Finding.since``).

An info response (``nats stream info --json``, ``nats consumer info --json``: ``created``, ``state``,
``delivered``, ...) is not a request body: only its ``config`` is read, as before.
"""

from __future__ import annotations

from typing import Any

from ..model.positions import resolve_position
from ..model.resource import Estate
from ..semantics.errcodes import ErrCode
from ..semantics.releases import (
    CONSUMER_ACTIONS,
    CONSUMER_REQUEST_KEYS,
    STREAM_REQUEST_KEYS,
    STRICT_JSON_DEFAULT,
    Version,
)
from .documents import ParsedDocument
from .messages import did_you_mean, finding, kind_of, short

__all__ = ["INFO_KEYS", "consumer_envelope", "stream_envelope"]

# Keys only an info response has: a document with one of them is not a request body.
INFO_KEYS = frozenset(
    {
        "created",
        "ts",
        "state",
        "delivered",
        "ack_floor",
        "num_ack_pending",
        "num_redelivered",
        "num_waiting",
        "num_pending",
        "push_bound",
        "cluster",
    }
)


def consumer_envelope(doc: ParsedDocument, file: str, estate: Estate) -> bool:
    """Check a ``$JS.API.CONSUMER.CREATE`` body's keys beside ``config``; whether it has unknown ones
    (refused from 2.12, dropped before)."""
    v = doc.value
    if not INFO_KEYS.isdisjoint(v):
        return False
    label = "the $JS.API.CONSUMER.CREATE body"
    unknown = [k for k in v if k not in CONSUMER_REQUEST_KEYS]
    _unknown(doc, file, estate, unknown, CONSUMER_REQUEST_KEYS, label)
    if "action" in v and v["action"] not in CONSUMER_ACTIONS:
        what = f'action {kind_of(v["action"])} is not one of create, update or "" (create or update)'
        _bad_value(doc, file, estate, "action", what, CONSUMER_REQUEST_KEYS["action"])
    if "pedantic" in v and not isinstance(v["pedantic"], bool):
        _bad_value(
            doc,
            file,
            estate,
            "pedantic",
            f"pedantic must be true or false, got {kind_of(v['pedantic'])}",
            CONSUMER_REQUEST_KEYS["pedantic"],
        )
    return bool(unknown)


def stream_envelope(cfg: dict[str, Any], doc: ParsedDocument, file: str, estate: Estate) -> None:
    """A stream request body's envelope keys (``pedantic``), checked and taken out of ``cfg`` (they
    are not config fields)."""
    for key, since in STREAM_REQUEST_KEYS.items():
        if key not in cfg:
            continue
        value = cfg.pop(key)
        if key == "pedantic" and not isinstance(value, bool):
            _bad_value(doc, file, estate, key, f"pedantic must be true or false, got {kind_of(value)}", since)


def _unknown(
    doc: ParsedDocument, file: str, estate: Estate, keys: list[Any], allowed: dict[str, Version], label: str
) -> None:
    names = ", ".join(allowed)
    for k in keys:
        pos = resolve_position(doc.positions, (k,), key=True) or (doc.line, 1)
        msg = f"unknown field {short(k)!r} in {label} (it holds {names}){did_you_mean(str(k), list(allowed))}"
        estate.findings.append(
            finding("invalid-field", msg, file, *pos, None, ErrCode.INVALID_JSON, since=STRICT_JSON_DEFAULT)
        )


def _bad_value(doc: ParsedDocument, file: str, estate: Estate, key: str, what: str, since: Version) -> None:
    pos = resolve_position(doc.positions, (key,)) or (doc.line, 1)
    estate.findings.append(
        finding(
            "invalid-field",
            f"{what}: the request body does not decode",
            file,
            *pos,
            None,
            ErrCode.INVALID_JSON,
            since=since,
        )
    )
