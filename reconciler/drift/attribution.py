"""Who changed a drifted field: the last write, in the server's API audit advisories, that produced
the live value (pure functions over :class:`~jsops.reconciler.drift.advisories.Advisory` lists).

A field has drifted when the live value differs from the manifest's. :func:`attribute` walks the
writes to the object, newest first, and finds the write that brought the live value in: the
oldest of the newest writes whose result holds that value (the write before it held another value,
or deleted the object). A write's result is the config in the server's answer (what the server
made of the request, defaults filled in), else the request's body. Writes the server refused are
skipped, and so are reads. When jsops itself made that write (its connection name,
:data:`jsops.reconciler.client.CLIENT_NAME`) the field has not drifted: the manifest changed since
jsops applied it, and nobody is named. When no write in the record produced the live value, the
author is unknown, and the record's reach (the time of its oldest advisory) is said.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from types import MappingProxyType
from typing import TypeAlias

from jsops.linter import Kind

from ..client import CLIENT_NAME
from ..diff import BOOKKEEPING_KEYS, SET_FIELDS
from ..live import is_bookkeeping
from .advisories import Advisory, ApiCall, Verb, parse_time
from .held import Held

__all__ = [
    "Attribution",
    "Author",
    "AuthorUnknown",
    "ChangedBy",
    "DriftKey",
    "NO_ATTRIBUTION",
    "attribute",
    "rfc3339",
    "settled",
]


def rfc3339(at: datetime) -> str:
    """``at`` in UTC as RFC 3339 with a ``Z`` (to the second, or the microsecond when it has one)."""
    at = at.astimezone(UTC)
    return at.isoformat(timespec="microseconds" if at.microsecond else "seconds").replace("+00:00", "Z")


def _age(seconds: float) -> str:
    s = max(0, int(seconds))
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if s >= size:
            return f"{s // size}{unit}"
    return f"{s}s"


@dataclass(frozen=True)
class ChangedBy:
    """The write that produced a drifted field's live value: who (``user``, ``account``, the
    connection name ``client_name``, ``host``), when (``at``) and through which API subject."""

    user: str
    account: str
    client_name: str
    host: str
    at: datetime
    request: str

    def to_json(self) -> dict[str, str]:
        return {
            "user": self.user,
            "account": self.account,
            "client_name": self.client_name,
            "host": self.host,
            "at": rfc3339(self.at),
            "request": self.request,
        }

    def describe(self, now: datetime) -> str:
        """``changed by orders-svc (user app, 10.0.0.7) 3m ago``, the age counted to ``now``."""
        who = self.client_name or "an unnamed connection"
        user = f"user {self.user}" if self.user else f"account {self.account}"
        where = f", {self.host}" if self.host else ""
        return f"changed by {who} ({user}{where}) {_age((now - self.at).total_seconds())} ago"


@dataclass(frozen=True)
class AuthorUnknown:
    """No write in the record produced the live value; the record reaches back to ``since``
    (None: it holds no advisory)."""

    since: datetime | None

    def to_json(self) -> dict[str, str | None]:
        return {"since": rfc3339(self.since) if self.since is not None else None}

    def describe(self, now: datetime) -> str:
        if self.since is None:
            return "author unknown (the audit record is empty)"
        return f"author unknown (no audit record since {rfc3339(self.since)})"


Author: TypeAlias = ChangedBy | AuthorUnknown


@dataclass(frozen=True)
class DriftKey:
    """One field of one object of one target (its plan's ``context``); ``stream`` is a consumer's stream."""

    context: str
    kind: str
    stream: str | None
    name: str
    field: str


@dataclass(frozen=True)
class Attribution:
    """The authors of a run's drifted fields, computed beside its plans; ``read_at``: when the
    records were read (ages are counted to it); ``held``: the fields the plans left as they are
    live (:mod:`jsops.reconciler.drift.held`) where the manifests say otherwise."""

    authors: Mapping[DriftKey, Author] = field(default_factory=lambda: MappingProxyType({}))
    read_at: datetime = datetime(1970, 1, 1, tzinfo=UTC)
    held: Mapping[DriftKey, Held] = field(default_factory=lambda: MappingProxyType({}))

    def __post_init__(self) -> None:
        object.__setattr__(self, "authors", MappingProxyType(dict(self.authors)))
        object.__setattr__(self, "held", MappingProxyType(dict(self.held)))

    def held_in(self, context: str) -> list[tuple[DriftKey, Held]]:
        """The held fields of one target, by object and field."""
        return sorted(
            ((k, h) for k, h in self.held.items() if k.context == context),
            key=lambda kh: (kh[0].kind != Kind.STREAM, kh[0].stream or "", kh[0].name, kh[0].field),
        )

    def of(self, context: str, kind: str, stream: str | None, name: str, path: str) -> Author | None:
        return self.authors.get(DriftKey(context, kind, stream if kind == Kind.CONSUMER else None, name, path))

    def merged(self, other: Attribution) -> Attribution:
        return Attribution(
            {**self.authors, **other.authors}, max(self.read_at, other.read_at), {**self.held, **other.held}
        )

    def with_held(self, context: str, held: Mapping[tuple[tuple[str, str | None, str], str], Held]) -> Attribution:
        """These authors with one target's held fields."""
        keyed = {DriftKey(context, kind, stream, name, path): h for ((kind, stream, name), path), h in held.items()}
        return Attribution(self.authors, self.read_at, {**self.held, **keyed})

    def __bool__(self) -> bool:
        return bool(self.authors) or bool(self.held)


NO_ATTRIBUTION = Attribution()


def _concerns(call: ApiCall, kind: str, stream: str | None, name: str) -> bool:
    if call.kind is None:
        return call.verb == Verb.DELETE  # an account purge deletes every object
    if kind == Kind.STREAM:
        return call.kind == Kind.STREAM and call.stream == name
    if call.kind == Kind.STREAM:
        return call.stream == stream and call.verb == Verb.DELETE  # a consumer goes with its stream
    return call.stream == stream and call.name == name


def _result(adv: Advisory, call: ApiCall, path: str) -> tuple[bool, object]:
    """Whether the write set ``path``, and the value it left there."""
    resp = adv.response or {}
    if call.verb in (Verb.CREATE, Verb.UPDATE):
        config = resp.get("config")
        if isinstance(config, dict):
            return True, config.get(path)
        body: object = adv.request or {}
        if call.kind == Kind.CONSUMER and isinstance(body, dict):
            body = body.get("config")
        return True, body.get(path) if isinstance(body, dict) else None
    if call.verb == Verb.PAUSE and path == "pause_until":
        return True, resp.get("pause_until") if resp.get("paused") else None
    return False, None


def _empty(v: object) -> bool:
    return v is None or v is False or v == 0 or v == "" or v == [] or v == {}


def _own_metadata(v: object) -> object:
    if not isinstance(v, dict):
        return v
    return {
        k: x
        for k, x in v.items()
        if not str(k).startswith("_nats.") and k not in BOOKKEEPING_KEYS and not is_bookkeeping(str(k))
    }


def same(path: str, a: object, b: object) -> bool:
    """Whether two server-JSON values of field ``path`` are the same setting (a zero value equals
    an absent one, subject lists compare as sets, server and jsops metadata keys are left out)."""
    if path == "metadata":
        a, b = _own_metadata(a), _own_metadata(b)
    if _empty(a) and _empty(b):
        return True
    if path in SET_FIELDS and isinstance(a, list) and isinstance(b, list):
        return {str(x) for x in a} == {str(x) for x in b}
    if isinstance(a, str) and isinstance(b, str) and a != b:
        ta, tb = parse_time(a), parse_time(b)
        return ta is not None and ta == tb
    return a == b


def _walk(
    advisories: Sequence[Advisory], kind: str, stream: str | None, name: str, path: str, live: object
) -> tuple[Advisory | None, bool]:
    """The write that brought ``live`` in (None: none in the record) and whether the walk found
    where it came in (an older write held another value, or the object was deleted before it)."""
    found: Advisory | None = None
    for adv in advisories:
        call = adv.call
        if call is None or adv.refused or not _concerns(call, kind, stream, name):
            continue
        if call.verb == Verb.DELETE:
            return found, True
        known, value = _result(adv, call, path)
        if not known:
            continue
        if not same(path, value, live):
            return found, True
        found = adv
    return found, False


def settled(advisories: Sequence[Advisory], kind: str, stream: str | None, name: str, path: str, live: object) -> bool:
    """Whether older advisories could not change :func:`attribute`'s answer."""
    return _walk(advisories, kind, stream, name, path, live)[1]


def attribute(
    advisories: Sequence[Advisory],
    kind: str,
    stream: str | None,
    name: str,
    path: str,
    live: object,
    *,
    since: datetime | None = None,
    own: Iterable[str] = (CLIENT_NAME,),
) -> Author | None:
    """Who produced the live value ``live`` of field ``path`` of the object, from ``advisories``
    (newest first; reads and other objects' writes are passed over). None: jsops itself (a
    connection named as one of ``own``), so the field has not drifted. ``since``: how far back the
    record reaches (default: its oldest advisory), said when the author is unknown."""
    found, _ = _walk(advisories, kind, stream, name, path, live)
    if found is None:
        oldest = min((a.at for a in advisories), default=None)
        return AuthorUnknown(since if since is not None else oldest)
    if found.client_name in set(own):
        return None
    return ChangedBy(found.user, found.account, found.client_name, found.host, found.at, found.subject)
