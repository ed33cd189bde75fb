"""``jsops export --minimal`` and ``--stream`` (issue 35 item 12, adoption): only what differs from what the
server stores without it, and only the streams asked for; the export still plans empty against the server it
came from. Against a real nats-server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from .helpers import Js, NatsServer, run
from .test_export_roundtrip import CONSUMERS, STREAMS

pytestmark = pytest.mark.integration


def _specs(out: Path) -> dict[tuple[str, str], dict[str, Any]]:
    yaml = YAML(typ="safe")
    docs = [d for p in sorted(out.glob("*.yaml")) for d in yaml.load_all(p.read_text()) if d]
    return {(d["kind"], d["metadata"]["name"]): d["spec"] for d in docs}


def test_minimal_export_writes_what_differs_and_plans_empty(server: NatsServer, js: Js, tmp_path: Path) -> None:
    for cfg in STREAMS:
        js.ok(f"$JS.API.STREAM.CREATE.{cfg['name']}", cfg)
    for stream, cfg in CONSUMERS:
        js.ok(f"$JS.API.CONSUMER.CREATE.{stream}.{cfg['durable_name']}", {"stream_name": stream, "config": cfg})
    js.ok("$JS.API.STREAM.CREATE.SMALL", {"name": "SMALL", "subjects": ["small.>"], "max_age": 3600 * 10**9})
    small_consumer = {"durable_name": "worker", "ack_policy": "explicit", "max_deliver": 5, "filter_subject": "small.a"}
    js.ok("$JS.API.CONSUMER.CREATE.SMALL.worker", {"stream_name": "SMALL", "config": small_consumer})

    full, minimal = tmp_path / "full", tmp_path / "minimal"
    rc, _, err = run("export", str(full), "--server", server.url)
    assert rc == 0, err
    rc, stdout, err = run("export", "--minimal", str(minimal), "--server", server.url)
    assert rc == 0, err
    rc, stdout, err = run("plan", str(minimal), "--server", server.url)
    assert rc == 0, f"the minimal export does not plan empty:\n{stdout}{err}"

    full_specs, min_specs = _specs(full), _specs(minimal)
    assert set(full_specs) == set(min_specs)
    assert min_specs[("Stream", "SMALL")] == {"subjects": ["small.>"], "max_age": "1h"}
    worker = min_specs[("Consumer", "worker")]
    assert worker["max_deliver"] == 5 and worker["filter_subject"] == "small.a"
    assert set(worker) <= set(small_consumer) - {"durable_name"}
    for key, spec in min_specs.items():
        assert set(spec) <= set(full_specs[key]), key  # nothing added, and each kept value is the full export's
        assert all(spec[k] == full_specs[key][k] for k in spec), key
    # the 7-line manifest exported as 27 lines: the minimal file is the manifest again
    small = (minimal / "SMALL.yaml").read_text()
    assert len(small.splitlines()) <= 20 < len((full / "SMALL.yaml").read_text().splitlines()), small


def test_export_filters_streams_and_buckets_by_name(server: NatsServer, js: Js, tmp_path: Path) -> None:
    for name in ("ORDERS", "ORDERS_EU", "PAYMENTS"):
        js.ok(f"$JS.API.STREAM.CREATE.{name}", {"name": name, "subjects": [f"{name.lower()}.>"]})
    js.ok("$JS.API.CONSUMER.CREATE.PAYMENTS.audit", {"stream_name": "PAYMENTS", "config": {"durable_name": "audit"}})
    kv = {
        "name": "KV_sessions",
        "subjects": ["$KV.sessions.>"],
        "max_msgs_per_subject": 1,
        "allow_rollup_hdrs": True,
        "deny_delete": True,
    }
    js.ok(
        "$JS.API.STREAM.CREATE.KV_sessions",
        {**kv, "discard": "new", "allow_direct": True, "duplicate_window": 120 * 10**9},
    )
    out = tmp_path / "out"
    rc, stdout, err = run("export", "--stream", "ORDERS*", "--stream", "sessions", str(out), "--server", server.url)
    assert rc == 0, err
    assert sorted(p.name for p in out.glob("*.yaml")) == ["KV_sessions.yaml", "ORDERS.yaml", "ORDERS_EU.yaml"]
    assert "Exported 3 streams and 0 consumers" in stdout
    rc, stdout, err = run("export", "--stream", "PAY*", str(tmp_path / "pay"), "--server", server.url)
    assert rc == 0 and "Exported 1 streams and 1 consumers" in stdout, stdout + err
