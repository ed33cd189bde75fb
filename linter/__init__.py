"""jsops linter: the manifest language, the rule engine and the ``jsops`` command line.

Public API (everything else is private). The names are imported on first use (PEP 562), so
importing a light submodule such as :mod:`jsops.linter.semantics.units` does not load the engine, the
loader and the models.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .engine import LintResult, lint_estate, lint_paths
    from .findings import Finding, ObjectRef, Severity
    from .load import Estate, LoadError, Resource, load_paths
    from .model.config import ConsumerConfig, StreamConfig
    from .model.target import Target
    from .semantics.effective import effective_consumer, effective_stream, strip_server_metadata
    from .semantics.effective_types import EffectiveConsumer, EffectiveStream, api_json

__all__ = [
    "ConsumerConfig",
    "EffectiveConsumer",
    "EffectiveStream",
    "Estate",
    "Finding",
    "LintResult",
    "LoadError",
    "ObjectRef",
    "Resource",
    "Severity",
    "StreamConfig",
    "Target",
    "api_json",
    "effective_consumer",
    "effective_stream",
    "lint_estate",
    "lint_paths",
    "load_paths",
    "strip_server_metadata",
]
from ._version import __version__ as __version__

# public name -> the submodule that defines it
_HOMES = {
    "LintResult": ".engine",
    "lint_estate": ".engine",
    "lint_paths": ".engine",
    "Finding": ".findings",
    "ObjectRef": ".findings",
    "Severity": ".findings",
    "Estate": ".load",
    "LoadError": ".load",
    "Resource": ".load",
    "load_paths": ".load",
    "ConsumerConfig": ".model.config",
    "StreamConfig": ".model.config",
    "Target": ".model.target",
    "effective_consumer": ".semantics.effective",
    "effective_stream": ".semantics.effective",
    "strip_server_metadata": ".semantics.effective",
    "EffectiveConsumer": ".semantics.effective_types",
    "EffectiveStream": ".semantics.effective_types",
    "api_json": ".semantics.effective_types",
}


def __getattr__(name: str) -> object:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(home, __name__), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
