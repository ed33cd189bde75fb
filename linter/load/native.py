"""The native dialect: ``apiVersion: jsops/v1`` with ``kind: Stream | Consumer`` (KeyValue and
ObjectStore are buckets, :mod:`jsops.linter.load.buckets`), ``metadata`` (name, stream, context,
annotations, labels) and a ``spec`` in the JetStream API's own field names."""

from __future__ import annotations

from typing import Any

from ..model.positions import Pos, resolve_position
from ..model.resource import Estate
from ._envelope import check_keys, context_name, declared_in, mapping_at, require_str, string_map
from .documents import ParsedDocument
from .messages import did_you_mean, finding, kind_of, short
from .validation import admit

__all__ = ["NATIVE_API", "NATIVE_TOP", "load_native"]

NATIVE_API = "jsops/v1"
NATIVE_TOP = ("apiVersion", "kind", "metadata", "spec")
_NATIVE_META = ("name", "stream", "context", "annotations", "labels")


def load_native(doc: ParsedDocument, index: int, file: str, estate: Estate) -> None:
    v = doc.value
    start = resolve_position(doc.positions, ()) or (doc.line, 1)
    kind = v.get("kind")
    if kind not in ("Stream", "Consumer"):
        pos = resolve_position(doc.positions, ("kind",)) or start
        msg = "missing kind" if kind is None else f"unknown kind {short(kind)!r}"
        known = ["Stream", "Consumer", "KeyValue", "ObjectStore"]
        hint = did_you_mean(str(kind), known) if kind is not None else ""
        estate.findings.append(
            finding("unknown-kind", f"{msg}; jsops/v1 has Stream, Consumer, KeyValue and ObjectStore{hint}", file, *pos)
        )
        return
    ok = check_keys(v, NATIVE_TOP, (), doc, file, estate, "the manifest")
    meta = v.get("metadata")
    if not isinstance(meta, dict):
        pos = resolve_position(doc.positions, ("metadata",)) or start
        what = "missing required field metadata" if meta is None else f"metadata must be a mapping, got {kind_of(meta)}"
        estate.findings.append(finding("invalid-field", what, file, *pos))
        return
    ok &= check_keys(meta, _NATIVE_META, ("metadata",), doc, file, estate, "metadata")
    name = require_str(meta, "name", ("metadata",), doc, file, estate, "metadata.name")
    stream = None
    if kind == "Consumer":
        stream = require_str(meta, "stream", ("metadata",), doc, file, estate, "metadata.stream")
        if stream is None:
            ok = False
    elif "stream" in meta:
        pos = resolve_position(doc.positions, ("metadata", "stream"), key=True) or start
        estate.findings.append(finding("invalid-field", "metadata.stream is only for consumers", file, *pos))
        ok = False
    context = context_name(
        meta.get("context", "default"), ("metadata", "context"), doc, file, estate, "metadata.context"
    )
    if context is None:
        ok = False
        context = "default"  # the object is invalid either way; its key must still be hashable
    annotations = string_map(
        meta.get("annotations"), ("metadata", "annotations"), doc, file, estate, "metadata.annotations"
    )
    labels = string_map(meta.get("labels"), ("metadata", "labels"), doc, file, estate, "metadata.labels")
    if name is None or annotations is None or labels is None:
        return
    spec = mapping_at(v, "spec", doc, file, estate)
    if spec is None:
        return
    spec, names_ok = _named_spec(kind, name, dict(spec), doc, file, estate, start)
    # Names the manifest leaves out of spec live in metadata.name: point findings there.
    key_map: dict[tuple[Any, ...], tuple[Any, ...]] = {}
    for field_name in ("name", "durable_name"):
        if field_name not in (v.get("spec") or {}):
            key_map[(field_name,)] = ("metadata", "name")
    declared = declared_in(
        doc, index, file, kind=kind, name=name, stream=stream, context=context, annotations=annotations, key_map=key_map
    )
    admit(declared, spec, estate, ok and names_ok)


def _named_spec(
    kind: str, name: str, spec: dict[str, Any], doc: ParsedDocument, file: str, estate: Estate, start: Pos
) -> tuple[dict[str, Any], bool]:
    """``spec`` with the object's name (metadata.name) filled in, and whether the names it writes agree."""
    ok = True
    if kind == "Stream":
        if "name" in spec and spec["name"] != name:
            pos = resolve_position(doc.positions, ("spec", "name")) or start
            estate.findings.append(
                finding(
                    "name-mismatch",
                    f"spec.name {short(spec['name'])!r} differs from metadata.name {short(name)!r}; drop spec.name",
                    file,
                    *pos,
                )
            )
            ok = False
        spec["name"] = name
        return spec, ok
    durable, cname = spec.get("durable_name"), spec.get("name")
    for field_name, given in (("durable_name", durable), ("name", cname)):
        if given is not None and given != name:
            pos = resolve_position(doc.positions, ("spec", field_name)) or start
            estate.findings.append(
                finding(
                    "name-mismatch",
                    f"spec.{field_name} {short(given)!r} differs from metadata.name {short(name)!r}",
                    file,
                    *pos,
                )
            )
            ok = False
    if durable is None and cname is None:
        spec["durable_name"] = name  # a named consumer is durable unless spec says `name:` only
    spec.setdefault("ack_policy", "explicit")
    return spec, ok
