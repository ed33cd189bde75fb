"""No tug-of-war: the controller stops healing a field another client keeps changing back (pure).

Each round, every drifted field the controller is about to heal whose author the audit record
names (:mod:`jsops.reconciler.drift.attribution`; never jsops itself) counts one change by that
author, once per change (its time). When the same author has changed the same field of the same
object ``threshold`` times within ``window`` seconds, the field is *quarantined*: it is held at
its live value (:mod:`jsops.reconciler.drift.held`) and no longer healed; everything else is
reconciled as before. A quarantine ends when the manifest's value of that field changes, or when an
operator clears the state (the controller keeps it in JetStream: :mod:`jsops.reconciler.controller.tugs`).

:class:`TugState` is the whole state, as JSON (``to_json`` / ``from_json``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from .advisories import parse_time
from .attribution import ChangedBy, rfc3339
from .held import ObjectKey

__all__ = ["BUCKET", "KEY", "Quarantine", "TugState", "field_id", "manifest_values"]

BUCKET = "JSOPS_DRIFT"  # the controller's KV bucket on each target (jsops.reconciler.controller.tugs)
KEY = "tugs"  # the key holding a TugState's JSON


def field_id(key: ObjectKey, path: str) -> str:
    """One field of one object as a string key: ``Stream//ORDERS/max_age``, ``Consumer/ORDERS/C1/max_deliver``."""
    kind, stream, name = key
    return f"{kind}/{stream or ''}/{name}/{path}"


def _key(fid: str) -> tuple[ObjectKey, str]:
    kind, stream, name, path = fid.split("/", 3)
    return (kind, stream or None, name), path


def _author(who: ChangedBy) -> str:
    return json.dumps([who.account, who.user, who.client_name], separators=(",", ":"))


@dataclass(frozen=True)
class Quarantine:
    """A field the controller no longer heals: who keeps changing it (``user``, ``account``,
    ``client_name``, ``host``), how often within the window, since when, and the manifest's value
    then (JSON text; a different value ends the quarantine)."""

    user: str
    account: str
    client_name: str
    host: str
    changes: int
    since: datetime
    manifest: str

    def describe(self) -> str:
        who = self.client_name or "an unnamed connection"
        return f"changed back {self.changes} times by {who} (user {self.user or '-'}, {self.host or '-'}); not healed"

    def to_json(self) -> dict[str, object]:
        return {
            "user": self.user,
            "account": self.account,
            "client_name": self.client_name,
            "host": self.host,
            "changes": self.changes,
            "since": rfc3339(self.since),
            "manifest": self.manifest,
        }

    @classmethod
    def from_json(cls, doc: Mapping[str, object]) -> Quarantine | None:
        since = parse_time(str(doc.get("since", "")))
        changes = doc.get("changes")
        if since is None or not isinstance(changes, int):
            return None
        text = {k: str(doc.get(k) or "") for k in ("user", "account", "client_name", "host", "manifest")}
        return cls(text["user"], text["account"], text["client_name"], text["host"], changes, since, text["manifest"])


@dataclass(frozen=True)
class TugState:
    """The changes counted per field and author (their times, RFC 3339), and the quarantined fields."""

    changes: Mapping[str, Mapping[str, tuple[str, ...]]] = field(default_factory=dict)  # field id -> author -> times
    quarantined: Mapping[str, Quarantine] = field(default_factory=dict)  # field id -> quarantine

    def held(self) -> dict[ObjectKey, dict[str, str]]:
        """The quarantined fields as :func:`jsops.reconciler.drift.held.hold` takes them."""
        out: dict[ObjectKey, dict[str, str]] = {}
        for fid, q in self.quarantined.items():
            key, path = _key(fid)
            out.setdefault(key, {})[path] = f"quarantined: {q.describe()}"
        return out

    def released(self, manifest: Mapping[str, str]) -> tuple[TugState, list[str]]:
        """This state without the quarantines whose field's manifest value (``manifest``: field id ->
        JSON text, for the objects the manifests declare) changed or whose object left the manifests."""
        gone = [fid for fid, q in self.quarantined.items() if manifest.get(fid) != q.manifest]
        if not gone:
            return self, []
        kept = {fid: q for fid, q in self.quarantined.items() if fid not in gone}
        changes = {fid: a for fid, a in self.changes.items() if fid not in gone}
        return TugState(changes, kept), gone

    def observe(
        self,
        authors: Mapping[str, ChangedBy],
        manifest: Mapping[str, str],
        now: datetime,
        *,
        threshold: int,
        window: float,
    ) -> tuple[TugState, list[str]]:
        """Count the changes named by ``authors`` (field id -> the author of its live value, for the
        fields about to be healed); the new state and the fields newly quarantined."""
        floor = now - timedelta(seconds=window)
        changes: dict[str, dict[str, tuple[str, ...]]] = {}
        for fid, per in self.changes.items():
            for author, times in per.items():
                recent = tuple(t for t in times if (parse_time(t) or floor) > floor)
                if recent:
                    changes.setdefault(fid, {})[author] = recent
        quarantined = dict(self.quarantined)
        new: list[str] = []
        for fid, who in authors.items():
            if fid in quarantined or who.at <= floor:
                continue
            times = changes.setdefault(fid, {}).get(_author(who), ())
            stamp = rfc3339(who.at)
            if stamp not in times:
                times = (*times, stamp)
                changes[fid][_author(who)] = times
            if threshold > 0 and len(times) >= threshold:
                quarantined[fid] = Quarantine(
                    who.user, who.account, who.client_name, who.host, len(times), now, manifest.get(fid, "")
                )
                new.append(fid)
        return TugState(changes, quarantined), new

    def to_json(self) -> dict[str, object]:
        return {
            "changes": {
                fid: {who: list(times) for who, times in per.items()} for fid, per in sorted(self.changes.items())
            },
            "quarantined": {fid: q.to_json() for fid, q in sorted(self.quarantined.items())},
        }

    @classmethod
    def from_json(cls, doc: object) -> TugState:
        """The state read back (what cannot be read is dropped: a broken state heals again)."""
        if not isinstance(doc, dict):
            return cls()
        changes: dict[str, dict[str, tuple[str, ...]]] = {}
        raw = doc.get("changes")
        for fid, per in raw.items() if isinstance(raw, dict) else ():
            if isinstance(per, dict):
                changes[str(fid)] = {str(w): tuple(str(t) for t in ts) for w, ts in per.items() if isinstance(ts, list)}
        quarantined: dict[str, Quarantine] = {}
        raw = doc.get("quarantined")
        for fid, q in raw.items() if isinstance(raw, dict) else ():
            read = Quarantine.from_json(q) if isinstance(q, dict) else None
            if read is not None and str(fid).count("/") >= 3:
                quarantined[str(fid)] = read
        return cls(changes, quarantined)


def manifest_values(values: Iterable[tuple[ObjectKey, str, object]]) -> dict[str, str]:
    """Field id -> the manifest's value as canonical JSON text."""
    return {
        field_id(key, path): json.dumps(value, sort_keys=True, separators=(",", ":")) for key, path, value in values
    }
