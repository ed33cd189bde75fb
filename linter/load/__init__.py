"""Load manifests in any of the three dialects into one model, with a source map.

Dialects (contracts §1):
- native ``apiVersion: jsops/v1`` (``kind: Stream|Consumer|KeyValue|ObjectStore``, ``metadata``,
  ``spec``): :mod:`jsops.linter.load.native`;
- NACK CRDs ``apiVersion: jetstream.nats.io/v1beta2`` or ``v1beta1`` (camelCase ``spec``):
  :mod:`jsops.linter.load.nack`;
- NATS API JSON as natscli prints it (``nats stream info --json``, ``nats consumer info --json``,
  a bare StreamConfig, or a ``$JS.API.CONSUMER.CREATE`` body): :mod:`jsops.linter.load.api_json`.

Templates (``*.yaml.j2``) are rendered per environment (:mod:`jsops.linter.load.templates`). Anything
that cannot be loaded becomes a finding with file, line and column; nothing raises but
:class:`LoadError` (a path that cannot be read at all, an unknown environment).
"""

from __future__ import annotations

from ..model.resource import (
    BucketResource,
    ConsumerResource,
    Declaration,
    Estate,
    NackAccount,
    Resource,
    ResourceKey,
    StreamResource,
    is_consumer,
    is_stream,
)
from .discovery import (
    MANIFEST_SUFFIXES,
    LoadError,
    discover,
    discover_entries,
    escapes,
    git_root,
    link_out,
    tree_root,
    walk_dirs,
)
from .documents import Limits, ParsedDocument, ReadProblem, read_documents
from .estate_checks import check_estate
from .files import load_file, load_text
from .messages import MAX_FINDINGS_PER_FILE, MAX_FINDINGS_PER_OBJECT
from .nack import NACK_APIS, PREVENT_DELETE, PREVENT_UPDATE
from .native import NATIVE_API
from .paths import load_paths

__all__ = [
    "BucketResource",
    "ConsumerResource",
    "Declaration",
    "Estate",
    "Limits",
    "LoadError",
    "MANIFEST_SUFFIXES",
    "MAX_FINDINGS_PER_FILE",
    "MAX_FINDINGS_PER_OBJECT",
    "NACK_APIS",
    "NATIVE_API",
    "NackAccount",
    "PREVENT_DELETE",
    "PREVENT_UPDATE",
    "ParsedDocument",
    "ReadProblem",
    "Resource",
    "ResourceKey",
    "StreamResource",
    "check_estate",
    "discover",
    "discover_entries",
    "escapes",
    "is_consumer",
    "is_stream",
    "link_out",
    "load_file",
    "load_paths",
    "load_text",
    "read_documents",
    "tree_root",
    "walk_dirs",
    "git_root",
]
