"""Load ``kind: KeyValue`` / ``kind: ObjectStore`` (native ``jsops/v1`` and NACK) as the stream each
bucket is: a Stream resource named ``KV_<bucket>`` / ``OBJ_<bucket>`` whose config is the one the Go
client builds (:mod:`jsops.linter.model.buckets`), remembering the bucket (``Resource.bucket``) so every stream
rule, plan, apply, prune and export work on it, and findings point at the bucket's own fields."""

from __future__ import annotations

from typing import Any

from ..findings import FieldPath
from ..model.buckets import (
    BUCKET_FIELDS,
    KV_MAX_HISTORY,
    VALID_BUCKET,
    KeyValueConfig,
    ObjectStoreConfig,
    bucket_stream,
)
from ..model.config import StreamConfig
from ..model.positions import resolve_position
from ..model.records.record import validation_errors
from ..model.resource import Declaration, Estate, Resource
from . import _nack_tables as T
from ._envelope import check_keys, declared_in, mapping_at, require_str, string_map
from ._nack_values import nack_values
from .documents import ParsedDocument
from .messages import MAX_FINDINGS_PER_OBJECT, did_you_mean, dotted, finding, kind_of, short
from .nack import nack_account, nack_connection_fields, nack_translate, protection_annotations
from .native import NATIVE_TOP
from .validation import validation_finding

__all__ = ["load_native_bucket", "load_nack_bucket"]

_MODELS: dict[str, type[KeyValueConfig] | type[ObjectStoreConfig]] = {
    "KeyValue": KeyValueConfig,
    "ObjectStore": ObjectStoreConfig,
}


def _finish(
    kind: str,
    bucket: str,
    spec: dict[str, Any],
    declared: Declaration,
    spec_map: dict[FieldPath, FieldPath],
    estate: Estate,
    ok: bool,
) -> None:
    """Validate the bucket spec, then add the bucket's stream (or mark it invalid)."""
    model = _MODELS[kind]
    declared.key_map = spec_map
    try:
        cfg = model.model_validate(spec)
    except Exception as exc:
        errors = validation_errors(exc)
        if errors is None:
            raise
        for err in errors[:MAX_FINDINGS_PER_OBJECT]:
            estate.findings.append(validation_finding(declared, model, err))
        estate.invalid.add(declared.key)
        return
    if not VALID_BUCKET.match(bucket):
        line, col = declared.locate(("bucket",))
        estate.findings.append(
            finding(
                "invalid-field",
                f"bucket name {short(bucket)!r} is not valid: the clients accept only letters, digits, '_' and '-'",
                declared.file,
                line,
                col,
                declared.ref,
            )
        )
        ok = False
    if isinstance(cfg, KeyValueConfig) and cfg.mirror is not None and cfg.sources:
        line, col = declared.locate(("sources",))
        estate.findings.append(
            finding(
                "invalid-field",
                "a bucket has a mirror or sources, not both: the clients build the mirror and drop the sources",
                declared.file,
                line,
                col,
                declared.ref,
            )
        )
        ok = False
    history = getattr(cfg, "history", None)
    if history is not None and not 0 <= history <= KV_MAX_HISTORY:  # 0: the client's default, 1
        line, col = declared.locate(("history",))
        estate.findings.append(
            finding(
                "invalid-field",
                f"history is {history}; the clients keep 1 to {KV_MAX_HISTORY} values per key (0 means 1)",
                declared.file,
                line,
                col,
                declared.ref,
            )
        )
        ok = False
    stream_cfg = bucket_stream(kind, cfg, bucket)
    # Stream field paths -> where the manifest wrote the bucket field (or the kind, for implied fields).
    stream_map: dict[FieldPath, FieldPath] = {}
    for sfield, bfield in BUCKET_FIELDS[kind].items():
        stream_map[(sfield,)] = spec_map.get((bfield,), declared.spec_path + (bfield,))
    back = {b: s for s, b in BUCKET_FIELDS[kind].items()}
    for path, src in spec_map.items():
        if len(path) > 1 and path[0] in back:
            stream_map[(back[path[0]],) + path[1:]] = src
    stream_map[("name",)] = spec_map.get(("bucket",), declared.spec_path + ("bucket",))
    for sfield in stream_cfg:
        stream_map.setdefault((sfield,), ("kind",))
    declared.key_map = stream_map
    if ok:
        estate.add(Resource.of(declared, StreamConfig.model_validate(stream_cfg), bucket=kind, bucket_config=cfg))
    else:
        estate.invalid.add(declared.key)


def load_native_bucket(doc: ParsedDocument, index: int, file: str, estate: Estate, kind: str) -> None:
    v = doc.value
    start = resolve_position(doc.positions, ()) or (doc.line, 1)
    ok = check_keys(v, NATIVE_TOP, (), doc, file, estate, "the manifest")
    meta = mapping_at(v, "metadata", doc, file, estate, required=True)
    if meta is None:
        return
    ok &= check_keys(meta, ("name", "context", "annotations", "labels"), ("metadata",), doc, file, estate, "metadata")
    name = require_str(meta, "name", ("metadata",), doc, file, estate, "metadata.name")
    context = meta.get("context", "default")
    if not isinstance(context, str) or not context:
        estate.findings.append(
            finding(
                "invalid-field",
                f"metadata.context must be a non-empty string, got {kind_of(context)}",
                file,
                *(resolve_position(doc.positions, ("metadata", "context")) or start),
            )
        )
        ok = False
    annotations = string_map(
        meta.get("annotations"), ("metadata", "annotations"), doc, file, estate, "metadata.annotations"
    )
    labels = string_map(meta.get("labels"), ("metadata", "labels"), doc, file, estate, "metadata.labels")
    spec = v.get("spec") if v.get("spec") is not None else {}
    if name is None or annotations is None or labels is None or not isinstance(spec, dict):
        if not isinstance(spec, dict):
            estate.findings.append(
                finding(
                    "invalid-field",
                    f"spec must be a mapping, got {kind_of(spec)}",
                    file,
                    *(resolve_position(doc.positions, ("spec",)) or start),
                )
            )
        return
    spec = dict(spec)
    spec_map: dict[FieldPath, FieldPath] = {}
    if "bucket" in spec and spec["bucket"] != name:
        estate.findings.append(
            finding(
                "name-mismatch",
                f"spec.bucket {short(spec['bucket'])!r} differs from metadata.name {short(name)!r}; drop spec.bucket",
                file,
                *(resolve_position(doc.positions, ("spec", "bucket")) or start),
            )
        )
        ok = False
    if "bucket" not in spec:
        spec_map[("bucket",)] = ("metadata", "name")
    prefix = "KV_" if kind == "KeyValue" else "OBJ_"
    declared = declared_in(
        doc,
        index,
        file,
        kind="Stream",
        name=prefix + name,
        stream=None,
        context=context if isinstance(context, str) and context else "default",
        annotations=annotations,
    )
    _finish(kind, name, spec, declared, spec_map, estate, ok)


def load_nack_bucket(doc: ParsedDocument, index: int, file: str, estate: Estate, kind: str, api: str) -> None:
    v = doc.value
    start = resolve_position(doc.positions, ()) or (doc.line, 1)
    meta = v.get("metadata") if isinstance(v.get("metadata"), dict) else {}
    spec = mapping_at(v, "spec", doc, file, estate, required=True)
    if spec is None:
        return
    # NACK's value spellings (Go durations for ttl and limitMarkerTtl, integer sizes), by the field catalog
    values, ok = nack_values(spec, kind, doc, file, estate)
    spec_map: dict[FieldPath, FieldPath] = {(): ("spec",)}
    unknown: list[tuple[FieldPath, str, list[str]]] = []
    table = T.KEY_VALUE if kind == "KeyValue" else T.OBJECT_STORE
    translated = nack_translate(values, table, ("spec",), (), spec_map, unknown)
    for path, k, choices in unknown[:MAX_FINDINGS_PER_OBJECT]:
        pos = resolve_position(doc.positions, path, key=True) or start
        estate.findings.append(
            finding(
                "invalid-field",
                f"unknown field {short(k)!r} in {dotted(path[:-1])} ({api}){did_you_mean(k, choices)}",
                file,
                *pos,
            )
        )
    annotations = (
        {k: str(val) for k, val in (meta.get("annotations") or {}).items()}
        if isinstance(meta.get("annotations"), dict)
        else {}
    )
    context = annotations.get("jsops.io/context") or nack_account(spec, doc, file, estate) or "default"
    nack_connection_fields(spec, doc, file, estate)
    protection_annotations(spec, annotations)
    bucket = require_str(spec, "bucket", ("spec",), doc, file, estate, "spec.bucket")
    if bucket is None:
        return
    prefix = "KV_" if kind == "KeyValue" else "OBJ_"
    declared = declared_in(
        doc,
        index,
        file,
        kind="Stream",
        name=prefix + bucket,
        stream=None,
        context=context,
        annotations=annotations,
        dialect="nack/" + api.rsplit("/", 1)[1],
    )
    _finish(kind, bucket, translated, declared, spec_map, estate, ok and not unknown)
