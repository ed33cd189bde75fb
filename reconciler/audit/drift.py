"""Drift: what differs between the manifests and the server, per field, and what the server holds
that no manifest declares (``jsops audit PATHS``): not jsops's own objects (:func:`jsops_own`: the
controller's lease bucket, the streams of a migration in progress).

The manifests' objects are compared as a plan compares them (their effective configs for the live
server's limits, :func:`jsops.reconciler.diff.diff_configs`, fields marked ``jsops.io/ignore-drift``
held at their live values), so audit's drift and ``jsops plan`` agree; a field that differs is
reported at the manifest line that sets it (or the object's first line). With a record of API
changes in the account (docs/drift.md), each field names who made its live value: the caller gives
what reads the record (:data:`Authors`), called once with the drifted fields.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace

from jsops.linter import Estate, Finding, LintTarget, ObjectRef, Resource, Severity, readable_duration
from jsops.linter.config_parts import DriftRecord
from jsops.linter.semantics.catalog import Unit

from ..configs import Config
from ..diff import Change, JsonValue, diff_configs
from ..dr_roles import failed_over, follow
from ..drift import NO_ATTRIBUTION, Attribution, ChangedBy, Drifted, hold, ignored_in_estate, merged
from ..drift.switch import with_record
from ..live import LiveState
from ..plan import Desired, desired_from_estate
from ..plan.migration import migration_record
from .registry import COMPARED, register
from .static import object_path

__all__ = ["Authors", "drift_findings", "jsops_own"]


# what `jsops apply` does about a field that drifted, by change class (jsops.reconciler.vocabulary.ChangeClass)
_HOW = {
    "in-place": "jsops apply changes it in place",
    "data-loss": "jsops apply changes it in place, removing stored messages",
    "one-way": "jsops apply can change it only one way",
    "recreate": "jsops apply must recreate the object to change it",
    "forbidden": "the server refuses to change it",
}


def _shown(unit: Unit | None, value: JsonValue) -> str:
    """A value as the finding shows it: a duration readable (the change's catalog unit says which are)."""
    if value is None:
        return "(unset)"
    if unit is Unit.DURATION and isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return str(readable_duration(value))
    text = repr(value) if isinstance(value, str) else str(value)
    return text if len(text) <= 120 else text[:117] + "..."


def _finding(code: str, severity: Severity, message: str, file: str, line: int, col: int, ref: ObjectRef) -> Finding:
    return Finding(code, COMPARED[code].name, severity, message, file, line, col, ref, excerpt=line > 0)


def _compared(
    estate: Estate, live: LiveState, target: LintTarget, wanted: set[str], record: DriftRecord | None
) -> Iterator[tuple[Desired, Resource | None, Config | None]]:
    """Each manifest object routed to the target: its desired config (ignore-drift fields and a failover's
    roles held at their live values, as a plan holds them), its manifest and its live config (None: not on the server)."""
    resources = {(r.kind, r.stream, r.name): r for r in estate.resources if r.context in wanted}
    declared = with_record(desired_from_estate(estate, contexts=wanted, target=target), record, sorted(wanted), target)
    desired = follow(declared, live)  # the config's record (drift.record) is declared, with no manifest to compare
    # a failover's roles are not drift until failback (jsops.reconciler.dr_roles): subjects and mirror as live
    owned = merged(ignored_in_estate(estate, wanted), failed_over(desired, live))
    for d in hold(desired, live, owned)[0]:
        yield d, resources.get(d.key), _live_config(live, d.kind, d.stream, d.name)


Authors = Callable[[Sequence[Drifted]], Attribution]
"""Who made the live values of the drifted fields (the caller reads the account's record), keyed by
the context given with it."""


def drift_findings(
    estate: Estate,
    live: LiveState,
    target: LintTarget,
    contexts: Iterable[str] = ("default",),
    severities: dict[str, Severity | None] | None = None,
    authors: tuple[str, Authors] | None = None,
    record: DriftRecord | None = None,
) -> list[Finding]:
    """Per-field drift, objects missing on the server, and live objects in no manifest, for the
    manifests routed to this target (``contexts``, as :mod:`jsops.reconciler.route` gives them);
    ``severities``: code -> severity, None to leave the code out (default: the rules' own);
    ``authors``: the context the attribution keys name, and what names the authors of the drifted
    fields (called once, only when a field drifted); ``record``: the config's ``drift.record`` (its
    stream is declared: never JS521)."""
    sev: dict[str, Severity | None] = {code: r.severity for code, r in COMPARED.items()}
    sev.update(severities or {})
    out: list[Finding] = []
    declared: set[tuple[str, str | None, str]] = set()
    missing, drift = sev["JS522"], sev["JS520"]
    drifted: list[tuple[Resource, Desired, list[Change]]] = []
    for d, r, live_cfg in _compared(estate, live, target, set(contexts), record):
        declared.add(d.key)
        if r is None:
            continue
        if live_cfg is None and missing is not None:
            out.append(_missing(r, _label(d.kind, d.stream, d.name), missing))
        elif live_cfg is not None and drift is not None:
            changes = diff_configs(d.kind, live_cfg, d.config)
            if changes:
                drifted.append((r, d, changes))
    if drift is not None and drifted:
        fields = [
            Drifted(d.kind, d.stream, d.name, c.path, c.old) for _, d, cs in drifted for c in cs if "." not in c.path
        ]
        context, attribution = (authors[0], authors[1](fields)) if authors is not None else ("", NO_ATTRIBUTION)
        for r, d, changes in drifted:
            out.extend(_field_drift(r, d, changes, drift, (context, attribution)))
    unmanaged = sev["JS521"]
    if unmanaged is not None:
        out.extend(_unmanaged(live, declared, unmanaged))
    return out


@register("JS522", "live-missing", Severity.WARNING, "a manifest's object that is not on the server", compares=True)
def _missing(r: Resource, label: str, severity: Severity) -> Finding:
    line, col = r.locate()
    return _finding(
        "JS522",
        severity,
        f"{label} is declared here but not on the server (jsops apply creates it)",
        r.file,
        line,
        col,
        r.ref,
    )


def _label(kind: str, stream: str | None, name: str) -> str:
    return f"consumer {stream}/{name}" if kind == "Consumer" else f"stream {name}"


def _live_config(live: LiveState, kind: str, stream: str | None, name: str) -> Config | None:
    if kind == "Stream":
        s = live.streams.get(name)
        return s.config if s is not None else None
    c = live.consumers.get((stream or "", name))
    return c.config if c is not None else None


def _author(attribution: Attribution, context: str, d: Desired, path: str) -> tuple[str, dict[str, JsonValue] | None]:
    """Who made the live value of a drifted field: the words that end the finding's message and the
    finding's JSON (``changed_by``, or ``author_unknown``), as the plan says them; none when the record
    names nobody (no record, or jsops itself)."""
    who = attribution.of(context, d.kind, d.stream, d.name, path) if "." not in path else None
    if who is None:
        return "", None
    said = f"; {who.describe(attribution.read_at)}"
    if isinstance(who, ChangedBy):
        return said, {"changed_by": dict(who.to_json())}
    return said, {"changed_by": None, "author_unknown": dict(who.to_json())}


@register("JS520", "live-drift", Severity.WARNING, "a field of a live object differs from its manifest", compares=True)
def _field_drift(
    r: Resource, d: Desired, changes: list[Change], severity: Severity, authors: tuple[str, Attribution]
) -> Iterable[Finding]:
    for ch in changes:
        line, col = r.locate((ch.path,))
        out_of_manifest = line == r.doc_line and col == 1
        where = " (the manifest leaves it to the server's default)" if out_of_manifest else ""
        note = ch.consequence if ch.consequence and not ch.consequence.startswith("applied in place") else ""
        how = _HOW.get(ch.cls.value, ch.cls.value) + (f" ({note})" if note else "")
        said, author = _author(authors[1], authors[0], d, ch.path)
        lasting = f"{ch.path}: the server has {_shown(ch.unit, ch.old)}, the manifest says {_shown(ch.unit, ch.new)}"
        lasting += f"{where}; {how}"
        finding = _finding("JS520", severity, lasting + said, r.file, line, col, r.ref)
        yield replace(finding, author=author, lasting=lasting) if author is not None else finding


def jsops_own(live: LiveState) -> set[str]:
    """The live streams that are jsops's own, never in a manifest: the controller's lease bucket
    (``KV_`` + its default bucket name) and both ends of a migration in progress (the stream that
    records it in ``io.jsops.migration``, and the stream it moves from)."""
    from ..controller.lease import DEFAULT_BUCKET

    own = {f"KV_{DEFAULT_BUCKET}"} & set(live.streams)
    for name, s in live.streams.items():
        rec = migration_record(s.config.metadata)
        if rec is not None:
            own.update(n for n in (name, rec["from"]) if n in live.streams)
    return own


@register(
    "JS521",
    "live-unmanaged",
    Severity.WARNING,
    "a stream or durable consumer on the server that no manifest declares",
    compares=True,
)
def _unmanaged(live: LiveState, declared: set[tuple[str, str | None, str]], severity: Severity) -> Iterable[Finding]:
    own = jsops_own(live)
    for name in sorted(live.streams):
        if ("Stream", None, name) not in declared and name not in own:
            yield _finding(
                "JS521",
                severity,
                f"stream {name} is on the server but in no manifest (`jsops export` writes one)",
                object_path(name),
                0,
                0,
                ObjectRef("Stream", name),
            )
    for (stream, name), c in sorted(live.consumers.items()):
        if not c.config.durable_name or stream in own:
            continue  # ephemeral: never in a manifest (see JS509); or on a stream of jsops's own
        if ("Consumer", stream, name) not in declared:
            yield _finding(
                "JS521",
                severity,
                f"consumer {stream}/{name} is on the server but in no manifest",
                object_path(stream, name),
                0,
                0,
                ObjectRef("Consumer", name, stream),
            )
