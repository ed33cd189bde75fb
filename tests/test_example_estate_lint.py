"""The example estate in manifests/ loads cleanly and lints without findings."""

from __future__ import annotations

from pathlib import Path

import linter

MANIFESTS = str(Path(__file__).resolve().parent.parent / "manifests")

EXPECTED = {
    "ORDERS": {"order-projection", "fraud-check", "analytics-export"},
    "PAYMENTS": {"payment-gateway", "refunds"},
    "SHIPPING": {"label-printer", "carrier-tracker"},
    "INVENTORY": {"stock-cache", "reservation-expiry"},
    "NOTIFICATIONS": {"email-sender", "sms-sender"},
    "DLQ": {"dlq-triage"},
}


def test_estate_loads_with_expected_objects() -> None:
    estate = linter.load_paths([MANIFESTS])
    assert estate.findings == []
    streams = {r.name for r in estate.streams()}
    assert streams == set(EXPECTED)
    consumers: dict[str, set[str]] = {}
    for r in estate.consumers():
        consumers.setdefault(r.stream or "", set()).add(r.name)
    assert consumers == EXPECTED
    assert len(list(estate.consumers())) == sum(len(v) for v in EXPECTED.values()) == 12
    assert all(r.dialect == "native" for r in estate.resources)
    # one file per stream, holding the stream and its consumers
    for r in estate.resources:
        owner = r.name if r.kind == "Stream" else r.stream
        assert Path(r.file).stem == (owner or "").lower(), r.file


def test_estate_lints_clean() -> None:
    result = linter.lint_paths([MANIFESTS])
    assert result.findings == []
    assert result.objects == 18
    assert result.files == 6
