"""jsops linter: the manifest language, the rule engine and the ``jsops`` command line.

Public API (everything else is private). The names are imported on first use (PEP 562), so
importing a light submodule such as :mod:`jsops.linter.semantics.units` does not load the engine, the
loader and the models.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._version import install_hint
    from .cache import load_paths
    from .config import Config, ConfigError, find_config, load_config, select_rules, validate_options
    from .config import Selection as RuleSelection
    from .engine import LintResult, discover_rules, lint_estate, lint_paths, read_manifest_bytes
    from .findings import LOAD_CODES, Finding, Kind, ObjectRef, Severity
    from .gcpause import gc_paused
    from .jsonvalue import JsonValue
    from .load import (
        PREVENT_DELETE,
        PREVENT_UPDATE,
        Estate,
        LoadError,
        ParsedDocument,
        Resource,
        check_estate,
        git_root,
    )
    from .load import Limits as InputLimits
    from .load import discover as discover_manifests
    from .load import walk_dirs as walk_manifest_dirs
    from .load.files import load_text as load_manifest_text
    from .load.files import process as load_file_documents
    from .model.buckets import (
        BUCKET_FIELDS,
        KeyValueConfig,
        ObjectStoreConfig,
        bucket_kind_of,
        bucket_of_stream,
        bucket_stream,
    )
    from .model.config import ConsumerConfig, StreamConfig
    from .model.profiles import Profiles
    from .model.records.record import (
        Record,
        StrictBool,
        StrictInt,
        StrictStr,
        is_record_class,
        option,
        validation_errors,
    )
    from .model.resource import is_stream
    from .model.target import AccountLimits, ServerLimits, TargetServer
    from .model.target import Target as LintTarget
    from .repo_config import RefusedKey, load_repository_config
    from .report import REPORTERS, RenderContext, render_result
    from .report._html_finding import FindingRow
    from .report._html_live import LiveObject, LiveTarget
    from .report._html_model import ReportData, build_report
    from .report.html import render_html as render_report_html
    from .report.text import finding_line
    from .report.text import read_lines as read_source_lines
    from .report.text import render_text as render_findings_text
    from .semantics.effective import SERVER_DEFAULTS, effective_consumer, effective_stream, strip_server_metadata
    from .semantics.effective_json import ServerJson, consumer_from_api_json, from_api_json, stream_from_api_json
    from .semantics.effective_types import EffectiveConsumer, EffectiveStream, api_json
    from .semantics.errcodes import ErrCode
    from .semantics.mirrors import (
        COUNTER_CHANGE,
        MIRROR_REFUSES,
        ORIGIN_MAX_ACK_PENDING,
        MirrorRefusal,
        mirror_refusals,
    )
    from .semantics.releases import Version as ServerVersion
    from .semantics.releases import format_version, parse_version
    from .semantics.subjects import SubjectIndex, is_subset_match, subjects_collide
    from .semantics.units import (
        UnitError,
        format_duration,
        format_size,
        parse_duration,
        readable_duration,
        readable_size,
    )
    from .semantics.unknown_fields import NO_UNKNOWN_FIELDS, UnknownFields
    from .semantics.updates import CLASS_ORDER, RESET_FIELDS, ChangeClass
    from .semantics.updates import classify as classify_change
    from .semantics.updates import worst as worst_change_class

__all__ = [
    "RefusedKey",
    "find_config",
    "load_config",
    "load_repository_config",
    "COUNTER_CHANGE",
    "MIRROR_REFUSES",
    "ORIGIN_MAX_ACK_PENDING",
    "MirrorRefusal",
    "mirror_refusals",
    "AccountLimits",
    "api_json",
    "consumer_from_api_json",
    "from_api_json",
    "ServerJson",
    "stream_from_api_json",
    "NO_UNKNOWN_FIELDS",
    "UnknownFields",
    "BUCKET_FIELDS",
    "bucket_kind_of",
    "bucket_of_stream",
    "bucket_stream",
    "build_report",
    "ChangeClass",
    "check_estate",
    "CLASS_ORDER",
    "classify_change",
    "Config",
    "ConfigError",
    "ConsumerConfig",
    "discover_manifests",
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
    "InputLimits",
    "is_record_class",
    "is_stream",
    "is_subset_match",
    "JsonValue",
    "KeyValueConfig",
    "lint_estate",
    "lint_paths",
    "LintResult",
    "LintTarget",
    "LiveObject",
    "LiveTarget",
    "LOAD_CODES",
    "load_file_documents",
    "load_manifest_text",
    "load_paths",
    "LoadError",
    "Kind",
    "ObjectRef",
    "option",
    "Record",
    "StrictBool",
    "StrictInt",
    "StrictStr",
    "ObjectStoreConfig",
    "parse_duration",
    "parse_version",
    "ParsedDocument",
    "PREVENT_DELETE",
    "PREVENT_UPDATE",
    "Profiles",
    "read_manifest_bytes",
    "read_source_lines",
    "finding_line",
    "readable_duration",
    "readable_size",
    "render_findings_text",
    "render_report_html",
    "render_result",
    "RenderContext",
    "ReportData",
    "REPORTERS",
    "RESET_FIELDS",
    "Resource",
    "RuleSelection",
    "select_rules",
    "validate_options",
    "SERVER_DEFAULTS",
    "ServerLimits",
    "ServerVersion",
    "Severity",
    "StreamConfig",
    "strip_server_metadata",
    "SubjectIndex",
    "subjects_collide",
    "TargetServer",
    "UnitError",
    "validation_errors",
    "walk_manifest_dirs",
    "worst_change_class",
    "install_hint",
]
from ._version import __version__ as __version__

# public name -> the submodule that defines it
_HOMES = {
    "Config": ".config",
    "ConfigError": ".config",
    "select_rules": ".config",
    "validate_options": ".config",
    "RefusedKey": ".repo_config",
    "find_config": ".config",
    "load_config": ".config",
    "load_repository_config": ".repo_config",
    "LintResult": ".engine",
    "discover_rules": ".engine",
    "lint_estate": ".engine",
    "lint_paths": ".engine",
    "read_manifest_bytes": ".engine",
    "Finding": ".findings",
    "LOAD_CODES": ".findings",
    "Kind": ".findings",
    "ObjectRef": ".findings",
    "Severity": ".findings",
    "gc_paused": ".gcpause",
    "Estate": ".load",
    "LoadError": ".load",
    "PREVENT_DELETE": ".load",
    "PREVENT_UPDATE": ".load",
    "ParsedDocument": ".load",
    "Resource": ".load",
    "check_estate": ".load",
    "git_root": ".load",
    "load_paths": ".cache",
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
    "option": ".model.records.record",
    "Record": ".model.records.record",
    "StrictBool": ".model.records.record",
    "StrictInt": ".model.records.record",
    "StrictStr": ".model.records.record",
    "validation_errors": ".model.records.record",
    "is_stream": ".model.resource",
    "AccountLimits": ".model.target",
    "ServerLimits": ".model.target",
    "TargetServer": ".model.target",
    "REPORTERS": ".report",
    "RenderContext": ".report",
    "render_result": ".report",
    "LiveObject": ".report._html_live",
    "LiveTarget": ".report._html_live",
    "FindingRow": ".report._html_finding",
    "ReportData": ".report._html_model",
    "build_report": ".report._html_model",
    "SERVER_DEFAULTS": ".semantics.effective",
    "COUNTER_CHANGE": ".semantics.mirrors",
    "MIRROR_REFUSES": ".semantics.mirrors",
    "ORIGIN_MAX_ACK_PENDING": ".semantics.mirrors",
    "MirrorRefusal": ".semantics.mirrors",
    "mirror_refusals": ".semantics.mirrors",
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
    "NO_UNKNOWN_FIELDS": ".semantics.unknown_fields",
    "UnknownFields": ".semantics.unknown_fields",
    "ErrCode": ".semantics.errcodes",
    "JsonValue": ".jsonvalue",
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
    "load_file_documents": ".load.files",
    "load_manifest_text": ".load.files",
    "classify_change": ".semantics.updates",
    "worst_change_class": ".semantics.updates",
    "discover_manifests": ".load",
    "walk_manifest_dirs": ".load",
    "install_hint": "._version",
    "read_source_lines": ".report.text",
    "finding_line": ".report.text",
    "render_findings_text": ".report.text",
    "render_report_html": ".report.html",
    "InputLimits": ".load",
    "ServerVersion": ".semantics.releases",
    "LintTarget": ".model.target",
    "RuleSelection": ".config",
}

# public name -> its name in that submodule, where the face says more than the submodule's own
# name (``classify_change`` is ``semantics.updates.classify``: inside ``updates``, ``classify`` is enough)
_ATTRS = {
    "load_file_documents": "process",
    "load_manifest_text": "load_text",
    "classify_change": "classify",
    "worst_change_class": "worst",
    "discover_manifests": "discover",
    "walk_manifest_dirs": "walk_dirs",
    "read_source_lines": "read_lines",
    "render_findings_text": "render_text",
    "render_report_html": "render_html",
    "InputLimits": "Limits",
    "ServerVersion": "Version",
    "LintTarget": "Target",
    "RuleSelection": "Selection",
}


def __getattr__(name: str) -> object:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(home, __name__), _ATTRS.get(name, name))
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
