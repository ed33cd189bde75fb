"""Private helpers shared by the consumer create-time rules (``rules/consumer_*.py``).

They read the *effective* consumer config (server defaults applied, server JSON shape) and the
parent stream's effective config, as ``checkConsumerCfg`` in nats-server's consumer.go sees them.
"""

from __future__ import annotations

from typing import Any

from linter.api import RuleContext
from linter.loader import Resource
from linter.model.units import format_duration

__all__ = ["effective", "stream_config", "field_path", "dur", "is_push", "NO_STREAM"]

NO_STREAM: dict[str, Any] = {}

SECOND = 1_000_000_000
MILLISECOND = 1_000_000


def effective(resource: Resource, ctx: RuleContext) -> dict[str, Any]:
    """``ctx.effective(resource)``, answered from the context's cache without a method call when
    the config was already computed (the method costs microseconds per call; rules call it a
    few hundred thousand times on a large estate)."""
    cache = getattr(ctx, "_effective", None)
    if cache is not None:
        hit = cache.get(id(resource))
        if hit is not None:
            return hit
    return ctx.effective(resource)


def stream_config(resource: Resource, ctx: RuleContext) -> dict[str, Any] | None:
    """The parent stream's effective config, or None when the estate does not declare it."""
    parent = ctx.stream_of(resource)
    return effective(parent, ctx) if parent is not None else None


def field_path(resource: Resource, *fields: str) -> tuple[Any, ...]:
    """The first of ``fields`` that the manifest writes, as a config path (the first one if none)."""
    cfg = resource.config
    for name in fields:
        if getattr(cfg, name, None) is not None:
            return (name,)
    return (fields[0],) if fields else ()


def is_push(eff: dict[str, Any]) -> bool:
    return bool(eff.get("deliver_subject"))


def dur(ns: int) -> str:
    return format_duration(ns)
