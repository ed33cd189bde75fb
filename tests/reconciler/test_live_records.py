"""The server's configs read into effective records at the edge (``from_api_json``): nothing is lost.

Against a real nats-server: every stream and consumer of the export round trip (each catalog field set to a
value other than its default) is read back with ``STREAM.INFO`` / ``CONSUMER.INFO``, parsed into its
record, and written again with ``api_json``: the JSON is the server's, field for field, and no field is left
over (the catalog knows every field the server sends). A field of a newer release is kept beside the record,
as sent, and written back with it."""

from __future__ import annotations

import pytest

from jsops.linter import (
    api_json,
    consumer_from_api_json,
    effective_stream,
    from_api_json,
    parse_version,
    stream_from_api_json,
    strip_server_metadata,
)
from jsops.linter.model.config import StreamConfig
from jsops.linter.semantics import catalog
from tests.natsserver import release_or_skip

from .helpers import Js, NatsServer, manifest, run
from .test_export_roundtrip import CONSUMERS, STREAMS


def test_a_field_of_a_newer_release_is_kept_beside_the_record() -> None:
    eff = effective_stream(StreamConfig.model_validate({"subjects": ["a.>"], "max_age": "1h"}), name="A")
    sent = {**api_json(eff), "allow_time_travel": True, "time_travel": {"depth": 3}}
    record, extra = stream_from_api_json(sent)
    assert record == eff
    assert extra.fields == {"allow_time_travel": True, "time_travel": {"depth": 3}}
    assert extra.put_into(api_json(record)) == sent


def test_a_left_out_field_reads_as_its_zero_value() -> None:
    record, extra = consumer_from_api_json({"durable_name": "d", "ack_policy": "explicit"})
    assert (record.ack_policy, record.ack_wait, record.backoff, record.description, record.deliver_policy) == (
        "explicit",
        0,
        (),
        None,
        "all",
    )
    assert not extra
    with pytest.raises(TypeError):
        from_api_json("Placement", {})


@pytest.mark.integration
def test_every_field_the_server_sends_reads_and_writes_back(server: NatsServer, js: Js) -> None:
    for cfg in STREAMS:
        js.ok(f"$JS.API.STREAM.CREATE.{cfg['name']}", cfg)
    for stream, cfg in CONSUMERS:
        js.ok(f"$JS.API.CONSUMER.CREATE.{stream}.{cfg['durable_name']}", {"stream_name": stream, "config": cfg})
    seen = 0
    for cfg in STREAMS:
        info = js.stream(cfg["name"])
        assert info is not None
        sent = strip_server_metadata(info["config"])
        record, extra = from_api_json("Stream", sent)
        assert not extra, cfg["name"]
        assert api_json(record) == sent, cfg["name"]
        seen += 1
    for stream, cfg in CONSUMERS:
        info = js.consumer(stream, cfg["durable_name"])
        assert info is not None
        sent = strip_server_metadata(info["config"])
        record, extra = from_api_json("Consumer", sent)
        assert not extra, cfg["durable_name"]
        assert api_json(record) == sent, cfg["durable_name"]
        seen += 1
    assert seen == len(STREAMS) + len(CONSUMERS)


@pytest.mark.integration
@pytest.mark.parametrize("version", ["2.10.26", "2.11.11", "2.12.8", "2.14.6", "2.15.1"])
def test_each_release_reads_back_into_records_and_plans_empty(version: str, tmp_path) -> None:
    """On every release: what the server stores for a stream and a consumer reads into records and writes
    back field for field, and a plan of the manifests it was applied from is empty."""
    binary = release_or_skip(version)
    server = NatsServer(binary=binary).start()
    js = Js(server.url)
    try:
        manifest(tmp_path, "orders.yaml", ORDERS)
        rc, out, err = run("apply", str(tmp_path), "--server", server.url, "--yes")
        assert rc == 0, out + err
        for kind, info in (("Stream", js.stream("ORDERS")), ("Consumer", js.consumer("ORDERS", "shipper"))):
            assert info is not None
            sent = strip_server_metadata(info["config"])
            record, extra = from_api_json(kind, sent)
            # a field newer than the release is not sent by it: written back as its zero value (which the release ignores)
            newer = {f.name for f in catalog.record(kind).fields if f.since > parse_version(version)}
            written = {k: v for k, v in api_json(record).items() if not (k in newer and k not in sent and not v)}
            assert not extra and written == sent, (version, kind)
        rc, out, err = run("plan", str(tmp_path), "--server", server.url)
        assert rc == 0, f"{version}: not empty after apply:\n{out}{err}"
    finally:
        js.close()
        server.stop()


ORDERS = """
apiVersion: jsops/v1
kind: Stream
metadata: {name: ORDERS}
spec:
  subjects: ["orders.>"]
  max_age: 1h
  max_bytes: 64MiB
  duplicate_window: 30s
  placement: {tags: []}
  metadata: {team: shop}
---
apiVersion: jsops/v1
kind: Consumer
metadata: {name: shipper, stream: ORDERS}
spec:
  ack_policy: explicit
  ack_wait: 45s
  max_deliver: 5
  backoff: [45s, 90s]
  filter_subjects: [orders.a, orders.b]
  metadata: {owner: shop}
"""
