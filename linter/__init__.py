"""jsops linter: the manifest language, the rule engine and the ``jsops`` command line.

Public API (everything else is private):
"""

from __future__ import annotations

# First, before the imports: linter.model.schema_cache keys its cache by it while linter is importing.
__version__ = "0.1.0"

from .engine import LintResult, lint_estate, lint_paths
from .findings import Finding, ObjectRef, Severity
from .load import Estate, LoadError, Resource, load_paths
from .model.config import ConsumerConfig, StreamConfig
from .model.target import Target
from .semantics.effective import effective_consumer, effective_stream, strip_server_metadata

__all__ = [
    "ConsumerConfig",
    "Estate",
    "Finding",
    "LintResult",
    "LoadError",
    "ObjectRef",
    "Resource",
    "Severity",
    "StreamConfig",
    "Target",
    "effective_consumer",
    "effective_stream",
    "lint_estate",
    "lint_paths",
    "load_paths",
    "strip_server_metadata",
]
