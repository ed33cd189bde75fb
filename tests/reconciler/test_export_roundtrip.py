"""export -> load -> plan is empty for every catalog field, and every duration and size is written as people
write them (``64MiB``, ``30s``), against a real nats-server. The estate sets each stream, consumer and bucket
field the server stores to a value other than its default (a field no object here sets is named in
``NOT_SET`` with the reason)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from jsops.linter.semantics import catalog
from jsops.linter.semantics.catalog import Unit

from .helpers import Js, NatsServer, run

pytestmark = pytest.mark.integration

MIB = 1024 * 1024
S = 1_000_000_000

STREAMS: list[dict[str, Any]] = [
    {
        "name": "ORDERS",
        "description": "orders",
        "subjects": ["orders.>", "returns.>"],
        "retention": "limits",
        "max_consumers": 10,
        "max_msgs": 100000,
        "max_bytes": 64 * MIB,
        "max_age": 7 * 24 * 3600 * S,
        "max_msgs_per_subject": 5,
        "max_msg_size": MIB,
        "discard": "new",
        "storage": "memory",
        "num_replicas": 1,
        "duplicate_window": 30 * S,
        "placement": {"tags": []},
        "compression": "none",
        "first_seq": 5,
        "subject_transform": {"src": "orders.>", "dest": "orders.in.>"},
        "republish": {"src": "returns.>", "dest": "repub.>", "headers_only": True},
        "allow_direct": True,
        "discard_new_per_subject": True,
        "deny_delete": True,
        "allow_rollup_hdrs": True,
        "consumer_limits": {"inactive_threshold": 3600 * S, "max_ack_pending": 500},
        "allow_msg_ttl": True,
        "subject_delete_marker_ttl": 300 * S,
        "allow_atomic": True,
        "allow_batched": True,
        "metadata": {"team": "shop"},
    },
    {
        "name": "SCHED",
        "subjects": ["sched.>"],
        "allow_msg_schedules": True,
        "allow_msg_ttl": True,
        "persist_mode": "async",
    },
    {"name": "COUNTERS", "subjects": ["counters.>"], "allow_msg_counter": True, "compression": "s2"},
    {
        "name": "BACKUP",
        "mirror": {"name": "ORDERS", "opt_start_seq": 5, "filter_subject": "orders.>"},
        "mirror_direct": True,
    },
    {
        "name": "SOURCED",
        "subjects": ["sourced.>"],
        "deny_purge": True,
        "retention": "interest",
        "no_ack": True,
        "sources": [
            {
                "name": "COUNTERS",
                "opt_start_time": "2026-01-02T03:04:05Z",
                "subject_transforms": [{"src": "counters.>", "dest": "c.>"}],
            }
        ],
    },
]
CONSUMERS: list[tuple[str, dict[str, Any]]] = [
    (
        "ORDERS",
        {
            "durable_name": "pull",
            "description": "pull",
            "deliver_policy": "by_start_sequence",
            "opt_start_seq": 7,
            "ack_policy": "explicit",
            "ack_wait": 45 * S,
            "max_deliver": 5,
            "backoff": [45 * S, 90 * S],
            "filter_subjects": ["orders.a", "orders.b"],
            "replay_policy": "instant",
            "max_waiting": 64,
            "max_ack_pending": 200,
            "headers_only": True,
            "max_batch": 50,
            "max_expires": 30 * S,
            "max_bytes": 8 * MIB,
            "inactive_threshold": 3600 * S,
            "num_replicas": 1,
            "mem_storage": True,
            "metadata": {"owner": "shop"},
            "priority_groups": ["jobs"],
            "priority_policy": "pinned_client",
            "priority_timeout": 90 * S,
        },
    ),
    (
        "ORDERS",
        {
            "durable_name": "push",
            "deliver_policy": "by_start_time",
            "opt_start_time": "2026-01-02T03:04:05Z",
            "ack_policy": "explicit",
            "filter_subject": "orders.c",
            "replay_policy": "original",
            "rate_limit_bps": 1000000,
            "sample_freq": "50%",
            "flow_control": True,
            "deliver_subject": "deliver.push",
            "deliver_group": "workers",
            "idle_heartbeat": 15 * S,
        },
    ),
]
KV = {
    "bucket": "config",
    "description": "kv",
    "max_value_size": 4096,
    "history": 5,
    "ttl": 3600 * S,
    "max_bytes": 16 * MIB,
    "storage": "file",
    "replicas": 1,
    "compression": True,
    "limit_marker_ttl": 60 * S,
    "metadata": {"a": "b"},
}
# fields no object here sets, and why (everything else is set to a value other than its default)
NOT_SET = {
    ("Stream", "name"): "identity, not a setting",
    ("Stream", "sealed"): "a sealed stream takes no consumers or messages: its own test elsewhere",
    ("Stream", "template_owner"): "set only by the server, on a stream a stream template made (gone from 2.14)",
    ("Consumer", "name"): "identity, the durable_name here",
    ("Consumer", "direct"): "set only by the server for mirrors and sources",
    ("Consumer", "sourcing"): "set only by the server for sourcing consumers",
    ("Consumer", "pause_until"): "changed through the pause API, not the config (its own tests)",
}


def _texts(out: Path) -> dict[str, str]:
    return {p.name: p.read_text() for p in sorted(out.glob("*.yaml"))}


def _docs(out: Path) -> list[dict[str, Any]]:
    yaml = YAML(typ="safe")
    return [d for p in sorted(out.glob("*.yaml")) for d in yaml.load_all(p.read_text()) if d]


def test_export_load_plan_is_empty_with_readable_units(server: NatsServer, js: Js, tmp_path: Path) -> None:
    for cfg in STREAMS:
        js.ok(f"$JS.API.STREAM.CREATE.{cfg['name']}", cfg)
    for stream, cfg in CONSUMERS:
        js.ok(f"$JS.API.CONSUMER.CREATE.{stream}.{cfg['durable_name']}", {"stream_name": stream, "config": cfg})
    kv_stream = {
        "name": "KV_config",
        "subjects": ["$KV.config.>"],
        "description": KV["description"],
        "max_msg_size": KV["max_value_size"],
        "max_msgs_per_subject": KV["history"],
        "max_age": KV["ttl"],
        "max_bytes": KV["max_bytes"],
        "storage": "file",
        "num_replicas": 1,
        "compression": "s2",
        "subject_delete_marker_ttl": KV["limit_marker_ttl"],
        "allow_msg_ttl": True,
        "allow_rollup_hdrs": True,
        "deny_delete": True,
        "discard": "new",
        "allow_direct": True,
        "duplicate_window": 120 * S,
        "metadata": KV["metadata"],
    }
    js.ok("$JS.API.STREAM.CREATE.KV_config", kv_stream)

    out = tmp_path / "export"
    rc, _, err = run("export", str(out), "--server", server.url)
    assert rc == 0, err
    rc, stdout, err = run("plan", str(out), "--server", server.url)
    assert rc == 0, f"the export does not plan empty:\n{stdout}{err}"

    docs = _docs(out)
    specs = {(d["kind"], d["metadata"]["name"]): d["spec"] for d in docs}
    # every field is exported (set here to a non-default value), except the ones named in NOT_SET
    for kind in ("Stream", "Consumer"):
        seen = {k for (kd, _), spec in specs.items() if kd == kind for k in spec} | {"name", "durable_name"}
        missing = {f.name for f in catalog.record(kind).fields} - seen - {n for (k, n) in NOT_SET if k == kind}
        assert missing == set(), f"{kind} fields not exported: {sorted(missing)}"
    assert ("KeyValue", "config") in specs, sorted(specs)
    # durations and sizes are written readably wherever they are
    for (kind, name), spec in specs.items():
        for path, unit in catalog.unit_paths(kind).items():
            for value in _values(spec, path):
                if unit in (Unit.DURATION, Unit.DURATIONS, Unit.SIZE) and value not in (0, -1):
                    assert isinstance(value, str), (
                        f"{kind} {name} {'.'.join(path)}: {value!r} is written as a raw number"
                    )
    pull = specs[("Consumer", "pull")]
    assert pull["max_bytes"] == "8MiB" and pull["ack_wait"] == "45s" and pull["backoff"] == ["45s", "1m30s"]
    assert specs[("KeyValue", "config")]["max_bytes"] == "16MiB"


def _values(spec: Any, path: tuple[str, ...]) -> list[Any]:
    if not path:
        return [spec]
    step, rest = path[0], path[1:]
    if step == "*":
        return [v for item in spec for v in _values(item, rest)] if isinstance(spec, list) else []
    if isinstance(spec, dict) and step in spec:
        return _values(spec[step], rest)
    return []
