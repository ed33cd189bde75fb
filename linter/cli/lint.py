"""``jsops lint``, ``jsops rule`` and ``jsops rules``: what the commands do once their arguments
are parsed (the parser and the dispatch are :mod:`jsops.linter.cli.app`'s)."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING

from ..exitcodes import ExitCode
from .kit import Exit, config_from_args, use_color

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..api import Rule
    from ..config import Config
    from ..findings import Finding
    from ..load import Estate
    from ..model.profiles import Profiles
    from ..result import LintResult

__all__ = ["lint_command", "rule_docs_command"]


def _estate_dirs(args: argparse.Namespace, cfg: Config, given: list[str]) -> list[str]:
    dirs: list[str] = []
    for d in args.estate or ():
        if d != "auto":
            dirs.append(d)
        elif cfg.paths:
            dirs.extend(cfg.resolve_path(p) for p in cfg.paths)
        elif given:
            # The manifest root: the top directory (under cwd) holding every file passed, so that
            # manifests/consumers/x.yaml is linted within manifests/, not manifests/consumers/.
            parents = [p if os.path.isdir(p) else (os.path.dirname(p) or ".") for p in given]
            common = os.path.relpath(os.path.commonpath([os.path.abspath(p) for p in parents]))
            dirs.append(common if common.startswith("..") else common.split(os.sep, 1)[0])
        else:
            dirs.append(".")
    return dirs


def _note(text: str) -> None:
    print(f"jsops: {text}", file=sys.stderr)


def lint_command(args: argparse.Namespace, version: str) -> int:
    """``jsops lint``: 0 clean, 1 findings at or above ``--fail-on``, 2 could not run (raised as
    :class:`jsops.linter.errors.LinterError` and printed by :func:`jsops.linter.cli.kit.run`)."""
    from ..gcpause import gc_paused
    from ..load import LoadError

    try:
        with gc_paused():  # the estate, its positions, models and findings live until the report
            return _lint(args, version)
    except LoadError as exc:  # not a LinterError yet (the loader is redone apart)
        raise Exit(f"jsops: error: {exc}", ExitCode.NOT_RUN) from None


def _lint(args: argparse.Namespace, version: str) -> int:
    from ..load.templates import EVERY_ENV

    if args.env != EVERY_ENV:
        return _lint_env(args, version)
    # every environment the templates define (pre-commit's hook checks templates this way)
    if args.fix or args.diff:
        raise Exit(f"jsops: error: --fix and --diff take one environment, not --env '{EVERY_ENV}'", ExitCode.NOT_RUN)
    from ..load import discover
    from ..load.templates import environments_of

    cfg = config_from_args(args)
    given = list(args.paths) or [cfg.resolve_path(p) for p in cfg.paths] or ["."]
    envs = environments_of(
        discover([*_estate_dirs(args, cfg, given), *given], [*cfg.exclude, *getattr(args, "exclude", ())])
    )
    results = [
        (env, _lint_once(argparse.Namespace(**{**vars(args), "env": env or None}), version)) for env in envs or [""]
    ]
    return _report(args, version, cfg, _merged_envs(results))


def _merged_envs(
    results: list[tuple[str, tuple[LintResult, Sequence[type[Rule]]]]],
) -> tuple[LintResult, Sequence[type[Rule]]]:
    """One result of the lints of several environments: a finding every environment has is shown once,
    one that only some have names them."""
    from dataclasses import replace

    from ..result import LintResult

    seen: dict[tuple[str, int, int, str, str], list[str]] = {}
    first: dict[tuple[str, int, int, str, str], Finding] = {}
    for env, (result, _) in results:
        for f in result.findings:
            key = (f.file, f.line, f.column, f.rule, f.message)
            first.setdefault(key, f)
            seen.setdefault(key, []).append(env)
    envs = [env for env, _ in results]
    findings = [
        f if seen[k] == envs else replace(f, message=f"{f.message} (--env {', '.join(seen[k])})")
        for k, f in first.items()
    ]
    paths = list(dict.fromkeys(p for _, (r, _) in results for p in r.paths))
    merged = LintResult(
        findings,
        files=max(r.files for _, (r, _) in results),
        objects=max(r.objects for _, (r, _) in results),
        paths=paths,
        skipped=max(r.skipped for _, (r, _) in results),
        not_jetstream=max(r.not_jetstream for _, (r, _) in results),
        assumed_release=results[0][1][0].assumed_release,
    )
    return merged, results[0][1][1]


def _lint_env(args: argparse.Namespace, version: str) -> int:
    cfg = config_from_args(args)
    return _report(args, version, cfg, _lint_once(args, version))


def _report(args: argparse.Namespace, version: str, cfg: Config, done: tuple[LintResult, Sequence[type[Rule]]]) -> int:
    from ..findings import Severity
    from ..report import RenderContext, render_result

    result, rules = done
    given = list(args.paths) or [cfg.resolve_path(p) for p in cfg.paths] or ["."]
    if not result.files and not result.findings and not result.skipped and not result.not_jetstream:
        print(f"jsops: warning: no manifests (*.yaml, *.yml, *.json, *.j2) in {', '.join(given)}", file=sys.stderr)
    fmt = _format(args)
    fail_on = Severity(args.fail_on or (cfg.fail_on.value if cfg.fail_on else "error"))
    sys.stdout.write(
        render_result(
            result, fmt, RenderContext(version, rules, use_color(), fail_on, getattr(args, "show_all", False))
        )
    )
    return ExitCode.FINDINGS if any(f.severity.rank >= fail_on.rank for f in result.findings) else ExitCode.OK


def _lint_once(args: argparse.Namespace, version: str) -> tuple[LintResult, Sequence[type[Rule]]]:
    cfg = config_from_args(args)
    warm = _warm(args, cfg)
    if warm is not None:
        return warm, ()
    from ..cache import load_paths
    from ..config import select_rules
    from ..engine import discover_rules, lint_estate
    from ..load import discover

    rules = discover_rules(cfg, env=args.env)  # a policy that does not compile fails before any file is read
    select_rules(cfg, rules)  # so does a broken selector or option
    given = list(args.paths) or [cfg.resolve_path(p) for p in cfg.paths] or ["."]
    profiles = None
    profiles_path = args.profiles or (cfg.resolve_path(cfg.profiles) if cfg.profiles else None)
    if profiles_path:
        from ..model.profiles import ProfilesError, load_profiles  # a lint without profiles never imports them

        try:
            profiles = load_profiles(profiles_path)
        except ProfilesError as exc:
            raise Exit(f"jsops: error: {exc}", ExitCode.NOT_RUN) from None

    exclude = [*cfg.exclude, *getattr(args, "exclude", ())]
    streams = cfg.consumer_stream_globs()
    if getattr(args, "stream", None):
        streams.append(("*", args.stream))
    nack_version = getattr(args, "nack_version", None) or cfg.nack_version
    if nack_version is not None:
        from ..load.nack_releases import NackVersionError, nack_release

        try:
            nack_release(nack_version)
        except NackVersionError as exc:
            raise Exit(f"jsops: error: {exc}", ExitCode.NOT_RUN) from None

    def lint() -> LintResult:
        done = _from_results_cache(args, cfg, given, rules, (profiles, profiles_path), exclude, streams, nack_version)
        if done is not None:
            return done
        if args.estate:
            only = discover(given, exclude)
            estate = load_paths(
                [*_estate_dirs(args, cfg, list(args.paths)), *given],
                env=args.env,
                cache=not getattr(args, "no_cache", False),
                exclude=exclude,
                consumer_streams=streams,
                nack_version=nack_version,
            )
            return _template_findings(
                lint_estate(estate, rules, config=cfg, profiles=profiles, only_files=only), estate, args.env
            )
        estate = load_paths(
            given,
            env=args.env,
            cache=not getattr(args, "no_cache", False),
            exclude=exclude,
            consumer_streams=streams,
            nack_version=nack_version,
        )
        return _template_findings(lint_estate(estate, rules, config=cfg, profiles=profiles), estate, args.env)

    if args.diff:
        from ..fix import fix_diff

        diff = fix_diff(lint().findings, unsafe=args.unsafe_fixes, note=_note)
        sys.stdout.write(diff)
        raise Exit("", ExitCode.FINDINGS if diff else ExitCode.OK)
    if args.fix:
        from ..fix import fix_and_relint

        outcome = fix_and_relint(lint, unsafe=args.unsafe_fixes, note=_note)
        if outcome.fixed:
            _note(outcome.summary())
        return outcome.result, rules
    return lint(), rules


def _warm(args: argparse.Namespace, cfg: Config) -> LintResult | None:
    """The result of a run whose inputs are all unchanged, found before the rules are imported
    (:func:`jsops.linter.cache.incremental.warm_result`); None when it has to be made. A report that
    lists the rules (SARIF), a fix, a diff, profiles or a NACK release to check make it the usual way."""
    if getattr(args, "no_cache", False) or args.fix or args.diff or _format(args) == "sarif":
        return None
    if args.profiles or cfg.profiles or getattr(args, "nack_version", None) or cfg.nack_version:
        return None
    from ..cache.incremental import warm_result

    given = list(args.paths) or [cfg.resolve_path(p) for p in cfg.paths] or ["."]
    exclude = [*cfg.exclude, *getattr(args, "exclude", ())]
    streams = cfg.consumer_stream_globs()
    if getattr(args, "stream", None):
        streams.append(("*", args.stream))
    only = None
    if args.estate:
        from ..load import discover

        only = discover(given, exclude)
    return warm_result(
        [*_estate_dirs(args, cfg, list(args.paths)), *given] if args.estate else given,
        config=cfg,
        only_files=only,
        env=args.env,
        exclude=exclude,
        consumer_streams=streams,
    )


def _format(args: argparse.Namespace) -> str:
    return str(args.format or ("github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text"))


def _from_results_cache(
    args: argparse.Namespace,
    cfg: Config,
    given: list[str],
    rules: Sequence[type[Rule]],
    profiles: tuple[Profiles | None, str | None],
    exclude: list[str],
    streams: list[tuple[str, str]],
    nack_version: str | None,
) -> LintResult | None:
    """The lint through the results cache (:mod:`jsops.linter.cache.incremental`), or None when it is off or
    not usable for this run (then the lint is made as before)."""
    if getattr(args, "no_cache", False):
        return None
    from ..cache.incremental import lint_incremental
    from ..load import discover

    return lint_incremental(
        [*_estate_dirs(args, cfg, list(args.paths)), *given] if args.estate else given,
        rules,
        config=cfg,
        profiles=profiles[0],
        profiles_path=profiles[1],
        only_files=discover(given, exclude) if args.estate else None,
        env=args.env,
        exclude=exclude,
        consumer_streams=streams,
        nack_version=nack_version,
    )


def _template_findings(result: LintResult, estate: Estate, env: str | None) -> LintResult:
    """Findings on rendered templates: fixes become advice (``--fix`` edits files, and a rendered
    line is not template text), and a finding whose rendered line came from the multi-line output
    of an expression says so (it points at the expression's template line)."""
    if not estate.rendered:
        return result
    from dataclasses import replace

    from ..findings import FixSuggestion

    rough: dict[str, set[int]] = {}
    for file, rendered in estate.rendered.items():
        rough[file] = {line for line, exact in rendered.lines if not exact}
    out = []
    for f in result.findings:
        if f.file in estate.rendered:
            if f.fix is not None and f.fix.edits:
                f = replace(
                    f,
                    fix=FixSuggestion(
                        f.fix.applicability, f"{f.fix.description} (in the template: jsops does not edit templates)"
                    ),
                )
            if f.line in rough.get(f.file, ()):
                f = replace(
                    f,
                    message=f"{f.message} (this template line renders to several lines, the finding is in one of them: `jsops render --env {env} {f.file}` shows them)",
                )
        out.append(f)
    result.findings = out
    return result


def rule_docs_command(args: argparse.Namespace) -> int:
    """``jsops rule CODE|NAME`` (0 shown, 2 unknown rule) and ``jsops rules`` (0 listed)."""
    from ..docs import find_rule, render_rule, render_rules_json, render_rules_markdown, render_rules_table, rule_infos
    from ..engine import discover_rules

    infos = rule_infos(discover_rules(config_from_args(args)))
    if args.command == "rule":
        info = find_rule(infos, args.rule)
        if info is None:
            import difflib

            close = difflib.get_close_matches(args.rule, [i.name for i in infos] + [i.code for i in infos], n=1)
            hint = f"; did you mean {close[0]!r}?" if close else "; `jsops rules` lists them"
            raise Exit(f"jsops: error: unknown rule {args.rule!r}{hint}", ExitCode.USAGE)
        sys.stdout.write(render_rule(info, color=use_color()))
        return ExitCode.OK
    render = {"table": render_rules_table, "json": render_rules_json, "markdown": render_rules_markdown}[args.format]
    sys.stdout.write(render(infos))
    return ExitCode.OK
