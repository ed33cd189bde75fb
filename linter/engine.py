"""Run rules over a loaded estate and turn violations into findings.

Order: the config picks rules, options and severities (:mod:`jsops.linter.config`); rules run; fix edits
are resolved to document paths; suppressions drop findings and report unused ones
(:mod:`jsops.linter.suppress`); ignored codes are dropped; with ``only_files`` the whole estate is linted
but only those files are reported (pre-commit passes changed files only).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import replace
from functools import cache
from typing import TYPE_CHECKING, overload

from .api import ConsumerConfig, Rule, RuleContext, StreamConfig, Violation, consumer_config
from .findings import Finding, FixSuggestion, Severity
from .halves import Unit, run_units
from .load import Estate, Resource, load_paths
from .load.api_json import stream_unknown
from .load.files import SUPPRESSION_MARKER
from .load.messages import finding as load_finding
from .load.nack_crd import drop_shadowed
from .load.reading import read_manifest_bytes
from .model.target import Target
from .result import LintResult
from .semantics.effective import StreamUnknown, streamless_consumer
from .semantics.effective_types import EffectiveConsumer, EffectiveStream
from .semantics.releases import format_version, parse_version, release_view, target_release
from .semantics.units import dialect_duration
from .server_answer import mark_server_answers

if TYPE_CHECKING:
    from .cache.memo import ObjectMemo, Outcome  # the types only: the engine never imports the cache room
    from .config import Config, Selection
    from .model.profiles import Profiles

__all__ = ["LintResult", "lint_paths", "lint_estate", "discover_rules", "read_manifest_bytes"]

ENTRY_POINT_GROUP = "jsops.rules"


def discover_rules(config: Config | None = None, *, env: str | None = None) -> list[type[Rule]]:
    """Rule classes registered under the ``jsops.rules`` entry point group (built-ins and plugins),
    loaded once per process (their options are records: pydantic is not needed for the defaults),
    then the policies ``config`` declares (:mod:`jsops.linter.policies`; ``env``: the environment
    they see), compiled once: a policy that does not compile is a ConfigError."""
    found = list(_registered())
    if config is not None and config.policies:
        from .policies import policy_rules  # the CEL engine: only for a config with policies

        found.extend(policy_rules(config, found, env))
    return found


@cache
def _registered() -> tuple[type[Rule], ...]:
    from .plugins import entry_points

    found: list[type[Rule]] = []
    for ep in entry_points(ENTRY_POINT_GROUP):
        provider = ep.load()
        found.extend(provider())
    return tuple(found)


def _resolve_fix(fix: FixSuggestion | None, resource: Resource) -> FixSuggestion | None:
    """Edits name config paths; findings carry document paths (the dialect's key names)."""
    if fix is None or not fix.edits:
        return fix
    if resource.bucket is not None and not _bucket_fixable(fix, resource.bucket):
        return None  # the stream field has no bucket field to write it in: advice only
    edits = tuple(
        e
        if e.document is not None
        else replace(
            e,
            path=resource.source_path(e.path),
            document=resource.document,
            value=dialect_duration(e.value, resource.dialect) if e.duration and isinstance(e.value, int) else e.value,
            duration=False,
        )
        for e in fix.edits
    )
    return replace(fix, edits=edits)


def _bucket_message(v: Violation) -> str:
    """A stream rule's message on a bucket's stream, saying which bucket field it is about."""
    from .model.buckets import BUCKET_FIELDS

    r = v.resource
    assert r.bucket is not None
    bucket = r.name.split("_", 1)[1]
    field_name = str(v.path[0]) if v.path else ""
    named = BUCKET_FIELDS[r.bucket].get(field_name)
    if named is None:
        where = f"set by the client for {r.bucket} {bucket!r}" if field_name else f"the stream of {r.bucket} {bucket!r}"
    elif named != field_name:
        where = f"{named} of {r.bucket} {bucket!r}"
    else:
        return v.message
    return f"{v.message} ({field_name}: {where})" if field_name else f"{v.message} ({where})"


def _bucket_fixable(fix: FixSuggestion, kind: str) -> bool:
    from .model.buckets import BUCKET_FIELDS

    # Fields whose bucket value is written differently from the stream's (compression: true vs
    # "s2"; mirror and source names without the KV_ prefix) are not fixed automatically.
    fields = set(BUCKET_FIELDS[kind]) - {"compression", "mirror", "sources"}
    return all(e.document is None and e.path and e.path[0] in fields for e in fix.edits)


def _to_finding(rule: Rule, v: Violation, severity: Severity) -> Finding:
    line, col = v.resource.locate(v.path, key=v.key)
    return Finding(
        rule.code,
        rule.name,
        severity,
        _bucket_message(v) if v.resource.bucket and not getattr(rule, "bucket_words", False) else v.message,
        v.resource.file,
        line,
        col,
        v.resource.ref,
        v.server_error_code,
        _resolve_fix(v.fix, v.resource),
        about=next((p for p in v.path if isinstance(p, str)), ""),
    )


def _per_release(rule: Rule, v: Violation, sev: Severity, configured: bool) -> Finding:
    """A violation as a finding: the severity the rule gave it (a check the target's release does not
    make yet is advice, built so by the rule: ``RuleContext.refusal``) unless the config sets one."""
    if not configured and v.severity is not None:
        sev = v.severity
    return _to_finding(rule, v, sev)


def _load_finding_for(f: Finding, release: tuple[int, int, int]) -> Finding:
    """A loader finding for the target's release: a check the loader knows a release makes from
    ``f.since`` on (an unknown field in a request body: 10025 from 2.12, when strict decoding became
    the default; a value of a request key a release does not read yet) is dropped silently by older
    releases, so there it is advice, not a predicted rejection."""
    first = f.since
    if first is not None and release < first and f.server_error_code is not None:
        return replace(
            f,
            severity=Severity.WARNING,
            server_error_code=None,
            message=f"{f.message}; nats-server {format_version(release)} drops it silently ({format_version(first)}+ refuses it: {f.server_error_code})",
        )
    return f


def _by_kind(
    resources: Iterable[Resource], objects: Collection[tuple[str, str, str | None]] | None
) -> dict[str, list[Resource]]:
    """The resources per-object rules check, by kind (all, or those ``objects`` names)."""
    out: dict[str, list[Resource]] = {}
    for r in resources:
        if objects is None or (r.kind, r.name, r.stream) in objects:
            out.setdefault(r.kind, []).append(r)
    return out


def _estate_unit(
    rule: Rule, ctx: RuleContext, sev: Severity, configured: bool, memo: ObjectMemo | None
) -> Callable[[Sequence[Resource]], list[Outcome]]:
    """An estate-wide rule's check, as a unit of :func:`jsops.linter.halves.run_units` (never split);
    with ``memo``, one that read the clock (or is declared to) says so (:meth:`jsops.linter.cache.memo.ObjectMemo.estate_unit`)."""

    def check() -> list[Outcome]:
        return [_per_release(rule, v, sev, configured) for v in rule.check_estate(ctx)]

    return (lambda _: check()) if memo is None else memo.estate_unit(rule, ctx, check)


def _objects_unit(
    rule: Rule, ctx: RuleContext, sev: Severity, configured: bool
) -> Callable[[Sequence[Resource]], list[Outcome]]:
    """A per-object rule's check of a list of objects, as a unit of :func:`jsops.linter.halves.run_units`."""
    check = rule.check
    return lambda objects: [_per_release(rule, v, sev, configured) for r in objects for v in check(r, ctx)]


def _finding_of(rule: Rule, sev: Severity, configured: bool) -> Callable[[Violation], Finding]:
    return lambda v: _per_release(rule, v, sev, configured)


class _BareContext(RuleContext):
    """The context of the checks of bare consumers (``Estate.bare``: their stream unknown). A check that
    asks for such a consumer's stream gets :class:`StreamUnknown` (it needs the stream: skipped), and
    so does one that reads a field of its effective config the stream decides
    (:func:`jsops.linter.semantics.effective.streamless_consumer`)."""

    def stream_of(self, consumer: Resource) -> Resource[StreamConfig] | None:
        if consumer.stream is None and consumer.kind == "Consumer":
            raise StreamUnknown("stream")
        return super().stream_of(consumer)

    @overload
    def effective(self, resource: Resource[StreamConfig]) -> EffectiveStream: ...
    @overload
    def effective(self, resource: Resource[ConsumerConfig]) -> EffectiveConsumer: ...
    @overload
    def effective(self, resource: Resource) -> EffectiveStream | EffectiveConsumer: ...
    def effective(self, resource: Resource) -> EffectiveStream | EffectiveConsumer:
        if resource.stream is not None or resource.kind != "Consumer":
            return super().effective(resource)
        hit = self._effective.get(id(resource))
        if hit is None:
            hit = self._effective[id(resource)] = streamless_consumer(consumer_config(resource), target=self.target)
        return hit


def _check_bare(
    selection: Selection, estate: Estate, view: Estate, target: Target, profiles: Profiles | None, linted: bool
) -> list[Finding]:
    """The bare consumer configs (``Estate.bare``: their stream unknown) checked by every per-object
    consumer rule of ``selection``, each as far as it goes without the stream: a check that asks for it
    (:class:`jsops.linter.semantics.effective.StreamUnknown`) is skipped there, keeping what it found
    before. One JS024 per consumer says which checks were skipped. ``linted`` False: noted, not checked."""
    if not estate.bare:
        return []
    out: list[Finding] = []
    skipped: dict[tuple[str, int], dict[str, str]] = {}
    contexts = {id(e): _BareContext(e, target, profiles) for e in (estate, view)}
    for rule in selection.instantiate() if linted else ():
        cls = type(rule)
        if cls.estate_wide or "Consumer" not in cls.kinds:
            continue
        configured, sev = cls.code in selection.severity, selection.severity.get(cls.code, cls.severity)
        seen = estate if cls.sees_dropped_fields else view
        ctx = contexts[id(seen)]
        for r in seen.bare:
            try:
                for v in rule.check(r, ctx):
                    out.append(_per_release(rule, v, sev, configured))
            except StreamUnknown:
                skipped.setdefault((r.file, r.document), {})[rule.code] = rule.name
    for r in estate.bare:
        missed = skipped.get((r.file, r.document), {}) if linted else None
        rules = sorted(missed.items()) if missed is not None else None
        out.append(load_finding("consumer-stream-unknown", stream_unknown(r.file, rules), r.file, r.doc_line, 1, r.ref))
    return out


def _contexts(
    estate: Estate, view: Estate, target: Target, profiles: Profiles | None, memo: ObjectMemo | None
) -> tuple[RuleContext, RuleContext]:
    """The rules' contexts on the estate as written and as the target's release receives it (the
    same when nothing is dropped); with ``memo``, contexts that track what checks read."""
    if memo is not None:
        raw = memo.context(estate, target, profiles, "r")
        return raw, raw if view is estate else memo.context(view, target, profiles, "v")
    raw_ctx = RuleContext(estate, target, profiles)
    return raw_ctx, raw_ctx if view is estate else RuleContext(view, target, profiles)


def lint_estate(
    estate: Estate,
    rules: Sequence[type[Rule]] | None = None,
    *,
    target: Target | None = None,
    config: Config | None = None,
    profiles: Profiles | None = None,
    only_files: Iterable[str] | None = None,
    read_source: Callable[[str], bytes | None] | None = read_manifest_bytes,
    selection: Selection | None = None,
    only_objects: Collection[tuple[str, str, str | None]] | None = None,
    memo: ObjectMemo | None = None,
) -> LintResult:
    """Lint a loaded estate.

    ``config`` selects rules, sets their options and severities, and gives the target when
    ``target`` is not passed. ``read_source`` reads a file's raw bytes for suppression comments
    (None: comments are not read; annotations still apply). ``only_files`` limits the report to
    those files while every rule still sees the whole estate. ``selection``: the rules ``config``
    selects from ``rules``, when the caller already made it (rules are selected once per run).
    ``only_objects``: per-object rules check only these objects, as ``(kind, name, stream)``; estate-wide
    rules and the loader's findings are not limited (a plan judges only what it sends).
    ``memo``: per-object results of earlier runs, reused where their inputs are unchanged and
    filled with this run's (:mod:`jsops.linter.cache.memo`; ``jsops lint`` with the cache on).
    """
    from .config import Config, select_rules

    cfg = config if config is not None else Config()
    registry = list(rules) if rules is not None else discover_rules(cfg)
    if selection is None:
        selection = select_rules(cfg, registry)
    the_target = target or cfg.target
    release = target_release(the_target)
    view = release_view(estate, release)  # what the release receives (unknown fields dropped)
    memo = memo if only_objects is None else None
    contexts = _contexts(estate, view, the_target, profiles, memo)
    units = _units(selection, contexts, estate, view, only_objects, memo)
    # Large estates on two cores (jsops.linter.halves). With the memo, most objects need no check;
    # an estate-wide rule walks every object still, and counts as one item per object.
    work = None if memo is None else sum(len(items) if items is not None else len(view.resources) for _, items in units)
    outcomes = run_units(units, work=work)
    findings = [_load_finding_for(f, release) for f in estate.findings]
    findings.extend(memo.collect(outcomes) if memo is not None else [f for f in outcomes if isinstance(f, Finding)])
    findings.extend(_check_bare(selection, estate, view, the_target, profiles, only_objects is None))
    findings = _as_configured(findings, selection)
    findings = _suppress(
        findings, estate, registry, selection.rules, selection.ignored, selection.severity, read_source
    )
    findings = drop_shadowed(findings)  # a JS005 where kube-apiserver already refuses (JS030) is not said twice
    findings = mark_server_answers(sorted(findings, key=Finding.sort_key), release)  # each object's first refusal
    assumed = None if parse_version(the_target.server_version) is not None else format_version(release)
    return _result(findings, estate, only_files, assumed)


def _units(
    selection: Selection,
    contexts: tuple[RuleContext, RuleContext],
    estate: Estate,
    view: Estate,
    only_objects: Collection[tuple[str, str, str | None]] | None,
    memo: ObjectMemo | None,
) -> list[Unit[Resource, Outcome]]:
    """The checks of the run, as units of :func:`jsops.linter.halves.run_units`: one per estate-wide rule,
    one per kind a per-object rule checks (on the estate as written when the rule sees dropped fields)."""
    raw_ctx, ctx = contexts
    severity = selection.severity
    by_kind = _by_kind(view.resources, only_objects)
    raw_by_kind = by_kind if view is estate else _by_kind(estate.resources, only_objects)
    units: list[Unit[Resource, Outcome]] = []
    for rule in selection.instantiate():
        cls = type(rule)
        configured = cls.code in severity
        sev = severity.get(cls.code, cls.severity)
        rctx, kinds_of = (raw_ctx, raw_by_kind) if cls.sees_dropped_fields else (ctx, by_kind)
        if cls.estate_wide:
            units.append((_estate_unit(rule, rctx, sev, configured, memo), None))
            continue
        for kind in sorted(cls.kinds):
            of_kind = kinds_of.get(kind, [])
            if memo is None:
                units.append((_objects_unit(rule, rctx, sev, configured), of_kind))
            else:
                units.append(memo.unit(rule, rctx, _finding_of(rule, sev, configured), of_kind))
    return units


def _as_configured(findings: list[Finding], selection: Selection) -> list[Finding]:
    """The findings without the ignored rules', each at the severity the configuration gives its rule."""
    severity = selection.severity
    findings = [f for f in findings if f.rule not in selection.ignored]
    if not severity:
        return findings
    return [
        replace(f, severity=severity[f.rule]) if f.rule in severity and f.severity is not severity[f.rule] else f
        for f in findings
    ]


def _result(
    findings: list[Finding], estate: Estate, only_files: Iterable[str] | None, assumed: str | None
) -> LintResult:
    """The result, sorted, limited with its counts to ``only_files`` (None: every file)."""
    wanted = None if only_files is None else {os.path.normpath(f) for f in only_files}

    def reported(path: str) -> bool:
        return wanted is None or os.path.normpath(path) in wanted

    findings = [f for f in findings if reported(f.file)] if wanted is not None else findings
    paths = [f for f in estate.files if reported(f)]
    objects = sum(1 for r in (*estate.resources, *estate.bare) if reported(r.file))
    findings.sort(key=Finding.sort_key)
    skipped = sum(1 for f, _, _ in estate.skipped if reported(f))
    others = sum(1 for f in estate.not_jetstream if reported(f))
    return LintResult(findings, len(paths), objects, paths, skipped, others, assumed)


def _suppress(
    findings: list[Finding],
    estate: Estate,
    registry: Sequence[type[Rule]],
    enabled: Sequence[type[Rule]],
    ignored: set[str],
    severity: dict[str, Severity],
    read_source: Callable[[str], bytes | None] | None,
) -> list[Finding]:
    from .suppress import apply_suppressions, from_annotations, scan_comments

    suppressions = from_annotations(estate.resources)
    bad: list[Finding] = []
    if read_source is not None:
        # The loader's reading of a file is as good as this one's: with no marker there, no comment.
        unmarked = estate.unmarked if read_source is read_manifest_bytes else set()
        for file in estate.files:
            if file in estate.opaque or file in unmarked:
                continue  # not a manifest, or no suppression comment in it: not read again
            data = read_source(file)
            if data and SUPPRESSION_MARKER in data:
                found, malformed = scan_comments(data, file)
                suppressions.extend(found)
                bad.extend(malformed)
    if not suppressions and not bad:
        return findings
    from .config import rule_matcher

    match = rule_matcher(registry)

    def resolve(token: str) -> str | None:
        hit = match(token)
        return next(iter(hit)) if len(hit) == 1 else None

    running = {r.code for r in enabled}
    kept, notes = apply_suppressions(
        findings,
        suppressions,
        resolve,
        lambda code: code in running or (code not in ignored and code.startswith("JS0")),
    )
    notes = [replace(n, severity=severity.get(n.rule, n.severity)) for n in bad + notes if n.rule not in ignored]
    return kept + notes


def lint_paths(
    paths: Iterable[str],
    rules: Sequence[type[Rule]] | None = None,
    *,
    target: Target | None = None,
    config: Config | None = None,
    profiles: Profiles | None = None,
    only_files: Iterable[str] | None = None,
) -> LintResult:
    return lint_estate(load_paths(paths), rules, target=target, config=config, profiles=profiles, only_files=only_files)
