"""Validation of a declared object's config against the model, with the model's errors as findings
that point at the manifest's own fields (in the dialect's spelling)."""

from __future__ import annotations

import copy
import re
import types
from typing import TYPE_CHECKING, Any, Union, get_args, get_origin

from ..findings import FieldPath, Finding
from ..model.buckets import bucket_suggestion
from ..model.config import ConsumerConfig, StreamConfig
from ..model.records.record import Record, is_record_class, validation_errors
from ..model.resource import Declaration, Estate, Resource
from ..semantics.errcodes import ErrCode
from ..semantics.releases import STRICT_JSON_DEFAULT
from ._nack_tables import NACK_TABLES
from .messages import MAX_FINDINGS_PER_OBJECT, did_you_mean, dotted, finding, kind_of, short

if TYPE_CHECKING:
    from pydantic_core import ErrorDetails

__all__ = ["admit", "validate", "validation_finding", "model_at"]


def validate(declared: Declaration, spec: dict[str, Any], estate: Estate) -> StreamConfig | ConsumerConfig | None:
    """The validated config of ``declared``; None (with findings, and the object marked invalid) if it is not valid."""
    return _validate(declared, spec, estate)[0]


def _validate(
    declared: Declaration, spec: dict[str, Any], estate: Estate
) -> tuple[StreamConfig | ConsumerConfig | None, list[ErrorDetails]]:
    model: type[StreamConfig | ConsumerConfig] = StreamConfig if declared.kind == "Stream" else ConsumerConfig
    try:
        return model.model_validate(spec), []
    except Exception as exc:
        errors = validation_errors(exc)
        if errors is None:
            raise
        for err in errors[:MAX_FINDINGS_PER_OBJECT]:
            estate.findings.append(validation_finding(declared, model, err))
        if len(errors) > MAX_FINDINGS_PER_OBJECT:
            line, col = declared.locate(declared.spec_path, document_path=True)
            estate.findings.append(
                finding(
                    "invalid-field",
                    f"{len(errors) - MAX_FINDINGS_PER_OBJECT} more problems in {declared.ref} are not shown",
                    declared.file,
                    line,
                    col,
                    declared.ref,
                )
            )
        estate.invalid.add(declared.key)
        return None, errors


def _lenient(declared: Declaration, spec: dict[str, Any], errors: list[ErrorDetails], estate: Estate) -> None:
    """A request body whose only problems are unknown fields: releases before strict decoding (2.12)
    drop them and judge the rest, so the object without them goes to ``estate.lenient`` (the release
    views of those releases lint it; :func:`jsops.linter.semantics.releases.release_view`)."""
    if declared.dialect != "api" or not errors or any(e["type"] != "extra_forbidden" for e in errors):
        return
    trimmed: Any = copy.deepcopy(spec)
    for e in errors:
        *parents, last = tuple(e["loc"])
        node = trimmed
        for step in parents:
            node = (
                node.get(step)
                if isinstance(node, dict)
                else node[step]
                if isinstance(node, list) and isinstance(step, int)
                else None
            )
        if isinstance(node, dict):
            node.pop(last, None)
    model: type[StreamConfig | ConsumerConfig] = StreamConfig if declared.kind == "Stream" else ConsumerConfig
    try:
        config = model.model_validate(trimmed)
    except Exception as exc:
        if validation_errors(exc) is None:
            raise
        return
    estate.lenient.append(Resource.of(declared, config))


def validation_finding(res: Declaration, model: type[Record], err: ErrorDetails) -> Finding:
    loc = tuple(err["loc"])
    kind = err["type"]
    src = res.source_path(loc)
    if kind == "extra_forbidden":
        field_name = str(loc[-1])
        parent = dotted(src[:-1]) or "the manifest"
        candidates = _external_names(res, model, loc[:-1])
        hint = (bucket_suggestion(model, field_name) if len(loc) == 1 else None) or did_you_mean(field_name, candidates)
        msg = f"unknown field {short(field_name)!r} in {parent}{hint}"
        line, col = res.locate(src, key=True, document_path=True)
        if res.dialect == "api":  # the file is the request body: strict decoding refuses it (2.12+ by default)
            ref = res.ref if res.name else None
            return finding(
                "invalid-field", msg, res.file, line, col, ref, ErrCode.INVALID_JSON, since=STRICT_JSON_DEFAULT
            )
    else:
        msg = _value_message(kind, dotted(src), err)
        line, col = res.locate(src, document_path=True)
    code = (
        ErrCode.SOURCE_INVALID_STREAM_NAME
        if err.get("input") is None and len(loc) >= 2 and loc[-2] == "sources" and isinstance(loc[-1], int)
        else None
    )
    if code is None and res.dialect == "api" and kind in _DECODE_ERRORS and err.get("input") is not None:
        code = ErrCode.INVALID_JSON  # the request body does not decode (Go's json: a value of the wrong type)
    return finding("invalid-field", msg, res.file, line, col, res.ref if res.name else None, code)


# Model errors that are Go decoding errors of the request body (a JSON value of the wrong type, an
# enum value or a time the server cannot read): 10025 on every release. Not the model's own checks.
_DECODE_ERRORS = frozenset(
    {
        "string_type",
        "int_type",
        "int_parsing",
        "int_from_float",
        "bool_type",
        "bool_parsing",
        "list_type",
        "dict_type",
        "model_type",
        "model_attributes_type",
        "literal_error",
        "datetime_type",
        "datetime_parsing",
        "datetime_from_date_parsing",
        "timezone_aware",
    }
)


def _value_message(kind: str, label: str, err: ErrorDetails) -> str:
    """The message for a model error about a value (anything but an unknown field)."""
    text = err["msg"]
    if text.startswith("Value error, "):
        text = text[len("Value error, ") :]
    if kind == "missing":
        return f"missing required field {label}"
    if kind in ("model_type", "model_attributes_type", "dict_type"):
        return f"{label} must be a mapping, got {kind_of(err.get('input'))}"
    if kind == "list_type":
        return f"{label} must be a list, got {kind_of(err.get('input'))}"
    if kind in ("bool_type", "bool_parsing"):
        got = err.get("input")
        hint = (
            " (YAML 1.2 reads yes/no/on/off as strings; write true or false)"
            if isinstance(got, str) and got.lower() in ("yes", "no", "on", "off", "y", "n")
            else ""
        )
        return f"{label} must be true or false, got {kind_of(got)}{hint}"
    if kind in ("string_type",):
        return f"{label} must be a string, got {kind_of(err.get('input'))}"
    if kind in ("int_type", "int_parsing", "int_from_float"):
        return f"{label} must be an integer, got {kind_of(err.get('input'))}"
    if kind == "timezone_aware":
        return f"{label}: {short(err.get('input'))!r} has no time zone; write RFC 3339 like 2026-01-02T15:04:05Z"
    if kind.startswith("datetime"):
        return f"{label}: {short(err.get('input'))!r} is not an RFC 3339 time like 2026-01-02T15:04:05Z"
    if kind == "literal_error":
        expected = err.get("ctx", {}).get("expected", "")
        choices = [c for c in re.findall(r"'([^']*)'", expected) if c]
        got = err.get("input")
        shown = repr(short(got)) if isinstance(got, str) else kind_of(got)
        return f"{label}: {shown} is not one of {', '.join(choices)}{did_you_mean(str(got), choices) if isinstance(got, str) else ''}"
    got = err.get("input")
    suffix = ""
    if kind in (
        "string_type",
        "int_type",
        "bool_type",
        "list_type",
        "dict_type",
        "model_type",
        "timezone_aware",
        "datetime_type",
        "datetime_from_date_parsing",
        "datetime_parsing",
    ):
        suffix = f", got {kind_of(got) if not isinstance(got, str) else repr(short(got))}"
    return f"{label}: {text[0].lower() + text[1:] if text else text}{suffix}"


def model_at(model: type[Record], loc: FieldPath) -> type[Record] | None:
    current: Any = model
    for step in loc:
        if isinstance(step, int):
            continue
        if not is_record_class(current):
            return None
        f = current.model_fields.get(step)
        if f is None:
            return None
        current = _unwrap(f.annotation)
    return current if is_record_class(current) else None


def _unwrap(ann: Any) -> Any:
    """The model class inside ``X | None``, ``list[X]`` and the like."""
    while get_origin(ann) in (list, tuple, Union, types.UnionType):
        args = [a for a in get_args(ann) if a is not type(None)]
        if not args:
            break
        ann = args[0]
    return ann


def _external_names(res: Declaration, model: type[Record], loc: FieldPath) -> list[str]:
    sub = model_at(model, loc)
    names = list(sub.model_fields) if sub is not None else []
    if res.dialect.startswith("nack"):
        table = NACK_TABLES.get((res.kind, tuple(s for s in loc if not isinstance(s, int))))
        if table is not None:
            return list(table)
    return names


def admit(
    declared: Declaration, spec: dict[str, Any], estate: Estate, ok: bool = True, lenient: bool = False
) -> Resource | None:
    """Validate ``spec`` and add the resource ``declared`` becomes to the estate; with ``ok`` False
    (other findings about the object) or an invalid config, mark the object invalid instead. With
    ``lenient`` (a request body whose envelope has unknown keys: refused from 2.12, accepted before)
    a valid object goes to ``estate.lenient``."""
    if lenient and ok:
        config, _ = _validate(declared, spec, estate)
        estate.invalid.add(declared.key)
        if config is not None:
            estate.lenient.append(Resource.of(declared, config))
        return None
    config, errors = _validate(declared, spec, estate)
    if config is not None and ok:
        resource = Resource.of(declared, config)
        estate.add(resource)
        return resource
    estate.invalid.add(declared.key)
    if ok:
        _lenient(declared, spec, errors, estate)
    return None
