"""TEMPORARY: removed at merge. The loader is :mod:`linter.load`; this re-exports its public names
for the importers not yet switched (rules/**, linter/api.py, linter/engine.py, linter/releases.py,
reconciler/**, tests outside the loader's)."""
# TEMPORARY: removed at merge

from __future__ import annotations

from .load import (
    MANIFEST_SUFFIXES,
    MAX_FINDINGS_PER_FILE,
    PREVENT_DELETE,
    PREVENT_UPDATE,
    Estate,
    LoadError,
    NackAccount,
    Resource,
    check_estate,
    discover,
    discover_entries,
    escapes,
    load_file,
    load_paths,
    load_text,
    tree_root,
)

_check_estate = check_estate  # TEMPORARY: tests outside the loader's call it by its old name

__all__ = [
    "MANIFEST_SUFFIXES",
    "MAX_FINDINGS_PER_FILE",
    "PREVENT_DELETE",
    "PREVENT_UPDATE",
    "Estate",
    "LoadError",
    "NackAccount",
    "Resource",
    "check_estate",
    "discover",
    "discover_entries",
    "escapes",
    "load_file",
    "load_paths",
    "load_text",
    "tree_root",
]
