"""TEMPORARY: removed at merge. Manifest reading is :mod:`linter.load.documents` (positions:
:mod:`linter.model.positions`); this re-exports the names reconciler/_controller_source.py uses."""
# TEMPORARY: removed at merge

from __future__ import annotations

from .load.documents import Limits

__all__ = ["Limits"]
