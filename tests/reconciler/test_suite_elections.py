"""The suite's JetStream helper waits through leader elections (issue 22 item 14): a read asked
while the cluster has no leader is asked again until one is elected, instead of failing the test
(a loaded machine makes elections slow; a fresh clone's `make test` under `stress --cpu 6` failed
on one STREAM.INFO timed out during an election)."""

from __future__ import annotations

import threading
import time

import pytest

from .helpers import Js, NatsCluster

pytestmark = pytest.mark.integration


def test_a_read_during_an_election_waits_for_the_leader() -> None:
    with NatsCluster() as cluster:
        js = Js(cluster.nodes[0].url)
        try:
            js.ok("$JS.API.STREAM.CREATE.ELECT", {"name": "ELECT", "subjects": ["elect.>"], "num_replicas": 3})
            for node in cluster.nodes[1:]:  # no quorum: no meta leader, no stream leader
                node.kill()
            back = threading.Timer(3.0, lambda: [node.restart() for node in cluster.nodes[1:]])
            started = time.monotonic()
            back.start()
            info = js.ok("$JS.API.STREAM.INFO.ELECT")  # answered once the cluster has its leaders again
            back.join()
            assert info["config"]["name"] == "ELECT"
            assert time.monotonic() - started >= 2.5  # it did wait for the election
        finally:
            js.close()
