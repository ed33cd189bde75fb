"""Helpers shared by the stream create-time rejection rules (not a rule module: skipped by discovery)."""

from __future__ import annotations

from linter.loader import Resource
from linter.model.config import StreamConfig

__all__ = ["stream_config", "blen", "SECOND", "MILLISECOND", "WS", "UNROUTABLE"]

MILLISECOND = 1_000_000
SECOND = 1_000_000_000
WS = frozenset(" \t\r\n\f")
# A name travels as a token of the API subject: '.' changes the token count and whitespace splits
# the protocol line, so the create request never reaches a handler.
UNROUTABLE = WS | {"."}


def stream_config(resource: Resource) -> StreamConfig:
    return resource.config  # type: ignore[return-value]


def blen(text: str) -> int:
    """Length in bytes, as Go's ``len`` counts a string."""
    return len(text) if text.isascii() else len(text.encode("utf-8"))
