"""NACK files as kube-apiserver judges them, before NACK ever sees them (JS030 ``nack-crd-refused``).

A NACK resource goes through kube-apiserver first. For the NACK release the user runs
(``--nack-version``, ``nack-version:`` in the config; default the newest jsops knows,
:mod:`jsops.linter.load.nack_releases`), this module checks a document as kube-apiserver does:

- the API version: a kind's CRD serves one version (``v1beta2``); any other is refused before the
  object is decoded (kubectl: "no matches for kind");
- the schema (structural, from NACK's CRD): type, enum, pattern, minimum/maximum, lengths, item
  counts, required; every error is collected, as kube-apiserver answers with all of them at once. A
  null in a mapping is pruned (or defaulted), not refused. (``format`` is recorded but not judged:
  no NACK CRD uses one; the generator keeps it so a new one shows in the table's diff);
- ``metadata``: a custom resource's name is a lowercase RFC 1123 subdomain and is required; the
  namespace is a DNS label; label and annotation keys are qualified names, label values short;
- unknown fields: kube-apiserver prunes them silently, unless the request asks for strict field
  validation, which ``kubectl apply`` does by default (``--validate=strict``, kubectl 1.25 and later,
  against a server with server-side field validation: beta in 1.25, GA in 1.27); Helm and other
  clients that do not ask get the field pruned (a warning at most), and NACK never sees it. Either
  way the field does nothing, so jsops reports it as an error. A field jsops itself does not know
  either is left to JS005 (``unknown field``), which says the same thing with a suggestion.

Findings name the stage ("kube-apiserver would refuse this: ...") and carry no nats-server err_code.
Where kube-apiserver refuses a field, the loader's own finding at the same place is not reported
(:func:`drop_shadowed`, run by the engine on what is reported): the first stage that refuses says it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from typing import Any

from ..findings import FieldPath, Finding
from ..model.positions import resolve_position
from ..model.resource import Estate
from ..semantics.units import UnitError, nack_duration, parse_duration, parse_size
from . import _nack_tables as T
from ._nack_values import _NACK_DURATIONS, _NACK_INTEGER_SIZES
from .documents import ParsedDocument
from .messages import MAX_FINDINGS_PER_OBJECT, did_you_mean, dotted, finding, kind_of, short
from .nack_releases import NackRelease, known_releases, nack_release

__all__ = ["CODE", "REFUSED", "check_nack_document", "drop_shadowed"]

REFUSED = "kube-apiserver would refuse this"
CODE = "nack-crd-refused"
_TOP = frozenset({"apiVersion", "kind", "metadata", "spec", "status"})
_META = frozenset(
    {
        "name",
        "generateName",
        "namespace",
        "labels",
        "annotations",
        "finalizers",
        "ownerReferences",
        "uid",
        "resourceVersion",
        "generation",
        "creationTimestamp",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
        "managedFields",
        "selfLink",
    }
)
_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_QUALIFIED = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
_LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
_ANNOTATIONS_MAX = 256 * 1024
_JSOPS_TABLES = {"Stream": T.STREAM, "Consumer": T.CONSUMER, "KeyValue": T.KEY_VALUE, "ObjectStore": T.OBJECT_STORE}

_NO_FACTS: dict[str, Any] = {}
Problem = tuple[FieldPath, bool, str]
"""(document path, whether the position is the key's, message)."""


def check_nack_document(doc: ParsedDocument, kind: str, api: str, file: str, estate: Estate) -> None:
    """Append a finding for everything kube-apiserver refuses in ``doc`` (a NACK ``kind`` under
    ``api``) for the estate's NACK release.

    The findings are findings only: whether the object is admitted stays jsops's own judgement (its
    JS005s), so ignoring JS030 (a team that applies its NACK files with jsops, not kubectl) leaves
    jsops's own checks whole."""
    release = nack_release(estate.nack_version)
    problems = list(_problems(doc.value, kind, api, release))
    start = resolve_position(doc.positions, ()) or (doc.line, 1)
    for path, key, message in problems[:MAX_FINDINGS_PER_OBJECT]:
        pos = resolve_position(doc.positions, path, key=key) or start
        estate.findings.append(finding(CODE, message, file, *pos))
    if len(problems) > MAX_FINDINGS_PER_OBJECT:
        estate.findings.append(
            finding(
                CODE, f"{REFUSED}: {len(problems) - MAX_FINDINGS_PER_OBJECT} more problems are not shown", file, *start
            )
        )


def drop_shadowed(findings: list[Finding]) -> list[Finding]:
    """``findings`` without the loader's JS005s at a place where a JS030 that is reported says
    kube-apiserver refuses it first (the object never reaches NACK: the later stage's word is noise).
    Run on what is reported, after ignores and suppressions: with JS030 ignored, the JS005s stay."""
    refused = {(f.file, f.line, f.column) for f in findings if f.name == CODE}
    if not refused:
        return findings
    return [f for f in findings if not (f.name == "invalid-field" and (f.file, f.line, f.column) in refused)]


def _problems(value: dict[str, Any], kind: str, api: str, release: NackRelease) -> Iterator[Problem]:
    served = release.served(kind)
    version = api.rsplit("/", 1)[1]
    if served != version:
        yield ("apiVersion",), False, _not_served(kind, api, served, release)
        return
    for key in value:
        if str(key) not in _TOP:
            yield (key,), True, _unknown(str(key), release, kind)
    meta = value.get("metadata")
    yield from _metadata(meta)
    schema = release.schema(kind)
    found: list[Problem] = []
    for part in ("spec", "status"):
        if value.get(part) is not None and part in schema:
            _walk(value[part], part, (part,), schema, kind, release, found)
    yield from found


def _not_served(kind: str, api: str, served: str | None, release: NackRelease) -> str:
    if served is None:
        return f"{REFUSED}: NACK {release.tag} serves no {kind} resources (kubectl: no matches for kind {kind!r} in version {api!r})"
    return (
        f"{REFUSED}: NACK {release.tag}'s CRD serves {kind} as jetstream.nats.io/{served} only, not {api.rsplit('/', 1)[1]} "
        f"(kubectl: no matches for kind {kind!r} in version {api!r}); write apiVersion: jetstream.nats.io/{served}"
    )


def _walk(
    value: object,
    at: str,
    path: FieldPath,
    schema: dict[str, dict[str, Any]],
    kind: str,
    release: NackRelease,
    out: list[Problem],
) -> None:
    """Every refusal in ``value``, the node at schema path ``at`` (document path ``path``), into ``out``
    (a list, not generators: this runs for every field of every NACK file)."""
    facts = schema.get(at, _NO_FACTS)
    if value is None:
        if not facts.get("nullable"):
            out.append(
                (path, False, f"{REFUSED}: {dotted(path)} must be of type {facts.get('type', 'object')}, got null")
            )
        return
    expected = facts.get("type")
    if expected is not None and not _is_type(value, expected):
        hint = _type_hint(kind, path, value, expected)
        out.append(
            (
                path,
                False,
                f"{REFUSED}: {dotted(path)} must be of type {expected}, got {kind_of(value)} (NACK {release.tag}'s CRD){hint}",
            )
        )
        return
    if len(facts) > ("type" in facts):  # more than the type
        for where, key, message in _value_checks(value, facts, path, dotted(path)):
            out.append((where, key, f"{message} (NACK {release.tag}'s CRD)"))
    if isinstance(value, list):
        items = at + "[]"
        for i, item in enumerate(value):
            _walk(item, items, (*path, i), schema, kind, release, out)
    elif isinstance(value, dict):
        _walk_object(value, at, path, facts, schema, kind, release, out)


def _walk_object(
    value: dict[str, Any],
    at: str,
    path: FieldPath,
    facts: dict[str, Any],
    schema: dict[str, dict[str, Any]],
    kind: str,
    release: NackRelease,
    out: list[Problem],
) -> None:
    """An object's required keys, then each key: by its own schema, the map's item schema, or unknown."""
    for name in facts.get("required", ()):
        if value.get(name) is None:
            out.append((path, False, f"{REFUSED}: {dotted(path)}.{name} is required (NACK {release.tag}'s CRD)"))
    for key, item in value.items():
        child = f"{at}.{key}"
        if child in schema:
            if item is not None or schema[child].get("nullable"):
                _walk(item, child, (*path, key), schema, kind, release, out)
        elif at + "{}" in schema:
            _walk(item, at + "{}", (*path, key), schema, kind, release, out)
        elif not facts.get("preserve") and not _left_to_loader(kind, (*path, key)):
            out.append(((*path, key), True, _unknown(dotted((*path, key)), release, kind, child)))


def _value_checks(value: object, facts: dict[str, Any], path: FieldPath, label: str) -> Iterator[Problem]:
    """enum, pattern, lengths, bounds and item counts of one value of the right type."""
    enum = facts.get("enum")
    if enum is not None and value not in enum:
        choices = [str(c) for c in enum if c != ""]
        shown = repr(short(value)) if isinstance(value, str) else kind_of(value)
        hint = did_you_mean(value, choices) if isinstance(value, str) else ""
        yield path, False, f"{REFUSED}: {label}: {shown} is not one of {', '.join(choices)}{hint}"
        return
    if isinstance(value, str):
        yield from _string_checks(value, facts, path, label)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        yield from _number_checks(value, facts, path, label)
    elif isinstance(value, list):
        if "minItems" in facts and len(value) < facts["minItems"]:
            yield path, False, f"{REFUSED}: {label} must have at least {facts['minItems']} items"
        if "maxItems" in facts and len(value) > facts["maxItems"]:
            yield path, False, f"{REFUSED}: {label} must have at most {facts['maxItems']} items"


def _string_checks(value: str, facts: dict[str, Any], path: FieldPath, label: str) -> Iterator[Problem]:
    pattern = facts.get("pattern")
    if pattern is not None and re.search(pattern, value) is None:
        hint = " (no '.', '*' or '>')" if "[^.*>]" in pattern else ""
        yield path, False, f"{REFUSED}: {label} {short(value)!r} does not match {pattern}{hint}"
    if "minLength" in facts and len(value) < facts["minLength"]:
        yield (
            path,
            False,
            f"{REFUSED}: {label} must be at least {facts['minLength']} characters long, got {kind_of(value)}",
        )
    if "maxLength" in facts and len(value) > facts["maxLength"]:
        yield path, False, f"{REFUSED}: {label} must be at most {facts['maxLength']} characters long"


def _number_checks(value: float, facts: dict[str, Any], path: FieldPath, label: str) -> Iterator[Problem]:
    low, high = facts.get("minimum"), facts.get("maximum")
    if low is not None and (value < low or (facts.get("exclusiveMinimum") and value == low)):
        yield (
            path,
            False,
            f"{REFUSED}: {label} must be {'greater than' if facts.get('exclusiveMinimum') else 'at least'} {low}, got {short(value)}",
        )
    if high is not None and (value > high or (facts.get("exclusiveMaximum") and value == high)):
        yield (
            path,
            False,
            f"{REFUSED}: {label} must be {'less than' if facts.get('exclusiveMaximum') else 'at most'} {high}, got {short(value)}",
        )


def _type_hint(kind: str, path: FieldPath, value: object, expected: str) -> str:
    """What to write instead, where jsops can tell: a size in bytes, a Go duration, an unquoted scalar."""
    names = [p for p in path if isinstance(p, str)]
    name = names[-1] if names else ""
    if expected == "integer" and isinstance(value, str):
        if name in _NACK_DURATIONS.get(kind, ()):
            try:
                return f"; this release reads it as integer nanoseconds: write {parse_duration(value)}"
            except UnitError:
                return "; this release reads it as integer nanoseconds"
        if name in _NACK_INTEGER_SIZES.get(kind, ()):
            try:
                return f"; NACK sizes are integer numbers of bytes: write {parse_size(value)}"
            except UnitError:
                return "; NACK sizes are integer numbers of bytes"
        if re.fullmatch(r"-?[0-9]+", value.strip()):
            return f"; write {value.strip()} without quotes"
    if expected == "string" and isinstance(value, (int, float)) and not isinstance(value, bool):
        if name in _NACK_DURATIONS.get(kind, ()) or name in ("backoff", "inactiveThreshold"):
            whole = isinstance(value, int) or (math.isfinite(value) and value.is_integer())
            return (
                f"; NACK durations are Go duration strings: write {nack_duration(int(value))!r}"
                if whole and 0 <= value < 2**63
                else "; NACK durations are Go duration strings"
            )
        return f"; write {short(value)!r} in quotes"
    if expected == "boolean" and isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return f"; write {value.strip().lower()} without quotes"
    return ""


def _is_type(value: object, expected: str) -> bool:
    """Whether a decoded JSON value has the schema type (a whole float is an integer: Kubernetes
    decodes JSON numbers that way)."""
    if expected == "object":
        return isinstance(value, dict)
    if expected == "array":
        return isinstance(value, list)
    if expected == "string":
        return isinstance(value, str)
    if expected == "boolean":
        return isinstance(value, bool)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return expected == "number" or isinstance(value, int) or value.is_integer()


def _left_to_loader(kind: str, path: FieldPath) -> bool:
    """Whether jsops's own NACK tables do not know this spec field either: its JS005 (with a
    did-you-mean) reports it. A field jsops reads but this release's CRD does not is JS030's."""
    table: dict[str, Any] | None = _JSOPS_TABLES.get(kind)
    if table is None or path[0] != "spec":
        return False
    names = [p for p in path[1:] if not isinstance(p, int)]
    for i, name in enumerate(names):
        if table is None:
            return False  # inside a value jsops reads whole (a map)
        if i == 0 and name in T.CONNECTION:
            return False
        if name not in table:
            return True
        target = table[name]
        table = target[1] if isinstance(target, tuple) and isinstance(target[1], dict) else None
    return False


def _unknown(label: str, release: NackRelease, kind: str, at: str | None = None) -> str:
    since = ""
    if at is not None:
        newer = [tag for tag in known_releases() if at in nack_release(tag).schema(kind)]
        if newer:
            since = (
                f" (NACK {newer[-1]} and later do)"
                if newer[0] == known_releases()[0]
                else f" (NACK {', '.join(reversed(newer))} do)"
            )
    return (
        f"{REFUSED} under strict field validation (kubectl apply's default): unknown field {label!r}, which NACK {release.tag}'s CRD does not "
        f"declare{since}; without it (kubectl --validate=warn or ignore, Helm) kube-apiserver prunes the field and NACK never sees it"
    )


def _metadata(meta: object) -> Iterator[Problem]:
    """What kube-apiserver checks of a custom resource's metadata (ObjectMeta)."""
    if meta is None:
        yield ("metadata",), False, f"{REFUSED}: metadata.name is required (name or generateName)"
        return
    if not isinstance(meta, dict):
        yield ("metadata",), False, f"{REFUSED}: metadata must be a mapping, got {kind_of(meta)}"
        return
    for key in meta:
        if str(key) not in _META:
            yield (
                ("metadata", key),
                True,
                (
                    f"{REFUSED} under strict field validation (kubectl apply's default): unknown field 'metadata.{short(key)}'; "
                    "without it kube-apiserver prunes the field"
                ),
            )
    name = meta.get("name")
    if name is None and not meta.get("generateName"):
        yield ("metadata",), False, f"{REFUSED}: metadata.name is required (name or generateName)"
    elif name is not None:
        if not isinstance(name, str):
            yield ("metadata", "name"), False, f"{REFUSED}: metadata.name must be a string, got {kind_of(name)}"
        elif len(name) > 253 or not _SUBDOMAIN.match(name):
            yield (
                ("metadata", "name"),
                False,
                (
                    f"{REFUSED}: metadata.name {short(name)!r} is not a lowercase RFC 1123 subdomain (lower-case letters, digits, '-' and '.', "
                    f"starting and ending with a letter or digit, at most 253 characters){_lower_hint(name)}"
                ),
            )
    namespace = meta.get("namespace")
    if namespace is not None and (not isinstance(namespace, str) or len(namespace) > 63 or not _LABEL.match(namespace)):
        yield (
            ("metadata", "namespace"),
            False,
            f"{REFUSED}: metadata.namespace {short(namespace)!r} is not a lowercase RFC 1123 label (at most 63 characters)",
        )
    yield from _labels(meta.get("labels"))
    yield from _annotations(meta.get("annotations"))


def _lower_hint(name: str) -> str:
    fixed = re.sub(r"[^a-z0-9.-]+", "-", name.lower()).strip("-.")
    return (
        f"; did you mean {fixed!r}?"
        if fixed and fixed != name and _SUBDOMAIN.match(fixed) and len(fixed) <= 253
        else ""
    )


def _qualified_name_problem(key: str) -> str | None:
    prefix, _, name = key.rpartition("/")
    if "/" in prefix:
        return "has more than one '/'"
    if prefix and (len(prefix) > 253 or not _SUBDOMAIN.match(prefix)):
        return "has a prefix that is not a lowercase DNS subdomain"
    if not name or len(name) > 63 or not _QUALIFIED.match(name):
        return "is not a qualified name (at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit)"
    return None


def _labels(labels: object) -> Iterator[Problem]:
    if not isinstance(labels, dict):
        if labels is not None:
            yield (
                ("metadata", "labels"),
                False,
                f"{REFUSED}: metadata.labels must be a mapping of strings, got {kind_of(labels)}",
            )
        return
    for key, value in labels.items():
        why = _qualified_name_problem(str(key))
        if why:
            yield ("metadata", "labels", key), True, f"{REFUSED}: label key {short(key)!r} {why}"
        if not isinstance(value, str):
            yield (
                ("metadata", "labels", key),
                False,
                f"{REFUSED}: label {short(key)!r} must be a string, got {kind_of(value)}",
            )
        elif len(value) > 63 or not _LABEL_VALUE.match(value):
            yield (
                ("metadata", "labels", key),
                False,
                (
                    f"{REFUSED}: label {short(key)!r} value {short(value)!r} is not a label value "
                    "(at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit)"
                ),
            )


def _annotations(annotations: object) -> Iterator[Problem]:
    if not isinstance(annotations, dict):
        if annotations is not None:
            yield (
                ("metadata", "annotations"),
                False,
                f"{REFUSED}: metadata.annotations must be a mapping of strings, got {kind_of(annotations)}",
            )
        return
    size = 0
    for key, value in annotations.items():
        why = _qualified_name_problem(str(key).lower())
        if why:
            yield ("metadata", "annotations", key), True, f"{REFUSED}: annotation key {short(key)!r} {why}"
        if not isinstance(value, str):
            yield (
                ("metadata", "annotations", key),
                False,
                f"{REFUSED}: annotation {short(key)!r} must be a string, got {kind_of(value)}",
            )
        else:
            size += len(str(key).encode()) + len(value.encode())
    if size > _ANNOTATIONS_MAX:
        yield (
            ("metadata", "annotations"),
            False,
            f"{REFUSED}: metadata.annotations are {size} bytes, more than kube-apiserver's 262144",
        )
