"""The JSON Schema of the native manifest format (``apiVersion: jsops/v1``), derived from the model.

The ``spec`` of each kind is the JSON Schema pydantic gives the config record's model
(:func:`jsops.linter.model.records.record.pydantic_model`, ``model_json_schema``), so a field, its type, its
choices and ``extra="forbid"`` are declared once, in :mod:`jsops.linter.model.config` and
:mod:`jsops.linter.model.buckets`. What the schema adds is what the model's input hooks accept before
the field's own type: Go durations (``90s``, ``7d``) besides integer nanoseconds, sizes (``10GiB``)
besides integers, and a ``sample_freq`` given as an integer. The envelope (``apiVersion``,
``kind``, ``metadata``) is the native loader's (:mod:`jsops.linter.load.native`).

The file is committed as ``docs/schema/jsops-v1.schema.json`` (``tests/linter/test_json_schema.py`` keeps it
up to date; ``JSOPS_UPDATE_GOLDEN=1`` rewrites it), so that a manifest starting with
``# yaml-language-server: $schema=...`` gets completion and validation in editors. The schema
judges types and names; the rest of what jsops checks (err_code predictions, estate rules, name
rules) is ``jsops lint``'s.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from ..jsonvalue import JsonObject, JsonValue
from ..model.buckets import KeyValueConfig, ObjectStoreConfig
from ..model.config import ConsumerConfig, StreamConfig
from .native import NATIVE_API

__all__ = ["manifest_schema", "DURATION_PATTERN", "SIZE_PATTERN", "SCHEMA_ID"]

SCHEMA_ID = "jsops-v1.schema.json"
# What jsops.linter.semantics.units.parse_duration and parse_size accept as strings (tests compare them
# on a corpus): an optional sign, then "0" or <number><unit> runs; a size is digits and a unit.
DURATION_PATTERN = r"^\s*[+-]?(0|(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h|d|w))+)\s*$"
SIZE_PATTERN = r"^\s*-?[0-9]+\s*([KkMmGgTt]([Ii]?[Bb])?|[Bb])?\s*$"
_INT64 = {"type": "integer", "minimum": -(2**63), "maximum": 2**63 - 1}

# One schema per hook, not a choice between an integer and a string: ``pattern`` judges only strings and
# ``minimum``/``maximum`` only numbers, so an editor underlines the field with the one reason it fails.
_HOOKS: dict[str, dict[str, Any]] = {
    "_duration": {
        "type": ["integer", "string"],
        "pattern": DURATION_PATTERN,
        "minimum": _INT64["minimum"],
        "maximum": _INT64["maximum"],
        "description": "A Go duration (90s, 1h30m) with d and w units too, or integer nanoseconds: a bare 30 is 30ns, "
        "not 30 seconds (jsops lint warns, JS446); write 30s.",
    },
    "_size": {
        "type": ["integer", "string"],
        "pattern": SIZE_PATTERN,
        "minimum": _INT64["minimum"],
        "maximum": _INT64["maximum"],
        "description": "Bytes: an integer, or a number with B, K/KB/KiB, M/MB/MiB, G/GB/GiB, T/TB/TiB (1024-based).",
    },
    "_sample_freq": {"type": ["string", "integer"], "description": 'A percentage of acks sampled: "100%", "10" or 10.'},
}


def _nullable(schema: Any) -> Any:
    """``schema`` with each optional field's ``anyOf: [X, {"type": "null"}]`` (pydantic's ``X | None``) made
    one schema that also takes null, so that a wrong value fails with X's own reason (the enum's values,
    the pattern) at the field, not "not valid under any of the given schemas" at the document."""
    if isinstance(schema, list):
        return [_nullable(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: _nullable(v) for k, v in schema.items()}
    branches = out.get("anyOf")
    if not (isinstance(branches, list) and len(branches) == 2 and {"type": "null"} in branches):
        return out
    (other,) = [b for b in branches if b != {"type": "null"}]
    del out["anyOf"]
    if "$ref" in other:  # a nested record: checked where it is an object
        return {**out, "type": ["object", "null"], "if": {"type": "object"}, "then": other}
    types = other.get("type")
    if types is None:
        return {**out, "anyOf": branches}
    merged = {**other, **out, "type": [*(types if isinstance(types, list) else [types]), "null"]}
    if "enum" in merged:
        merged["enum"] = [*merged["enum"], None]
    if "const" in merged:
        merged["enum"] = [merged.pop("const"), None]
    return merged


_KINDS = (
    ("Stream", StreamConfig),
    ("Consumer", ConsumerConfig),
    ("KeyValue", KeyValueConfig),
    ("ObjectStore", ObjectStoreConfig),
)


def _generator() -> type[Any]:
    from pydantic.json_schema import GenerateJsonSchema

    class Generator(GenerateJsonSchema):
        """pydantic's generator, with what the input hooks accept in place of the hooked type."""

        def function_before_schema(self, schema: Any) -> Any:
            name = getattr(schema["function"]["function"], "__name__", "")
            if name in _HOOKS:
                return dict(_HOOKS[name])
            return super().function_before_schema(schema)

    return Generator


def _spec(record: type[Any], defs: dict[str, Any]) -> dict[str, Any]:
    from ..model.records.record import pydantic_model

    schema: dict[str, Any] = _nullable(
        pydantic_model(record).model_json_schema(schema_generator=_generator(), ref_template="#/$defs/{model}")
    )
    for name, sub in schema.pop("$defs", {}).items():
        if defs.setdefault(name, sub) != sub:
            raise AssertionError(f"two different models named {name}")  # pragma: no cover
    return schema


def _metadata(kind: str) -> dict[str, Any]:
    strings = {"type": "object", "additionalProperties": {"type": "string"}}
    props: dict[str, Any] = {
        "name": {
            "type": "string",
            "minLength": 1,
            "description": "The object's name (a bucket's name for KeyValue and ObjectStore).",
        },
        "context": {
            "type": "string",
            "minLength": 1,
            "description": "The target this object is applied to (a jsops or natscli context); default: default.",
        },
        "annotations": {
            **strings,
            "description": "jsops settings: jsops.io/allow-recreate, jsops.io/adopt, jsops.io/disable, ...",
        },
        "labels": strings,
    }
    required = ["name"]
    if kind == "Consumer":
        props["stream"] = {"type": "string", "minLength": 1, "description": "The stream the consumer belongs to."}
        required.append("stream")
    return {"type": "object", "properties": props, "required": required, "additionalProperties": False}


def manifest_schema() -> JsonObject:
    """The JSON Schema (draft 2020-12) of one native manifest document."""
    defs: dict[str, Any] = {}
    branches: list[JsonValue] = []
    for kind, record in _KINDS:
        defs[f"{kind}Spec"] = _spec(record, defs)
        branches.append(
            {
                "if": {"properties": {"kind": {"const": kind}}, "required": ["kind"]},
                "then": {
                    "properties": {
                        "metadata": _metadata(kind),
                        "spec": {"if": {"type": "object"}, "then": {"$ref": f"#/$defs/{kind}Spec"}},
                    }
                },
            }
        )
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": f"jsops manifest ({NATIVE_API})",
        "description": "A stream, consumer, Key-Value or Object Store bucket for jsops (generated from jsops's model; do not edit).",
        "type": "object",
        "properties": {
            "apiVersion": {"const": NATIVE_API},
            "kind": {"enum": [k for k, _ in _KINDS]},
            "metadata": {"type": "object"},
            "spec": {"type": ["object", "null"]},
        },
        "required": ["apiVersion", "kind", "metadata"],
        "additionalProperties": False,
        "allOf": branches,
        "$defs": dict(sorted(defs.items())),
    }


def main() -> int:
    sys.stdout.write(json.dumps(manifest_schema(), indent=2, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
