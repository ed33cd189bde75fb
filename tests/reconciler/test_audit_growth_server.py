"""``jsops audit --save-state`` / ``--baseline`` on a real nats-server: two audits with publishes in
between report the consumer whose backlog grew (JS515) with its rate and time to full, and not the
one that keeps up; a file that is not a snapshot is an error naming it."""

from __future__ import annotations

import contextlib
import io
import json
import time
from pathlib import Path
from typing import Any

import pytest

from .audit_seed import consumer, stream
from .helpers import Js, NatsServer

pytestmark = pytest.mark.integration


def audit(*args: str) -> tuple[int, str, str]:
    from jsops.reconciler.audit.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(list(args))
    return rc, out.getvalue(), err.getvalue()


def growth(findings: list[dict[str, Any]]) -> dict[str, str]:
    return {f["file"]: f["message"] for f in findings if f["rule"] == "JS515"}


def test_a_growing_backlog_between_two_audits(server: NatsServer, js: Js, tmp_path: Path) -> None:
    stream(js, "ORDERS", ["orders.>"], max_msgs=10_000)
    consumer(js, "ORDERS", "slow")  # nobody reads it: its backlog grows with every publish
    consumer(js, "ORDERS", "quick")  # reads everything before each audit
    config = tmp_path / ".jsops.yaml"
    config.write_text("audit:\n  JS515: {min_growth: 100, min_rate: 1, min_interval: 1s}\n")
    state = tmp_path / "state.json"
    js.publish("orders.new", 50)
    js.fetch_ack("ORDERS", "quick", 50)

    rc, out, err = audit("--config", str(config), "-s", server.url, "--format", "json", "--save-state", str(state))
    assert rc in (0, 1), err
    assert growth(json.loads(out)["findings"]) == {}  # one snapshot: no growth to tell
    saved = json.loads(state.read_text())
    (target,) = saved["targets"]
    assert target["consumers"]["ORDERS"]["slow"]["num_pending"] == 50 and target["streams"]["ORDERS"]["messages"] == 50

    js.publish("orders.new", 400)
    js.fetch_ack("ORDERS", "quick", 400)
    time.sleep(1.2)  # min_interval: 1s
    rc, out, err = audit(
        "--config",
        str(config),
        "-s",
        server.url,
        "--format",
        "json",
        "--baseline",
        str(state),
        "--save-state",
        str(state),
    )
    assert rc == 1, err
    found = growth(json.loads(out)["findings"])
    assert list(found) == ["nats://ORDERS/slow"], found
    message = found["nats://ORDERS/slow"]
    assert message.startswith("num_pending grew from 50 to 450 in ")
    assert "messages/s more than it consumes" in message
    assert "the backlog reaches the stream's max_msgs 10000 in ~" in message and "(discard: old)" in message
    assert json.loads(state.read_text())["targets"][0]["consumers"]["ORDERS"]["slow"]["num_pending"] == 450  # replaced

    # thresholds from the config: a growth of 400 is under min_growth 1000 (the default)
    state.write_text(json.dumps({**saved, "targets": [{**target, "read_at": target["read_at"] - 60}]}))
    rc, out, err = audit("--no-config", "-s", server.url, "--format", "json", "--baseline", str(state))
    assert growth(json.loads(out)["findings"]) == {}, err


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        ("{not json", "invalid JSON"),
        ('{"targets": []}', '"jsops_audit_state": 1'),
        (
            '{"jsops_audit_state": 1, "targets": [{"target": "x", "read_at": 1, "consumers": {"S": {"c": {"num_pending": "9"}}}}]}',
            "num_pending is not an integer",
        ),
    ],
)
def test_a_baseline_that_is_not_a_snapshot_is_an_error(
    server: NatsServer, tmp_path: Path, content: str, needle: str
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    rc, out, err = audit("--no-config", "-s", server.url, "--baseline", str(bad))
    assert rc == 2 and out == "", err
    assert str(bad) in err and needle in err and "Traceback" not in err and "internal error" not in err


def test_a_baseline_that_is_a_fifo_does_not_hang(server: NatsServer, tmp_path: Path) -> None:
    import os

    fifo = tmp_path / "state.json"
    os.mkfifo(fifo)
    rc, out, err = audit("--no-config", "-s", server.url, "--baseline", str(fifo))
    assert rc == 2 and f"{fifo}: not a regular file" in err, err
