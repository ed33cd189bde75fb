"""``jsops audit`` names who changed each drifted field (issue 37): JS520's message ends with the
author as the plan says it, and its JSON carries ``changed_by`` (or ``author_unknown``); golden text
and JSON from a recorded state, and on a real nats-server with two users (jsops as ``controller``, an
application as ``app`` with connection name ``orders-svc``) with the account's record of API changes."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator, Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from jsops.linter import Finding, LintResult, LintTarget
from jsops.linter.engine import discover_rules
from jsops.linter.report import RenderContext, render_result
from jsops.linter.testing import estate_from_text
from jsops.reconciler.audit.drift import drift_findings
from jsops.reconciler.drift import NO_ATTRIBUTION, Attribution, Drifted, DriftKey, attribute
from jsops.reconciler.live import LiveState

from .helpers import Js, NatsServer, manifest, run
from .records import live_consumer, live_stream
from .test_drift_server import RECORD, USERS  # the drift example's accounts and audit record
from .test_drift_unit import HOUR, OWN, T0, _newest_first, _stream_write

GOLDEN = Path(__file__).parent / "golden" / "drift"
MANIFESTS = """
apiVersion: jsops/v1
kind: Stream
metadata:
  name: ORDERS
  annotations: {jsops.io/ignore-drift: "[max_msgs]"}
spec:
  subjects: ['orders.>']
  max_age: 1h
  max_msgs: 100
---
apiVersion: jsops/v1
kind: Consumer
metadata: {name: C1, stream: ORDERS}
spec: {ack_policy: explicit, max_deliver: 5}
"""


def _golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("JSOPS_UPDATE_GOLDEN") == "1":
        path.write_text(text)
    assert text == path.read_text(), f"{path} differs; rerun with JSOPS_UPDATE_GOLDEN=1 and review the diff"


def _drifted() -> tuple[LintResult, Attribution]:
    estate = estate_from_text(MANIFESTS, "m/orders.yaml")
    live = LiveState(read_at=10_000.0)
    live.streams["ORDERS"] = live_stream(
        {"name": "ORDERS", "subjects": ["orders.>"], "max_age": HOUR // 2, "max_msgs": 5000, "metadata": OWN}
    )
    live.consumers[("ORDERS", "C1")] = live_consumer(
        "ORDERS", {"durable_name": "C1", "ack_policy": "explicit", "max_deliver": 9, "metadata": OWN}
    )
    record = _newest_first(
        _stream_write("CREATE", 0, HOUR, user="controller", name="jsops"),
        _stream_write("UPDATE", 2, HOUR // 2),
    )
    asked: list[list[Drifted]] = []

    def authors(drifted: Sequence[Drifted]) -> Attribution:
        asked.append(list(drifted))
        found = {DriftKey("default", d.kind, d.stream, d.name, d.path): attribute(record, **_args(d)) for d in drifted}
        return Attribution({k: v for k, v in found.items() if v is not None}, T0 + timedelta(minutes=5))

    findings = drift_findings(estate, live, LintTarget(), authors=("default", authors))
    assert asked == [  # once; max_msgs is owned elsewhere (jsops.io/ignore-drift): audit holds it as plan does
        [Drifted("Stream", None, "ORDERS", "max_age", HOUR // 2), Drifted("Consumer", "ORDERS", "C1", "max_deliver", 9)]
    ]
    return LintResult(findings, 1, 2, ["m/orders.yaml"]), authors(asked[0])


def _args(d: Drifted) -> dict[str, object]:
    return {"kind": d.kind, "stream": d.stream, "name": d.name, "path": d.path, "live": d.live}


def test_audit_text_names_who_changed_each_drifted_field() -> None:
    result, _ = _drifted()
    text = render_result(result, "text", RenderContext("0", discover_rules()))
    _golden("audit.txt", text)
    lines = [s for s in text.splitlines() if " JS520 " in s]
    assert len(lines) == 2
    assert lines[0].startswith("m/orders.yaml:9:12: warning JS520 ")  # the manifest line that sets max_age
    assert lines[0].endswith("; changed by orders-svc (user app, 10.0.0.7) 3m ago [live-drift]")
    assert lines[1].endswith(
        "; author unknown (no audit record since 2026-12-02T10:00:00Z) [live-drift]"
    )  # no write to C1


def test_audit_json_carries_changed_by_on_each_drifted_field() -> None:
    result, _ = _drifted()
    text = render_result(result, "json", RenderContext("0", discover_rules()))
    _golden("audit.json", text)
    found = {f["object"]["name"]: f for f in json.loads(text)["findings"] if f["rule"] == "JS520"}
    assert found["ORDERS"]["changed_by"] == {
        "user": "app",
        "account": "A",
        "client_name": "orders-svc",
        "host": "10.0.0.7",
        "at": "2026-12-02T10:02:00Z",
        "request": "$JS.API.STREAM.UPDATE.ORDERS",
    }
    assert "author_unknown" not in found["ORDERS"]
    assert found["C1"]["changed_by"] is None and found["C1"]["author_unknown"] == {"since": "2026-12-02T10:00:00Z"}


def test_audit_sarif_carries_the_author_as_properties() -> None:
    result, _ = _drifted()
    text = render_result(result, "sarif", RenderContext("0", discover_rules()))
    _golden("audit.sarif", text)
    found = {r["properties"]["object"]["name"]: r["properties"] for r in json.loads(text)["runs"][0]["results"]}
    json_findings = {
        f["object"]["name"]: f
        for f in json.loads(render_result(result, "json", RenderContext("0", discover_rules())))["findings"]
    }
    for name in ("ORDERS", "C1"):  # the same author as the JSON report, under the result's properties
        assert found[name]["changed_by"] == json_findings[name]["changed_by"]
        assert found[name].get("author_unknown") == json_findings[name].get("author_unknown")
    assert found["ORDERS"]["changed_by"]["user"] == "app" and "author_unknown" not in found["ORDERS"]
    assert found["C1"]["changed_by"] is None and found["C1"]["author_unknown"] == {"since": "2026-12-02T10:00:00Z"}


def test_audit_sarif_fingerprints_do_not_age_with_the_author() -> None:
    result, _ = _drifted()
    (orders,) = [f for f in result.findings if f.rule == "JS520" and f.message.endswith(" 3m ago")]
    assert orders.lasting is not None and not orders.lasting_message.endswith(" 3m ago")
    later = replace(orders, message=orders.lasting_message + "; changed by orders-svc (user app, 10.0.0.7) 9m ago")

    def prints(findings: list[Finding]) -> list[str]:
        text = render_result(
            LintResult(findings, 1, 2, ["m/orders.yaml"]), "sarif", RenderContext("0", discover_rules())
        )
        return [r["partialFingerprints"]["jsopsFinding/v1"] for r in json.loads(text)["runs"][0]["results"]]

    assert orders.message != later.message and prints([orders]) == prints([later])


def test_without_a_record_audit_says_nothing_of_authors() -> None:
    estate = estate_from_text(MANIFESTS, "m/orders.yaml")
    live = LiveState(read_at=10_000.0)
    live.streams["ORDERS"] = live_stream(
        {"name": "ORDERS", "subjects": ["orders.>"], "max_age": HOUR // 2, "max_msgs": 100, "metadata": OWN}
    )
    findings = drift_findings(estate, live, LintTarget(), authors=("default", lambda _: NO_ATTRIBUTION))
    (drift,) = [f for f in findings if f.rule == "JS520"]
    assert "changed by" not in drift.message and "author" not in drift.message
    assert "changed_by" not in drift.as_dict() and "author_unknown" not in drift.as_dict()


# -- on a real nats-server ------------------------------------------------------------------------

ORDERS = """
apiVersion: jsops/v1
kind: Stream
metadata: {name: ORDERS}
spec: {subjects: ['orders.>'], max_age: 1h}
"""


@pytest.fixture
def users_server() -> Iterator[NatsServer]:
    s = NatsServer(extra_config=USERS).start()
    try:
        yield s
    finally:
        s.stop()


def _audit_json(d: Path, url: str) -> dict[str, object]:
    rc, out, err = run("audit", str(d), "-s", url, "--format", "json")
    assert rc in (0, 1), err
    (drift,) = [f for f in json.loads(out)["findings"] if f["rule"] == "JS520"]
    return dict(drift)


@pytest.mark.integration
def test_audit_names_the_application_that_changed_a_managed_field(users_server: NatsServer, tmp_path: Path) -> None:
    from .test_drift_server import _set_max_age, _wait_recorded

    d = tmp_path / "m"
    manifest(d, "orders.yaml", ORDERS)
    shutil.copy(RECORD, d / "record.yaml")
    url = f"nats://controller:c0ntrol@127.0.0.1:{users_server.port}"
    assert run("apply", str(d), "-s", url, "--yes")[0] == 0
    assert run("audit", str(d), "-s", url)[0] == 0  # no drift: nothing to name, nothing read of the record
    app = Js(f"nats://127.0.0.1:{users_server.port}", user="app", password="app", name="orders-svc")
    try:
        before = datetime.now(UTC).replace(microsecond=0)
        _set_max_age(app, HOUR // 2)
        _wait_recorded(users_server, 1)
        by = _audit_json(d, url)["changed_by"]
        assert isinstance(by, dict)
        assert (by["user"], by["account"], by["client_name"], by["host"], by["request"]) == (
            "app",
            "A",
            "orders-svc",
            "127.0.0.1",
            "$JS.API.STREAM.UPDATE.ORDERS",
        )
        assert before <= datetime.fromisoformat(str(by["at"])) <= datetime.now(UTC)

        rc, out, err = run("audit", str(d), "-s", url)
        assert rc == 1, err
        (line,) = [s for s in out.splitlines() if " JS520 " in s]
        assert "max_age: the server has 30m, the manifest says 1h" in line
        assert "; changed by orders-svc (user app, 127.0.0.1) " in line and line.endswith(" ago [live-drift]")
    finally:
        app.close()
