"""``jsops audit`` evaluates natscli's ``io.nats.monitor.*`` thresholds (JS540 streams, JS541 consumers) on a real
server, with the meaning ``nats server check stream|consumer`` gives them: a stream past a threshold is reported,
one within its thresholds is not."""

from __future__ import annotations

import contextlib
import io
import json
from typing import Any

import pytest

from .audit_seed import fetch_no_ack, stream
from .helpers import Js, NatsServer

pytestmark = pytest.mark.integration

M = "io.nats.monitor."


def audit_findings(url: str) -> list[dict[str, Any]]:
    from jsops.reconciler.audit.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        rc = main(["--no-config", "--format", "json", "-s", url])
    assert rc in (0, 1)
    return [f for f in json.loads(out.getvalue())["findings"] if f["rule"] in ("JS540", "JS541")]


@pytest.mark.parametrize("release", ["2.10.26", "2.15.1"])
def test_monitor_thresholds_are_evaluated_as_natscli_reads_them(release: str) -> None:
    from tests.natsserver import release_binary

    binary = release_binary(release)
    if binary is None:
        pytest.skip(f"nats-server {release} not fetched")
    with NatsServer(binary=binary) as server:
        js = Js(server.url)
        try:
            _check(server, js)
        finally:
            js.close()


def _check(server: NatsServer, js: Js) -> None:
    # msgs-warn and msgs-critical are floors: 5 messages is at or below msgs-warn 10, above msgs-critical 2
    stream(js, "LOW", ["low.>"], metadata={M + "msgs-warn": "10", M + "msgs-critical": "2"})
    stream(js, "EMPTY", ["empty.>"], metadata={M + "msgs-critical": "2"})
    stream(
        js,
        "FINE",
        ["fine.>"],
        metadata={
            M + "msgs-warn": "3",
            M + "msgs-critical": "1",
            M + "subjects-warn": "20",
            M + "subjects-critical": "30",
        },
    )
    # subjects-warn < subjects-critical: ceilings
    stream(js, "WIDE", ["wide.>"], metadata={M + "subjects-warn": "3", M + "subjects-critical": "8"})
    stream(js, "OFF", ["off.>"], metadata={M + "enabled": "false", M + "msgs-critical": "100"})
    stream(js, "BROKEN", ["broken.>"], metadata={M + "msgs-warn": "ten"})
    stream(js, "PLAIN", ["plain.>"], metadata={M + "lag-critical": "10"})  # natscli: "not mirrored"
    for subject, n in (
        ("low.a", 5),
        ("fine.a", 10),
        ("wide.a", 1),
        ("wide.b", 1),
        ("wide.c", 1),
        ("wide.d", 1),
        ("off.a", 1),
    ):
        js.publish(subject, n)
    body = {
        "durable_name": "slow",
        "ack_policy": "explicit",
        "metadata": {M + "outstanding-ack-critical": "2", M + "last-ack-critical": "1h"},
    }
    js.ok("$JS.API.CONSUMER.CREATE.FINE.slow", {"stream_name": "FINE", "config": body})
    assert fetch_no_ack(js, "FINE", "slow", 3) == 3
    ok = {
        "durable_name": "ok",
        "ack_policy": "explicit",
        "metadata": {M + "unprocessed-critical": "100", M + "redelivery-critical": "5"},
    }
    js.ok("$JS.API.CONSUMER.CREATE.FINE.ok", {"stream_name": "FINE", "config": ok})

    found = audit_findings(server.url)
    by = {(f["file"], f["severity"]): f["message"] for f in found}
    assert by[("nats://LOW", "warning")].startswith("5 messages, at or below msgs-warn 10")
    assert by[("nats://EMPTY", "error")].startswith("0 messages, at or below msgs-critical 2")
    assert by[("nats://WIDE", "warning")].startswith("4 subjects, at or above subjects-warn 3")
    assert "msgs-warn 'ten'" in by[("nats://BROKEN", "error")]
    assert "not mirrored" in by[("nats://PLAIN", "error")]
    slow = sorted(f["message"] for f in found if f["file"] == "nats://FINE/slow")
    assert len(slow) == 2
    assert slow[0].startswith("3 messages delivered and not acknowledged, at or above outstanding-ack-critical 2")
    assert slow[1].startswith("no acknowledgement yet, last-ack-critical is 1h")
    # within every threshold, or turned off: nothing
    assert {f["file"] for f in found} == {
        "nats://LOW",
        "nats://EMPTY",
        "nats://WIDE",
        "nats://BROKEN",
        "nats://PLAIN",
        "nats://FINE/slow",
    }
    assert len(found) == 7
