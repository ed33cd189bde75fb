"""The HTML report tells the truth: a card with findings never shows a green "ok"; a p99 above the
measured peak is left out, not shown beside it; measured and estimated byte rates sit in separate
columns; fill times from a short window say how short; file:line:col never wraps."""

from __future__ import annotations

from pathlib import Path

from jsops.linter.model.profiles import StreamProfile
from jsops.linter.report._html_model import _with_findings, stream_rates

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = (ROOT / "linter" / "report" / "templates" / "report.html.j2").read_text()


def test_a_card_with_findings_is_never_ok() -> None:
    assert _with_findings("ok", 0) == "ok"
    assert _with_findings("ok", 2) == "findings"
    assert _with_findings("bad", 2) == "bad" and _with_findings("nodata", 1) == "nodata"
    assert "'findings': 'see findings'" in TEMPLATE and "'warn' if status == 'findings'" in TEMPLATE


def test_p99_above_the_peak_is_left_out() -> None:
    prof = StreamProfile.model_validate(
        {"ingest": {"messages": 100, "mean_per_s": 2.0, "p99_per_s": 50.0, "peak_per_s": 40}}
    )
    rates = {r.label: r for r in stream_rates(prof)}
    assert rates["p99"].msgs_per_s is None and "above the measured peak" in rates["p99"].note
    assert rates["peak"].msgs_per_s == 40.0 and rates["peak"].note == ""
    fine = {
        r.label: r
        for r in stream_rates(
            StreamProfile.model_validate(
                {"ingest": {"messages": 100, "mean_per_s": 2.0, "p99_per_s": 30.0, "peak_per_s": 40}}
            )
        )
    }
    assert fine["p99"].msgs_per_s == 30.0 and fine["p99"].note == ""


def test_locations_never_wrap_and_rates_are_kept_apart() -> None:
    assert "td.loc { color: var(--muted); text-align: right; white-space: nowrap;" in TEMPLATE
    assert ".where { white-space: nowrap; }" in TEMPLATE
    golden = (ROOT / "tests" / "golden" / "report" / "report.html").read_text()
    assert "<th>bytes (measured)</th><th>≈ bytes (estimated)</th>" in golden
    assert '<td class="nodata">no data</td><td>≈200 KiB/s</td>' in golden  # the estimate is not in the measured column
    assert "profile window: a short window" in golden  # the small estate's profile covers 1h
