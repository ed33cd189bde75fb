"""The static rules on the live configs: the findings ``jsops lint`` gives on ``jsops export`` of
the same server, named by object instead of by manifest line.

The live configs become the documents ``jsops export`` writes (:func:`jsops.reconciler.export.export_documents`)
and go through the loader's own document path (no YAML text in between), so that a rule sees
exactly what it sees when linting an export. Each finding then names its object: its ``file`` is
the pseudo-path ``nats://STREAM`` or ``nats://STREAM/CONSUMER`` and it has no line (0).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

from jsops.linter import (
    Config,
    Estate,
    Finding,
    LintResult,
    LintTarget,
    ObjectRef,
    ParsedDocument,
    check_estate,
    lint_estate,
    load_file_documents,
)
from jsops.linter.api import Rule

from ..discover import target_facts
from ..export import ExportOptions, export_documents
from ..live import LiveState
from .read import AuditState

__all__ = ["live_estate", "EstateBuilder", "live_target", "lint_live", "object_path", "ref_path", "ACCOUNT_PATH"]

ACCOUNT_PATH = "nats://"  # findings about the account as a whole


def object_path(stream: str | None, consumer: str | None = None) -> str:
    """The pseudo-path naming a live object where a manifest position would be."""
    if stream is None:
        return ACCOUNT_PATH
    return f"nats://{stream}/{consumer}" if consumer else f"nats://{stream}"


def live_estate(live: LiveState, context: str = "default") -> Estate:
    """The live configs as the loader loads an export of them (one pseudo-file per stream)."""
    builder = EstateBuilder(context)
    by_stream: dict[str, list[tuple[str, str]]] = {}
    for key in live.consumers:
        by_stream.setdefault(key[0], []).append(key)
    for name in live.streams:
        builder.add(live, name, by_stream.get(name, ()))
    return builder.finish()


class EstateBuilder:
    """:func:`live_estate` one stream at a time, as the listing's pages arrive
    (:func:`jsops.reconciler.audit.read.read_audit`'s ``on_stream``); :meth:`finish` orders the estate by
    stream, so that the result does not depend on the order the pages came in."""

    def __init__(self, context: str = "default") -> None:
        self.context = context
        self.estate = Estate()

    def add(self, live: LiveState, stream: str, consumers: Iterable[tuple[str, str]]) -> None:
        """The stream ``stream`` of ``live`` with its consumers (their keys in ``live.consumers``)."""
        one = LiveState(streams={stream: live.streams[stream]}, consumers={k: live.consumers[k] for k in consumers})
        for docs in export_documents(one, ExportOptions(context=self.context)).values():
            file = object_path(_stream_of(docs[0]))
            self.estate.files.append(file)
            load_file_documents([ParsedDocument(d, None, 1) for d in docs], [], False, file, self.estate)

    def on_stream(self, state: AuditState, stream: str) -> None:
        self.add(state.live, stream, state.by_stream.get(stream, ()))

    def finish(self) -> Estate:
        estate = self.estate
        order = {f: i for i, f in enumerate(sorted(estate.files))}
        estate.files.sort()
        estate.resources.sort(key=lambda r: (order.get(r.file, 0), r.document))
        estate.findings.sort(key=Finding.sort_key)
        estate.invalidate()
        check_estate(estate)
        return estate


def _stream_of(doc: dict[str, Any]) -> str:
    name = str(doc["metadata"]["name"])
    return {"KeyValue": f"KV_{name}", "ObjectStore": f"OBJ_{name}"}.get(str(doc.get("kind")), name)


def live_target(state: AuditState, declared: LintTarget | None = None, version: str | None = None) -> LintTarget:
    """The target the live configs are judged for: what the server says of itself (release,
    max_payload, cluster, the account's limits, with ``--monitor`` its own JetStream limits from
    /varz) over what the jsops config declares; ``version``
    replaces the release (``--target-version``)."""
    base = declared or LintTarget()
    facts = target_facts(state.server, state.account) if state.server else LintTarget()
    update: dict[str, Any] = {}
    for key in ("server_version", "max_payload", "clustered", "cluster_name", "cluster_size"):
        value = getattr(facts, key)
        if value is not None:
            update[key] = value
    account = facts.account
    declared_account = base.account
    update["account"] = type(account)(
        **{
            k: (getattr(account, k) if getattr(account, k) is not None else getattr(declared_account, k))
            for k in type(account).model_fields
        }
    )
    if state.varz:
        from ..limits import server_limits

        live_limits, declared_limits = server_limits(state.varz), base.limits
        update["limits"] = type(live_limits)(
            **{
                k: (getattr(live_limits, k) if getattr(live_limits, k) is not None else getattr(declared_limits, k))
                for k in type(live_limits).model_fields
            }
        )
    if version is not None:
        update["server_version"] = version
    return base.model_copy(update=update)


def _relabel(f: Finding) -> Finding:
    ref = f.object
    if ref is None:
        return replace(f, line=0, column=0, excerpt=False)
    stream, consumer = (ref.stream, ref.name) if ref.stream else (ref.name, None)
    return replace(f, file=object_path(stream, consumer), line=0, column=0, excerpt=False, fix=_advice(f))


def _advice(f: Finding) -> Any:
    """A fix names manifest edits; on a live object it is advice only."""
    if f.fix is None or not f.fix.edits:
        return f.fix
    return replace(f.fix, edits=())


def lint_live(estate: Estate, rules: Sequence[type[Rule]], config: Config, target: LintTarget) -> LintResult:
    """Every selected static rule on the live estate for ``target``'s release, findings named by object."""
    result = lint_estate(estate, rules, target=target, config=config, read_source=None)
    result.findings = [_relabel(f) for f in result.findings]
    return result


def ref_path(ref: ObjectRef | None) -> str:
    """The pseudo-path of a finding's object."""
    if ref is None:
        return ACCOUNT_PATH
    return object_path(ref.stream, ref.name) if ref.stream else object_path(ref.name)
