"""The rule API: the one linter module a rule imports (plus its theme's ``_common``).

A rule is a class with a stable ``code`` (``JS1xx`` streams, ``JS2xx`` consumers, ``JS3xx``
estate-wide, ``JS4xx`` operational), a kebab-case ``name``, a default ``severity``, a declared
:class:`FixAvailability` and a docstring that is its documentation. ``check`` yields
:class:`Violation` objects that name a config field path; the engine turns paths into
file:line:column. Built-in rules live in theme packages (``rules/<theme>/``, each declaring a
:class:`Theme`); a rule class is checked when it is defined (:mod:`jsops.linter._rule_checks`), so a
malformed rule fails at import with :class:`RuleDefinitionError`.

Besides the rule classes this module re-exports what rules read: the resource and estate types, typed config
accessors, the effective (server-defaulted) config, subject helpers, units, the operational metadata keys and
annotations (:mod:`jsops.linter.semantics.monitor`), the target and its release, and the profiles.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar, cast, overload

from ._rule_checks import FixAvailability, RuleDefinitionError, Theme, check_rule_class
from .findings import Applicability, Edit, FieldPath, FixSuggestion, Severity
from .load import Estate, Resource
from .model.clock import ClockReader
from .model.config import ConsumerConfig, Duration, Size, StreamConfig, StreamSource
from .model.records.record import Record, option
from .model.resource import DOCUMENT, is_consumer, is_stream
from .model.target import Target, TargetServer
from .semantics import placement, refusals
from .semantics.effective import (
    CONSUMER_DEFAULT_ACK_WAIT,
    EPHEMERAL_INACTIVE_THRESHOLD,
    FLOW_CONTROL_HEARTBEAT,
    STREAM_DEFAULT_DUPLICATE_WINDOW,
    effective_consumer,
    effective_stream,
)
from .semantics.effective_types import (
    EffectiveConsumer,
    EffectiveConsumerLimits,
    EffectiveExternal,
    EffectivePlacement,
    EffectiveRepublish,
    EffectiveSource,
    EffectiveSourceConsumer,
    EffectiveStream,
    EffectiveTransform,
)
from .semantics.errcodes import ErrCode
from .semantics.limits import (
    MAX_DESCRIPTION_LEN,
    MAX_METADATA_LEN,
    MAX_NAME_LEN,
    MAX_REPLICAS,
    REQ_LEVEL_METADATA_LEN,
    go_len,
    metadata_budget,
)
from .semantics.mirrors import MIRROR_REFUSES
from .semantics.monitor import (
    DEAD_LETTER,
    IGNORE_DRIFT,
    MONITOR_CONSUMER_KEYS,
    MONITOR_PREFIX,
    MONITOR_STREAM_KEYS,
    PROCESSING_TIME,
    PUBLISH_RETRY_HORIZON,
    ValueKind,
    annotation_duration,
    holdable_fields,
    ignore_drift_fields,
    monitor_keys,
    monitor_metadata,
    monitor_value_problem,
    parse_go_bool,
    unheld_fields,
)
from .semantics.monitor import parse_value as parse_monitor_value
from .semantics.releases import (
    CONSUMER_FIELDS,
    CONSUMER_FIELDS_REMOVED,
    ENUM_VALUES,
    EXTERNAL_SOURCE_CHECKS_SINCE,
    FILTER_OVERLAP_SUBSET_SINCE,
    IMPLICIT_REPUBLISH_SINCE,
    NORMALISE_NEGATIVE_LIMITS,
    PEDANTIC_SINCE,
    PEDANTIC_WINDOW_SOURCES_EXEMPT,
    PLACEMENT_FIELDS,
    STREAM_FIELDS,
    STREAM_FIELDS_REMOVED,
    STREAM_SOURCE_FIELDS,
    STRICT_JSON_DEFAULT,
    Version,
    advice_message,
    field_decoded,
    format_version,
    parse_version,
    release_answer,
    target_release,
)
from .semantics.subjects import (
    SubjectIndex,
    is_literal,
    is_subset_match,
    is_valid_asset_name,
    is_valid_publish_subject,
    is_valid_subject,
    subjects_collide,
)
from .semantics.units import (
    DAY,
    GIB,
    HOUR,
    KIB,
    MIB,
    MILLISECOND,
    MINUTE,
    NANOSECOND,
    SECOND,
    UnitError,
    approx_duration,
    approx_size,
    format_duration,
    format_size,
    human_size,
    parse_duration,
    parse_size,
)
from .violation import Violation, consumer_config, pedantic_rejection, stream_config, where

if TYPE_CHECKING:
    from .model.profiles import ConsumerProfile, Profiles, StreamProfile
    from .semantics.transforms import (
        BUILD_ONLY_BEFORE,
        EMPTY_SRC_REFUSED_BEFORE,
        mapping_problem,
        mapping_stage,
        transform_problem,
    )

# Subject-transform semantics and the profiles models are imported on first use: most estates have
# no transforms, most lints no profiles, and ``jsops lint`` on one file should not pay for them
# (``from jsops.linter.api import transform_problem`` inside the rule's check loads
# jsops.linter.semantics.transforms then).
_LAZY = {"BUILD_ONLY_BEFORE", "EMPTY_SRC_REFUSED_BEFORE", "mapping_problem", "mapping_stage", "transform_problem"}
_LAZY_PROFILES = {"Profiles", "StreamProfile", "ConsumerProfile"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from .semantics import transforms

        return getattr(transforms, name)
    if name in _LAZY_PROFILES:
        from .model import profiles

        return getattr(profiles, name)
    raise AttributeError(f"module 'jsops.linter.api' has no attribute {name!r}")


__all__ = [
    "ErrCode",
    "MIRROR_REFUSES",
    "refusals",
    "placement",
    # subject transforms (imported on first use)
    "BUILD_ONLY_BEFORE",
    "EMPTY_SRC_REFUSED_BEFORE",
    "mapping_problem",
    "mapping_stage",
    "transform_problem",
    # rules
    "Rule",
    "CREATE",
    "UPDATE",
    "CREATE_ONLY",
    "StreamRule",
    "ConsumerRule",
    "RuleContext",
    "RuleOptions",
    "option",
    "Violation",
    "pedantic_rejection",
    "Severity",
    "Applicability",
    "FixSuggestion",
    "FixAvailability",
    "Edit",
    "FieldPath",
    "Theme",
    "RuleDefinitionError",
    "rule_groups",
    # resources and configs
    "DOCUMENT",
    "Resource",
    "StreamResource",
    "ConsumerResource",
    "BucketResource",
    "Estate",
    "StreamConfig",
    "ConsumerConfig",
    "StreamSource",
    "Duration",
    "Size",
    "stream_config",
    "consumer_config",
    "where",
    # effective (server-defaulted) configs: RuleContext.effective
    "EffectiveStream",
    "EffectiveConsumer",
    "EffectiveSource",
    "EffectiveSourceConsumer",
    "EffectiveExternal",
    "EffectiveTransform",
    "EffectivePlacement",
    "EffectiveRepublish",
    "EffectiveConsumerLimits",
    "STREAM_DEFAULT_DUPLICATE_WINDOW",
    "CONSUMER_DEFAULT_ACK_WAIT",
    "EPHEMERAL_INACTIVE_THRESHOLD",
    "FLOW_CONTROL_HEARTBEAT",
    # server limits
    "MAX_NAME_LEN",
    "MAX_DESCRIPTION_LEN",
    "MAX_METADATA_LEN",
    "REQ_LEVEL_METADATA_LEN",
    "metadata_budget",
    "MAX_REPLICAS",
    "go_len",
    # subjects
    "SubjectIndex",
    "is_literal",
    "is_subset_match",
    "is_valid_asset_name",
    "is_valid_publish_subject",
    "is_valid_subject",
    "subjects_collide",
    # units
    "UnitError",
    "format_duration",
    "format_size",
    "approx_duration",
    "approx_size",
    "human_size",
    "parse_duration",
    "parse_size",
    "NANOSECOND",
    "MILLISECOND",
    "SECOND",
    "MINUTE",
    "HOUR",
    "DAY",
    "KIB",
    "MIB",
    "GIB",
    # operational metadata (io.nats.monitor.* keys, jsops.io/* annotations)
    "ValueKind",
    "MONITOR_PREFIX",
    "MONITOR_STREAM_KEYS",
    "MONITOR_CONSUMER_KEYS",
    "monitor_keys",
    "monitor_metadata",
    "monitor_value_problem",
    "parse_monitor_value",
    "parse_go_bool",
    "PROCESSING_TIME",
    "PUBLISH_RETRY_HORIZON",
    "DEAD_LETTER",
    "annotation_duration",
    "IGNORE_DRIFT",
    "holdable_fields",
    "ignore_drift_fields",
    "unheld_fields",
    # target, releases
    "Target",
    "TargetServer",
    "Version",
    "target_release",
    "format_version",
    "parse_version",
    "NORMALISE_NEGATIVE_LIMITS",
    "STRICT_JSON_DEFAULT",
    "STREAM_FIELDS",
    "STREAM_SOURCE_FIELDS",
    "PLACEMENT_FIELDS",
    "CONSUMER_FIELDS",
    "STREAM_FIELDS_REMOVED",
    "CONSUMER_FIELDS_REMOVED",
    "field_decoded",
    "ENUM_VALUES",
    "IMPLICIT_REPUBLISH_SINCE",
    "EXTERNAL_SOURCE_CHECKS_SINCE",
    "FILTER_OVERLAP_SUBSET_SINCE",
    "PEDANTIC_SINCE",
    "PEDANTIC_WINDOW_SOURCES_EXEMPT",
    # profiles (imported on first use)
    "Profiles",
    "StreamProfile",
    "ConsumerProfile",
]

# What the server judges a rule's findings on (``Rule.applies_to``): the config that creates an
# object (a create, or the create half of a recreate), and the config an update of an existing
# object sends. A create-only rule (``applies_to = CREATE_ONLY``) names a check the server makes on
# creates alone; ``jsops plan``/``apply`` drop its findings for the objects the plan updates.
CREATE = "create"
UPDATE = "update"
CREATE_ONLY: frozenset[str] = frozenset({CREATE})

# Typed resource aliases: a resource whose ``config`` is a StreamConfig (a bucket's stream too) or a
# ConsumerConfig; ``RuleContext.effective`` of one is an EffectiveStream or an EffectiveConsumer.
StreamResource = Resource[StreamConfig]
ConsumerResource = Resource[ConsumerConfig]
BucketResource = Resource[StreamConfig]

T = TypeVar("T")


class RuleOptions(Record):
    """Base of a rule's typed options (``class Options(RuleOptions)`` nested in the rule), fields
    declared with :func:`option` (pydantic's ``Field``: default, description, constraints).

    Values come from the jsops config (``[tool.jsops.rules.JS102]`` or ``rules: {JS102: {...}}``);
    unknown keys and wrong types are config errors (exit 2), never silently ignored. A light record
    (:mod:`jsops.linter.model.records.record`): pydantic validates only what the fast validator cannot judge.
    """


@dataclass
class RuleContext(ClockReader):
    """What a rule can see: the whole estate (already loaded), the target, and effective configs.

    Indexes of the estate (streams per context, consumers per stream...) are built once per lint
    run and shared by the rules, so every rule stays linear in the estate size.
    """

    estate: Estate
    target: Target = field(default_factory=Target)
    # Measured figures (contracts §4) when ``--profiles`` or the config names a file; rules that need
    # a figure the profile lacks stay silent.
    profiles: Profiles | None = None
    _effective: dict[int, EffectiveStream | EffectiveConsumer] = field(default_factory=dict)
    _origins: dict[str, StreamConfig] | None = None
    _stream_index: dict[tuple[str, str | None], StreamResource] | None = None
    _cache: dict[str, Any] = field(default_factory=dict)

    @property
    def release(self) -> Version:
        """The release the predictions are for (the target's ``server_version``, else the newest)."""
        return target_release(self.target)

    def refusal(
        self,
        resource: Resource,
        path: FieldPath,
        message: str,
        code: int,
        *,
        about: str | None = None,
        fix: FixSuggestion | None = None,
        key: bool = False,
    ) -> Violation:
        """The finding for a config the newest nats-server refuses with ``code``, as the target's
        release answers it: that release's err_code, or, when the release does not make the check
        yet, advice (a warning without an err_code naming the release that refuses it). The
        check is the server's refusal of the field ``about`` (default: the path's first field) of
        the resource's kind (:func:`jsops.linter.semantics.releases.release_answer`)."""
        field_name = about if about is not None else next((str(p) for p in path if isinstance(p, str)), "")
        release = self.release
        answer = release_answer(resource.kind, code, field_name, release)
        if answer.since is not None:
            text = advice_message(message, code, answer.since, release)
            return Violation(resource, path, text, None, fix, key, Severity.WARNING)
        return Violation(resource, path, message, answer.code, fix, key)

    def pedantic_refusal(
        self, resource: Resource, path: FieldPath, what: str, code: int, *, about: str | None = None
    ) -> Violation:
        """:func:`pedantic_rejection` for the target's release (:meth:`refusal`)."""
        v = pedantic_rejection(resource, path, what, code)
        return self.refusal(resource, path, v.message, code, about=about)

    def streams(self) -> list[StreamResource]:
        return [r for r in self.estate.resources if is_stream(r)]

    def consumers(self) -> list[ConsumerResource]:
        return [r for r in self.estate.resources if is_consumer(r)]

    def cached(self, key: str, build: Callable[[], T]) -> T:
        """A value computed once per lint run and shared by the rules."""
        store = self._cache
        if key not in store:
            store[key] = build()
        hit: T = store[key]
        return hit

    def stream_index(self) -> dict[tuple[str, str | None], StreamResource]:
        """(context, name) -> the stream's resource (the last one declared)."""
        if self._stream_index is None:
            self._stream_index = {(r.context, r.name): r for r in self.estate.resources if is_stream(r)}
        return self._stream_index

    def streams_by_context(self) -> dict[str, list[StreamResource]]:
        """Streams per context, in declaration order."""

        def build() -> dict[str, list[StreamResource]]:
            out: dict[str, list[StreamResource]] = {}
            for r in self.estate.resources:
                if is_stream(r):
                    out.setdefault(r.context, []).append(r)
            return out

        return self.cached("streams_by_context", build)

    def consumers_by_stream(self) -> dict[tuple[str, str | None], list[ConsumerResource]]:
        """(context, stream name) -> its consumers, in declaration order."""

        def build() -> dict[tuple[str, str | None], list[ConsumerResource]]:
            out: dict[tuple[str, str | None], list[ConsumerResource]] = {}
            for r in self.estate.resources:
                if is_consumer(r):
                    out.setdefault((r.context, r.stream), []).append(r)
            return out

        return self.cached("consumers_by_stream", build)

    def origin_of(self, resource: Resource, src: StreamSource | None) -> StreamResource | None:
        """The stream ``src`` (a mirror or source of the stream ``resource``) copies from, when the
        estate declares it in the same context; None for an external or unnamed origin, an
        undeclared one, or the stream itself."""
        if src is None or src.external is not None or not src.name:
            return None
        origin = self.stream_index().get((resource.context, src.name))
        return None if origin is resource else origin

    def stream_of(self, consumer: Resource) -> StreamResource | None:
        index = self._stream_index if self._stream_index is not None else self.stream_index()
        return index.get((consumer.context, consumer.stream))

    def stream_profile(self, resource: Resource) -> StreamProfile | None:
        """The measured profile of a stream (profiles are keyed by stream name), or None."""
        if self.profiles is None:
            return None
        return self.profiles.stream(resource.name)

    def consumer_profile(self, resource: Resource) -> ConsumerProfile | None:
        """The measured profile of a consumer (keyed by ``STREAM/consumer``), or None."""
        if self.profiles is None or resource.stream is None:
            return None
        return self.profiles.consumer(resource.stream, resource.name)

    @overload
    def effective(self, resource: Resource[StreamConfig]) -> EffectiveStream: ...
    @overload
    def effective(self, resource: Resource[ConsumerConfig]) -> EffectiveConsumer: ...
    @overload
    def effective(self, resource: Resource) -> EffectiveStream | EffectiveConsumer: ...
    def effective(self, resource: Resource) -> EffectiveStream | EffectiveConsumer:
        """The effective (server-defaulted) config of a resource, computed once: an
        :class:`EffectiveStream` for a stream, an :class:`EffectiveConsumer` for a consumer."""
        hit = self._effective.get(id(resource))
        if hit is not None:
            return hit
        out: EffectiveStream | EffectiveConsumer
        if resource.kind == "Stream":
            if self._origins is None:
                self._origins = {
                    r.name: r.config
                    for r in self.estate.resources
                    if r.kind == "Stream" and isinstance(r.config, StreamConfig)
                }
            out = effective_stream(
                stream_config(resource), name=resource.name, target=self.target, origins=self._origins
            )
        else:
            parent = self.stream_of(resource)
            out = effective_consumer(
                consumer_config(resource),
                self.effective_stream(parent) if parent is not None else None,
                target=self.target,
            )
        self._effective[id(resource)] = out
        return out

    def effective_stream(self, resource: Resource) -> EffectiveStream:
        """The effective config of a stream resource whose type does not say it is one."""
        out = self.effective(resource)
        if not isinstance(out, EffectiveStream):
            raise TypeError(f"{resource.kind} {resource.name} is not a stream")
        return out

    def effective_consumer(self, resource: Resource) -> EffectiveConsumer:
        """The effective config of a consumer resource whose type does not say it is one."""
        out = self.effective(resource)
        if not isinstance(out, EffectiveConsumer):
            raise TypeError(f"{resource.kind} {resource.name} is not a consumer")
        return out


class Rule:
    """Base class of every rule.

    ``groups`` name sets of rules for config ``select``/``ignore``; every rule is also in ``all``
    and in the groups of its theme package (see :func:`rule_groups`). ``Options`` is the rule's
    typed options model; the engine builds it from the config and passes it to the constructor,
    so ``check`` reads ``self.options``. ``fix_availability`` says whether findings carry fixes.
    """

    code: ClassVar[str]
    name: ClassVar[str]
    severity: ClassVar[Severity] = Severity.ERROR
    fix_availability: ClassVar[FixAvailability] = FixAvailability.NONE
    groups: ClassVar[frozenset[str]] = frozenset()
    Options: ClassVar[type[RuleOptions]] = RuleOptions
    kinds: ClassVar[frozenset[str]] = frozenset({"Stream", "Consumer"})
    estate_wide: ClassVar[bool] = False
    # The requests the server judges what the rule flags on (:data:`CREATE`, :data:`UPDATE`).
    applies_to: ClassVar[frozenset[str]] = frozenset({CREATE, UPDATE})
    # The rule sees the manifests as written, fields the target's release does not know included (every other rule no longer sees what it drops).
    sees_dropped_fields: ClassVar[bool] = False
    # It reads the clock (only through ``RuleContext.now``): its findings change with no input changing, so no cache keeps them.
    reads_clock: ClassVar[bool] = False
    # Its messages name a bucket's own fields (``Resource.word``, ``Resource.label``): no "(max_age: ttl of ...)" note is added.
    bucket_words: ClassVar[bool] = False
    # The target the docstring's examples are judged against (``Target(**example_target)``).
    example_target: ClassVar[dict[str, Any]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "code" in cls.__dict__:  # a concrete rule; bases such as StreamRule declare no code
            check_rule_class(cls, _theme_of(cls))

    def __init__(self, options: RuleOptions | None = None) -> None:
        self.options: Any = options if options is not None else type(self).Options()

    def check(self, resource: Resource, ctx: RuleContext) -> Iterable[Violation]:
        """Per-object rules: called once per resource of ``kinds``."""
        return ()

    def check_estate(self, ctx: RuleContext) -> Iterable[Violation]:
        """Estate-wide rules (``estate_wide = True``): called once."""
        return ()


class StreamRule(Rule):
    """A per-stream rule: ``check_stream`` gets the stream's typed config."""

    kinds: ClassVar[frozenset[str]] = frozenset({"Stream"})

    def check(self, resource: Resource, ctx: RuleContext) -> Iterable[Violation]:
        # stream_config raises TypeError for a consumer, so the cast holds (narrowing with is_stream
        # here measured ~15% slower on a 10,000-object lint's rule pass; the cause is not pinned down)
        return self.check_stream(cast("StreamResource", resource), stream_config(resource), ctx)

    def check_stream(self, resource: StreamResource, cfg: StreamConfig, ctx: RuleContext) -> Iterable[Violation]:
        return ()


class ConsumerRule(Rule):
    """A per-consumer rule: ``check_consumer`` gets the consumer's typed config."""

    kinds: ClassVar[frozenset[str]] = frozenset({"Consumer"})

    def check(self, resource: Resource, ctx: RuleContext) -> Iterable[Violation]:
        return self.check_consumer(cast("ConsumerResource", resource), consumer_config(resource), ctx)

    def check_consumer(self, resource: ConsumerResource, cfg: ConsumerConfig, ctx: RuleContext) -> Iterable[Violation]:
        return ()


def _theme_of(rule: type[Rule]) -> Theme | None:
    """The :class:`Theme` the rule's package declares (``THEME``), or None outside theme packages."""
    package = sys.modules.get(rule.__module__.rpartition(".")[0])
    theme = getattr(package, "THEME", None)
    return theme if isinstance(theme, Theme) else None


def rule_groups(rule: type[Rule]) -> frozenset[str]:
    """Declared groups plus the implicit ones: ``all`` and the theme package's groups. A rule
    outside the theme packages (a plugin) is in the group named by its module's prefix
    (``acme_x`` -> ``acme``)."""
    implicit = {"all"}
    theme = _theme_of(rule)
    if theme is not None:
        implicit |= theme.groups
    else:
        module = rule.__module__.rsplit(".", 1)[-1]
        if "_" in module and not module.startswith("_"):
            implicit.add(module.split("_", 1)[0])
    return frozenset(rule.groups) | implicit
