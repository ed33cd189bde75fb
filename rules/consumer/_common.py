"""Helpers shared by the consumer rules (``rules/consumer/``).

They read the *effective* consumer config (server defaults applied: ``EffectiveConsumer``) and the
parent stream's effective config, as ``checkConsumerCfg`` in nats-server's consumer.go sees them.
"""

from __future__ import annotations

from jsops.linter import api

__all__ = ["parent_effective", "parent_consumer_limits", "field_path", "empty_entry"]

_NO_LIMITS = api.EffectiveConsumerLimits()


def parent_effective(resource: api.ConsumerResource, ctx: api.RuleContext) -> api.EffectiveStream | None:
    """The parent stream's effective config, or None when the estate does not declare it."""
    parent = ctx.stream_of(resource)
    return ctx.effective(parent) if parent is not None else None


def parent_consumer_limits(resource: api.ConsumerResource, ctx: api.RuleContext) -> api.EffectiveConsumerLimits:
    """The parent stream's effective ``consumer_limits`` (no limits when the estate does not declare it)."""
    stream = parent_effective(resource, ctx)
    return stream.consumer_limits if stream is not None else _NO_LIMITS


def field_path(resource: api.ConsumerResource, *fields: str) -> api.FieldPath:
    """The first of ``fields`` that the manifest writes, as a config path (the first one if none)."""
    cfg = resource.config
    for name in fields:
        if getattr(cfg, name, None) is not None:
            return (name,)
    return (fields[0],) if fields else ()


def empty_entry(resource: api.ConsumerResource, field: str, i: int, code: int) -> api.Violation:
    """The finding for the empty entry ``field[i]`` of a list in which nats-server refuses empty
    strings (err_code ``code``); its fix removes the entry."""
    return api.Violation(
        resource,
        (field, i),
        f"{field}[{i}] is empty; nats-server rejects this consumer",
        server_error_code=code,
        fix=api.FixSuggestion.safe(f"remove {field}[{i}]"),
    )
