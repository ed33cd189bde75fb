"""The example estate in manifests/ loads cleanly and lints without findings."""

from __future__ import annotations

from pathlib import Path

from jsops import linter

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
    streams = {r.name for r in estate.streams() if not r.bucket}
    assert streams == set(EXPECTED)
    # one Key-Value bucket, loaded as the stream the client builds for it
    assert [(r.bucket, r.name) for r in estate.streams() if r.bucket] == [("KeyValue", "KV_carts")]
    consumers: dict[str, set[str]] = {}
    for r in estate.consumers():
        consumers.setdefault(r.stream or "", set()).add(r.name)
    assert consumers == EXPECTED
    assert len(list(estate.consumers())) == sum(len(v) for v in EXPECTED.values()) == 12
    assert all(r.dialect == "native" for r in estate.resources)
    # one file per stream, holding the stream and its consumers
    for r in estate.resources:
        owner = r.name if r.kind == "Stream" else r.stream
        if r.bucket:
            owner = owner.split("_", 1)[1] if owner else owner
        assert Path(r.file).stem == (owner or "").lower(), r.file


# The operational rules (JS401-JS429) find the estate's deliberate smells that need no profile:
# label-printer has no max_deliver, and PAYMENTS (workqueue, discard new, max_msgs) has consumers
# that give up after fewer than 10 deliveries (Insights OPT_SYS_024).
EXPECTED_OPS = {
    ("JS405", "SHIPPING", "label-printer"),
    ("JS408", "PAYMENTS", "payment-gateway"),
    ("JS408", "PAYMENTS", "refunds"),
}


def _ops(code: str) -> bool:
    return code.startswith("JS4") and 401 <= int(code[2:]) <= 429


def test_estate_lints_clean() -> None:
    result = linter.lint_paths([MANIFESTS])
    ops = [f for f in result.findings if _ops(f.rule)]
    assert {(f.rule, f.object.stream, f.object.name) for f in ops if f.object} == EXPECTED_OPS
    assert len(ops) == len(EXPECTED_OPS)
    assert all(f.severity.value == "warning" for f in ops)
    assert [f for f in result.findings if not _ops(f.rule)] == []
    assert result.objects == 19
    assert result.files == 7
