"""Audit snapshots: what a target held, kept between two audits to tell growth from a count.

``jsops audit --save-state FILE`` writes, per target, when it was read and each stream's and
consumer's counters; ``jsops audit --baseline FILE`` reads such a file and hands each target its
previous snapshot (:attr:`AuditState.baseline`), so that live rules can compare (JS515: a backlog
that grows). The file is JSON::

    {"jsops_audit_state": 1,
     "targets": [{"target": "nats://host:4222", "read_at": 1768046400.0,
                  "streams": {"ORDERS": {"messages": 10, "bytes": 990, "last_seq": 10}},
                  "consumers": {"ORDERS": {"shipper": {"num_pending": 4, "num_ack_pending": 1}}}}]}

A baseline is the user's input: it is read within a size bound and its shape checked; a file that
is not one is an error naming the file and what is wrong (exit 2), never a traceback.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..errors import ReconcilerError

__all__ = [
    "Snapshot",
    "SnapshotError",
    "snapshot_of",
    "save_snapshots",
    "load_snapshots",
    "baseline_for",
    "MAX_SNAPSHOT_BYTES",
]

FORMAT = 1
MAX_SNAPSHOT_BYTES = 256 * 1024 * 1024  # a snapshot of 100,000 consumers is about 10 MB


class SnapshotError(ReconcilerError):
    """A ``--baseline`` file that cannot be read or is not an audit snapshot."""


@dataclass
class Snapshot:
    """One target's counters at ``read_at`` (epoch seconds)."""

    target: str
    read_at: float
    streams: dict[str, dict[str, int]] = field(default_factory=dict)
    consumers: dict[tuple[str, str], dict[str, int]] = field(default_factory=dict)


_STREAM_KEYS = ("messages", "bytes", "last_seq")
_CONSUMER_KEYS = ("num_pending", "num_ack_pending")


def _int(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _counters(source: Mapping[str, Any], keys: Sequence[str]) -> dict[str, int]:
    return {k: v for k in keys if (v := _int(source.get(k))) is not None}


class Read(Protocol):
    """What a snapshot is taken of: one audit's read of a target (:class:`jsops.reconciler.audit.read.AuditState`,
    which holds the previous snapshot as its baseline, so it is the one that imports this module)."""

    @property
    def read_at(self) -> float: ...

    @property
    def streams(self) -> Mapping[str, Mapping[str, Any]]: ...  # stream name -> {"state": StreamState, ...}

    @property
    def consumers(self) -> Mapping[tuple[str, str], Mapping[str, Any]]: ...  # (stream, consumer) -> ConsumerInfo


def snapshot_of(target: str, state: Read) -> Snapshot:
    """The counters of what ``state`` read from ``target``."""
    snap = Snapshot(target, state.read_at)
    for name, parts in state.streams.items():
        snap.streams[name] = _counters(parts.get("state") or {}, _STREAM_KEYS)
    for key, info in state.consumers.items():
        snap.consumers[key] = _counters(info, _CONSUMER_KEYS)
    return snap


def _to_json(snap: Snapshot) -> dict[str, Any]:
    consumers: dict[str, dict[str, dict[str, int]]] = {}
    for (stream, name), counters in sorted(snap.consumers.items()):
        consumers.setdefault(stream, {})[name] = counters
    return {
        "target": snap.target,
        "read_at": snap.read_at,
        "streams": dict(sorted(snap.streams.items())),
        "consumers": consumers,
    }


def save_snapshots(path: str, snapshots: Sequence[Snapshot]) -> None:
    """Write ``snapshots`` to ``path`` (replaced whole: written beside it, then renamed)."""
    text = json.dumps(
        {"jsops_audit_state": FORMAT, "targets": [_to_json(s) for s in snapshots]},
        separators=(",", ":"),
        sort_keys=False,
    )
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text + "\n")
        os.replace(tmp, path)
    except OSError as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise SnapshotError(f"{path}: cannot write the audit state: {exc.strerror or exc}") from None


def _bad(path: str, what: str) -> SnapshotError:
    return SnapshotError(f"{path}: not a jsops audit state (written by jsops audit --save-state): {what}")


def _table(path: str, value: Any, where: str, keys: Sequence[str]) -> dict[str, int]:
    if not isinstance(value, dict):
        raise _bad(path, f"{where} is not an object")
    out = {}
    for k in keys:
        if k in value:
            v = _int(value[k])
            if v is None:
                raise _bad(path, f"{where}.{k} is not an integer")
            out[k] = v
    return out


def _from_json(path: str, i: int, raw: Any) -> Snapshot:
    where = f"targets[{i}]"
    if (
        not isinstance(raw, dict)
        or not isinstance(raw.get("target"), str)
        or not isinstance(raw.get("read_at"), (int, float))
    ):
        raise _bad(path, f"{where} needs a target (string) and read_at (number)")
    snap = Snapshot(raw["target"], float(raw["read_at"]))
    streams, consumers = raw.get("streams") or {}, raw.get("consumers") or {}
    if not isinstance(streams, dict) or not isinstance(consumers, dict):
        raise _bad(path, f"{where}.streams and .consumers are objects")
    for name, counters in streams.items():
        snap.streams[name] = _table(path, counters, f"{where}.streams.{name}", _STREAM_KEYS)
    for stream, by_name in consumers.items():
        if not isinstance(by_name, dict):
            raise _bad(path, f"{where}.consumers.{stream} is not an object")
        for name, counters in by_name.items():
            snap.consumers[(stream, name)] = _table(
                path, counters, f"{where}.consumers.{stream}.{name}", _CONSUMER_KEYS
            )
    return snap


def load_snapshots(path: str) -> list[Snapshot]:
    """The snapshots of a ``--save-state`` file (a regular file, at most :data:`MAX_SNAPSHOT_BYTES`)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as fh:
            import stat

            if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                raise SnapshotError(f"{path}: not a regular file")
            data = fh.read(MAX_SNAPSHOT_BYTES + 1)
    except OSError as exc:
        raise SnapshotError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if len(data) > MAX_SNAPSHOT_BYTES:
        raise _bad(path, f"larger than {MAX_SNAPSHOT_BYTES // (1024 * 1024)} MiB")
    try:
        doc = json.loads(data)
    except (ValueError, UnicodeDecodeError) as exc:
        raise _bad(path, f"invalid JSON ({exc})") from None
    if not isinstance(doc, dict) or doc.get("jsops_audit_state") != FORMAT or not isinstance(doc.get("targets"), list):
        raise _bad(path, f'no "jsops_audit_state": {FORMAT} with a list of targets')
    return [_from_json(path, i, t) for i, t in enumerate(doc["targets"])]


def baseline_for(target: str, snapshots: Sequence[Snapshot], targets: int) -> Snapshot | None:
    """The snapshot of ``target``: the one named so, or the only one when one target is audited."""
    named = next((s for s in snapshots if s.target == target), None)
    if named is None and targets == 1 and len(snapshots) == 1:
        return snapshots[0]
    return named
