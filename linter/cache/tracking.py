"""What a per-object check reads about other objects, recorded: :class:`TrackingContext`.

The reads and how the results cache judges them are described in :mod:`jsops.linter.cache.memo`, which
answers them (a read's fingerprint) and keeps the results they vouch for.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any, ParamSpec, TypeVar, overload

from ..api import ConsumerResource, EffectiveConsumer, EffectiveStream, RuleContext, StreamSource
from ..load import Estate, Resource
from ..model.config import ConsumerConfig, StreamConfig

__all__ = ["ALL", "CLOCK", "Read", "TrackingContext"]

_P = ParamSpec("_P")
_T = TypeVar("_T")

Read = tuple[Any, ...]
"""What a check read: ``("s", context, name)`` a stream by name, ``("o", name)`` an origin by name,
:data:`ALL` the whole estate."""
ALL: Read = ("*",)
CLOCK: Read = ("t",)


class _Origins(dict[str, StreamConfig]):
    """``RuleContext._origins`` that records the names looked up in it."""

    ctx: TrackingContext

    def __contains__(self, name: object) -> bool:
        self.ctx._note(("o", name))
        return super().__contains__(name)

    def __getitem__(self, name: str) -> StreamConfig:
        self.ctx._note(("o", name))
        return super().__getitem__(name)

    @overload
    def get(self, name: str, default: None = None, /) -> StreamConfig | None: ...
    @overload
    def get(self, name: str, default: StreamConfig, /) -> StreamConfig: ...
    @overload
    def get(self, name: str, default: _T, /) -> StreamConfig | _T: ...
    def get(self, name: str, default: _T | None = None, /) -> StreamConfig | _T | None:
        self.ctx._note(("o", name))
        return super().get(name, default)


class TrackingContext(RuleContext):
    """A :class:`RuleContext` that records what a check reads about other objects (see the module)."""

    _reads: list[Read] | None = None
    clock_reads: int = 0  # calls of :meth:`now` (an estate-wide check that read the clock, see the engine)
    _quiet: int = 0
    _eff_reads: dict[int, tuple[Read, ...]] | None = None
    _estate_value: Estate

    @property
    def estate(self) -> Estate:
        self._broad()
        return self._estate_value

    @estate.setter
    def estate(self, value: Estate) -> None:
        self._estate_value = value

    def _note(self, read: Read) -> None:
        reads = self._reads
        if reads is not None:
            reads.append(read)

    def _broad(self) -> None:
        if self._reads is not None and not self._quiet:
            self._reads.append(ALL)

    def _quietly(self, call: Callable[_P, _T], *args: _P.args, **kwargs: _P.kwargs) -> _T:
        """``call(*args)`` without recording the reads it makes itself (the caller recorded what it asks)."""
        self._quiet += 1
        try:
            return call(*args, **kwargs)
        finally:
            self._quiet -= 1

    def streams(self) -> list[Resource[StreamConfig]]:
        self._broad()
        return self._quietly(super().streams)

    def consumers(self) -> list[ConsumerResource]:
        self._broad()
        return self._quietly(super().consumers)

    def now(self) -> datetime:
        self.clock_reads += 1
        self._note(CLOCK)
        return super().now()

    def cached(self, key: str, build: Callable[[], _T]) -> _T:
        """A shared value built from the estate: the read is of the value (its fingerprint, see
        :func:`_encode`), not of the whole estate."""
        self._note(("c", key))
        return self._quietly(super().cached, key, build)

    def stream_index(self) -> dict[tuple[str, str | None], Resource[StreamConfig]]:
        self._broad()
        return self._quietly(super().stream_index)

    def streams_by_context(self) -> dict[str, list[Resource[StreamConfig]]]:
        self._broad()
        return self._quietly(super().streams_by_context)

    def consumers_by_stream(self) -> dict[tuple[str, str | None], list[ConsumerResource]]:
        self._broad()
        return self._quietly(super().consumers_by_stream)

    def stream_of(self, consumer: Resource) -> Resource[StreamConfig] | None:
        self._note(("s", consumer.context, consumer.stream))
        return self._quietly(super().stream_of, consumer)

    def origin_of(self, resource: Resource, src: StreamSource | None) -> Resource[StreamConfig] | None:
        if src is not None and src.external is None and src.name:
            self._note(("s", resource.context, src.name))
        return self._quietly(super().origin_of, resource, src)

    @overload
    def effective(self, resource: Resource[StreamConfig]) -> EffectiveStream: ...
    @overload
    def effective(self, resource: Resource[ConsumerConfig]) -> EffectiveConsumer: ...
    @overload
    def effective(self, resource: Resource) -> EffectiveStream | EffectiveConsumer: ...
    def effective(self, resource: Resource) -> EffectiveStream | EffectiveConsumer:
        known = self._eff_reads
        if known is None:
            known = self._eff_reads = {}
        seen = known.get(id(resource))
        outer = self._reads
        if seen is not None:
            if outer is not None:
                outer.extend(seen)
            return super().effective(resource)
        if self._origins is None:
            origins = _Origins(
                {
                    r.name: r.config
                    for r in self._estate_value.resources
                    if r.kind == "Stream" and isinstance(r.config, StreamConfig)
                }
            )
            origins.ctx = self
            self._origins = origins
        mine: list[Read] = []
        self._reads = mine
        self._quiet += 1
        try:
            out = super().effective(resource)
        finally:
            self._quiet -= 1
            self._reads = outer
        known[id(resource)] = tuple(mine)
        if outer is not None:
            outer.extend(mine)
        return out
