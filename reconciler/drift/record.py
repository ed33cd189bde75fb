"""The record of API changes in a target's account: a stream capturing ``$JS.EVENT.ADVISORY.API``
(docs/drift.md), read newest first to name the authors of a plan's drifted fields.

The record is found in the live state (any stream whose subjects capture the advisory subject, a
stream capturing exactly that subject first). It is read backwards with ``STREAM.MSG.GET``, which
the server does not audit when it returns a message (a get of a message gone is audited, as every
error answer is), in windows of requests in
flight, and only as far back as the drifted fields need (:func:`~jsops.reconciler.drift.attribution.settled`)
or :data:`SCAN_LIMIT` messages. Reads kept in the record are passed over. Without drifted fields
nothing is read: a plan without drift costs nothing more. A controller may also hear the advisories
itself while it runs (:class:`Heard`, :mod:`jsops.reconciler.controller.heard`): then the record is
read only for what that does not settle, and without a record what was heard is enough.
"""

from __future__ import annotations

import base64
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from jsops.linter import is_subset_match

from ..errors import ErrCode
from .advisories import ADVISORY_SUBJECT, Advisory, parse_advisory, parse_time
from .attribution import NO_ATTRIBUTION, Attribution, Author, DriftKey, attribute, settled
from .held import ObjectKey
from .tug import BUCKET, KEY, TugState

if TYPE_CHECKING:
    from ..client import JsClient
    from ..live import LiveState

__all__ = [
    "Drifted",
    "Heard",
    "RecordRead",
    "SCAN_LIMIT",
    "WINDOW",
    "attribute_drift",
    "quarantined_fields",
    "read_record",
    "record_stream",
]

SCAN_LIMIT = 50_000  # messages read back at most, per target and plan
WINDOW = 128  # MSG.GET requests in flight at a time


@dataclass(frozen=True)
class Drifted:
    """One drifted field of one object: its path and the live value (server JSON)."""

    kind: str
    stream: str | None
    name: str
    path: str
    live: object


@dataclass(frozen=True)
class RecordRead:
    """The write advisories read from a record (newest first) and how far back the reading reached
    (the time of the oldest message read; None: nothing was read)."""

    stream: str
    advisories: tuple[Advisory, ...]
    since: datetime | None


@dataclass(frozen=True)
class Heard:
    """The write advisories the controller's own subscription heard (newest first) and since when it
    has heard every one (it started then, or came back from a gap then, or dropped older ones)."""

    advisories: tuple[Advisory, ...]
    since: datetime


def _merged(heard: Sequence[Advisory], read: Sequence[Advisory]) -> list[Advisory]:
    """Both sources, newest first, an advisory both hold once."""
    out = {(a.at, a.subject, a.account, a.user, a.client_name, a.host): a for a in (*heard, *read)}
    return sorted(out.values(), key=lambda a: a.at, reverse=True)


def record_stream(live: LiveState) -> str | None:
    """The stream of the target's account that records the API advisories, or None."""
    found = [
        name
        for name, s in live.streams.items()
        if any(is_subset_match(ADVISORY_SUBJECT, subj) for subj in s.config.subjects)
    ]
    exact = [name for name in found if ADVISORY_SUBJECT in live.streams[name].config.subjects]
    return min(exact or found) if found else None


def _message(answer: object) -> tuple[Advisory | None, datetime | None]:
    """An MSG.GET answer's advisory (None unless it is a write) and the message's time."""
    msg = answer.get("message") if isinstance(answer, dict) else None
    if not isinstance(msg, dict):
        return None, None
    at = parse_time(msg["time"]) if isinstance(msg.get("time"), str) else None
    try:
        data = base64.b64decode(str(msg.get("data") or ""), validate=True)
    except ValueError:
        return None, at
    adv = parse_advisory(data)
    return (adv if adv is not None and adv.call is not None else None), at


def _get(client: JsClient, stream: str, seq: int) -> Callable[[], Awaitable[dict[str, Any]]]:
    return lambda: client.arequest(f"STREAM.MSG.GET.{stream}", {"seq": seq})


def read_record(
    client: JsClient,
    live: LiveState,
    stream: str,
    done: Callable[[Sequence[Advisory]], bool],
    *,
    limit: int = SCAN_LIMIT,
) -> RecordRead:
    """The record's write advisories, newest first, read back from the last message the live state
    saw until ``done`` says they suffice, the first message, or ``limit`` messages."""
    from ..client import JsApiError

    state = live.streams[stream]
    seq, floor = state.last_seq, max(1, state.first_seq)
    found: list[Advisory] = []
    oldest: datetime | None = None
    scanned = 0
    while seq >= floor and scanned < limit:
        batch = list(range(seq, max(floor, seq - WINDOW + 1) - 1, -1))
        calls = [_get(client, stream, s) for s in batch]
        for answer in client.run(client.gather(calls)):
            if isinstance(answer, JsApiError) and answer.err_code == ErrCode.NO_MESSAGE_FOUND:
                continue  # deleted, or aged out while reading
            if isinstance(answer, BaseException):
                raise answer
            adv, at = _message(answer)
            if at is not None and (oldest is None or at < oldest):
                oldest = at
            if adv is not None:
                found.append(adv)
        found.sort(key=lambda a: a.at, reverse=True)  # the server may store them slightly out of order
        scanned += len(batch)
        seq = batch[-1] - 1
        if done(found):
            break
    return RecordRead(stream, tuple(found), oldest)


def attribute_drift(
    client: JsClient,
    live: LiveState,
    context: str,
    drifted: Sequence[Drifted],
    *,
    limit: int = SCAN_LIMIT,
    heard: Heard | None = None,
) -> Attribution:
    """The authors of ``drifted`` (the target's drifted fields) from what the controller's own
    subscription ``heard`` and, where that does not reach back far enough, its account's record; no
    authors when there is neither, or nothing drifted. The record is not read when what was heard
    settles every field."""
    present = [
        d for d in drifted if (d.name in live.streams if d.stream is None else (d.stream, d.name) in live.consumers)
    ]
    if not present:
        return NO_ATTRIBUTION
    own = list(heard.advisories) if heard is not None else []

    def done(advisories: Sequence[Advisory]) -> bool:
        return all(settled(advisories, d.kind, d.stream, d.name, d.path, d.live) for d in present)

    stream = record_stream(live)
    since: datetime | None
    if heard is not None and (stream is None or done(own)):
        advisories, since = own, heard.since
    elif stream is not None:
        read = read_record(client, live, stream, lambda found: done(_merged(own, found)), limit=limit)
        advisories = _merged(own, read.advisories)
        reach = [t for t in (read.since, heard.since if heard is not None else None) if t is not None]
        since = min(reach) if reach else None
    else:
        return NO_ATTRIBUTION
    authors: dict[DriftKey, Author] = {}
    for d in present:
        who = attribute(advisories, d.kind, d.stream, d.name, d.path, d.live, since=since)
        if who is not None:
            authors[DriftKey(context, d.kind, d.stream, d.name, d.path)] = who
    return Attribution(authors, datetime.now(UTC))


def quarantined_fields(client: JsClient, live: LiveState) -> dict[ObjectKey, dict[str, str]]:
    """The fields the controller quarantined on this target (its KV state, read with one
    ``STREAM.MSG.GET``: nothing is created or written), as :func:`jsops.reconciler.drift.held.hold`
    takes them; none without the bucket or the key."""
    import json

    from ..client import JsApiError

    stream = f"KV_{BUCKET}"
    if stream not in live.streams:
        return {}
    try:
        answer = client.request(f"STREAM.MSG.GET.{stream}", {"last_by_subj": f"$KV.{BUCKET}.{KEY}"})
    except JsApiError as exc:
        if exc.err_code == ErrCode.NO_MESSAGE_FOUND:
            return {}
        raise
    msg = answer.get("message")
    try:
        data = base64.b64decode(str(msg.get("data") or ""), validate=True) if isinstance(msg, dict) else b""
        state = TugState.from_json(json.loads(data)) if data else TugState()  # a deleted key: no data
    except ValueError:
        state = TugState()
    return {
        key: {path: f"{why}; `nats kv del {BUCKET} {KEY}` ends it" for path, why in fields.items()}
        for key, fields in state.held().items()
    }
