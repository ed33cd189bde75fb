"""The server's configs read into effective records at the edge (``from_api_json``): nothing is lost.

Against a real nats-server: every stream and consumer of the export round trip (each catalog field set to a
value other than its default) is read back with ``STREAM.INFO`` / ``CONSUMER.INFO``, parsed into its
record, and written again with ``api_json``: the JSON is the server's, field for field, and no field is left
over (the catalog knows every field the server sends). A field of a newer release is kept beside the record,
as sent, and written back with it."""

from __future__ import annotations

import pytest

from jsops.linter import api_json, consumer_from_api_json, effective_stream, from_api_json, stream_from_api_json, strip_server_metadata
from jsops.linter.model.config import StreamConfig

from .helpers import Js, NatsServer
from .test_export_roundtrip import CONSUMERS, STREAMS


def test_a_field_of_a_newer_release_is_kept_beside_the_record() -> None:
    eff = effective_stream(StreamConfig.model_validate({"subjects": ["a.>"], "max_age": "1h"}), name="A")
    sent = {**api_json(eff), "allow_time_travel": True, "time_travel": {"depth": 3}}
    record, extra = stream_from_api_json(sent)
    assert record == eff
    assert extra == {"allow_time_travel": True, "time_travel": {"depth": 3}}
    assert {**api_json(record), **extra} == sent


def test_a_left_out_field_reads_as_its_zero_value() -> None:
    record, extra = consumer_from_api_json({"durable_name": "d", "ack_policy": "explicit"})
    assert (record.ack_policy, record.ack_wait, record.backoff, record.description, record.deliver_policy) == ("explicit", 0, (), None, "all")
    assert extra == {}
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
        assert extra == {}, cfg["name"]
        assert api_json(record) == sent, cfg["name"]
        seen += 1
    for stream, cfg in CONSUMERS:
        info = js.consumer(stream, cfg["durable_name"])
        assert info is not None
        sent = strip_server_metadata(info["config"])
        record, extra = from_api_json("Consumer", sent)
        assert extra == {}, cfg["durable_name"]
        assert api_json(record) == sent, cfg["durable_name"]
        seen += 1
    assert seen == len(STREAMS) + len(CONSUMERS)
