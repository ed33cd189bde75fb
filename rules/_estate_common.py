"""Helpers shared by the estate-wide (``estate_*``), target (``target_*``) and silent-rewrite
(``rewrite_*``) rules. Not a rule module: skipped by discovery.

Estate-wide rules replay what nats-server sees when the estate is applied in order (streams in
declaration order, then consumers): a stream or consumer the server would refuse is not created,
so it does not count against the ones declared after it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from linter.api import RuleContext
from linter.loader import Resource

__all__ = ["effective", "cached", "streams_by_context", "stream_index", "consumers_by_stream", "filters_of", "where"]

T = TypeVar("T")


def cached(ctx: RuleContext, key: str, build: Callable[[], T]) -> T:
    """A value computed once per lint run and shared by the rules (kept on the context)."""
    store: dict[str, Any] = ctx.__dict__.setdefault("_jsops_estate_cache", {})
    if key not in store:
        store[key] = build()
    return store[key]  # type: ignore[no-any-return]


def effective(resource: Resource, ctx: RuleContext) -> dict[str, Any]:
    hit = ctx._effective.get(id(resource))
    return hit if hit is not None else ctx.effective(resource)


def streams_by_context(ctx: RuleContext) -> dict[str, list[Resource]]:
    """Streams per context, in declaration order."""

    def build() -> dict[str, list[Resource]]:
        out: dict[str, list[Resource]] = {}
        for r in ctx.estate.resources:
            if r.kind == "Stream":
                out.setdefault(r.context, []).append(r)
        return out

    return cached(ctx, "streams_by_context", build)


def stream_index(ctx: RuleContext) -> dict[tuple[str, str], Resource]:
    """(context, name) -> the stream's resource."""
    return cached(ctx, "stream_index", lambda: {(r.context, r.name): r for r in ctx.estate.resources if r.kind == "Stream"})


def consumers_by_stream(ctx: RuleContext) -> dict[tuple[str, str | None], list[Resource]]:
    """(context, stream name) -> its consumers, in declaration order."""

    def build() -> dict[tuple[str, str | None], list[Resource]]:
        out: dict[tuple[str, str | None], list[Resource]] = {}
        for r in ctx.estate.resources:
            if r.kind == "Consumer":
                out.setdefault((r.context, r.stream), []).append(r)
        return out

    return cached(ctx, "consumers_by_stream", build)


def filters_of(cfg: dict[str, Any]) -> list[str]:
    """A consumer's filters as the server gathers them (``gatherSubjectFilters``)."""
    out = list(cfg.get("filter_subjects") or [])
    if cfg.get("filter_subject"):
        out.append(cfg["filter_subject"])
    return out


def where(resource: Resource, path: tuple[Any, ...] = ()) -> str:
    """``file:line`` of a resource's field, for messages that point at another object."""
    line, _ = resource.locate(path)
    return f"{resource.file}:{line}"
