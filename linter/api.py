"""The rule API: what a rule module in ``rules/`` implements.

A rule is a class with a stable ``code`` (``JS1xx`` streams, ``JS2xx`` consumers, ``JS3xx``
estate-wide), a kebab-case ``name``, a default ``severity`` and a docstring that is its
documentation. ``check`` yields :class:`Violation` objects that name a config field path; the
engine turns paths into file:line:column.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel, ConfigDict

from .findings import Edit, FixSuggestion, Severity
from .loader import Estate, Resource
from .model.target import Target

if TYPE_CHECKING:
    from .model.profiles import Profiles

__all__ = ["Rule", "RuleOptions", "Violation", "RuleContext", "Severity", "FixSuggestion", "Edit", "rule_groups"]


class RuleOptions(BaseModel):
    """Base of a rule's typed options (``class Options(RuleOptions)`` nested in the rule).

    Values come from the jsops config (``[tool.jsops.rules.JS102]`` or ``rules: {JS102: {...}}``);
    unknown keys and wrong types are config errors (exit 2), never silently ignored.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)


@dataclass(frozen=True)
class Violation:
    resource: Resource
    path: tuple[Any, ...]
    message: str
    server_error_code: int | None = None
    fix: FixSuggestion | None = None
    key: bool = False  # point at the field's key rather than its value
    # The finding's severity when it differs from the rule's (e.g. a silently dropped field on an
    # older release is a warning); a severity the config sets for the rule still wins.
    severity: Severity | None = None


@dataclass
class RuleContext:
    """What a rule can see: the whole estate (already loaded), the target, and effective configs."""

    estate: Estate
    target: Target = field(default_factory=Target)
    # Measured figures (contracts §4) when ``--profiles`` or the config names a file; rules that need
    # a figure the profile lacks stay silent.
    profiles: Profiles | None = None
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
    """Base class of every rule.

    ``groups`` name sets of rules for config ``select``/``ignore``; every rule is also in the group
    named by its module prefix (``stream``, ``consumer``, ``estate``...) and in ``all`` (see
    :func:`rule_groups`). ``Options`` is the rule's typed options model; the engine builds it from
    the config and passes it to the constructor, so ``check`` reads ``self.options``.
    """

    code: ClassVar[str]
    name: ClassVar[str]
    severity: ClassVar[Severity] = Severity.ERROR
    groups: ClassVar[frozenset[str]] = frozenset()
    Options: ClassVar[type[RuleOptions]] = RuleOptions
    kinds: ClassVar[frozenset[str]] = frozenset({"Stream", "Consumer"})
    estate_wide: ClassVar[bool] = False
    # The rule sees the manifests as written, including fields the target's release does not know
    # (which every other rule no longer sees on a release that silently drops them).
    sees_dropped_fields: ClassVar[bool] = False

    def __init__(self, options: RuleOptions | None = None) -> None:
        self.options: Any = options if options is not None else type(self).Options()

    def check(self, resource: Resource, ctx: RuleContext) -> Iterable[Violation]:
        """Per-object rules: called once per resource of ``kinds``."""
        return ()

    def check_estate(self, ctx: RuleContext) -> Iterable[Violation]:
        """Estate-wide rules (``estate_wide = True``): called once."""
        return ()


def rule_groups(rule: type[Rule]) -> frozenset[str]:
    """Declared groups plus the implicit ones: ``all`` and the module prefix (``stream_x`` -> ``stream``)."""
    module = rule.__module__.rsplit(".", 1)[-1]
    implicit = {"all"}
    if "_" in module and not module.startswith("_"):
        implicit.add(module.split("_", 1)[0])
    return frozenset(rule.groups) | implicit
