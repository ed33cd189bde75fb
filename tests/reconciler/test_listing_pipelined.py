"""The pipelined listing (``JsClient.apages``, ``jsops.reconciler.live.alist_estate``) on a fake server
whose pages hold 100 streams: every page is asked for once, at the offsets the first page implies,
none past the total; each stream's consumers are read; the result is in the listing's order; a
total that grows while the pages arrive is followed; the paging bounds still hold."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fakeservers import FakeNats

from jsops.reconciler.client import AnswerError, JsClient, Target
from jsops.reconciler.client import jsclient as jsclient_module
from jsops.reconciler.live import read_live

PAGE = 100


def _info(name: str, consumers: int) -> dict[str, Any]:
    return {
        "config": {
            "name": name,
            "subjects": [f"{name.lower()}.>"],
            "retention": "limits",
            "storage": "memory",
            "num_replicas": 1,
        },
        "state": {"messages": 0, "bytes": 0, "consumer_count": consumers},
        "created": "2026-01-01T00:00:00Z",
    }


def _consumer(stream: str, name: str) -> dict[str, Any]:
    return {
        "stream_name": stream,
        "name": name,
        "config": {"durable_name": name, "ack_policy": "explicit"},
        "num_pending": 0,
    }


class Estate:
    """``streams`` streams of ``consumers`` consumers each, listed ``PAGE`` a page; ``grow``: streams
    added after the first page was answered (the list grows while it is read)."""

    def __init__(self, streams: int, consumers: int = 1, grow: int = 0) -> None:
        self.names = [f"S{i:04d}" for i in range(streams)]
        self.consumers = consumers
        self.grow = grow
        self.offsets: list[int] = []

    def __call__(self, subject: str, payload: bytes) -> Any:
        api = subject.removeprefix("$JS.API.")
        offset = int(json.loads(payload or b"{}").get("offset", 0))
        if api == "STREAM.LIST":
            self.offsets.append(offset)
            names = list(self.names)
            if len(self.offsets) == 1:
                self.names += [f"T{i:04d}" for i in range(self.grow)]
            page = names[offset : offset + PAGE]
            return {
                "total": len(names),
                "offset": offset,
                "limit": PAGE,
                "streams": [_info(n, self.consumers) for n in page],
            }
        if api.startswith("CONSUMER.LIST."):
            stream = api.removeprefix("CONSUMER.LIST.")
            return {
                "total": self.consumers,
                "offset": 0,
                "limit": 256,
                "consumers": [_consumer(stream, f"c{j}") for j in range(self.consumers)],
            }
        return {"limits": {}}


def test_every_page_once_at_the_offsets_the_first_page_implies() -> None:
    estate = Estate(950)
    with FakeNats(estate) as fake, JsClient(Target(servers=(fake.url,))) as client:
        live = read_live(client)
    assert sorted(estate.offsets) == list(range(0, 950, PAGE))  # 10 pages, none twice, none past the total
    assert list(live.streams) == estate.names  # the listing's order, whatever order the answers came in
    assert list(live.consumers) == [(n, "c0") for n in estate.names]
    assert live.requests == 10 + 950


def test_a_list_that_grows_while_it_is_read_is_followed() -> None:
    estate = Estate(250, consumers=0, grow=120)
    with FakeNats(estate) as fake, JsClient(Target(servers=(fake.url,))) as client:
        live = read_live(client)
    assert len(live.streams) == 370 and sorted(estate.offsets) == [0, 100, 200, 300]


def test_the_page_bound_holds_with_pages_requested_ahead(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jsclient_module, "MAX_LIST_PAGES", 5)
    estate = Estate(2000, consumers=0)
    with FakeNats(estate) as fake, JsClient(Target(servers=(fake.url,))) as client:
        with pytest.raises(AnswerError, match="STREAM.LIST did not end after 5 pages"):
            read_live(client)
    assert len(estate.offsets) <= 5  # never a request past the bound, however far ahead it asks


def test_the_next_pages_and_the_consumers_are_asked_for_while_the_listing_runs() -> None:
    """Pipelined: once the first page tells the total, the next stream pages are asked for before
    any consumer page, and the first streams' consumers before the last stream page (one page at
    a time, the last stream page would come before every consumer page)."""
    estate = Estate(950)
    with FakeNats(estate) as fake, JsClient(Target(servers=(fake.url,))) as client:
        read_live(client)
        sent = [r.removeprefix("$JS.API.") for r in fake.requests]
    pages = [i for i, r in enumerate(sent) if r == "STREAM.LIST"]
    first_consumers = next(i for i, r in enumerate(sent) if r.startswith("CONSUMER.LIST."))
    assert pages[:5] == [0, 1, 2, 3, 4]  # the first page, then four asked for at once
    assert first_consumers < pages[-1]
