"""Helpers shared by the estate-wide rules (``rules/estate/``)."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api

__all__ = ["streams_with_consumers"]


def streams_with_consumers(ctx: api.RuleContext) -> Iterator[tuple[api.StreamResource, list[api.ConsumerResource]]]:
    """Each stream the estate declares, with the consumers declared on it that the stream counts
    (direct and sourcing consumers left out), in declaration order; streams without any are
    skipped."""
    streams = ctx.stream_index()
    for (context, sname), consumers in ctx.consumers_by_stream().items():
        stream = streams.get((context, sname or ""))
        if stream is None:
            continue
        counted = [r for r in consumers if not (api.consumer_config(r).direct or api.consumer_config(r).sourcing)]
        if counted:
            yield stream, counted
