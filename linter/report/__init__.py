"""Renderers of lint results; they only present, never compute."""

from __future__ import annotations

from .json import render_json
from .text import render_text

__all__ = ["render_json", "render_text"]
