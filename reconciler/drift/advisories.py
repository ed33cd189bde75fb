"""The server's JetStream API audit advisories, read as data (pure functions).

Every JetStream API request a server answers produces an ``io.nats.jetstream.advisory.v1.api_audit``
advisory on ``$JS.EVENT.ADVISORY.API`` in the requester's account. Checked on nats-server 2.10.26,
2.11.11, 2.12.8, 2.14.6 and 2.15.1 (the same shape in each): ``timestamp`` (RFC 3339, nanoseconds),
``client`` with ``acc``, ``user``, ``name`` (the connection name), ``host``, ``lang``, ``ver``;
``subject`` (the API subject as the server received it); ``request`` (the body as a JSON string,
absent for an empty body) and ``response`` (the answer as a JSON string, with ``error`` when the
server refused). Reads are audited too (INFO, LIST, NAMES), and so is every refused request;
a ``STREAM.MSG.GET`` or ``DIRECT.GET`` that returns a message is not (a ``STREAM.MSG.GET`` that finds
none is: its answer is an error). Advisories may reach a subscriber out of order (seen on 2.15.1): order them by ``timestamp``.

:func:`classify` says which API subjects are writes (they change an object or its messages) and
which object they name; :func:`parse_advisory` reads one advisory's JSON.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from enum import Enum

from jsops.linter import Kind

__all__ = [
    "ADVISORY_SUBJECT",
    "ADVISORY_TYPE",
    "Advisory",
    "ApiCall",
    "Verb",
    "classify",
    "is_write",
    "parse_advisory",
    "parse_time",
]

ADVISORY_SUBJECT = "$JS.EVENT.ADVISORY.API"
ADVISORY_TYPE = "io.nats.jetstream.advisory.v1.api_audit"


class Verb(str, Enum):
    """What a write request does to its object."""

    CREATE = "create"  # a create, or a create-or-update (consumers)
    UPDATE = "update"
    DELETE = "delete"
    PURGE = "purge"  # messages removed (a stream purge, a message delete); the config is unchanged
    PAUSE = "pause"  # a consumer's pause_until
    RESET = "reset"  # a consumer's position
    OTHER = "other"  # a write that changes no config field (leader step-down, peer removal, unpin, restore)


@dataclass(frozen=True)
class ApiCall:
    """A write API request: its verb and the object it names (``stream`` is the consumer's stream;
    both None for an account-wide write)."""

    verb: Verb
    kind: str | None
    stream: str | None
    name: str | None


# (tokens after "API.", how many name tokens follow) -> (verb, kind); a consumer's name tokens are
# STREAM[.CONSUMER[.FILTER...]].
_WRITES: dict[tuple[str, ...], tuple[Verb, str | None]] = {
    ("STREAM", "CREATE"): (Verb.CREATE, Kind.STREAM),
    ("STREAM", "UPDATE"): (Verb.UPDATE, Kind.STREAM),
    ("STREAM", "DELETE"): (Verb.DELETE, Kind.STREAM),
    ("STREAM", "PURGE"): (Verb.PURGE, Kind.STREAM),
    ("STREAM", "MSG", "DELETE"): (Verb.PURGE, Kind.STREAM),
    ("STREAM", "RESTORE"): (Verb.OTHER, Kind.STREAM),
    ("STREAM", "LEADER", "STEPDOWN"): (Verb.OTHER, Kind.STREAM),
    ("STREAM", "PEER", "REMOVE"): (Verb.OTHER, Kind.STREAM),
    ("CONSUMER", "CREATE"): (Verb.CREATE, Kind.CONSUMER),
    ("CONSUMER", "DURABLE", "CREATE"): (Verb.CREATE, Kind.CONSUMER),
    ("CONSUMER", "DELETE"): (Verb.DELETE, Kind.CONSUMER),
    ("CONSUMER", "PAUSE"): (Verb.PAUSE, Kind.CONSUMER),
    ("CONSUMER", "RESET"): (Verb.RESET, Kind.CONSUMER),
    ("CONSUMER", "UNPIN"): (Verb.OTHER, Kind.CONSUMER),
    ("CONSUMER", "LEADER", "STEPDOWN"): (Verb.OTHER, Kind.CONSUMER),
    ("ACCOUNT", "PURGE"): (Verb.DELETE, None),
    ("META", "LEADER", "STEPDOWN"): (Verb.OTHER, None),
    ("SERVER", "REMOVE"): (Verb.OTHER, None),
}
_LONGEST = max(len(k) for k in _WRITES)


def _api_tokens(subject: str) -> list[str] | None:
    """The tokens after the API prefix (``$JS.API.`` or a domain's ``$JS.<domain>.API.``)."""
    tokens = subject.split(".")
    if len(tokens) < 3 or tokens[0] != "$JS":
        return None
    at = 1 if tokens[1] == "API" else (2 if tokens[2] == "API" else None)
    return tokens[at + 1 :] if at is not None else None


def classify(subject: str) -> ApiCall | None:
    """The write an API subject asks for, or None for a read (INFO, LIST, NAMES, MSG.GET, ...) or a
    subject outside the JetStream API."""
    tokens = _api_tokens(subject)
    if tokens is None:
        return None
    for n in range(min(_LONGEST, len(tokens)), 0, -1):
        found = _WRITES.get(tuple(tokens[:n]))
        if found is None:
            continue
        verb, kind = found
        rest = tokens[n:]
        if kind is None:
            return ApiCall(verb, None, None, None)
        if not rest:
            return None
        if kind == Kind.STREAM:
            return ApiCall(verb, kind, rest[0], rest[0])
        return ApiCall(
            verb, kind, rest[0], rest[1] if len(rest) > 1 else None
        )  # CONSUMER.CREATE.<stream>: the name is in the body
    return None


def is_write(subject: str) -> bool:
    """Whether the API request changes anything (the record keeps only these)."""
    return classify(subject) is not None


@dataclass(frozen=True)
class Advisory:
    """One API audit advisory: who asked (``user``, ``account``, ``client_name``: the connection
    name, ``host``), when, through which ``subject``, the request and response bodies (decoded JSON
    objects; None when absent or not an object) and whether the server refused it."""

    at: datetime
    subject: str
    user: str
    account: str
    client_name: str
    host: str
    request: dict[str, object] | None
    response: dict[str, object] | None

    @property
    def refused(self) -> bool:
        return self.response is not None and bool(self.response.get("error"))

    @property
    def call(self) -> ApiCall | None:
        call = classify(self.subject)
        if call is not None and call.kind == Kind.CONSUMER and call.name is None:
            named = self.response.get("name") if self.response is not None else None
            config = self.request.get("config") if self.request is not None else None
            if not isinstance(named, str) and isinstance(config, dict):
                named = config.get("name") or config.get("durable_name")
            return ApiCall(call.verb, call.kind, call.stream, named if isinstance(named, str) else None)
        return call


def _object(text: object) -> dict[str, object] | None:
    if not isinstance(text, str) or not text:
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def parse_time(text: str) -> datetime | None:
    """An RFC 3339 time as the server writes it (``Z``, up to nanoseconds), to the microsecond."""
    try:
        at = datetime.fromisoformat(text)
    except ValueError:
        return None
    return at if at.tzinfo is not None else None


def parse_advisory(data: bytes | str) -> Advisory | None:
    """One advisory's JSON, or None when it is not an API audit advisory (another type, no time,
    not JSON)."""
    try:
        doc = json.loads(data)
    except ValueError:
        return None
    if not isinstance(doc, dict) or doc.get("type") != ADVISORY_TYPE:
        return None
    at = parse_time(_text(doc.get("timestamp")))
    client = doc.get("client")
    if at is None or not isinstance(client, dict):
        return None
    return Advisory(
        at=at,
        subject=_text(doc.get("subject")),
        user=_text(client.get("user")),
        account=_text(client.get("acc")),
        client_name=_text(client.get("name")),
        host=_text(client.get("host")),
        request=_object(doc.get("request")),
        response=_object(doc.get("response")),
    )
