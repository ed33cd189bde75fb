"""Configs as a real load and a real server make them, for plan tests: a manifest-like spec (NATS API field
names, durations in ns) -> the effective record the loader gives (and the server stores: its JSON is what
``STREAM.INFO`` returns, ``tests/reconciler/test_live_records.py``)."""

from __future__ import annotations

from typing import Any

from jsops.linter import EffectiveConsumer, EffectiveStream, api_json, effective_consumer, effective_stream
from jsops.linter.model.config import ConsumerConfig, StreamConfig
from jsops.reconciler.live import LiveConsumer, LiveStream
from jsops.reconciler.plan import Desired


def stream_record(spec: dict[str, Any]) -> EffectiveStream:
    """The effective config of a stream spec (its ``name`` included)."""
    body = {k: v for k, v in spec.items() if k != "name"}
    return effective_stream(StreamConfig.model_validate(body), name=spec["name"])


def consumer_record(spec: dict[str, Any]) -> EffectiveConsumer:
    """The effective config of a consumer spec."""
    return effective_consumer(ConsumerConfig.model_validate(spec))


def stored_stream(spec: dict[str, Any]) -> dict[str, Any]:
    """What the server returns for a stream created from ``spec``."""
    return api_json(stream_record(spec))


def stored_consumer(spec: dict[str, Any]) -> dict[str, Any]:
    """What the server returns for a consumer created from ``spec``."""
    return api_json(consumer_record(spec))


def live_stream(spec: dict[str, Any] | EffectiveStream, *state: Any, **kw: Any) -> LiveStream:
    """A live stream created from ``spec`` (and its state)."""
    return LiveStream(stream_record(spec) if isinstance(spec, dict) else spec, *state, **kw)


def live_consumer(stream: str, spec: dict[str, Any] | EffectiveConsumer, *state: Any, **kw: Any) -> LiveConsumer:
    """A live consumer of ``stream`` created from ``spec`` (and its state)."""
    return LiveConsumer(stream, consumer_record(spec) if isinstance(spec, dict) else spec, *state, **kw)


def desired_of(
    kind: str,
    name: str,
    stream: str | None,
    spec: dict[str, Any] | EffectiveStream | EffectiveConsumer,
    *rest: Any,
    **kw: Any,
) -> Desired:
    """A desired object whose config is the effective config of ``spec`` (a consumer's named ``name`` when
    the spec names none, as the loader does)."""
    if isinstance(spec, dict):
        if kind == "Stream":
            config: EffectiveStream | EffectiveConsumer = stream_record({"name": name, **spec})
        else:
            config = consumer_record(
                spec if spec.get("durable_name") or spec.get("name") else {**spec, "durable_name": name}
            )
    else:
        config = spec
    return Desired(kind, name, stream, config, *rest, **kw)
