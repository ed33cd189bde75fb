"""``jsops audit``: the static rules on what is running, live health, drift and upgrade readiness.

Read-only: one listing of the target (:mod:`jsops.reconciler.audit.read`), then everything is computed
here, offline; with manifests and fields that drifted, the account's record of API changes is read
back (``STREAM.MSG.GET``, docs/drift.md) to name who made each drifted field's live value. Output
as ``jsops lint``'s (the same reporters); exit codes as lint's: 0 no finding at or above
``--fail-on`` (default warning), 1 findings, 2 could not run (bad arguments or config, unreachable
target, unreadable manifests).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from jsops.linter import REPORTERS, Estate, LintResult, RenderContext, Severity, render_result
from jsops.linter.cli.kit import (
    Exit,
    Parser,
    add_config,
    add_env,
    add_format,
    add_no_cache,
    add_paths,
    add_show_all,
    config_from_args,
    release_type,
    use_color,
)
from jsops.linter.exitcodes import ExitCode, exit_codes_help

if TYPE_CHECKING:
    from jsops.linter import Config
    from jsops.linter.api import Rule

    from ..client import JsClient, Target
    from ..drift import Attribution, Drifted
    from ..route import Route
    from .read import AuditState
    from .registry import Selected
    from .snapshot import Snapshot

__all__ = ["main"]

EPILOG = """\
examples:
  jsops audit                          # the resolved target (see 'target' below)
  jsops audit --context prod --format json
  jsops audit manifests/               # also: drift per field, objects in no manifest
  jsops audit --target-version 2.12.8  # what the live configs do on another release
  jsops audit --fail-on error          # CI: exit 1 only on errors
  jsops audit --html audit.html        # also the HTML report, with a live section
  jsops audit --save-state s.json      # keep the counters; later, growing backlogs (JS515):
  jsops audit --baseline s.json --save-state s.json

Live-state rules (JS501-JS539) and their thresholds: docs/audit.md; set them under `audit:` in
the jsops config.

""" + exit_codes_help("audit")


def _parser() -> Parser:
    from ..client import add_target_arguments

    p = Parser(
        prog="jsops audit",
        description="Check what is running: the static rules on the live configs, "
        "live health (limits, backlogs, redeliveries, replicas), drift from manifests, upgrade readiness.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_paths(p, "manifests to compare the server with (drift); default: none")
    add_format(
        p, REPORTERS, None, "output format, as jsops lint's (default: github when GITHUB_ACTIONS=true, else text)"
    )
    p.add_argument(
        "--fail-on",
        choices=("error", "warning", "info"),
        default=None,
        help="lowest severity that makes the exit code 1 (default: warning)",
    )
    add_show_all(p)
    p.add_argument(
        "--save-state",
        metavar="FILE",
        help="write what each target held (counters per stream and consumer) to FILE, for a later --baseline",
    )
    p.add_argument(
        "--baseline",
        metavar="FILE",
        help="compare with the state an earlier --save-state wrote: growing backlogs (JS515)",
    )
    p.add_argument(
        "--html", metavar="FILE", help="also write the HTML report with a live section (what each target held) to FILE"
    )
    p.add_argument(
        "--target-version",
        metavar="X.Y.Z",
        type=release_type,
        help="also report what the live configs do on this nats-server release (upgrade or downgrade)",
    )
    add_config(p, "jsops config (lint selection, audit thresholds, contexts); default: found from . upward")
    add_env(p)
    add_no_cache(p)
    add_target_arguments(p)
    return p


def _audit(argv: list[str]) -> int:
    from jsops.linter import gc_paused

    with gc_paused():  # as plan: reading, loading and linting allocate much and free little
        return _audit_run(argv)


def _audit_run(argv: list[str]) -> int:
    from jsops.linter import discover_rules, select_rules

    from ..client import describe_target, target_from_args
    from .registry import select_live
    from .snapshot import baseline_for, load_snapshots, save_snapshots, snapshot_of

    args = _parser().parse_args(argv)
    cfg = config_from_args(args)
    rules = discover_rules(cfg, env=args.env)  # the config's policies judge live configs as they judge files
    select_rules(cfg, rules)  # a broken selector fails before anything is read
    live_rules = select_live(cfg.audit, cfg.source or "config")
    manifests = _load_manifests(args, cfg) if args.paths else None
    target = target_from_args(args, cfg)
    audited: list[tuple[str, AuditState]] = []
    results: list[LintResult] = []
    routes = _routes(target, cfg, manifests)
    snapshots = load_snapshots(args.baseline) if args.baseline else None  # a bad file fails before anything is read
    for route in routes:
        print(
            f"jsops: {describe_target(route.target)}" + (f" for context {route.name}" if len(routes) > 1 else ""),
            file=sys.stderr,
        )
        base = baseline_for(route.target.display(), snapshots, len(routes)) if snapshots is not None else None
        state, result = _audit_target(
            route.target, route.contexts, cfg, rules, live_rules, manifests, args.target_version, base
        )
        if len(routes) > 1:  # the same stream name on two targets: say which
            result.findings = [
                replace(f, message=f"context {route.name}: {f.message}") if f.file.startswith("nats://") else f
                for f in result.findings
            ]
        audited.append((route.target.display(), state))
        results.append(result)
    result = _merged(results, manifests)
    if args.save_state:
        save_snapshots(args.save_state, [snapshot_of(where, state) for where, state in audited])
    if args.html:
        _write_html(
            args.html,
            [(where, state, r) for (where, state), r in zip(audited, results, strict=True)],
            result,
            args.paths,
        )
    fmt = args.format or ("github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text")
    fail_on = Severity(args.fail_on or "warning")
    if fmt == "text":
        from .render import render_audit_text

        sys.stdout.write(render_audit_text(result, audited, color=use_color(), show_all=args.show_all))
    else:
        sys.stdout.write(
            render_result(result, fmt, RenderContext(_version(), rules, use_color(), fail_on, args.show_all))
        )
    return ExitCode.FINDINGS if any(f.severity.rank >= fail_on.rank for f in result.findings) else ExitCode.OK


def _routes(target: Target, cfg: Config, manifests: Estate | None) -> list[Route]:
    """The targets to audit: the one the flags and contexts name, and with manifests every other
    target their ``metadata.context`` routes objects to (as ``jsops plan`` does)."""
    from ..client import TargetError, resolve_context
    from ..route import Route, route_estate

    if manifests is None:
        return [Route(target, ["default"] + ([target.context] if target.context != "default" else []))]

    def resolve(name: str) -> Target:
        try:
            return resolve_context(name, cfg, accounts=manifests.accounts)
        except TargetError as exc:
            raise TargetError(f"manifests route objects to context {name!r}: {exc}") from None

    return route_estate(manifests, target, resolve)


def _audit_target(
    target: Target,
    contexts: list[str],
    cfg: Config,
    rules: Sequence[type[Rule]],
    live_rules: Sequence[Selected],
    manifests: Estate | None,
    target_version: str | None,
    baseline: Snapshot | None = None,
) -> tuple[AuditState, LintResult]:
    """Read one target and audit it (against its ``baseline`` snapshot, when given)."""
    from ..client import JsClient
    from .read import read_audit
    from .run import audit_result
    from .static import EstateBuilder

    builder = EstateBuilder(target.context)  # the live estate is built while the pages arrive
    with JsClient(target) as client:
        state = read_audit(client, builder.on_stream)
        state.baseline = baseline
        if target.monitor:
            from ..limits import monitor_json

            state.varz = monitor_json(target, "varz")  # an HTTP GET of the monitoring port: the server's own limits
        result = audit_result(
            state,
            cfg,
            rules,
            live_rules,
            context=target.context,
            manifests=manifests,
            target_version=target_version,
            estate=builder.finish(),
            contexts=contexts,
            authors=lambda drifted: _attribution(client, target, state, drifted),
        )
    return state, result


def _attribution(client: JsClient, target: Target, state: AuditState, drifted: Sequence[Drifted]) -> Attribution:
    """Who made the live values of the fields that drifted from the manifests (JS520), from the
    account's record of API changes (docs/drift.md); a record that cannot be read is said on stderr
    and names nobody."""
    from ..client import JsApiError
    from ..drift import NO_ATTRIBUTION, attribute_drift

    try:
        return attribute_drift(client, state.live, target.context, drifted)
    except JsApiError as exc:
        print(
            f"jsops audit: note: cannot read the audit record of {target.display()}: {exc}; "
            "drifted fields are not attributed",
            file=sys.stderr,
        )
        return NO_ATTRIBUTION


def _merged(results: list[LintResult], manifests: Estate | None) -> LintResult:
    from jsops.linter import Finding

    findings = list(manifests.findings) if manifests is not None else []
    files = list(manifests.files) if manifests is not None else []
    for r in results:
        findings.extend(r.findings)
        files.extend(r.paths)
    findings.sort(key=Finding.sort_key)
    return LintResult(
        findings,
        len(files),
        sum(r.objects for r in results),
        files,
        0,
        assumed_release=results[0].assumed_release if results else None,
    )


def _write_html(
    path: str, audited: list[tuple[str, AuditState, LintResult]], result: LintResult, sources: Sequence[str]
) -> None:
    from jsops.linter import render_report_html

    from .html import audit_report

    page = render_report_html(audit_report(audited, result, sources))
    try:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(page)
    except OSError as exc:
        raise Exit(f"jsops audit: error: cannot write {path}: {exc.strerror or exc}", ExitCode.NOT_RUN) from None
    print(f"jsops audit: wrote {path}", file=sys.stderr)


def _version() -> str:
    from jsops.linter import __version__

    return str(__version__)


def _load_manifests(args: argparse.Namespace, cfg: Config) -> Estate:
    from jsops.linter import LoadError, load_paths

    try:  # the files read as lint and plan read them (the config's excludes, consumer-streams, nack-version)
        return load_paths(
            args.paths,
            env=args.env,
            cache=not args.no_cache,
            exclude=cfg.exclude,
            consumer_streams=cfg.consumer_stream_globs(),
            nack_version=cfg.nack_version,
        )
    except LoadError as exc:
        raise Exit(f"jsops audit: error: {exc}", ExitCode.NOT_RUN) from None


def _describe(exc: BaseException) -> str:
    from ..client import JetStreamDisabled, JsApiError

    if isinstance(exc, JsApiError) and not isinstance(exc, JetStreamDisabled):
        return f"JetStream API: {exc}"
    return str(exc)


def main(argv: Sequence[str]) -> int:
    """Entry point of ``jsops audit`` (argv after the command name); returns the exit code."""
    from ..cli.guard import guard

    return guard(_audit, argv, prog="jsops audit", error_code=ExitCode.NOT_RUN, describe=_describe)
