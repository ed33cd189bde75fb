"""Drift attribution: who changed a field jsops manages, from the server's own API audit advisories
(issue 37, docs/drift.md).

- :mod:`~jsops.reconciler.drift.advisories`: the ``api_audit`` advisories as data, and which API
  subjects are writes;
- :mod:`~jsops.reconciler.drift.attribution`: the author of a drifted field's live value (pure);
- :mod:`~jsops.reconciler.drift.record`: the record stream of a target's account, read newest first.
"""

from __future__ import annotations

from .advisories import ADVISORY_SUBJECT, ADVISORY_TYPE, Advisory, ApiCall, Verb, classify, is_write, parse_advisory
from .attribution import NO_ATTRIBUTION, Attribution, Author, AuthorUnknown, ChangedBy, DriftKey, attribute, rfc3339, settled
from .record import Drifted, RecordRead, attribute_drift, read_record, record_stream

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
    "Drifted",
    "NO_ATTRIBUTION",
    "RecordRead",
    "Verb",
    "attribute",
    "attribute_drift",
    "classify",
    "is_write",
    "parse_advisory",
    "read_record",
    "record_stream",
    "rfc3339",
    "settled",
]
