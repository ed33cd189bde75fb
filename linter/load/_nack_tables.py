"""NACK's spelling of JetStream configs: the CRD field names and where each one lands in the
JetStream API config (derived from the field catalog, :mod:`jsops.linter.semantics.catalog`), NACK's enum spellings, the CRD defaults, and the kinds and fields jsops reads
but does not manage (nats-io/nack deploy/crds.yml, internal/controller/*_controller.go).

A table maps a NACK field to an API field name, to ``None`` (read elsewhere), to ``(outer, inner)``
(a flat NACK field nested in the API), or to ``(name, subtable)`` (a nested object or list)."""

from __future__ import annotations

from typing import Any

from ..semantics import catalog
from ..semantics.catalog import Record

__all__ = [
    "XFORM",
    "SOURCE",
    "CONNECTION",
    "STREAM",
    "CONSUMER",
    "KEY_VALUE",
    "OBJECT_STORE",
    "NACK_TABLES",
    "ENUMS",
    "DEFAULTS",
    "UNMANAGED",
    "PREVENT_DELETE",
    "PREVENT_UPDATE",
    "IGNORED_CONNECTION",
]


def _table(rec: Record) -> dict[str, Any]:
    """A catalog record as a NACK table: CRD name -> API field, or (API field, subtable) for a nested
    record; ExternalStream is spelled flat in NACK (``externalApiPrefix`` -> ``("external", "api")``)."""
    out: dict[str, Any] = {}
    for f in rec.fields:
        if f.record == "ExternalStream":
            out.update({sub.nack: (f.name, sub.name) for sub in catalog.record(f.record).fields if sub.nack})
        elif f.nack is None:
            continue
        elif f.record is not None:
            out[f.nack] = (f.name, _table(catalog.record(f.record)))
        else:
            out[f.nack] = f.name
    return out


XFORM = _table(catalog.SUBJECT_TRANSFORM)
SOURCE = _table(catalog.STREAM_SOURCE)
CONNECTION = ("preventDelete", "preventUpdate", "account", "creds", "nkey", "servers", "tls", "tlsFirst", "jsDomain")
STREAM: dict[str, Any] = _table(catalog.STREAM)
CONSUMER: dict[str, Any] = {"streamName": None, **_table(catalog.CONSUMER)}  # the stream is read elsewhere
NACK_TABLES: dict[tuple[str, tuple[str, ...]], dict[str, Any]] = {
    ("Stream", ()): STREAM,
    ("Consumer", ()): CONSUMER,
}


def _same(*values: str) -> dict[str, str]:
    return {v: v for v in values}


ENUMS: dict[tuple[str, str], dict[str, str]] = {
    ("Stream", "retention"): _same("limits", "interest", "workqueue"),
    ("Stream", "discard"): _same("old", "new"),
    ("Stream", "storage"): _same("file", "memory"),
    ("Stream", "compression"): _same("s2", "none"),
    ("Stream", "persistMode"): _same("default", "async"),
    ("Consumer", "ackPolicy"): _same("none", "all", "explicit"),
    ("Consumer", "deliverPolicy"): {
        "all": "all",
        "last": "last",
        "new": "new",
        "byStartSequence": "by_start_sequence",
        "byStartTime": "by_start_time",
        "lastPerSubject": "last_per_subject",
    },
    ("Consumer", "replayPolicy"): _same("instant", "original"),
    ("Consumer", "priorityPolicy"): _same("none", "pinned_client", "overflow", "prioritized"),
}
# CRD defaults that differ from what the server assumes for an absent field (nats-io/nack#136: ackWait 1ns).
DEFAULTS: dict[str, dict[str, Any]] = {
    "Stream": {"storage": "memory"},
    "Consumer": {"ack_policy": "none", "ack_wait": 1},
}


# NACK kinds jsops reads without managing them (StreamTemplate was removed from nats-server in 2.10;
# an Account is a connection, not an object). KeyValue and ObjectStore are buckets (jsops.linter.load.buckets).
UNMANAGED = ("StreamTemplate", "Account")
# NACK's per-object protection, kept as manifest annotations that plan, apply, prune and the controller read.
PREVENT_DELETE = "jsops.io/prevent-delete"
PREVENT_UPDATE = "jsops.io/prevent-update"
IGNORED_CONNECTION = ("servers", "creds", "nkey", "tls", "tlsFirst", "jsDomain")


KEY_VALUE: dict[str, Any] = _table(catalog.KEY_VALUE)
OBJECT_STORE: dict[str, Any] = _table(catalog.OBJECT_STORE)
