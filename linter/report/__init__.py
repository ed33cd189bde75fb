"""Renderers of lint results; they only present, never compute. Each format is its own module and
is imported only when chosen."""

from __future__ import annotations

__all__ = ["FORMATS"]

FORMATS = ("text", "json", "sarif", "junit", "github")
