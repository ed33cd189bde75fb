"""Helpers shared by the stream rules (``rules/stream/``)."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api

__all__ = ["sourcing_consumer_problem", "duration_floor_violations", "destination_problem", "WS", "UNROUTABLE"]

WS = frozenset(" \t\r\n\f")
# A name travels as a token of the API subject: '.' changes the token count and whitespace splits
# the protocol line, so the create request never reaches a handler.
UNROUTABLE = WS | {"."}


def sourcing_consumer_problem(src: api.StreamSource, role: str) -> str | None:
    """Why a mirror's or source's durable sourcing ``consumer`` is invalid (nats-server 2.14+ checks
    the same four things for both), or None. ``role`` is "mirror" or "source"."""
    cons = src.consumer
    if cons is None:
        return None
    if not api.is_valid_asset_name(cons.name or ""):
        return "its name is missing or invalid"
    if not api.is_valid_publish_subject(cons.deliver_subject or ""):
        return "its deliver_subject is missing, invalid or has wildcards"
    if src.opt_start_seq or src.opt_start_time is not None:
        return f"the {role} also sets opt_start_seq or opt_start_time"
    if src.filter_subject:
        return f"the {role} also sets filter_subject"
    return None


def duration_floor_violations(
    resource: api.StreamResource,
    field: str,
    value: int | None,
    floor: int,
    *,
    negative_fix: api.FixSuggestion | None = None,
    short_fix: api.FixSuggestion | None = None,
) -> Iterator[api.Violation]:
    """The err_code 10052 finding for a stream duration ``field`` that is set (0 or None means
    unset) but negative or shorter than ``floor``; nothing otherwise."""
    if not value:
        return
    if value < 0:
        why, fix = "is negative", negative_fix
    elif value < floor:
        why, fix = f"is shorter than {api.format_duration(floor)}", short_fix
    else:
        return
    yield api.Violation(
        resource,
        (field,),
        f"{resource.word(field)} {api.format_duration(value)} {why}; nats-server rejects this stream",
        server_error_code=api.ErrCode.STREAM_INVALID_CONFIG,
        fix=fix,
    )


def destination_problem(src: str, dest: str, release: api.Version) -> str | None:
    """Why nats-server refuses the subject transform ``src`` -> ``dest`` of a stream or mirror on
    ``release``, or None: releases before ``BUILD_ONLY_BEFORE`` (2.10) only build the transform,
    later ones validate the mapping first."""
    from jsops.linter.api import (  # imported on first use: most estates have no transforms
        BUILD_ONLY_BEFORE,
        mapping_problem,
        transform_problem,
    )

    return (transform_problem if release < BUILD_ONLY_BEFORE else mapping_problem)(src, dest, release)
