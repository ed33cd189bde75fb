"""Helpers shared by the stream rules (``rules/stream/``)."""

from __future__ import annotations

from linter.api import StreamSource, is_valid_asset_name, is_valid_publish_subject

__all__ = ["sourcing_consumer_problem", "WS", "UNROUTABLE"]

WS = frozenset(" \t\r\n\f")
# A name travels as a token of the API subject: '.' changes the token count and whitespace splits
# the protocol line, so the create request never reaches a handler.
UNROUTABLE = WS | {"."}


def sourcing_consumer_problem(src: StreamSource, role: str) -> str | None:
    """Why a mirror's or source's durable sourcing ``consumer`` is invalid (nats-server 2.14+ checks
    the same four things for both), or None. ``role`` is "mirror" or "source"."""
    cons = src.consumer
    if cons is None:
        return None
    if not is_valid_asset_name(cons.name or ""):
        return "its name is missing or invalid"
    if not is_valid_publish_subject(cons.deliver_subject or ""):
        return "its deliver_subject is missing, invalid or has wildcards"
    if src.opt_start_seq or src.opt_start_time is not None:
        return f"the {role} also sets opt_start_seq or opt_start_time"
    if src.filter_subject:
        return f"the {role} also sets filter_subject"
    return None
