"""``jsops report --html``: the data model (known figures), the page (golden, escaping, "no data"),
the command's exit codes, and the page drawn by a real headless Chromium.

Regenerate the golden page after an intended change, then look at the diff (and at a screenshot):

    JSOPS_UPDATE_GOLDEN=1 .venv/bin/pytest tests/linter/test_report_html.py
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import markupsafe
import pytest

from jsops.linter.api import RuleContext
from jsops.linter.cli.report import main
from jsops.linter.config import Config
from jsops.linter.engine import lint_estate
from jsops.linter.load import load_paths
from jsops.linter.model.profiles import StreamProfile, load_profiles
from jsops.linter.report._html_charts import consumer_chart, fmt_duration, stream_chart
from jsops.linter.report._html_model import AckPoint, ack_exceed, ack_points, build_report, fill_times, stream_rates
from jsops.linter.report.html import render_html, report_from_paths
from jsops.linter.testing import manifest

ROOT = Path(__file__).resolve().parents[2]
FIX = "tests/fixtures/report"
SMALL = f"{FIX}/small"
SMALL_PROFILES = f"{FIX}/small-profiles.json"
SMALL_CONFIG = f"{FIX}/small-jsops.yaml"
EXAMPLE_PROFILES = f"{FIX}/example-profiles.json"
GOLDEN = ROOT / "tests" / "golden" / "report" / "report.html"
UPDATE = os.environ.get("JSOPS_UPDATE_GOLDEN") == "1"
S = 1_000_000_000
MIB = 1 << 20


@pytest.fixture(autouse=True)
def _cwd(monkeypatch):
    monkeypatch.chdir(ROOT)


def _small_report():
    from jsops.linter.config import load_config

    return report_from_paths([SMALL], profiles_path=SMALL_PROFILES, config=load_config(SMALL_CONFIG))


# --- the data model: known figures ---------------------------------------------------------------


def _points(*secs: float) -> tuple[AckPoint, ...]:
    labels = (("p50", 0.5), ("p90", 0.9), ("p99", 0.99), ("p99.9", 0.999), ("max", 1.0))
    return tuple(AckPoint(label, q, int(s * S)) for (label, q), s in zip(labels, secs, strict=True))


@pytest.mark.parametrize(
    ("ack_wait_s", "low", "high", "some"),
    [
        (0.5, 0.5, 1.0, True),  # under p50: more than half are slower
        (1.0, 0.1, 0.5, True),  # exactly p50: p50 is within, p90 is not
        (3.0, 0.01, 0.1, True),  # between p90 and p99
        (10.0, 0.0, 0.001, True),  # between p99.9 and max: some, at most 0.1%
        (16.0, 0.0, 0.0, False),  # max itself: none slower
        (20.0, 0.0, 0.0, False),
    ],
)
def test_ack_exceed_bounds_from_percentiles(ack_wait_s, low, high, some):
    got = ack_exceed(_points(1, 2, 4, 8, 16), int(ack_wait_s * S))
    assert (got.low, got.high, got.some) == (low, high, some)


def test_ack_points_keep_profile_order_and_values():
    prof = load_profiles(SMALL_PROFILES).consumer("SHOP", "slow")
    pts = ack_points(prof.ack_time_ns)
    assert [(p.label, p.quantile, p.ns) for p in pts] == [
        ("p50", 0.5, 800_000_000),
        ("p90", 0.9, 1_900_000_000),
        ("p99", 0.99, 3_500_000_000),
        ("p99.9", 0.999, 6_000_000_000),
        ("max", 1.0, 9_000_000_000),
    ]
    assert ack_points(None) == ()
    assert ack_exceed((), S) is None


def test_stream_rates_and_fill_times_contract_example():
    # The contract §4 example stream: 13.9/240/410 msg/s, 7100 B/s mean, 210000 B/s peak, 512 B mean.
    prof = StreamProfile.model_validate(
        {
            "ingest": {"messages": 1_200_000, "mean_per_s": 13.9, "p99_per_s": 240.0, "peak_per_s": 410},
            "bytes": {"mean_per_s": 7100.0, "peak_per_s": 210000, "stored_msg_size_mean": 512.0},
        }
    )
    rates = stream_rates(prof)
    assert [(r.label, r.msgs_per_s, r.bytes_per_s, r.bytes_estimated) for r in rates] == [
        ("mean", 13.9, 7100.0, False),
        ("p99", 240.0, 240.0 * 512, True),  # no p99 bytes figure: messages x mean size, marked
        ("peak", 410.0, 210000.0, False),
    ]
    fills = fill_times(rates, 256 * MIB, 1_000_000, 30 * 86400 * S)
    got = {(f.limit, f.rate): f for f in fills}
    assert got[("max_bytes", "mean")].seconds == pytest.approx(256 * MIB / 7100.0)  # 37,807 s = 10.5 h
    assert got[("max_bytes", "p99")].seconds == pytest.approx(256 * MIB / 122880.0)  # 2,184.5 s
    assert got[("max_bytes", "p99")].estimated
    assert got[("max_bytes", "peak")].seconds == pytest.approx(256 * MIB / 210000.0)
    assert got[("max_msgs", "mean")].seconds == pytest.approx(1_000_000 / 13.9)  # 71,942 s = 20 h
    assert all(f.before_max_age for f in fills)
    # a week of max_age outlasts nothing here; a 1 h max_age expires messages first at the mean
    late = {(f.limit, f.rate): f.before_max_age for f in fill_times(rates, 256 * MIB, 1_000_000, 3600 * S)}
    assert late[("max_bytes", "mean")] is False and late[("max_bytes", "peak")] is True
    assert late[("max_msgs", "mean")] is False and late[("max_msgs", "p99")] is False  # 4,167 s > 3,600 s


def test_an_estimated_p99_byte_rate_never_exceeds_the_measured_peak():
    # 240 msg/s x 2000 B mean = 480,000 B/s, above the measured 210,000 B/s peak (the samples differ)
    prof = StreamProfile.model_validate(
        {
            "ingest": {"messages": 1_200_000, "mean_per_s": 13.9, "p99_per_s": 240.0, "peak_per_s": 410},
            "bytes": {"mean_per_s": 7100.0, "peak_per_s": 210000, "stored_msg_size_mean": 2000.0},
        }
    )
    p99 = stream_rates(prof)[1]
    assert p99.label == "p99" and p99.bytes_per_s == 210000.0 and p99.bytes_estimated
    assert "above the measured peak" in p99.note
    assert all(r.bytes_per_s is None or r.bytes_per_s <= 210000.0 for r in stream_rates(prof))


def test_missing_figures_are_none_never_zero():
    prof = StreamProfile.model_validate({"ingest": {"messages": 10, "mean_per_s": 0.0}})
    rates = stream_rates(prof)
    assert [(r.msgs_per_s, r.bytes_per_s) for r in rates] == [(0.0, None), (None, None), (None, None)]
    fills = fill_times(rates, 1024, 100, None)
    states = {(f.limit, f.rate): (f.state, f.seconds) for f in fills}
    assert states[("max_msgs", "mean")] == ("never", None)  # a measured 0/s never fills
    assert states[("max_msgs", "p99")] == ("nodata", None)
    assert states[("max_bytes", "mean")] == ("nodata", None)  # no size figure: no bytes rate at all
    assert [(r.msgs_per_s, r.bytes_per_s) for r in stream_rates(None)] == [(None, None)] * 3
    assert fill_times(stream_rates(None), None, None, S) == ()  # no size limits: nothing to fill


def test_build_report_small_estate():
    data = _small_report()
    assert [s.name for s in data.streams] == ["EVENTS", "SHOP"]
    events, shop = data.streams
    assert events.fills == () and events.max_bytes is None and events.status == "nodata"
    assert (shop.max_age_ns, shop.max_bytes, shop.max_msgs) == (7 * 86400 * S, 10 << 30, 20_000_000)
    fills = {(f.limit, f.rate): f for f in shop.fills}
    assert fills[("max_bytes", "mean")].seconds == pytest.approx((10 << 30) / 10240.0)  # 12.1 d > 7 d
    assert fills[("max_bytes", "mean")].before_max_age is False
    assert fills[("max_bytes", "peak")].seconds == pytest.approx((10 << 30) / (400 * 512.0))  # est., 14.6 h
    assert fills[("max_bytes", "peak")].estimated and fills[("max_bytes", "peak")].before_max_age
    assert fills[("max_msgs", "p99")].state == "nodata"  # the profile has no p99_per_s
    assert shop.status == "warn"
    c = {x.name: x for x in shop.consumers}
    assert list(c) == ["fast", "firehose", "quiet", "slow"]
    assert (c["slow"].ack_wait_ns, c["slow"].backoff_ns) == (2 * S, (2 * S, 10 * S, 30 * S, 60 * S))
    assert (c["slow"].exceed.low, c["slow"].exceed.high) == (0.01, 0.1)
    assert c["slow"].p99_over_ack_wait == pytest.approx(1.75)
    assert c["slow"].status == "bad" and c["fast"].status == "ok"
    assert c["firehose"].ack_policy == "none" and c["firehose"].ack_wait_ns is None and c["firehose"].status == "noack"
    assert c["quiet"].samples is None and c["quiet"].points == () and c["quiet"].status == "nodata"
    assert c["quiet"].ack_wait_ns == 30 * S and c["fast"].max_deliver == -1
    assert data.unmatched_profiles == ("consumer SHOP/gone",)
    assert data.counts == (("error", 2), ("warning", 0), ("info", 0))
    [f] = data.findings
    assert f.file == f"{SMALL}/shop.yaml"
    assert [(o.label, o.anchor, [x.rule for x in o.findings]) for o in f.objects] == [
        ("Consumer SHOP/slow", c["slow"].anchor, ["JS206"]),
        ("Stream EVENTS", events.anchor, ["JS102"]),
    ]
    assert (c["slow"].findings, events.findings, shop.findings) == (1, 1, 0)


def test_effective_ack_wait_comes_from_backoff(tmp_path):
    # nats-server sets ack_wait to backoff[0] when backoff is given without ack_wait
    (tmp_path / "s.yaml").write_text(
        "apiVersion: jsops/v1\nkind: Stream\nmetadata: {name: A}\nspec: {subjects: [a]}\n---\n"
        "apiVersion: jsops/v1\nkind: Consumer\nmetadata: {name: c, stream: A}\nspec: {backoff: [5s, 1m], max_deliver: 3}\n"
    )
    estate = load_paths([str(tmp_path)])
    data = build_report(estate, None, [], RuleContext(estate).effective)
    [c] = data.consumers
    assert c.ack_wait_ns == 5 * S and c.status == "nodata" and c.exceed is None


def test_consumer_chart_geometry_is_log_scaled():
    data = _small_report()
    slow = next(c for c in data.consumers if c.name == "slow")
    chart = consumer_chart(slow)
    xs = [row.x for row in chart.rows]
    assert xs == sorted(xs) and len(set(xs)) == 5
    # log scale: a factor of 10 is the same distance anywhere on the axis
    ticks = {t.label: t.x for t in chart.axis.ticks}
    assert ticks["1s"] - ticks["100ms"] == pytest.approx(ticks["10s"] - ticks["1s"], abs=0.2)
    assert chart.rows[1].x < chart.marker_x < chart.rows[2].x  # p90 1.9 s < ack_wait 2 s < p99 3.5 s
    assert [row.tone for row in chart.rows] == ["ok", "ok", "over", "over", "over"]
    quiet = next(c for c in data.consumers if c.name == "quiet")
    assert consumer_chart(quiet) is None
    shop = data.streams[1]
    fill = stream_chart(shop)
    assert [r.value for r in fill.rows if r.tone == "nodata"] == ["no data", "no data"]
    assert fmt_duration(None) == "no data" and fmt_duration(0) == "0s" and fmt_duration(3_500_000_000) == "3.5s"


# --- the page ------------------------------------------------------------------------------------


def _run(argv: list[str], capsys) -> tuple[int, str]:
    rc = main(argv)
    return rc, capsys.readouterr().err


def test_html_golden_small_estate(tmp_path, capsys):
    out = tmp_path / "report.html"
    rc, err = _run([SMALL, "--profiles", SMALL_PROFILES, "--config", SMALL_CONFIG, "--html", str(out)], capsys)
    assert rc == 0, err
    assert err == f"jsops report: wrote {out} (2 streams, 4 consumers, 2 findings)\n"
    page = out.read_text(encoding="utf-8")
    if UPDATE:
        GOLDEN.parent.mkdir(parents=True, exist_ok=True)
        GOLDEN.write_text(page, encoding="utf-8")
    assert page == GOLDEN.read_text(encoding="utf-8"), (
        "report.html differs; if intended, rerun with JSOPS_UPDATE_GOLDEN=1 and review"
    )


def test_page_is_self_contained():
    page = render_html(_small_report())
    assert "<script" not in page.lower()
    assert not re.search(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//""", page, re.I)
    assert "@import" not in page and "url(" not in page and "@font-face" not in page
    assert page.count("<svg") == 3  # SHOP fill times, fast and slow ack ladders
    # every http(s) mention is the SVG namespace name, which is never fetched
    assert set(re.findall(r"https?://[^\s\"'<>]+", page)) == {"http://www.w3.org/2000/svg"}


def test_missing_profile_figures_show_no_data_not_zero():
    page = render_html(_small_report())
    assert '<tr><td>p99</td><td class="nodata">no data</td><td class="nodata">no data</td></tr>' in page
    assert '<text class="nodata" x="144" y="' in page  # the p99 fill rows of SHOP
    assert 'Ack time: <span class="nodata">no data</span>' in page  # quiet has no ack samples
    assert "ack_policy none: the server expects no acks" in page  # firehose
    assert not re.search(r"(?<![\d.])0 (?:msg/s|B/s)", page)  # no figure the profile lacks became 0
    without = render_html(report_from_paths([SMALL], config=Config(select=["JS102"])))
    assert "<svg" not in without  # no profile at all: no charts, only "no data"
    assert without.count("no data") >= 20 and "none given" in without


HOSTILE_STREAM = "<script>alert(1)</script>"
HOSTILE_CONSUMER = '"><svg onload=alert(2)>'
HOSTILE_FILE = "<img src=x onerror=alert(3)>.yaml"


def test_hostile_names_are_escaped(tmp_path, capsys):
    d = tmp_path / "estate"
    d.mkdir()
    (d / HOSTILE_FILE).write_text(
        "apiVersion: jsops/v1\nkind: Stream\nmetadata:\n  name: " + json.dumps(HOSTILE_STREAM) + "\n"
        'spec:\n  subjects: ["x.>"]\n  max_age: 1h\n  max_bytes: 1MiB\n  description: "</style><b>bold</b>"\n---\n'
        "apiVersion: jsops/v1\nkind: Consumer\nmetadata:\n  name: " + json.dumps(HOSTILE_CONSUMER) + "\n"
        "  stream: " + json.dumps(HOSTILE_STREAM) + "\nspec:\n  ack_wait: 1s\n"
    )
    profiles = tmp_path / "p.json"
    profiles.write_text(
        json.dumps(
            {
                "version": 1,
                "generated_at": "2026-11-21T12:00:00Z",
                "streams": {HOSTILE_STREAM: {"ingest": {"messages": 10, "mean_per_s": 1.0}}},
                "consumers": {
                    f"{HOSTILE_STREAM}/{HOSTILE_CONSUMER}": {
                        "ack_time_ns": {"samples": 3, "p50": 1, "p90": 2, "p99": 3, "p999": 4, "max": 5}
                    },
                    "<b>x</b>/<i>y</i>": {"delivery": {"mean_per_s": 1.0}},
                },
            }
        )
    )
    out = tmp_path / "r.html"
    rc, _ = _run([str(d), "--profiles", str(profiles), "--html", str(out), "--no-config"], capsys)
    assert rc == 0
    page = out.read_text(encoding="utf-8")
    for raw in (HOSTILE_STREAM, HOSTILE_CONSUMER, HOSTILE_FILE, "<b>x</b>", "<svg onload", "<img src"):
        assert raw not in page
    assert "<script" not in page
    assert html.escape(HOSTILE_STREAM, quote=False) in page
    assert str(markupsafe.escape(HOSTILE_CONSUMER)) in page  # quotes escaped too (&#34;)
    assert html.escape(HOSTILE_FILE, quote=False) in page
    assert page.count("<svg") == 1  # the consumer's ladder; the names did not open any element


def test_exit_codes(tmp_path, capsys):
    out = tmp_path / "r.html"
    rc, err = _run([SMALL, "--profiles", SMALL_PROFILES], capsys)  # --html is required
    assert rc == 2 and "--html" in err
    rc, err = _run([str(tmp_path / "missing"), "--html", str(out), "--no-config"], capsys)
    assert rc == 2 and "missing" in err and not out.exists()
    bad = tmp_path / "bad.json"
    bad.write_text('{"version": 1}')
    rc, err = _run([SMALL, "--profiles", str(bad), "--html", str(out), "--no-config"], capsys)
    assert rc == 2 and "generated_at" in err and not out.exists()
    rc, err = _run([SMALL, "--html", str(tmp_path / "no" / "dir" / "r.html"), "--no-config"], capsys)
    assert rc == 2 and "cannot write" in err
    rc, err = _run([SMALL, "--html", str(out), "--no-config", "--bogus"], capsys)
    assert rc == 2 and "--bogus" in err
    # findings are content, not failure
    rc, err = _run([SMALL, "--html", str(out), "--no-config"], capsys)
    assert rc == 0 and out.exists() and "finding" in err


def test_env_renders_templates(tmp_path, capsys):
    (tmp_path / "environments").mkdir()
    (tmp_path / "environments" / "prod.yaml").write_text("prefix: PROD\nage: 2h\n")
    (tmp_path / "s.yaml.j2").write_text(
        'apiVersion: jsops/v1\nkind: Stream\nmetadata:\n  name: {{ prefix }}_ORDERS\nspec:\n  subjects: ["orders.>"]\n  max_age: {{ age }}\n  max_bytes: 1GiB\n'
    )
    out = tmp_path / "r.html"
    rc, err = _run([str(tmp_path), "--env", "prod", "--html", str(out), "--no-config"], capsys)
    assert rc == 0, err
    page = out.read_text(encoding="utf-8")
    assert "<title>jsops report (prod)</title>" in page and "<h2>PROD_ORDERS</h2>" in page
    assert "<th>max_age</th><td>2h</td>" in page
    rc, err = _run([str(tmp_path), "--env", "nope", "--html", str(out), "--no-config"], capsys)
    assert rc == 2 and "nope" in err
    rc, err = _run([str(tmp_path), "--html", str(out), "--no-config"], capsys)  # a template needs --env
    assert rc == 0 and "JS013" in out.read_text(encoding="utf-8")


def test_percent_and_duration_formats():
    from jsops.linter.report._html_charts import fmt_bytes, fmt_percent

    assert [fmt_percent(x) for x in (0.1, 0.001, 0.26667, 0.9996, 1.0, None)] == [
        "10%",
        "0.1%",
        "26.7%",
        "99.96%",
        "100%",
        "no data",
    ]
    assert [fmt_duration(ns) for ns in (120_000_000, 95 * S, 150 * S, 5.25 * 3600 * S, 30 * 86400 * S)] == [
        "120ms",
        "95s",
        "2.5m",
        "5.25h",
        "30d",
    ]
    assert [fmt_bytes(n) for n in (512, 1536, 256 * MIB, None)] == ["512 B", "1.5 KiB", "256 MiB", "no data"]


def test_jsops_report_subcommand(tmp_path):
    out = tmp_path / "r.html"
    proc = subprocess.run(
        [
            str(Path(sys.executable).parent / "jsops"),
            "report",
            SMALL,
            "--profiles",
            SMALL_PROFILES,
            "--html",
            str(out),
            "--no-config",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


# --- a real browser ------------------------------------------------------------------------------

CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None)
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="needs Debian's chromium (make install adds it as root)")
WIDTH = 1320
SHOT_SCALE = 0.5

# Appended to a copy of the page only (the report itself has no scripts): measures every chart.
_MEASURE = """<script>
const charts = [...document.querySelectorAll('svg.chart')].map(svg => {
  const r = svg.getBoundingClientRect();
  return {kind: svg.classList.contains('ack') ? 'ack' : 'fill',
          x: r.left + window.scrollX, y: r.top + window.scrollY, w: r.width, h: r.height,
          bars: [...svg.querySelectorAll('rect.bar')].map(b => { const g = b.getBBox(); return [g.width, g.height]; }),
          dots: svg.querySelectorAll('circle').length,
          marker: [...svg.querySelectorAll('line.marker')].map(m => m.getBoundingClientRect().height)};
});
const pre = document.createElement('pre');
pre.id = 'geometry';
pre.textContent = JSON.stringify({charts, height: document.documentElement.scrollHeight, dpr: window.devicePixelRatio});
document.body.appendChild(pre);
</script>"""


def _chromium(
    tmp_path: Path, url: str, *extra: str, height: int = 1000, scale: float = 1
) -> subprocess.CompletedProcess[str]:
    profile = tmp_path / f"chromium-{len(list(tmp_path.iterdir()))}"
    cmd = [
        CHROMIUM,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={profile}",
        "--hide-scrollbars",
        f"--force-device-scale-factor={scale}",
        f"--window-size={WIDTH},{height}",
        *extra,
        url,
    ]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=True)


def _measure(tmp_path: Path, page: str) -> dict:
    probe = tmp_path / "probe.html"
    # the page forbids scripts (CSP); the probe copy drops that one tag to run the measurement
    probe.write_text(
        re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", page).replace("</body>", _MEASURE + "</body>")
    )
    dom = _chromium(tmp_path, probe.as_uri(), "--dump-dom").stdout
    m = re.search(r'<pre id="geometry">(.*?)</pre>', dom, re.S)
    assert m, "the measurement did not run"
    return json.loads(html.unescape(m.group(1)))


def decode_png(data: bytes) -> tuple[int, int, int, list[bytes]]:
    """8-bit RGB/RGBA non-interlaced PNG (what Chromium writes) -> width, height, bytes/pixel, rows."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat = 8, []
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos : pos + 8])
        body = data[pos + 8 : pos + 8 + n]
        pos += 12 + n
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and ctype in (2, 6) and interlace == 0
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(b"".join(idat))
    stride = w * bpp
    rows: list[bytes] = []
    prev = bytearray(stride)
    i = 0
    for _ in range(h):
        f, line = raw[i], bytearray(raw[i + 1 : i + 1 + stride])
        i += 1 + stride
        if f == 1:
            for x in range(bpp, stride):
                line[x] = (line[x] + line[x - bpp]) & 255
        elif f == 2:
            line = bytearray((a + b) & 255 for a, b in zip(line, prev))
        elif f == 3:
            for x in range(stride):
                left = line[x - bpp] if x >= bpp else 0
                line[x] = (line[x] + ((left + prev[x]) >> 1)) & 255
        elif f == 4:
            for x in range(stride):
                a = line[x - bpp] if x >= bpp else 0
                b, c = prev[x], (prev[x - bpp] if x >= bpp else 0)
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def _colored(rows: list[bytes], bpp: int, x0: float, y0: float, x1: float, y1: float) -> tuple[int, int]:
    """(saturated pixels, red pixels) in a box: bars, dots and markers are colored; text, grid and
    background are gray."""
    sat = red = 0
    for row in rows[int(y0) : int(y1)]:
        for x in range(int(x0), int(x1)):
            r, g, b = row[x * bpp], row[x * bpp + 1], row[x * bpp + 2]
            if max(r, g, b) - min(r, g, b) > 60:
                sat += 1
                red += r > 150 and g < 100 and b < 100
    return sat, red


@needs_chromium
def test_chromium_draws_the_charts(tmp_path):
    data = _small_report()
    page = render_html(data)
    geom = _measure(tmp_path, page)
    assert geom["dpr"] == 1
    charts = geom["charts"]
    assert [c["kind"] for c in charts] == ["fill", "ack", "ack"]  # SHOP, then fast and slow
    for c in charts:
        assert c["w"] > 300 and c["h"] > 100
        assert c["bars"] and all(w > 0 and h > 0 for w, h in c["bars"])
        assert c["marker"] and c["marker"][0] > 100  # the max_age / ack_wait line spans the rows
    assert len(charts[0]["bars"]) == 4 and len(charts[1]["bars"]) == 5  # SHOP: 2 of 6 rows have no data

    report = tmp_path / "report.html"
    report.write_text(page, encoding="utf-8")
    shot = tmp_path / "report.png"
    # half scale: the same layout in a quarter of the pixels (the PNG is decoded in pure Python)
    _chromium(tmp_path, report.as_uri(), f"--screenshot={shot}", height=geom["height"], scale=SHOT_SCALE)
    w, h, bpp, rows = decode_png(shot.read_bytes())
    assert w == round(WIDTH * SHOT_SCALE) and abs(h - geom["height"] * SHOT_SCALE) <= 1

    def box(c: dict) -> tuple[float, float, float, float]:
        return tuple(v * SHOT_SCALE for v in (c["x"], c["y"], c["x"] + c["w"], c["y"] + c["h"]))  # type: ignore[return-value]

    found = [_colored(rows, bpp, *box(c)) for c in charts]
    for c, (sat, red) in zip(charts, found, strict=True):
        assert sat > 80, f"{c['kind']} chart at y={c['y']:.0f} has no colored marks in the screenshot"
        assert red > 10  # the marker line (and any bar past it) is red
    # fast: no ack past ack_wait, so red is the marker only; slow: three bars past it as well
    assert found[2][1] > 2 * found[1][1], found
    # a control: the heading area holds text only
    assert _colored(rows, bpp, 0, 0, w, 60 * SHOT_SCALE)[0] < 10


@needs_chromium
def test_chromium_example_estate_report(tmp_path, capsys):
    out = tmp_path / "example.html"
    rc, err = _run(["manifests", "--profiles", EXAMPLE_PROFILES, "--html", str(out), "--no-config"], capsys)
    assert rc == 0, err
    estate = load_paths(["manifests"])
    profiles = load_profiles(EXAMPLE_PROFILES)
    data = build_report(
        estate,
        profiles,
        lint_estate(estate, profiles=profiles).findings,
        RuleContext(estate, profiles=profiles).effective,
    )
    expected = []
    for s in data.streams:  # the page shows each stream, then its consumers
        expected += ["fill"] * (stream_chart(s) is not None) + [
            "ack" for c in s.consumers if consumer_chart(c) is not None
        ]
    assert len(expected) >= 10  # the fixture profiles most of the example estate
    geom = _measure(tmp_path, out.read_text(encoding="utf-8"))
    assert [c["kind"] for c in geom["charts"]] == expected
    for c in geom["charts"]:
        assert c["w"] > 300 and c["h"] > 100 and c["marker"]
        assert all(w > 0 and h > 0 for w, h in c["bars"])


# --- at scale: 500 streams (issue 35 item 11) ------------------------------------------------------

# Appended to a copy of the page: every element that reaches past its parent's box or the viewport.
_OVERFLOW = """<script>
const W = document.documentElement.clientWidth, over = [];
for (const el of document.querySelectorAll('main *')) {
  const r = el.getBoundingClientRect(), p = el.parentElement.getBoundingClientRect();
  if (r.width && (r.right > W + 1 || r.right > p.right + 1))
    over.push([el.tagName, String(el.getAttribute('class') || ''), Math.round(r.right), Math.round(p.right), (el.textContent || '').slice(0, 60)]);
}
const pre = document.createElement('pre');
pre.id = 'geometry';
pre.textContent = JSON.stringify({width: W, scroll: document.documentElement.scrollWidth, over: over.slice(0, 20), n: over.length});
document.body.appendChild(pre);
</script>"""


def _estate_at_scale(root: Path, streams: int) -> tuple[Path, Path]:
    """``streams`` streams with two consumers each, every seventh with a long name (its advisory
    subject is one long word in a finding), and a profile for each."""
    docs, prof_streams, prof_consumers = [], {}, {}
    rates = (5.0, 120.0, 4500.0, 250000.0)
    for i in range(streams):
        name = f"ORDERS_{i:03d}" if i % 7 else f"TELEMETRY_EUROPE_WEST_PRIORITY_INGEST_PIPELINE_{i:03d}"
        docs.append(
            manifest(
                "Stream",
                name,
                {"subjects": [f"s{i}.>"], "max_age": "7d", "max_bytes": ("1GiB", "200MiB")[i % 2], "max_msgs": 1000000},
            )
        )
        rate = rates[i % len(rates)]
        prof_streams[name] = {
            "ingest": {"messages": int(rate * 3600), "mean_per_s": rate, "peak_per_s": rate * 20},
            "bytes": {"mean_per_s": rate * 900, "stored_msg_size_mean": 900.0},
        }
        for c in ("worker", "audit_consumer_with_a_long_descriptive_name"):
            docs.append(manifest("Consumer", c, {"ack_wait": "30s", "max_deliver": 5}, stream=name))
            prof_consumers[f"{name}/{c}"] = {
                "ack_time_ns": {
                    "samples": 5000,
                    "p50": 20 * 10**6,
                    "p90": 50 * 10**6,
                    "p99": 2 * S,
                    "p999": 9 * S,
                    "max": 45 * S,
                },
                "deliveries": {"first_try_ratio": 0.97, "redelivered_ratio": 0.03, "max": 3},
            }
    estate = root / f"estate-{streams}.yaml"
    estate.write_text("".join(f"---\n{json.dumps(d)}\n" for d in docs))  # YAML documents in flow style
    profiles = root / f"profiles-{streams}.json"
    window = {"start": "2026-11-21T11:00:00Z", "end": "2026-11-21T12:00:00Z"}
    profiles.write_text(
        json.dumps(
            {
                "version": 1,
                "generated_at": window["end"],
                "window": window,
                "streams": prof_streams,
                "consumers": prof_consumers,
            }
        )
    )
    return estate, profiles


def _page_at_scale(tmp_path: Path, streams: int) -> str:
    estate, profiles = _estate_at_scale(tmp_path, streams)
    return render_html(report_from_paths([str(estate)], profiles_path=str(profiles), config=Config()))


def test_page_size_grows_linearly_and_stays_bounded(tmp_path):
    small, large = len(_page_at_scale(tmp_path, 100)), len(_page_at_scale(tmp_path, 500))
    assert large <= 10 * MIB, f"{large} bytes for 500 streams"
    assert large <= 5.5 * small, (small, large)  # nothing on the page grows with the square of the estate


@needs_chromium
def test_chromium_500_streams_nothing_overflows(tmp_path):
    page = _page_at_scale(tmp_path, 500)
    assert page.count('<section class="stream"') == 500
    probe = tmp_path / "probe.html"
    probe.write_text(
        re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", page).replace("</body>", _OVERFLOW + "</body>")
    )
    dom = _chromium(tmp_path, probe.as_uri(), "--dump-dom").stdout
    m = re.search(r'<pre id="geometry">(.*?)</pre>', dom, re.S)
    assert m, "the measurement did not run"
    geom = json.loads(html.unescape(m.group(1)))
    assert geom["width"] == WIDTH and geom["scroll"] == WIDTH, geom  # no horizontal scroll
    assert geom["over"] == [], geom  # the ingest tables stay in their column, long names and subjects wrap
