"""jsops linter: the manifest language, the rule engine and the ``jsops`` command line.

Public API (everything else is private). The names are imported on first use (PEP 562), so
importing a light submodule such as :mod:`jsops.linter.semantics.units` does not load the engine, the
loader and the models.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .config import Config, ConfigError, Selection, select_rules
    from .engine import LintResult, discover_rules, lint_estate, lint_paths, read_manifest_bytes
    from .findings import LOAD_CODES, Finding, ObjectRef, Severity
    from .gcpause import gc_paused
    from .load import (
        PREVENT_DELETE,
        PREVENT_UPDATE,
        Estate,
        Limits,
        LoadError,
        ParsedDocument,
        Resource,
        check_estate,
        discover,
        git_root,
        load_paths,
        walk_dirs,
    )
    from .load.files import process
    from .model.buckets import BUCKET_FIELDS, KeyValueConfig, ObjectStoreConfig, bucket_kind_of, bucket_of_stream, bucket_stream
    from .model.config import ConsumerConfig, StreamConfig
    from .model.profiles import Profiles
    from .model.records.record import is_record_class, validation_errors
    from .model.resource import is_stream
    from .model.target import AccountLimits, ServerLimits, Target, TargetServer
    from .report import REPORTERS, RenderContext, render_result
    from .report._html_live import LiveObject, LiveTarget
    from .report._html_model import FindingRow, ReportData, build_report
    from .report.html import render_html
    from .report.text import read_lines, render_text
    from .semantics.effective import SERVER_DEFAULTS, effective_consumer, effective_stream, strip_server_metadata
    from .semantics.effective_json import ServerJson, consumer_from_api_json, from_api_json, stream_from_api_json
    from .semantics.effective_types import EffectiveConsumer, EffectiveStream, api_json
    from .semantics.errcodes import ErrCode
    from .semantics.releases import Version, format_version, parse_version
    from .semantics.subjects import SubjectIndex, is_subset_match, subjects_collide
    from .semantics.units import UnitError, format_duration, format_size, parse_duration, readable_duration, readable_size
    from .semantics.updates import CLASS_ORDER, RESET_FIELDS, ChangeClass, classify, worst

__all__ = [
    "AccountLimits",
    "api_json",
    "consumer_from_api_json",
    "from_api_json",
    "ServerJson",
    "stream_from_api_json",
    "BUCKET_FIELDS",
    "bucket_kind_of",
    "bucket_of_stream",
    "bucket_stream",
    "build_report",
    "ChangeClass",
    "check_estate",
    "CLASS_ORDER",
    "classify",
    "Config",
    "ConfigError",
    "ConsumerConfig",
    "discover",
    "discover_rules",
    "effective_consumer",
    "effective_stream",
    "EffectiveConsumer",
    "EffectiveStream",
    "ErrCode",
    "Estate",
    "Finding",
    "FindingRow",
    "format_duration",
    "format_size",
    "format_version",
    "gc_paused",
    "git_root",
    "is_record_class",
    "is_stream",
    "is_subset_match",
    "KeyValueConfig",
    "Limits",
    "lint_estate",
    "lint_paths",
    "LintResult",
    "LiveObject",
    "LiveTarget",
    "LOAD_CODES",
    "load_paths",
    "LoadError",
    "ObjectRef",
    "ObjectStoreConfig",
    "parse_duration",
    "parse_version",
    "ParsedDocument",
    "PREVENT_DELETE",
    "PREVENT_UPDATE",
    "process",
    "Profiles",
    "read_lines",
    "read_manifest_bytes",
    "readable_duration",
    "readable_size",
    "render_html",
    "render_result",
    "render_text",
    "RenderContext",
    "ReportData",
    "REPORTERS",
    "RESET_FIELDS",
    "Resource",
    "select_rules",
    "Selection",
    "SERVER_DEFAULTS",
    "ServerLimits",
    "Severity",
    "StreamConfig",
    "strip_server_metadata",
    "SubjectIndex",
    "subjects_collide",
    "Target",
    "TargetServer",
    "UnitError",
    "validation_errors",
    "Version",
    "walk_dirs",
    "worst",
]
from ._version import __version__ as __version__

# public name -> the submodule that defines it
_HOMES = {
    "Config": ".config",
    "ConfigError": ".config",
    "Selection": ".config",
    "select_rules": ".config",
    "LintResult": ".engine",
    "discover_rules": ".engine",
    "lint_estate": ".engine",
    "lint_paths": ".engine",
    "read_manifest_bytes": ".engine",
    "Finding": ".findings",
    "LOAD_CODES": ".findings",
    "ObjectRef": ".findings",
    "Severity": ".findings",
    "gc_paused": ".gcpause",
    "Estate": ".load",
    "Limits": ".load",
    "LoadError": ".load",
    "PREVENT_DELETE": ".load",
    "PREVENT_UPDATE": ".load",
    "ParsedDocument": ".load",
    "Resource": ".load",
    "check_estate": ".load",
    "discover": ".load",
    "git_root": ".load",
    "load_paths": ".load",
    "walk_dirs": ".load",
    "process": ".load.files",
    "BUCKET_FIELDS": ".model.buckets",
    "KeyValueConfig": ".model.buckets",
    "ObjectStoreConfig": ".model.buckets",
    "bucket_kind_of": ".model.buckets",
    "bucket_of_stream": ".model.buckets",
    "bucket_stream": ".model.buckets",
    "ConsumerConfig": ".model.config",
    "StreamConfig": ".model.config",
    "Profiles": ".model.profiles",
    "is_record_class": ".model.records.record",
    "validation_errors": ".model.records.record",
    "is_stream": ".model.resource",
    "AccountLimits": ".model.target",
    "ServerLimits": ".model.target",
    "Target": ".model.target",
    "TargetServer": ".model.target",
    "REPORTERS": ".report",
    "RenderContext": ".report",
    "render_result": ".report",
    "LiveObject": ".report._html_live",
    "LiveTarget": ".report._html_live",
    "FindingRow": ".report._html_model",
    "ReportData": ".report._html_model",
    "build_report": ".report._html_model",
    "render_html": ".report.html",
    "read_lines": ".report.text",
    "render_text": ".report.text",
    "SERVER_DEFAULTS": ".semantics.effective",
    "effective_consumer": ".semantics.effective",
    "effective_stream": ".semantics.effective",
    "strip_server_metadata": ".semantics.effective",
    "ServerJson": ".semantics.effective_json",
    "consumer_from_api_json": ".semantics.effective_json",
    "from_api_json": ".semantics.effective_json",
    "stream_from_api_json": ".semantics.effective_json",
    "EffectiveConsumer": ".semantics.effective_types",
    "EffectiveStream": ".semantics.effective_types",
    "api_json": ".semantics.effective_types",
    "ErrCode": ".semantics.errcodes",
    "Version": ".semantics.releases",
    "format_version": ".semantics.releases",
    "parse_version": ".semantics.releases",
    "SubjectIndex": ".semantics.subjects",
    "is_subset_match": ".semantics.subjects",
    "subjects_collide": ".semantics.subjects",
    "UnitError": ".semantics.units",
    "format_duration": ".semantics.units",
    "format_size": ".semantics.units",
    "parse_duration": ".semantics.units",
    "readable_duration": ".semantics.units",
    "readable_size": ".semantics.units",
    "CLASS_ORDER": ".semantics.updates",
    "ChangeClass": ".semantics.updates",
    "RESET_FIELDS": ".semantics.updates",
    "classify": ".semantics.updates",
    "worst": ".semantics.updates",
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
