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

A name is imported from its module when it is first asked for (:func:`__getattr__`): importing one
module of the loader (the walk, the reading of a file) does not import the whole loader (a warm
``jsops lint`` that the results cache answers needs only the walk).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
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

_HOMES = {
    "BucketResource": "..model.resource",
    "ConsumerResource": "..model.resource",
    "Declaration": "..model.resource",
    "Estate": "..model.resource",
    "NackAccount": "..model.resource",
    "Resource": "..model.resource",
    "ResourceKey": "..model.resource",
    "StreamResource": "..model.resource",
    "is_consumer": "..model.resource",
    "is_stream": "..model.resource",
    "MANIFEST_SUFFIXES": ".discovery",
    "LoadError": ".discovery",
    "discover": ".discovery",
    "discover_entries": ".discovery",
    "escapes": ".discovery",
    "git_root": ".discovery",
    "link_out": ".discovery",
    "tree_root": ".discovery",
    "walk_dirs": ".discovery",
    "Limits": ".documents",
    "ParsedDocument": ".documents",
    "ReadProblem": ".documents",
    "read_documents": ".documents",
    "check_estate": ".estate_checks",
    "load_file": ".files",
    "load_text": ".files",
    "MAX_FINDINGS_PER_FILE": ".messages",
    "MAX_FINDINGS_PER_OBJECT": ".messages",
    "NACK_APIS": ".nack",
    "PREVENT_DELETE": ".nack",
    "PREVENT_UPDATE": ".nack",
    "NATIVE_API": ".native",
    "load_paths": ".paths",
}
"""Each name's module (relative to this package)."""


def __getattr__(name: str) -> object:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(home, __name__), name)
    globals()[name] = value
    return value
