"""NACK's value spellings, checked and translated: durations Go's ``time.ParseDuration`` reads (no
``d`` or ``w`` unit), sizes as integer bytes, and NACK's own enum spellings.

Go's duration grammar and spelling are :mod:`..semantics.units`' (``parse_go_duration``,
``nack_duration``); the NACK duration check is :func:`nack_duration_problem`."""

from __future__ import annotations

from typing import Any

from ..findings import FieldPath
from ..model.positions import resolve_position
from ..model.resource import Estate
from ..semantics import catalog
from ..semantics.catalog import Unit
from ..semantics.units import UnitError, nack_duration, parse_duration, parse_go_duration, parse_size
from ._nack_tables import ENUMS
from .documents import ParsedDocument
from .messages import did_you_mean, finding, kind_of, short
from .nack_releases import nack_release

__all__ = ["nack_duration_problem", "nack_values"]

# What NACK itself does with a spec (nats-io/nack deploy/crds.yml, internal/controller/*_controller.go):
# the CRD schemas give defaults that kube-apiserver writes into every object, durations go through
# Go's time.ParseDuration (no d or w units), sizes are integers, and enums have NACK's own spelling.


def _nack_names(kind: str, unit: Unit) -> frozenset[str]:
    """The CRD names of ``kind``'s top-level fields in ``unit`` (the field catalog's)."""
    return frozenset(f.nack for f in catalog.record(kind).fields if f.nack and f.unit is unit)


_KINDS = ("Stream", "Consumer", "KeyValue", "ObjectStore")
_NACK_DURATIONS = {kind: _nack_names(kind, Unit.DURATION) for kind in _KINDS}
_NACK_INTEGER_SIZES = {kind: _nack_names(kind, Unit.SIZE) for kind in _KINDS}


def _go_reads(text: str) -> bool:
    try:
        parse_go_duration(text)
    except UnitError:
        return False
    return True


def nack_duration_problem(value: Any, label: str) -> str | None:
    if value == "" or value is None:
        return None
    if not isinstance(value, str):
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return f"{label}: NACK durations are strings like '30s' (the CRD field is a string), got {kind_of(value)}"
        return None  # the model reports other types
    try:
        ns = parse_duration(value)
    except UnitError:
        return None  # the model reports it, with the usual advice
    if _go_reads(value.strip()):
        return None
    return f"{label}: NACK reads durations with Go's time.ParseDuration, which has no d or w unit; write {nack_duration(abs(ns))!r}"


def nack_values(
    spec: dict[str, Any], kind: str, doc: ParsedDocument, file: str, estate: Estate
) -> tuple[dict[str, Any], bool]:
    """Check and translate the values NACK spells its own way; returns the spec to map and whether it is valid.

    A duration whose CRD field is an integer (a KeyValue's ``limitMarkerTtl``: Go's time.Duration,
    integer nanoseconds) is not a Go duration string: kube-apiserver judges its type (JS030)."""
    out = dict(spec)
    ok = True
    release = nack_release(estate.nack_version)

    def report(message: str, path: FieldPath) -> None:
        nonlocal ok
        ok = False
        pos = resolve_position(doc.positions, path) or (doc.line, 1)
        estate.findings.append(finding("invalid-field", message, file, *pos))

    for key, value in spec.items():
        label = f"spec.{key}"
        if key in _NACK_DURATIONS.get(kind, ()) and release.field_type(kind, f"spec.{key}") != "integer":
            problem = nack_duration_problem(value, label)
            if problem:
                report(problem, ("spec", key))
                out.pop(key)
        elif key == "backoff" and isinstance(value, list):
            for i, item in enumerate(value):
                problem = nack_duration_problem(item, f"{label}[{i}]")
                if problem:
                    report(problem, ("spec", key, i))
                    out.pop(key, None)
        elif key == "consumerLimits" and isinstance(value, dict):
            problem = nack_duration_problem(value.get("inactiveThreshold"), f"{label}.inactiveThreshold")
            if problem:
                report(problem, ("spec", key, "inactiveThreshold"))
                out[key] = {k: v for k, v in value.items() if k != "inactiveThreshold"}
        elif key in _NACK_INTEGER_SIZES.get(kind, ()) and isinstance(value, str) and value != "":
            try:
                hint = f"; write {parse_size(value)}"
            except UnitError:
                hint = ""
            report(
                f"{label}: NACK sizes are integer numbers of bytes (the CRD field is an integer), got {kind_of(value)}{hint}",
                ("spec", key),
            )
            out.pop(key)
        elif (kind, key) in ENUMS and value != "" and value is not None:
            table = ENUMS[(kind, key)]
            if isinstance(value, str) and value in table:
                out[key] = table[value]
            else:
                choices = list(table)
                shown = repr(short(value)) if isinstance(value, str) else kind_of(value)
                hint = did_you_mean(value, choices) if isinstance(value, str) else ""
                if isinstance(value, str) and not hint:
                    camel = {v: k for k, v in table.items()}.get(value)
                    hint = f"; did you mean {camel!r}?" if camel else ""
                report(f"{label}: {shown} is not one of {', '.join(choices)}{hint}", ("spec", key))
                out.pop(key)
    return out, ok
