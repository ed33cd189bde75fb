"""The rule API: what a rule module in ``rules/`` implements.

A rule is a class with a stable ``code`` (``JS1xx`` streams, ``JS2xx`` consumers, ``JS3xx``
estate-wide), a kebab-case ``name``, a default ``severity`` and a docstring that is its
documentation. ``check`` yields :class:`Violation` objects that name a config field path; the
engine turns paths into file:line:column.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from .findings import FixSuggestion, Severity
from .loader import Estate, Resource
from .model.target import Target

__all__ = ["Rule", "Violation", "RuleContext", "Severity", "FixSuggestion"]


@dataclass(frozen=True)
class Violation:
    resource: Resource
    path: tuple[Any, ...]
    message: str
    server_error_code: int | None = None
    fix: FixSuggestion | None = None
    key: bool = False  # point at the field's key rather than its value


@dataclass
class RuleContext:
    """What a rule can see: the whole estate (already loaded), the target, and effective configs."""

    estate: Estate
    target: Target = field(default_factory=Target)
    _effective: dict[int, dict[str, Any]] = field(default_factory=dict)
    _stream_index: dict[tuple[str, str | None], Resource] | None = None
    _origins: dict[str, Any] | None = None

    def streams(self) -> list[Resource]:
        return [r for r in self.estate.resources if r.kind == "Stream"]

    def consumers(self) -> list[Resource]:
        return [r for r in self.estate.resources if r.kind == "Consumer"]

    def stream_of(self, consumer: Resource) -> Resource | None:
        if self._stream_index is None:
            self._stream_index = {(r.context, r.name): r for r in self.estate.resources if r.kind == "Stream"}
        return self._stream_index.get((consumer.context, consumer.stream))

    def effective(self, resource: Resource) -> dict[str, Any]:
        """The effective (server-defaulted) config of a resource, computed once."""
        hit = self._effective.get(id(resource))
        if hit is not None:
            return hit
        from .effective import effective_consumer, effective_stream
        from .model.config import StreamConfig

        if resource.kind == "Stream":
            if self._origins is None:
                self._origins = {
                    r.name: r.config  # type: ignore[misc]
                    for r in self.estate.resources
                    if r.kind == "Stream" and isinstance(r.config, StreamConfig)
                }
            origins = self._origins
            out = effective_stream(resource.config, name=resource.name, target=self.target, origins=origins)  # type: ignore[arg-type]
        else:
            parent = self.stream_of(resource)
            out = effective_consumer(
                resource.config,  # type: ignore[arg-type]
                self.effective(parent) if parent is not None else None,
                target=self.target,
            )
        self._effective[id(resource)] = out
        return out


class Rule:
    """Base class of every rule."""

    code: ClassVar[str]
    name: ClassVar[str]
    severity: ClassVar[Severity] = Severity.ERROR
    kinds: ClassVar[frozenset[str]] = frozenset({"Stream", "Consumer"})
    estate_wide: ClassVar[bool] = False

    def check(self, resource: Resource, ctx: RuleContext) -> Iterable[Violation]:
        """Per-object rules: called once per resource of ``kinds``."""
        return ()

    def check_estate(self, ctx: RuleContext) -> Iterable[Violation]:
        """Estate-wide rules (``estate_wide = True``): called once."""
        return ()
