"""Drift attribution: who changed a field jsops manages, from the server's own API audit advisories
(issue 37, docs/drift.md).

- :mod:`~jsops.reconciler.drift.advisories`: the ``api_audit`` advisories as data, and which API
  subjects are writes;
- :mod:`~jsops.reconciler.drift.attribution`: the author of a drifted field's live value (pure);
- :mod:`~jsops.reconciler.drift.record`: the record stream of a target's account, read newest first,
  and what the controller's own subscription heard (:class:`Heard`).
"""

from __future__ import annotations

from .advisories import ADVISORY_SUBJECT, ADVISORY_TYPE, Advisory, ApiCall, Verb, classify, is_write, parse_advisory
from .attribution import (
    NO_ATTRIBUTION,
    Attribution,
    Author,
    AuthorUnknown,
    ChangedBy,
    DriftKey,
    attribute,
    rfc3339,
    settled,
)
from .held import IGNORE_DRIFT, Held, hold, ignore_drift_fields, ignored_in_estate, merged, unknown_fields
from .record import Drifted, Heard, RecordRead, attribute_drift, quarantined_fields, read_record, record_stream

__all__ = [
    "ADVISORY_SUBJECT",
    "ADVISORY_TYPE",
    "Advisory",
    "ApiCall",
    "Attribution",
    "Author",
    "AuthorUnknown",
    "ChangedBy",
    "DriftKey",
    "Heard",
    "Held",
    "IGNORE_DRIFT",
    "Drifted",
    "NO_ATTRIBUTION",
    "RecordRead",
    "Verb",
    "attribute",
    "attribute_drift",
    "classify",
    "hold",
    "ignore_drift_fields",
    "ignored_in_estate",
    "merged",
    "unknown_fields",
    "is_write",
    "parse_advisory",
    "quarantined_fields",
    "read_record",
    "record_stream",
    "rfc3339",
    "settled",
]
