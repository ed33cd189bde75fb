"""The loaded model (jsops.linter.model.resource): resources built whole, typed by kind, and the estate's
cached indexes (streams, consumers, buckets, stream_of, consumers_of)."""

from __future__ import annotations

from dataclasses import replace

from jsops.linter.load import Estate, Resource, StreamResource, check_estate, is_consumer, is_stream, load_text
from jsops.linter.model.config import ConsumerConfig, StreamConfig

ESTATE = b"""\
apiVersion: jsops/v1
kind: Stream
metadata: {name: ORDERS}
spec: {subjects: ["orders.>"]}
---
apiVersion: jsops/v1
kind: Consumer
metadata: {name: ship, stream: ORDERS}
spec: {}
---
apiVersion: jsops/v1
kind: Consumer
metadata: {name: bill, stream: ORDERS}
spec: {}
---
apiVersion: jsops/v1
kind: Stream
metadata: {name: ORDERS, context: eu}
spec: {subjects: ["orders.>"]}
---
apiVersion: jsops/v1
kind: Consumer
metadata: {name: audit, stream: ORDERS, context: eu}
spec: {}
---
apiVersion: jsops/v1
kind: KeyValue
metadata: {name: carts}
spec: {history: 5}
---
apiVersion: jsops/v1
kind: Consumer
metadata: {name: broken, stream: ORDERS}
spec: {ack_policy: sometimes}
"""


def _estate() -> Estate:
    estate = Estate()
    load_text(ESTATE, "estate.yaml", estate)
    check_estate(estate)
    return estate


def test_resources_have_their_config_and_invalid_objects_are_not_resources() -> None:
    estate = _estate()
    assert all(r.config is not None for r in estate.resources)
    assert [r.name for r in estate.resources] == ["ORDERS", "ship", "bill", "ORDERS", "audit", "KV_carts"]
    assert ("default", "Consumer", "broken", "ORDERS") in estate.invalid
    for r in estate.resources:
        assert isinstance(r.config, StreamConfig if r.kind == "Stream" else ConsumerConfig)
        assert is_stream(r) is (r.kind == "Stream") and is_consumer(r) is (r.kind == "Consumer")


def test_indexes() -> None:
    estate = _estate()
    streams = list(estate.streams())
    assert [(s.context, s.name) for s in streams] == [("default", "ORDERS"), ("eu", "ORDERS"), ("default", "KV_carts")]
    assert [c.name for c in estate.consumers()] == ["ship", "bill", "audit"]
    assert [(b.name, b.bucket) for b in estate.buckets()] == [("KV_carts", "KeyValue")]
    (kv,) = estate.buckets()
    assert kv.bucket_config is not None and kv.config.max_msgs_per_subject == 5
    default, eu = streams[0], streams[1]
    assert [c.name for c in estate.consumers_of(default)] == ["ship", "bill"]
    assert [c.name for c in estate.consumers_of(eu)] == ["audit"]
    assert estate.consumers_of(kv) == ()
    for c in estate.consumers():
        assert estate.stream_of(c) is (eu if c.context == "eu" else default)
    assert next(estate.streams()) is default  # an iterator, as before


def test_indexes_follow_added_and_replaced_resources() -> None:
    estate = _estate()
    assert len(list(estate.consumers())) == 3
    orders = next(estate.streams())
    extra = Resource.of(next(estate.consumers()), ConsumerConfig.model_validate({"durable_name": "more"}))
    extra.name = "more"
    estate.add(extra)
    assert [c.name for c in estate.consumers_of(orders)] == ["ship", "bill", "more"]
    estate.resources.append(replace(extra, name="appended"))  # a plain append is seen too
    assert [c.name for c in estate.consumers()][-1] == "appended"
    estate.resources = [r for r in estate.resources if r.kind == "Stream"]
    assert list(estate.consumers()) == [] and estate.stream_of(extra) is orders


def test_replace_keeps_the_type() -> None:
    stream: StreamResource = next(_estate().streams())
    changed = replace(stream, config=stream.config.model_copy(update={"max_msgs": 10}))
    assert changed.config.max_msgs == 10 and changed.file == stream.file and changed.positions is stream.positions
