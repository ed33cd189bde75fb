"""What makes a file a JetStream config: the rule of docs/manifest-files.md, in one place.

A repository root holds many YAML and JSON files that are not JetStream configs (Helm charts,
``package.json``, ``renovate.json``, ``tsconfig.json``, CI workflows, Kubernetes objects). jsops
lints the documents that are JetStream configs, passes over the others and counts them; only a
document that is (or plainly tries to be) a JetStream config can be an error.

Per dialect, a document is a JetStream config when:

* **native** / **NACK**: its ``apiVersion`` is ``jsops/v1`` or ``jetstream.nats.io/...``, or its
  group is a near miss of one of them (``jsops/v2``, ``jetstrem.nats.io/v1beta2``: an error), or its
  ``kind`` is a JetStream kind (``Stream``, ``Consumer``, ``KeyValue``, ``ObjectStore``) whatever the
  apiVersion (an error when the apiVersion is not ours);
* **NATS API JSON** (no ``apiVersion``, no ``kind``): it is a ``$JS.API.CONSUMER.CREATE`` body
  (``stream_name``), or among its keys (or those of its ``config`` mapping) is one JetStream-specific
  field (:func:`strong_keys`, or a near miss of one: ``subject`` for ``subjects``), or two of the
  fields other configs use too (:data:`WEAK_KEYS`: ``storage``, ``retention``, ...).

Everything else is not a JetStream config: another API's object (``apiVersion`` and ``kind``:
counted as today), Helm's ``Chart.yaml`` (a bare ``apiVersion: v2`` without a kind), a plain data
file (no JetStream key), a document that is not a mapping, a file under a Helm chart's
``templates/`` (Go templates: rendered by ``helm template`` first), and a file that cannot be read
as YAML/JSON and whose text names nothing of JetStream (:func:`text_looks_jetstream`).
"""

from __future__ import annotations

import difflib
import os
import re
from functools import cache
from typing import Any

__all__ = [
    "JETSTREAM_KINDS",
    "strong_keys",
    "WEAK_KEYS",
    "api_config",
    "helm_template",
    "text_looks_jetstream",
    "HELM_TEMPLATE",
    "NOT_JETSTREAM",
    "HELM_CHART",
    "UNREADABLE",
]

JETSTREAM_KINDS = frozenset({"Stream", "Consumer", "KeyValue", "ObjectStore"})

# Reasons a file is passed over (the summary counts files; --format json lists them).
NOT_JETSTREAM = "no JetStream config in it"
HELM_CHART = "Helm chart metadata"
HELM_TEMPLATE = "Helm template (render it with `helm template` and lint the output)"
UNREADABLE = "not YAML/JSON, and nothing of JetStream in its text"

# Config fields that other files use too: two of them make a JetStream config, one does not.
WEAK_KEYS = frozenset(
    {
        "storage",
        "retention",
        "discard",
        "compression",
        "placement",
        "sources",
        "mirror",
        "direct",
        "sealed",
        "backoff",
        "headers_only",
        "mem_storage",
        "sample_freq",
        "deny_delete",
        "deny_purge",
        "allow_direct",
    }
)
# Keys that never make a JetStream config on their own (every tool's files have them).
_GENERIC = frozenset({"name", "description", "metadata", "config", "created", "ts", "cluster", "state"})
# How many keys of one mapping are looked at (a hostile document may have a million).
_MAX_KEYS = 256


@cache
def _fields() -> frozenset[str]:
    from ..model.config import ConsumerConfig, StreamConfig

    return frozenset(StreamConfig.model_fields) | frozenset(ConsumerConfig.model_fields) | {"stream_name"}


@cache
def _strong() -> frozenset[str]:
    return _fields() - WEAK_KEYS - _GENERIC


def strong_keys() -> frozenset[str]:
    """The JetStream-specific API field names: every StreamConfig and ConsumerConfig field (and
    ``stream_name``) but :data:`WEAK_KEYS` and the generic ones (``name``, ``description``, ...)."""
    return _strong()


def _near(key: str, choices: frozenset[str]) -> bool:
    """A spelling of a JetStream field: another case or separators (``maxAge``), or a close miss."""
    if len(key) > 64:
        return False
    folded = key.lower().replace("-", "").replace("_", "")
    if any(c.replace("_", "") == folded for c in choices):
        return True
    return bool(difflib.get_close_matches(key, choices, n=1, cutoff=0.8))


def _score(keys: list[Any]) -> tuple[int, int]:
    strong, weak = _strong(), 0
    hits = 0
    for k in keys[:_MAX_KEYS]:
        if not isinstance(k, str):
            continue
        if k in strong:
            hits += 1
        elif k in WEAK_KEYS:
            weak += 1
        elif k not in _fields() and _near(k, strong):
            hits += 1
    return hits, weak


def api_config(value: dict[Any, Any]) -> bool:
    """Whether a document without ``apiVersion``/``kind`` is a NATS API config (see the module)."""
    if "stream_name" in value:
        return True
    keys = list(value)
    inner = value.get("config")
    if isinstance(inner, dict):
        keys += list(inner)
    strong, weak = _score(keys)
    if strong >= 1 or weak >= 2:
        return True
    # Nothing but config fields (``{"name": "ORDERS"}``, a stream named and nothing more): a config.
    known = _fields() | _GENERIC
    return bool(keys) and all(isinstance(k, str) and k in known for k in keys[:_MAX_KEYS])


_CHART_FILES = ("Chart.yaml", "Chart.yml")


def helm_template(path: str) -> bool:
    """Whether ``path`` lies under the ``templates/`` directory of a Helm chart (a directory
    holding ``Chart.yaml``)."""
    parts = os.path.normpath(path).split(os.sep)
    for i in range(len(parts) - 2, -1, -1):
        if parts[i] == "templates":
            chart = os.sep.join(parts[:i]) or "."
            if any(os.path.isfile(os.path.join(chart, c)) for c in _CHART_FILES):
                return True
    return False


# The text of a file that names something of JetStream: our apiVersions, a JetStream kind, or a
# JetStream-specific API key written as a key.
_SIGNATURE = re.compile(
    rb"(?:jsops/v|jetstream\.nats\.io)"
    rb"|(?m:^[ \t]*(?:- )?kind[ \t]*:[ \t]*[\"']?(?:Stream|Consumer|KeyValue|ObjectStore)\b)"
    rb"|[\"']?\b(?:stream_name|durable_name|subjects|max_msgs|max_bytes|max_age|num_replicas|ack_policy|deliver_policy"
    rb"|filter_subjects?|max_deliver|ack_wait|duplicate_window|max_msgs_per_subject|max_ack_pending|deliver_subject"
    rb"|streamName|durableName|ackPolicy|deliverPolicy|maxAge|maxBytes|maxMsgs)\b[\"']?[ \t]*:"
)


def text_looks_jetstream(data: bytes) -> bool:
    """Whether a file's text (its first MiB) names something of JetStream: a file that cannot be
    parsed is an error only then (else it is passed over as not a JetStream config)."""
    return _SIGNATURE.search(data, 0, 1 << 20) is not None
