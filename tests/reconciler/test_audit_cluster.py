"""``jsops audit`` on a 3-node loopback cluster: a stopped node shows as an offline (or lagging)
replica of the streams it held, and on nothing else."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest

from .audit_seed import HOUR_NS
from .conftest import three_nodes
from .helpers import Js, NatsCluster
from .test_audit_server import audit, audit_json

pytestmark = pytest.mark.integration

REPLICA_CODES = {"JS510", "JS511"}


@pytest.fixture
def fresh_cluster() -> Iterator[NatsCluster]:
    yield from three_nodes()


def _create(js: Js, name: str, replicas: int) -> dict[str, object]:
    deadline = time.monotonic() + 60
    while True:  # a loaded machine may still be electing: retry
        resp = js.request(
            f"$JS.API.STREAM.CREATE.{name}",
            {
                "name": name,
                "subjects": [f"{name.lower()}.>"],
                "num_replicas": replicas,
                "max_age": HOUR_NS,
                "duplicate_window": 60_000_000_000,
            },
        )
        if "error" not in resp:
            return resp
        assert time.monotonic() < deadline, resp
        time.sleep(0.5)


def test_a_stopped_node_shows_as_offline_replicas(fresh_cluster: NatsCluster) -> None:
    js = Js(fresh_cluster.url)
    try:
        _create(js, "REPL", 3)
        single = _create(js, "SOLO", 1)
        js.publish("repl.x", 5)
        _rc, before = audit_json("-s", fresh_cluster.url)
        assert not [f for f in before if f["rule"] in REPLICA_CODES]
        solo_node = (single.get("cluster") or {}).get("leader")  # type: ignore[union-attr]
        victim = next(n for i, n in enumerate(fresh_cluster.nodes, start=1) if f"n{i}" != solo_node)
        victim_name = f"n{fresh_cluster.nodes.index(victim) + 1}"
        victim.stop()
        urls = ",".join(n.url for n in fresh_cluster.nodes if n is not victim)
        deadline = time.monotonic() + 90
        after: list[dict[str, object]] = []
        while True:
            rc, out, err = audit("--format", "json", "-s", urls)
            if rc != 2:  # 2: the cluster is electing a new meta leader, the listing is refused meanwhile
                after = json.loads(out)["findings"]
                hits = [f for f in after if f["rule"] in REPLICA_CODES]
                if any(victim_name in str(f["message"]) for f in hits):
                    break
            assert time.monotonic() < deadline, (after, err)
            time.sleep(1)
        assert {f["file"] for f in hits} == {"nats://REPL"}  # SOLO has no replica on the stopped node
    finally:
        js.close()


def _lead_on(js: Js, stream: str, server: str) -> None:
    """Step the stream's leader down until ``server`` leads it (a preferred step-down, 2.11 and later)."""
    deadline = time.monotonic() + 90
    while True:
        info = js.request(f"$JS.API.STREAM.INFO.{stream}", {})
        if (info.get("cluster") or {}).get("leader") == server:  # type: ignore[union-attr]
            return
        assert time.monotonic() < deadline, info
        js.request(f"$JS.API.STREAM.LEADER.STEPDOWN.{stream}", {"placement": {"preferred": server}})
        time.sleep(0.5)


def test_one_server_leading_every_stream_is_leader_skew(fresh_cluster: NatsCluster) -> None:
    js = Js(fresh_cluster.url)
    names = [f"SKEW{i}" for i in range(6)]
    try:
        for name in names:
            _create(js, name, 3)
        for name in names:
            _lead_on(js, name, "n1")
        _rc, findings = audit_json("-s", fresh_cluster.url)
        skew = [f for f in findings if f["rule"] == "JS516"]
        assert len(skew) == 1 and "server 'n1' leads 6 of the 6 replicated streams" in str(skew[0]["message"]), skew
        for name, server in zip(names, ["n1", "n2", "n3", "n1", "n2", "n3"]):
            _lead_on(js, name, server)
        _rc, findings = audit_json("-s", fresh_cluster.url)
        assert [f for f in findings if f["rule"] == "JS516"] == []
    finally:
        js.close()
