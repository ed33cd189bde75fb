"""The alerts and the dashboard of the monitoring pack (docs/kubernetes.md#monitoring): the real
``promtool`` (Debian package ``prometheus``) checks the rules file and runs its unit tests (every
alert seen firing and seen quiet), parses every dashboard query; and every series the rules and the
dashboard read, with the labels they use, is exported by a real ``jsops controller`` following a
real git repository against a real nats-server (scraped here)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from natsserver import NatsServer

from ..reconciler.test_controller_git import make_origin, push
from ..reconciler.test_controller_helpers import STREAM_YAML, Proc, get, parse_prometheus, sample, wait_for
from .promql import grafana_expr, label_names, metric_names
from .test_monitoring_chart import DASHBOARD, RULES

HERE = Path(__file__).parent
RULE_TESTS = HERE / "data" / "jsops-controller.rules.test.yaml"
PROMTOOL = shutil.which("promtool")
needs_promtool = pytest.mark.skipif(
    PROMTOOL is None, reason="promtool not installed (Debian package prometheus, installed by `make install`)"
)
# labels Prometheus adds to every scraped series (the ServiceMonitor: namespace, job, instance, pod, ...)
TARGET_LABELS = {"namespace", "job", "instance"}
GRAFANA_VARIABLES = {
    "namespace": ".*",
    "job": ".*",
    "context": ".*",
    "__rate_interval": "5m",
    "datasource": "prometheus",
}
DATASOURCE = {"type": "prometheus", "uid": "${datasource}"}


def promtool(*args: str) -> subprocess.CompletedProcess[str]:
    assert PROMTOOL is not None
    return subprocess.run([PROMTOOL, *args], capture_output=True, text=True, timeout=120, check=False)


def alerts() -> list[dict[str, Any]]:
    return [r for g in yaml.safe_load(RULES.read_text())["groups"] for r in g["rules"]]


def dashboard() -> dict[str, Any]:
    board: dict[str, Any] = json.loads(DASHBOARD.read_text())
    return board


def dashboard_queries() -> list[tuple[str, str, set[str]]]:
    """(where, PromQL as sent, labels the legend names) of every panel target and variable query."""
    out: list[tuple[str, str, set[str]]] = []
    for panel in dashboard()["panels"]:
        for target in panel["targets"]:
            legend = set(re.findall(r"\{\{\s*(\w+)\s*\}\}", target.get("legendFormat", "")))
            out.append(
                (f"panel {panel['title']!r} {target['refId']}", grafana_expr(target["expr"], GRAFANA_VARIABLES), legend)
            )
    for var in dashboard()["templating"]["list"]:
        if var["type"] == "query":
            m = re.fullmatch(r"label_values\((.*),\s*(\w+)\)", var["query"]["query"])
            assert m, var
            out.append((f"variable {var['name']}", grafana_expr(m.group(1), GRAFANA_VARIABLES), {m.group(2)}))
    return out


def rule_queries() -> list[tuple[str, str, set[str]]]:
    return [
        (f"alert {r['alert']}", r["expr"], set(re.findall(r"\$labels\.(\w+)", json.dumps(r["annotations"]))))
        for r in alerts()
    ]


def test_lexer() -> None:
    expr = 'sum by (context, type) (rate(a_total{job=~"x", b!="y{z}"}[5m] offset 1h)) > 1e3 and on (job) time() - b_seconds > 0 unless c'
    assert metric_names(expr) == {"a_total", "b_seconds", "c"}
    assert label_names(expr) == {"context", "type", "job", "b"}
    assert metric_names("histogram_quantile(0.95, sum by (le) (rate(d_bucket[5m])))") == {"d_bucket"}
    assert grafana_expr('x{a=~"$namespace"}[$__rate_interval]', GRAFANA_VARIABLES) == 'x{a=~".*"}[5m]'
    with pytest.raises(KeyError):
        grafana_expr("x{a=~'$nope'}", GRAFANA_VARIABLES)


@needs_promtool
def test_promtool_checks_the_rules(tmp_path: Path) -> None:
    done = promtool("check", "rules", str(RULES))
    assert done.returncode == 0 and f"SUCCESS: {len(alerts())} rules found" in done.stdout, done.stdout + done.stderr
    broken = tmp_path / "broken.rules.yaml"
    broken.write_text(
        RULES.read_text().replace("(jsops_controller_drift_objects) > 0", "(jsops_controller_drift_objects) >")
    )
    assert promtool("check", "rules", str(broken)).returncode != 0  # the check can fail


@needs_promtool
def test_promtool_unit_tests_fire_and_quiet_every_alert(tmp_path: Path) -> None:
    done = promtool("test", "rules", str(RULE_TESTS))
    assert done.returncode == 0 and "SUCCESS" in done.stdout, done.stdout + done.stderr
    cases = [c for t in yaml.safe_load(RULE_TESTS.read_text())["tests"] for c in t["alert_rule_test"]]
    for rule in alerts():
        mine = [c for c in cases if c["alertname"] == rule["alert"]]
        assert any(c["exp_alerts"] for c in mine) and any(not c["exp_alerts"] for c in mine), (
            f"{rule['alert']}: seen firing and quiet"
        )
    # the unit tests can fail: a drift of one minute would be an alert
    wrong = tmp_path / "wrong.test.yaml"
    text = RULE_TESTS.read_text().replace("../../../docs/deploy/prometheus/jsops-controller.rules.yaml", str(RULES))
    wrong.write_text(text.replace("values: '0 2 2 2 0x30'", "values: '0 2x30'"))
    done = promtool("test", "rules", str(wrong))
    assert done.returncode != 0 and "JsopsControllerDriftPersists" in done.stdout + done.stderr


def test_dashboard_structure() -> None:
    board = dashboard()
    assert board["uid"] == "jsops-controller" and board["title"] and isinstance(board["schemaVersion"], int)
    variables = [v["name"] for v in board["templating"]["list"]]
    assert variables[0] == "datasource" and len(set(variables)) == len(variables)
    assert {v for v in variables} | {"__rate_interval"} == set(GRAFANA_VARIABLES)
    panels = board["panels"]
    assert [p["id"] for p in panels] == list(range(1, len(panels) + 1))
    cells: set[tuple[int, int]] = set()
    for p in panels:
        g = p["gridPos"]
        assert g["x"] >= 0 and g["w"] > 0 and g["h"] > 0 and g["x"] + g["w"] <= 24, p["title"]
        mine = {(x, y) for x in range(g["x"], g["x"] + g["w"]) for y in range(g["y"], g["y"] + g["h"])}
        assert not mine & cells, f"{p['title']} overlaps another panel"
        cells |= mine
        assert p["type"] in {"stat", "timeseries", "table"} and p["datasource"] == DATASOURCE
        assert p["targets"] and all(t["datasource"] == DATASOURCE and t["expr"] for t in p["targets"])
        assert len({t["refId"] for t in p["targets"]}) == len(p["targets"])


@needs_promtool
def test_dashboard_queries_parse(tmp_path: Path) -> None:
    """Every query, with the variables as Grafana sends them, is PromQL the real parser accepts (as
    recording rules: `promtool check rules` parses each expression)."""
    queries = dashboard_queries()
    rules = [{"record": f"jsops:dashboard:query{i}", "expr": expr} for i, (_, expr, _) in enumerate(queries)]
    path = tmp_path / "dashboard.rules.yaml"
    path.write_text(yaml.safe_dump({"groups": [{"name": "dashboard", "rules": rules}]}))
    done = promtool("check", "rules", str(path))
    assert done.returncode == 0 and f"SUCCESS: {len(rules)} rules found" in done.stdout, done.stdout + done.stderr


@pytest.fixture
def server() -> Iterator[NatsServer]:
    s = NatsServer().start()
    try:
        yield s
    finally:
        s.stop()


BAD_YAML = """
apiVersion: jsops/v1
kind: Stream
metadata:
  name: BAD
spec:
  subjects: ["bad.>"]
  max_age: 1h
  duplicate_window: 3h
"""


def _scrape_a_busy_controller(server: NatsServer, tmp_path: Path) -> str:
    """A controller (subprocess, lease on) following a git repository: it creates ORDERS, then a
    commit needs a recreate (drift, blocked), then one has a lint error (rejected); its /metrics."""
    bare, author, _ = make_origin(tmp_path)
    ctl = Proc(
        [],
        server.url,
        "--repo",
        bare.as_uri(),
        "--branch",
        "main",
        "--path",
        "manifests",
        "--workdir",
        str(tmp_path / "work"),
        log=tmp_path / "events.jsonl",
    )
    try:
        wait_for(lambda: sample(ctl.metrics(), "jsops_controller_leader", context="default") == 1, 60, "the lease")
        wait_for(
            lambda: sample(
                ctl.metrics(), "jsops_controller_actions_total", context="default", action="create", status="done"
            ),
            60,
            "ORDERS created",
        )
        push(
            author,
            {"manifests/orders.yaml": STREAM_YAML.replace("max_age: 1h", "max_age: 1h\n  storage: memory")},
            "memory",
        )
        wait_for(
            lambda: (
                sample(ctl.metrics(), "jsops_controller_blocked_objects", context="default", needs="allow-recreate")
                == 1
            ),
            60,
            "blocked",
        )
        push(author, {"manifests/bad.yaml": BAD_YAML}, "bad.yaml")
        wait_for(
            lambda: sample(ctl.metrics(), "jsops_controller_revision_rejected") == 1,
            60,
            "the lint error revision rejected",
        )
        code, text = get(ctl.port, "/metrics")
        assert code == 200
        return text
    finally:
        ctl.stop()


@pytest.mark.integration
def test_every_queried_series_is_exported(server: NatsServer, tmp_path: Path) -> None:
    """Each metric an alert or a dashboard query reads has samples on a running controller's
    /metrics, and each label they match on, group by or print is on those samples (beside the
    labels Prometheus adds to every target); `promtool check metrics` finds nothing to say about
    the exposition, and the alerts fire on those series as they should."""
    text = _scrape_a_busy_controller(server, tmp_path)
    scraped = parse_prometheus(text)
    if PROMTOOL is not None:  # the exposition passes Prometheus's own lint
        done = subprocess.run(
            [PROMTOOL, "check", "metrics"], input=text, capture_output=True, text=True, timeout=60, check=False
        )
        assert done.returncode == 0 and not done.stdout.strip(), done.stdout + done.stderr
        _alerts_on_real_series(scraped, tmp_path)
    labels: dict[str, set[str]] = {}
    for name, pairs in scraped:
        labels.setdefault(name, set()).update(k for k, _ in pairs)
    queries = rule_queries() + dashboard_queries()
    assert len(queries) > len(alerts())
    used: set[str] = set()
    for where, expr, shown in queries:
        names = metric_names(expr)
        assert names, f"{where}: reads no metric"
        missing = names - set(labels)
        assert not missing, f"{where}: {sorted(missing)} not exported by the controller"
        unknown = (label_names(expr) | shown) - TARGET_LABELS - set().union(*(labels[n] for n in names))
        assert not unknown, f"{where}: labels {sorted(unknown)} are on no series of {sorted(names)}"
        used |= names
    # and the pack leaves none of the controller's series unread
    exported = {n for n in labels if n.startswith("jsops_controller_")}
    assert exported <= used, sorted(exported - used)


def _alerts_on_real_series(scraped: dict[tuple[str, tuple[tuple[str, str], ...]], float], tmp_path: Path) -> None:
    """The rules (annotations left out: the unit tests check those) over the scraped series held
    for 30 minutes, as Prometheus would hold them with the ServiceMonitor's target labels: drift,
    blocked (allow-recreate) and the rejected revision fire with the labels the controller gave;
    one leader and counters that stand still fire nothing. The time-based alerts are left to the
    unit tests (promtool's clock starts at 0, the scraped timestamps are now)."""
    target = {"namespace": "jsops", "job": "jsops-controller", "instance": "a"}
    series = []
    for (name, pairs), value in scraped.items():
        labels = {**dict(pairs), **target}
        body = ",".join(f"{k}={json.dumps(v)}" for k, v in sorted(labels.items()) if v)
        series.append({"series": f"{name}{{{body}}}", "values": f"{value:g}x30"})
    rules = yaml.safe_load(RULES.read_text())
    for group in rules["groups"]:
        for rule in group["rules"]:
            rule.pop("annotations")
    (tmp_path / "rules.yaml").write_text(yaml.safe_dump(rules))
    on = {"severity": "warning", **{k: target[k] for k in ("namespace", "job")}}
    expected: dict[str, list[dict[str, str]]] = {
        "JsopsControllerDriftPersists": [{**on, "context": "default"}],
        "JsopsControllerObjectsBlocked": [{**on, "context": "default", "needs": "allow-recreate"}],
        "JsopsControllerRevisionRejected": [on],
        "JsopsControllerLeaderNotOne": [],
        "JsopsControllerTargetErrors": [],
    }
    cases = [
        {"eval_time": "20m", "alertname": a, "exp_alerts": [{"exp_labels": x} for x in exp]}
        for a, exp in expected.items()
    ]
    test = {
        "rule_files": ["rules.yaml"],
        "evaluation_interval": "1m",
        "tests": [{"interval": "1m", "input_series": series, "alert_rule_test": cases}],
    }
    (tmp_path / "real.test.yaml").write_text(yaml.safe_dump(test))
    done = promtool("test", "rules", str(tmp_path / "real.test.yaml"))
    assert done.returncode == 0, done.stdout + done.stderr
