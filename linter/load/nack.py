"""The NACK dialect: ``apiVersion: jetstream.nats.io/v1beta2`` (or ``v1beta1``) Stream and Consumer
resources with NACK's camelCase specs, translated to JetStream API configs (tables in
:mod:`jsops.linter.load._nack_tables`), with NACK's own value rules (:mod:`jsops.linter.load._nack_values`).
KeyValue and ObjectStore are buckets (:mod:`jsops.linter.load.buckets`); Account and StreamTemplate are
read but not managed."""

from __future__ import annotations

from typing import Any

from ..findings import FieldPath
from ..model.positions import Pos, resolve_position
from ..model.resource import Estate, NackAccount
from . import _nack_tables as T
from ._envelope import context_name, declared_in, mapping_at, require_str, string_map
from ._nack_values import nack_values
from .documents import ParsedDocument
from .messages import (
    MAX_FINDINGS_PER_OBJECT,
    MAX_NAME_LENGTH,
    did_you_mean,
    dotted,
    finding,
    kind_of,
    short,
    shown,
    too_long,
)
from .nack_crd import check_nack_document
from .validation import admit

__all__ = [
    "NACK_APIS",
    "PREVENT_DELETE",
    "PREVENT_UPDATE",
    "load_nack",
    "nack_translate",
    "nack_account",
    "nack_connection_fields",
    "protection_annotations",
]

NACK_APIS = ("jetstream.nats.io/v1beta2", "jetstream.nats.io/v1beta1")
PREVENT_DELETE = T.PREVENT_DELETE
PREVENT_UPDATE = T.PREVENT_UPDATE


def load_nack(doc: ParsedDocument, index: int, file: str, estate: Estate, api: str) -> None:
    v = doc.value
    start = resolve_position(doc.positions, ()) or (doc.line, 1)
    kind = v.get("kind")
    if kind in T.UNMANAGED:
        if kind == "Account":  # a StreamTemplate is left alone (not managed; no NACK release serves it any more)
            check_nack_document(doc, kind, api, file, estate)
        _nack_unmanaged(doc, file, estate, kind)
        return
    if kind not in ("Stream", "Consumer"):
        pos = resolve_position(doc.positions, ("kind",)) or start
        what = "missing kind" if kind is None else f"not {short(kind)!r}"
        known = ["Stream", "Consumer", "KeyValue", "ObjectStore", *T.UNMANAGED]
        hint = did_you_mean(str(kind), known) if kind is not None else ""
        estate.findings.append(
            finding(
                "unknown-kind",
                f"jsops reads NACK {', '.join(known[:-1])} and {known[-1]} resources, {what}{hint}",
                file,
                *pos,
            )
        )
        return
    check_nack_document(doc, kind, api, file, estate)
    _load_nack_object(doc, index, file, estate, api, kind)


def _load_nack_object(doc: ParsedDocument, index: int, file: str, estate: Estate, api: str, kind: str) -> None:
    """A NACK Stream or Consumer into the estate."""
    v = doc.value
    start = resolve_position(doc.positions, ()) or (doc.line, 1)
    meta = mapping_at(v, "metadata", doc, file, estate)
    if meta is None:
        return
    meta_ok = _nack_metadata(meta, doc, file, estate)
    spec = v.get("spec")
    if not isinstance(spec, dict):
        pos = resolve_position(doc.positions, ("spec",)) or start
        estate.findings.append(
            finding(
                "invalid-field",
                "missing required field spec" if spec is None else f"spec must be a mapping, got {kind_of(spec)}",
                file,
                *pos,
            )
        )
        return
    key_map: dict[FieldPath, FieldPath] = {(): ("spec",)}
    translated, spec_ok = _translate_spec(spec, kind, api, key_map, doc, file, estate, start)
    annotations, context, context_ok = _nack_context(meta, spec, doc, file, estate)
    nack_connection_fields(spec, doc, file, estate)
    protection_annotations(spec, annotations)
    if kind == "Stream":
        name = require_str(spec, "name", ("spec",), doc, file, estate, "spec.name")
        stream = None
    else:
        name = require_str(spec, "durableName", ("spec",), doc, file, estate, "spec.durableName")
        stream = require_str(spec, "streamName", ("spec",), doc, file, estate, "spec.streamName")
        if stream is None:
            name = None
    for field_name, default in T.DEFAULTS[kind].items():
        translated.setdefault(field_name, default)
    if name is None:
        return
    declared = declared_in(
        doc,
        index,
        file,
        kind=kind,
        name=name,
        stream=stream,
        context=context,
        annotations=annotations,
        dialect="nack/" + api.rsplit("/", 1)[1],
        key_map=key_map,
    )
    admit(declared, translated, estate, spec_ok and meta_ok and context_ok)


def _translate_spec(
    spec: dict[str, Any],
    kind: str,
    api: str,
    key_map: dict[FieldPath, FieldPath],
    doc: ParsedDocument,
    file: str,
    estate: Estate,
    start: Pos,
) -> tuple[dict[str, Any], bool]:
    """The spec as a JetStream API config (``key_map`` filled in), and whether its values and fields are all valid."""
    unknown: list[tuple[FieldPath, str, list[str]]] = []
    table = T.STREAM if kind == "Stream" else T.CONSUMER
    values, values_ok = nack_values(spec, kind, doc, file, estate)
    translated = nack_translate(values, table, ("spec",), (), key_map, unknown)
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
    if len(unknown) > MAX_FINDINGS_PER_OBJECT:
        estate.findings.append(
            finding(
                "invalid-field",
                f"{len(unknown) - MAX_FINDINGS_PER_OBJECT} more unknown fields in spec are not shown",
                file,
                *(resolve_position(doc.positions, ("spec",)) or start),
            )
        )
    return translated, values_ok and not unknown


def _nack_context(
    meta: dict[str, Any], spec: dict[str, Any], doc: ParsedDocument, file: str, estate: Estate
) -> tuple[dict[str, str], str, bool]:
    """The annotations, the context (``jsops.io/context``, else ``spec.account``) and whether both are valid."""
    annotations = string_map(
        meta.get("annotations"), ("metadata", "annotations"), doc, file, estate, "metadata.annotations"
    )
    context: str | None = "default"
    ok = True
    if annotations is None:
        annotations, ok = {}, False
    elif "jsops.io/context" in annotations:
        context = context_name(
            annotations["jsops.io/context"],
            ("metadata", "annotations", "jsops.io/context"),
            doc,
            file,
            estate,
            "metadata.annotations.jsops.io/context",
        )
    else:
        context = nack_account(spec, doc, file, estate) or "default"
    if context is None:
        context, ok = "default", False
    return annotations, context, ok


def protection_annotations(spec: dict[str, Any], annotations: dict[str, str]) -> None:
    """NACK's ``preventDelete`` / ``preventUpdate`` as the annotations plan, apply and prune read."""
    for flag, annotation in (("preventDelete", PREVENT_DELETE), ("preventUpdate", PREVENT_UPDATE)):
        if spec.get(flag) is True:
            annotations.setdefault(annotation, "true")


def nack_translate(
    value: dict[str, Any],
    table: dict[str, Any],
    src: FieldPath,
    dst: FieldPath,
    key_map: dict[FieldPath, FieldPath],
    unknown: list[tuple[FieldPath, str, list[str]]],
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in value.items():
        if k in T.CONNECTION and not dst:
            continue  # connection and protection settings: jsops takes these from its target config
        if v == "" and k != "name":
            continue  # NACK's CRDs default strings to '' and its controller reads '' as "not set"
        target = table.get(k, ...)
        if target is ...:
            unknown.append((src + (k,), str(k), list(table)))
            continue
        if target is None:
            continue
        if isinstance(target, tuple) and isinstance(target[1], dict):
            name, sub = target
            key_map[dst + (name,)] = src + (k,)
            if isinstance(v, list):
                items = []
                for i, item in enumerate(v):
                    key_map[dst + (name, i)] = src + (k, i)
                    items.append(
                        nack_translate(item, sub, src + (k, i), dst + (name, i), key_map, unknown)
                        if isinstance(item, dict)
                        else item
                    )
                out[name] = items
            elif isinstance(v, dict):
                out[name] = nack_translate(v, sub, src + (k,), dst + (name,), key_map, unknown)
            else:
                out[name] = v
        elif isinstance(target, tuple):
            outer, inner = target
            out.setdefault(outer, {})[inner] = v
            key_map[dst + (outer,)] = src
            key_map[dst + (outer, inner)] = src + (k,)
        else:
            out[target] = v
            if target != k:
                key_map[dst + (target,)] = src + (k,)
    return out


def _nack_name(v: dict[str, Any]) -> str:
    spec: dict[str, Any] = v["spec"] if isinstance(v.get("spec"), dict) else {}
    meta: dict[str, Any] = v["metadata"] if isinstance(v.get("metadata"), dict) else {}
    for candidate in (spec.get("bucket"), spec.get("name"), meta.get("name")):
        if isinstance(candidate, str) and candidate:
            return shown(candidate, 80)
    return "(unnamed)"


def _nack_unmanaged(doc: ParsedDocument, file: str, estate: Estate, kind: str) -> None:
    v = doc.value
    pos = resolve_position(doc.positions, ("kind",)) or (doc.line, 1)
    name = _nack_name(v)
    if kind == "Account":
        spec = v.get("spec") if isinstance(v.get("spec"), dict) else {}
        meta = v.get("metadata") if isinstance(v.get("metadata"), dict) else {}
        account = meta.get("name") if isinstance(meta.get("name"), str) and meta.get("name") else spec.get("name")
        if isinstance(account, str) and account:
            acct = estate.accounts[account] = _nack_account_resource(account, spec, file, pos[0])
            msg = (
                f"NACK Account {shown(account, 80)!r} is a connection, not an object: the NACK streams and consumers "
                f"with spec.account {shown(account, 80)!r} are planned as context {shown(account, 80)!r}, on its servers"
            )
            if acct.secrets:
                msg += (
                    f"; its {'/'.join(acct.secrets)} come from Kubernetes Secrets, which jsops cannot read: a context "
                    f"{shown(account, 80)!r} in .jsops.yaml or natscli takes precedence and can carry them"
                )
        else:
            msg = "NACK Account without a name: no object can name it"
    else:  # StreamTemplate
        msg = f"NACK StreamTemplate {name!r}: stream templates were removed from nats-server (2.10); jsops leaves it alone"
    estate.findings.append(finding("not-managed", msg, file, *pos))


def _nack_account_resource(name: str, spec: dict[str, Any], file: str, line: int) -> NackAccount:
    servers = spec.get("servers")
    return NackAccount(
        name,
        file,
        line,
        tuple(s for s in servers if isinstance(s, str) and s) if isinstance(servers, list) else (),
        tuple(k for k in ("creds", "tls", "user", "token") if spec.get(k) not in (None, "", {}, [])),
    )


def nack_account(spec: dict[str, Any], doc: ParsedDocument, file: str, estate: Estate) -> str | None:
    """The context a NACK object with ``spec.account`` is routed to: the account's name."""
    account = spec.get("account")
    if account in (None, ""):
        return None
    if not isinstance(account, str) or len(account) > MAX_NAME_LENGTH:
        pos = resolve_position(doc.positions, ("spec", "account")) or (doc.line, 1)
        estate.findings.append(
            finding(
                "invalid-field", f"spec.account must be the name of a NACK Account, got {kind_of(account)}", file, *pos
            )
        )
        return None
    return account


def nack_connection_fields(spec: dict[str, Any], doc: ParsedDocument, file: str, estate: Estate) -> None:
    given = [k for k in T.IGNORED_CONNECTION if spec.get(k) not in (None, "", [], {}, False)]
    if not given:
        return
    pos = resolve_position(doc.positions, ("spec", given[0]), key=True) or (doc.line, 1)
    fields = ", ".join(f"spec.{k}" for k in given)
    estate.findings.append(
        finding(
            "connection-fields-ignored",
            f"{fields}: NACK connection settings are not used; jsops connects to the target it runs with "
            "(--server/--context, contexts in .jsops.yaml, or a NACK Account named in spec.account)",
            file,
            *pos,
        )
    )


def _nack_metadata(meta: dict[str, Any], doc: ParsedDocument, file: str, estate: Estate) -> bool:
    """The Kubernetes metadata jsops reads (kubectl takes the rest): name and namespace are strings,
    labels a mapping of strings; annotations are checked by the caller."""
    ok = True
    for key in ("name", "namespace"):
        value = meta.get(key)
        if value is not None and (not isinstance(value, str) or not value or len(value) > MAX_NAME_LENGTH):
            pos = resolve_position(doc.positions, ("metadata", key)) or (doc.line, 1)
            what = (
                too_long(f"metadata.{key}", value)
                if isinstance(value, str) and value
                else f"metadata.{key} must be a non-empty string, got {kind_of(value)}"
            )
            estate.findings.append(finding("invalid-field", what, file, *pos))
            ok = False
    if string_map(meta.get("labels"), ("metadata", "labels"), doc, file, estate, "metadata.labels") is None:
        ok = False
    return ok
