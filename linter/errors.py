"""The one base exception of the ``linter`` package.

Every error ``linter`` raises on bad input or a failed run derives from :class:`LinterError`; the CLI
catches it and prints ``file:line:col: message`` (or the message) with exit code 2, never a traceback.
"""

from __future__ import annotations

__all__ = ["LinterError"]


class LinterError(Exception):
    """Base of the errors of the linter package (bad manifests, config, templates, fixes, units)."""
