"""Checks of a manifest's envelope shared by the dialects: allowed keys, required strings, string
maps (annotations, labels) and context names, each a finding at the value's position."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..findings import FieldPath
from ..model.positions import resolve_position
from ..model.resource import Declaration, Estate
from .documents import ParsedDocument
from .messages import MAX_FINDINGS_PER_OBJECT, MAX_NAME_LENGTH, did_you_mean, finding, kind_of, short, shown, too_long

__all__ = ["check_keys", "string_map", "require_str", "context_name", "declared_in", "mapping_at"]


def check_keys(
    value: dict[str, Any],
    allowed: Iterable[str],
    where: FieldPath,
    doc: ParsedDocument,
    file: str,
    estate: Estate,
    label: str,
) -> bool:
    allowed = tuple(allowed)
    unknown = [k for k in value if k not in allowed]
    for k in unknown[:MAX_FINDINGS_PER_OBJECT]:
        pos = resolve_position(doc.positions, where + (k,), key=True) or (doc.line, 1)
        estate.findings.append(
            finding(
                "invalid-field", f"unknown field {short(k)!r} in {label}{did_you_mean(str(k), allowed)}", file, *pos
            )
        )
    if len(unknown) > MAX_FINDINGS_PER_OBJECT:
        pos = resolve_position(doc.positions, where) or (doc.line, 1)
        estate.findings.append(
            finding(
                "invalid-field",
                f"{len(unknown) - MAX_FINDINGS_PER_OBJECT} more unknown fields in {label} are not shown",
                file,
                *pos,
            )
        )
    return not unknown


def string_map(
    value: object, where: FieldPath, doc: ParsedDocument, file: str, estate: Estate, label: str
) -> dict[str, str] | None:
    if value is None:
        return {}
    if not isinstance(value, dict):
        pos = resolve_position(doc.positions, where) or (doc.line, 1)
        estate.findings.append(
            finding("invalid-field", f"{label} must be a mapping of strings, got {kind_of(value)}", file, *pos)
        )
        return None
    out = {}
    for k, v in value.items():
        if not isinstance(k, str) or not isinstance(v, str):
            # Positions are looked up only for a finding (a cached document's are unmarshalled then).
            p = resolve_position(doc.positions, where + (k,)) or resolve_position(doc.positions, where) or (doc.line, 1)
            estate.findings.append(
                finding("invalid-field", f"{label}.{short(k)} must be a string (quote it), got {kind_of(v)}", file, *p)
            )
            return None
        out[k] = v
    return out


def require_str(
    value: dict[str, Any], key: str, where: FieldPath, doc: ParsedDocument, file: str, estate: Estate, label: str
) -> str | None:
    v = value.get(key)
    if isinstance(v, str) and v:
        if len(v) > MAX_NAME_LENGTH:
            pos = resolve_position(doc.positions, where + (key,)) or (doc.line, 1)
            estate.findings.append(finding("invalid-field", too_long(label, v), file, *pos))
            return None
        return v
    if v is None:
        pos = resolve_position(doc.positions, where) or (doc.line, 1)
        estate.findings.append(finding("invalid-field", f"missing required field {label}", file, *pos))
    else:
        pos = resolve_position(doc.positions, where + (key,)) or (doc.line, 1)
        estate.findings.append(
            finding("invalid-field", f"{label} must be a non-empty string, got {kind_of(v)}", file, *pos)
        )
    return None


def context_name(
    value: object, where: FieldPath, doc: ParsedDocument, file: str, estate: Estate, label: str
) -> str | None:
    """A context name: a non-empty string of printable characters, at most MAX_NAME_LENGTH long."""
    if isinstance(value, str) and value and len(value) <= MAX_NAME_LENGTH and value.isprintable():
        return value
    pos = resolve_position(doc.positions, where) or (doc.line, 1)
    if isinstance(value, str) and len(value) > MAX_NAME_LENGTH:
        what = too_long(label, value).replace("NATS names", "context names")
    elif isinstance(value, str) and value:
        what = f"{label} must be printable text, got {shown(value)!r}"
    else:
        what = f"{label} must be a non-empty string, got {kind_of(value)}"
    estate.findings.append(finding("invalid-field", what, file, *pos))
    return None


def declared_in(
    doc: ParsedDocument,
    index: int,
    file: str,
    *,
    kind: str,
    name: str,
    stream: str | None,
    dialect: str = "native",
    context: str = "default",
    annotations: dict[str, str] | None = None,
    spec_path: FieldPath = ("spec",),
    key_map: dict[FieldPath, FieldPath] | None = None,
) -> Declaration:
    """The object document ``index`` of ``file`` declares (where it is and what it holds come from ``doc``)."""
    return Declaration(
        kind=kind,
        name=name,
        stream=stream,
        file=file,
        context=context,
        annotations={} if annotations is None else annotations,
        dialect=dialect,
        document=index,
        doc_line=doc.line,
        positions=doc.positions,
        spec_path=spec_path,
        key_map={} if key_map is None else key_map,
        raw=doc.value,
    )


def mapping_at(
    value: dict[str, Any], key: str, doc: ParsedDocument, file: str, estate: Estate, *, required: bool = False
) -> dict[str, Any] | None:
    """``value[key]`` when it is a mapping (absent: an empty one, unless ``required``); else None and a finding."""
    got = value.get(key)
    if isinstance(got, dict):
        return got
    if got is None and not required:
        return {}
    message = f"missing required field {key}" if got is None else f"{key} must be a mapping, got {kind_of(got)}"
    estate.findings.append(
        finding("invalid-field", message, file, *(resolve_position(doc.positions, (key,)) or (doc.line, 1)))
    )
    return None
