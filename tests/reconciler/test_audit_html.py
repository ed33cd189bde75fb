"""``jsops audit --html``: the report page's live section (golden), its content, and the page drawn
by a real headless Chromium (the live table's fill meters have the widths of the figures).

Regenerate the golden page after an intended change, then review the diff:

    JSOPS_UPDATE_GOLDEN=1 .venv/bin/pytest tests/reconciler/test_audit_html.py
"""

from __future__ import annotations

import html
import json
import os
import re
from pathlib import Path

import pytest

from jsops.linter.config import Config
from jsops.linter.engine import discover_rules
from jsops.linter.report.html import render_html
from jsops.reconciler.audit.html import audit_report, live_section
from jsops.reconciler.audit.registry import select_live
from jsops.reconciler.audit.run import audit_result

from ..linter.test_report_html import _chromium, needs_chromium
from .test_audit_unit import golden_state, state_of, stream_info

GOLDEN = Path(__file__).parent / "golden" / "audit.html"
WHERE = "nats://nats.example.com:4222"


def _page() -> str:
    st = golden_state()
    result = audit_result(st, Config(), discover_rules(), select_live({}))
    return render_html(audit_report([(WHERE, st, result)], result))


def test_audit_html_golden() -> None:
    page = _page()
    if os.environ.get("JSOPS_UPDATE_GOLDEN") == "1":
        GOLDEN.write_text(page, encoding="utf-8")
    assert page == GOLDEN.read_text(encoding="utf-8"), (
        f"{GOLDEN} differs; if the change is intended, rerun with JSOPS_UPDATE_GOLDEN=1 and review the diff"
    )


def test_live_section_lists_the_unhealthy_objects_only() -> None:
    st = golden_state()
    result = audit_result(st, Config(), discover_rules(), select_live({}))
    live = live_section(WHERE, st, result.findings)
    assert [(o.kind, o.stream, o.name) for o in live.objects] == [
        ("Stream", "FULL", "FULL"),
        ("Consumer", "WORK", "retrying"),
        ("Consumer", "WORK", "stalled"),
    ]
    full, retrying, stalled = live.objects
    assert (full.messages, full.max_msgs, full.fill) == (96, 100, 0.96)
    assert (stalled.ack_pending, stalled.max_ack_pending, stalled.fill) == (5, 5, 1.0)
    assert retrying.redelivered == 10 and {r.rule for r in retrying.findings} == {"JS507"}
    assert all(
        r.rule.startswith("JS5") for o in live.objects for r in o.findings
    )  # static findings stay in the findings section
    assert live.healthy == 6 - 3 and (live.streams, live.consumers, live.server_version) == (3, 3, "2.15.1")
    page = render_html(audit_report([(WHERE, st, result)], result))
    assert page.count('<tr class="warning">') == 3 and "CALM" not in page.split('<section class="findings">')[0]
    assert "<script" not in page.lower()


def test_a_clean_target_says_so() -> None:
    st = state_of([stream_info("CALM", max_msgs=10_000, duplicate_window=60_000_000_000)])
    result = audit_result(st, Config(), discover_rules(), select_live({}))
    page = render_html(audit_report([(WHERE, st, result)], result))
    assert "No live-state finding" in page and '<table class="live">' not in page


def test_hostile_names_are_escaped_in_the_live_section() -> None:
    name = "<script>alert(1)</script>"
    st = state_of([stream_info(name, messages=99, max_msgs=100)])
    result = audit_result(st, Config(), discover_rules(), select_live({}))
    page = render_html(audit_report([(WHERE, st, result)], result))
    assert name not in page and html.escape(name) in page


_MEASURE = """<script>
const rows = [...document.querySelectorAll('table.live tbody tr')].map(tr => {
  const meter = tr.querySelector('.meter'), bar = tr.querySelector('.meter i');
  return {label: tr.querySelector('td b').textContent, h: tr.getBoundingClientRect().height,
          meter: meter ? meter.getBoundingClientRect().width : null, bar: bar ? bar.getBoundingClientRect().width : null,
          color: bar ? getComputedStyle(bar).backgroundColor : null};
});
const pre = document.createElement('pre');
pre.id = 'geometry';
pre.textContent = JSON.stringify({rows, live: document.querySelector('section.live').getBoundingClientRect().height});
document.body.appendChild(pre);
</script>"""


@needs_chromium
def test_chromium_draws_the_live_section(tmp_path: Path) -> None:
    probe = tmp_path / "probe.html"
    page = _page()
    probe.write_text(
        re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", page).replace("</body>", _MEASURE + "</body>"),
        encoding="utf-8",
    )
    dom = _chromium(tmp_path, probe.as_uri(), "--dump-dom").stdout
    m = re.search(r'<pre id="geometry">(.*?)</pre>', dom, re.S)
    assert m, "the measurement did not run"
    geom = json.loads(html.unescape(m.group(1)))
    rows = {r["label"]: r for r in geom["rows"]}
    assert list(rows) == ["Stream FULL", "Consumer WORK/retrying", "Consumer WORK/stalled"]
    assert geom["live"] > 100 and all(r["h"] > 10 for r in rows.values())
    full, stalled = rows["Stream FULL"], rows["Consumer WORK/stalled"]
    assert full["meter"] == pytest.approx(120, abs=1)
    assert full["bar"] == pytest.approx(0.96 * full["meter"], abs=1.5)  # 96 of max_msgs 100
    assert stalled["bar"] == pytest.approx(stalled["meter"], abs=1)  # 5 of max_ack_pending 5
    assert rows["Consumer WORK/retrying"]["bar"] is not None
    assert full["color"] != "rgba(0, 0, 0, 0)"  # drawn, in the warning colour


@pytest.mark.integration
def test_audit_html_on_a_real_server(tmp_path: Path) -> None:
    """``jsops audit --html`` on the seeded server: the live table names exactly the unhealthy objects;
    stdout and the exit code are the audit's as without the flag."""
    import contextlib
    import io

    from jsops.reconciler.audit.cli import main

    from .audit_seed import seed_unhealthy_and_healthy
    from .helpers import Js, NatsServer

    with NatsServer() as server:
        js = Js(server.url)
        try:
            seed_unhealthy_and_healthy(js)
        finally:
            js.close()
        page_path = tmp_path / "audit.html"
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = main(["--no-config", "-s", server.url, "--format", "json", "--html", str(page_path)])
    assert rc == 1, err.getvalue()
    assert json.loads(out.getvalue())["findings"]  # stdout is the JSON report, as without --html
    page = page_path.read_text(encoding="utf-8")
    live = page.split('<table class="live">', 1)[1].split("</table>", 1)[0]
    assert re.findall(r"<td><b>([^<]+)</b></td>", live) == [
        "Stream FULL",
        "Consumer WORK/retrying",
        "Consumer WORK/stalled",
    ]
    assert re.search(r"nats-server 2\.\d+\.\d+, read \d{4}-", page)  # the release the server told, when it was read
