"""The configs the reconciler plans with, as typed records: a stream's or a consumer's effective config
(:class:`~jsops.linter.EffectiveStream`, :class:`~jsops.linter.EffectiveConsumer`), from the manifests
(:mod:`jsops.reconciler.plan.desired`) or read from the server, to the plan's actions and the requests
apply sends.

The server's JSON is made in one place, :func:`config_json` (a request body, a plan's JSON), and read in one
place, :func:`jsops.linter.from_api_json` (a server's answer, a saved plan). What the server sent that the catalog does
not know (a field of a newer release, at the top or inside a nested record or a source) stays beside the record
(``extra``: :class:`~jsops.linter.UnknownFields`, by position) and goes back with it, so an update loses nothing.
jsops's bookkeeping lives in the record's ``metadata`` (:func:`with_metadata`).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final, TypeAlias, TypeVar, overload

from jsops.linter import NO_UNKNOWN_FIELDS, EffectiveConsumer, EffectiveStream, ServerJson, UnknownFields, api_json

__all__ = ["Config", "ConfigT", "Extra", "NO_EXTRA", "config_json", "with_metadata", "without_metadata", "config_name"]

Config: TypeAlias = "EffectiveStream | EffectiveConsumer"
"""A stream's or a consumer's config, as nats-server stores it."""

ConfigT = TypeVar("ConfigT", EffectiveStream, EffectiveConsumer)

Extra: TypeAlias = UnknownFields
"""The fields of a server's config the catalog does not know, as the server sent them and where they were."""

NO_EXTRA: Final[Extra] = NO_UNKNOWN_FIELDS


def config_json(config: Config, extra: Extra = NO_EXTRA) -> dict[str, ServerJson]:
    """The server's JSON of ``config`` (and the fields of a newer release it came with, put back where they
    were: in a nested record or a source the config still has): what a request sends and a plan's JSON holds."""
    out: dict[str, ServerJson] = api_json(config)
    return extra.put_into(out)


@overload
def with_metadata(config: EffectiveStream, entries: Mapping[str, str]) -> EffectiveStream: ...
@overload
def with_metadata(config: EffectiveConsumer, entries: Mapping[str, str]) -> EffectiveConsumer: ...
@overload
def with_metadata(config: Config, entries: Mapping[str, str]) -> Config: ...
def with_metadata(config: Config, entries: Mapping[str, str]) -> Config:
    """``config`` with ``entries`` added to (or replacing keys of) its metadata."""
    if not entries:
        return config
    return config._replace(metadata=MappingProxyType({**config.metadata, **entries}))


@overload
def without_metadata(config: EffectiveStream, keys: frozenset[str] | set[str]) -> EffectiveStream: ...
@overload
def without_metadata(config: EffectiveConsumer, keys: frozenset[str] | set[str]) -> EffectiveConsumer: ...
@overload
def without_metadata(config: Config, keys: frozenset[str] | set[str]) -> Config: ...
def without_metadata(config: Config, keys: frozenset[str] | set[str]) -> Config:
    """``config`` without the metadata ``keys``."""
    if not any(k in config.metadata for k in keys):
        return config
    return config._replace(metadata=MappingProxyType({k: v for k, v in config.metadata.items() if k not in keys}))


def config_name(config: Config) -> str:
    """The name a config gives its object (a consumer's durable name, else its name)."""
    if isinstance(config, EffectiveConsumer):
        return config.durable_name or config.name
    return config.name
