from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from .helpers import Js, NatsCluster, NatsServer


@pytest.fixture
def server() -> Iterator[NatsServer]:
    """A fresh standalone JetStream server per test (prune and ownership tests need an empty one)."""
    s = NatsServer().start()
    try:
        yield s
    finally:
        s.stop()


@pytest.fixture
def js(server: NatsServer) -> Iterator[Js]:
    client = Js(server.url)
    try:
        yield client
    finally:
        client.close()


@pytest.fixture
def two_servers() -> Iterator[tuple[NatsServer, NatsServer]]:
    """Two independent standalone servers (context routing, multi-target controller)."""
    a, b = NatsServer().start(), NatsServer().start()
    try:
        yield a, b
    finally:
        a.stop()
        b.stop()


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every JetStream API subject jsops requests in this process (through the client's one
    request method); :func:`helpers.writes` keeps those that change something."""
    from jsops.reconciler.client.jsclient import JsClient

    subjects: list[str] = []
    original = JsClient.arequest

    async def counting(self: JsClient, subject: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        subjects.append(subject)
        return await original(self, subject, body)

    monkeypatch.setattr(JsClient, "arequest", counting)
    yield subjects


def three_nodes() -> Iterator[NatsCluster]:
    """A 3-node JetStream cluster on loopback (nodes n1..n3 tagged az:1..az:3), stopped after."""
    c = NatsCluster(3).start()
    try:
        yield c
    finally:
        c.stop()


# one cluster per module by default (tests that kill nodes take a fresh one per test)
cluster = pytest.fixture(scope="module", name="cluster")(three_nodes)
