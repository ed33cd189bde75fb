"""The variables of policies (:mod:`jsops.linter.policies`), derived from the field catalog: an
object's effective config as CEL values (durations as ``timedelta``, which CEL reads as durations;
sizes as integers; enums as strings; nested records as maps; absent optional values left out), its
metadata, labels, annotations, the environment, the target and the profile; and the probe objects an
expression is tried on when it is compiled (one per kind, every field the catalog types).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from enum import Enum
from typing import TYPE_CHECKING

from .api import RuleContext, format_version
from .semantics import catalog
from .semantics.catalog import Unit

if TYPE_CHECKING:
    from .load import Resource

__all__ = ["KINDS", "VARIABLES", "TARGET_KEYS", "activation", "probes", "show", "SECOND_NS"]

# Policy kind -> the catalog record its ``config`` has.
KINDS: Mapping[str, str] = {
    "Stream": "Stream",
    "Consumer": "Consumer",
    "KeyValue": "KeyValue",
    "ObjectStore": "ObjectStore",
}

# Top-level variables, what each is, and the kinds that have it (None: every kind).
VARIABLES: Mapping[str, tuple[str, frozenset[str] | None]] = {
    "config": (
        "the object's effective config (the catalog's fields; a bucket's as its bucket config names them)",
        None,
    ),
    "stream": (
        "a consumer's stream, or a bucket's stream: its effective config (empty when the estate does not declare it)",
        frozenset({"Consumer", "KeyValue", "ObjectStore"}),
    ),
    "name": ("the object's name (a bucket's: the bucket name)", None),
    "kind": ("the policy's kind: Stream, Consumer, KeyValue or ObjectStore", None),
    "context": ("the object's context (metadata.context; default)", None),
    "metadata": ("the config's metadata map (string to string)", None),
    "labels": ("the manifest's metadata.labels (string to string; empty when it has none)", None),
    "annotations": ("the manifest's metadata.annotations (string to string)", None),
    "env": ("the environment name (--env; empty when none is given)", None),
    "target": (
        "the target: server_version (string), release (int, 2.12.0 is 2012000), clustered (bool), cluster_size (int)",
        None,
    ),
    "profile": (
        "the object's measured profile when profiles are given (docs/formats.md; *_ns figures as durations); empty otherwise",
        None,
    ),
}
TARGET_KEYS = ("server_version", "release", "clustered", "cluster_size")

SECOND_NS = 1_000_000_000

# --- values -------------------------------------------------------------------------------------


def _duration(ns: int) -> timedelta:
    return timedelta(microseconds=ns / 1000)


def _plain(value: object) -> object:
    """A value as CEL receives it (enums by value, tuples as lists, mappings as dicts)."""
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, tuple) and not hasattr(value, "_fields"):
        return [_plain(v) for v in value]
    if isinstance(value, Mapping):
        return dict(value)
    return value


def _record_map(rec: catalog.Record, value: object, only: frozenset[str] | None = None) -> dict[str, object]:
    """An effective record (a named tuple with the catalog record's fields) as a CEL map."""
    out: dict[str, object] = {}
    for f in rec.fields:
        if only is not None and f.name not in only:
            continue
        v = getattr(value, f.name, None)
        if v is None:
            continue
        out[f.name] = _field_value(f, v)
    return out


def _field_value(f: catalog.Field, v: object) -> object:
    if f.unit is Unit.DURATION and isinstance(v, int):
        return _duration(v)
    if f.unit is Unit.DURATIONS and isinstance(v, tuple):
        return [_duration(x) for x in v]
    if f.record is not None:
        nested = catalog.RECORDS[f.record]
        if f.many and isinstance(v, tuple):
            return [_record_map(nested, x) for x in v]
        return _record_map(nested, v)
    return _plain(v)


def _profile_map(value: object) -> dict[str, object]:
    """A profile model as a CEL map: its JSON fields, nanosecond figures (``*_ns`` and those of
    ``ack_time_ns``) as durations, absent evidence left out."""
    from pydantic import BaseModel

    def conv(v: object, ns: bool) -> object:
        if isinstance(v, BaseModel):
            return {
                k: conv(getattr(v, k), ns or k.endswith("_ns"))
                for k in type(v).model_fields
                if getattr(v, k) is not None
            }
        if ns and isinstance(v, int) and not isinstance(v, bool):
            return _duration(v)
        return v

    out = conv(value, False)
    return out if isinstance(out, dict) else {}


# --- probes: a sample object of each kind, from the catalog -------------------------------------


def _sample(rec: catalog.Record, depth: int = 0) -> dict[str, object]:
    """A value for every field whose type the catalog gives (its default, its unit, its record)."""
    out: dict[str, object] = {}
    for f in rec.fields:
        if f.unit is Unit.DURATION:
            out[f.name] = _duration(f.default if isinstance(f.default, int) else SECOND_NS)
        elif f.unit is Unit.DURATIONS:
            out[f.name] = [_duration(SECOND_NS)]
        elif f.unit is Unit.SIZE:
            out[f.name] = f.default if isinstance(f.default, int) else 1
        elif f.unit is Unit.TIME:
            out[f.name] = "2025-01-01T00:00:00Z"
        elif f.record is not None and depth < 3:
            nested = _sample(catalog.RECORDS[f.record], depth + 1)
            out[f.name] = [nested] if f.many else nested
        elif f.default is not catalog.ABSENT and not isinstance(f.default, dict):
            out[f.name] = f.default
        elif f.name == "metadata":
            out[f.name] = {"owner": "probe"}
        elif f.many:
            out[f.name] = ["probe"]
    return out


def _sample_model(model: object, ns: bool = False, depth: int = 0) -> object:
    """A value for every field of a profile model (figures as 1, ratios as 0.5, nanoseconds as durations)."""
    fields = getattr(model, "model_fields", None)
    if not isinstance(fields, dict) or depth > 3:
        return None
    out: dict[str, object] = {}
    for name, f in fields.items():
        args = [a for a in getattr(f.annotation, "__args__", (f.annotation,)) if a is not type(None)]
        t = args[0] if len(args) == 1 else None
        if t is int:
            out[name] = _duration(SECOND_NS) if ns or name.endswith("_ns") else 1
        elif t is float:
            out[name] = 0.5
        elif t is not None and hasattr(t, "model_fields"):
            out[name] = _sample_model(t, ns or name.endswith("_ns"), depth + 1)
    return out


def probes(kind: str, profile: bool) -> list[dict[str, object]]:
    """Sample variables of a ``kind`` object: one without a profile and, when the expression reads
    it, one with every profile figure (the profile models, hence pydantic, only then)."""
    config = _sample(catalog.RECORDS[KINDS[kind]])
    base: dict[str, object] = {
        "config": config,
        "name": "PROBE",
        "kind": kind,
        "context": "default",
        "metadata": {"owner": "probe"},
        "labels": {"team": "probe"},
        "annotations": {},
        "env": "probe",
        "target": {"server_version": "2.12.0", "release": 2012000, "clustered": True, "cluster_size": 3},
        "profile": {},
    }
    if kind != "Stream":
        base["stream"] = _sample(catalog.STREAM)
    if not profile:
        return [base]
    measured = dict(base)
    from .model import profiles

    measured["profile"] = _sample_model(profiles.ConsumerProfile if kind == "Consumer" else profiles.StreamProfile)
    return [base, measured]


# --- running ----------------------------------------------------------------------------------------


def _target(ctx: RuleContext) -> dict[str, object]:
    t = ctx.target
    release = ctx.release
    size = t.cluster_size if t.cluster_size is not None else (len(t.servers) if t.servers else None)
    clustered = t.clustered if t.clustered is not None else bool((size or 1) > 1 or t.cluster_name or t.servers)
    return {
        "server_version": format_version(release),
        "release": release[0] * 1_000_000 + release[1] * 1_000 + release[2],
        "clustered": clustered,
        "cluster_size": size if size is not None else (1 if not clustered else 0),
    }


def _string_map(value: object) -> dict[str, str]:
    return {str(k): str(v) for k, v in value.items()} if isinstance(value, Mapping) else {}


def activation(
    kind: str,
    resource: Resource,
    ctx: RuleContext,
    env: str,
    variables: frozenset[str] | None = None,
    fields: Mapping[str, frozenset[str] | None] | None = None,
) -> dict[str, object]:
    """The variables a ``kind`` policy sees for ``resource`` (only ``variables`` and, of ``config`` and
    ``stream``, only ``fields`` when given: building a map costs more than evaluating on it)."""
    want = variables if variables is not None else frozenset(VARIABLES)
    fields = fields or {}
    out: dict[str, object] = {}
    eff = ctx.effective(resource)
    is_bucket = kind in ("KeyValue", "ObjectStore")
    if "config" in want:
        only = fields.get("config")
        if is_bucket:
            names = catalog.bucket_names(kind)
            stream_map = _record_map(
                catalog.STREAM,
                eff,
                frozenset(names) if only is None else frozenset(s for s, b in names.items() if b in only),
            )
            config: dict[str, object] = {names[k]: v for k, v in stream_map.items()}
            config["bucket"] = resource.name.split("_", 1)[1]
            if "compression" in config:
                config["compression"] = config["compression"] != "none"
        else:
            config = _record_map(catalog.RECORDS[kind], eff, only)
        out["config"] = config
    if "stream" in want:
        if is_bucket:
            out["stream"] = _record_map(catalog.STREAM, eff, fields.get("stream"))
        else:
            parent = ctx.stream_of(resource)
            out["stream"] = (
                _record_map(catalog.STREAM, ctx.effective(parent), fields.get("stream")) if parent is not None else {}
            )
    if "name" in want:
        out["name"] = resource.name.split("_", 1)[1] if is_bucket else resource.name
    if "kind" in want:
        out["kind"] = kind
    if "context" in want:
        out["context"] = resource.context
    if "metadata" in want:
        out["metadata"] = _string_map(getattr(eff, "metadata", None))
    if "labels" in want:
        out["labels"] = resource.labels
    if "annotations" in want:
        out["annotations"] = dict(resource.annotations)
    if "env" in want:
        out["env"] = env
    if "target" in want:
        out["target"] = _target(ctx)
    if "profile" in want:
        if kind == "Consumer":
            prof: object = ctx.consumer_profile(resource)
        else:
            prof = ctx.stream_profile(resource)
        out["profile"] = _profile_map(prof) if prof is not None else {}
    return out


def show(value: object) -> str:
    from .semantics.units import format_duration

    if isinstance(value, timedelta):
        return format_duration(round(value.total_seconds() * SECOND_NS))
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(show(v) for v in value) + "]"
    return str(value)
