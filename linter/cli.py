"""The ``jsops`` command line: ``lint``, ``rule``, ``rules``, and plugin subcommands."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import Any

__all__ = ["main"]

VERSION = "0.1.0"
BUILTIN = ("lint", "rule", "rules")
FORMATS = ("text", "json", "sarif", "junit", "github")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # exit 2 with a one-line message, like argparse, but no usage spam
        self.print_usage(sys.stderr)
        self.exit(2, f"jsops: error: {message}\n")


def _build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="jsops", description="Declarative linter and GitOps reconciler for NATS JetStream.")
    parser.add_argument("--version", action="version", version=f"jsops {VERSION}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    lint = sub.add_parser("lint", help="check manifests before they reach a server")
    lint.add_argument("paths", nargs="*", metavar="PATH", help="files or directories (default: the config's paths, else .)")
    lint.add_argument("--format", choices=FORMATS, default=None,
                      help="output format (default: github when GITHUB_ACTIONS=true, else text)")
    lint.add_argument("--fail-on", choices=("error", "warning", "info"), default=None,
                      help="lowest severity that makes the exit code 1 (default: the config's fail-on, else error)")
    lint.add_argument("--config", metavar="FILE", help="jsops config (.jsops.yaml or a TOML file with [tool.jsops]); default: found from . upward")
    lint.add_argument("--no-config", action="store_true", help="ignore any jsops config file")
    lint.add_argument("--profiles", metavar="FILE", help="profiles JSON written by `jsops profile` (default: the config's profiles)")
    lint.add_argument("--fix", action="store_true", help="apply safe fixes to the files, then report what is left")
    lint.add_argument("--unsafe-fixes", action="store_true", help="with --fix or --diff, also apply unsafe fixes")
    lint.add_argument("--diff", action="store_true", help="print the fixes as a unified diff instead of writing them (exit 1 if any)")
    lint.add_argument("--estate", metavar="DIR", action="append",
                      help="lint PATHs within the whole estate under DIR (repeatable; 'auto': the config's paths, "
                           "else the top directory under . holding all PATHs) and report only on PATHs")
    lint.add_argument("--env", metavar="NAME",
                      help="render *.yaml.j2 templates with environments/NAME.yaml (the nearest environments/ "
                           "directory at or above each template) and lint the result")
    rule = sub.add_parser("rule", help="print a rule's documentation")
    rule.add_argument("rule", metavar="CODE|NAME")
    rules = sub.add_parser("rules", help="list the rules")
    rules.add_argument("--format", choices=("table", "json", "markdown"), default="table")
    return parser


def _err(message: str) -> int:
    print(f"jsops: error: {message}", file=sys.stderr)
    return 2


def _color() -> bool:
    return sys.stdout.isatty() and "NO_COLOR" not in os.environ and os.environ.get("TERM") != "dumb"


def _estate_dirs(args: argparse.Namespace, cfg: Any, given: list[str]) -> list[str]:
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


def _lint(args: argparse.Namespace) -> int:
    from .config import ConfigError, load_config, select_rules
    from .engine import discover_rules, lint_estate
    from .findings import Severity
    from .loader import LoadError, discover, load_paths

    try:
        cfg = load_config(args.config) if not args.no_config else load_config(None, search=False)
    except ConfigError as exc:
        return _err(str(exc))
    rules = discover_rules()
    try:
        select_rules(cfg, rules)  # a broken selector or option fails before any file is read
    except ConfigError as exc:
        return _err(str(exc))
    given = list(args.paths) or [cfg.resolve_path(p) for p in cfg.paths] or ["."]
    profiles = None
    profiles_path = args.profiles or (cfg.resolve_path(cfg.profiles) if cfg.profiles else None)
    if profiles_path:
        from .model.profiles import ProfilesError, load_profiles

        try:
            profiles = load_profiles(profiles_path)
        except ProfilesError as exc:
            return _err(str(exc))
    fixing = args.fix or args.diff

    def run() -> Any:
        if args.estate:
            only = discover(given)
            estate = load_paths([*_estate_dirs(args, cfg, list(args.paths)), *given], env=args.env)
            return _template_findings(lint_estate(estate, rules, config=cfg, profiles=profiles, only_files=only), estate, args.env)
        estate = load_paths(given, env=args.env)
        return _template_findings(lint_estate(estate, rules, config=cfg, profiles=profiles), estate, args.env)

    try:
        result = run()
        if fixing:
            from .fix import fix_findings, unified_diff

            if args.diff:
                report = fix_findings(result.findings, unsafe=args.unsafe_fixes)
                for note in report.notes:
                    print(f"jsops: {note}", file=sys.stderr)
                for file, (before, after) in sorted(report.changed.items()):
                    sys.stdout.write(unified_diff(file, before, after))
                return 1 if report.changed else 0
            fixed, files = 0, set()
            for _ in range(3):  # a fix can reveal another; stop when nothing changes
                report = fix_findings(result.findings, unsafe=args.unsafe_fixes)
                for note in report.notes:
                    print(f"jsops: {note}", file=sys.stderr)
                if not report.changed:
                    break
                for file, (_, after) in report.changed.items():
                    with open(file, "w", encoding="utf-8", newline="") as fh:
                        fh.write(after)
                fixed += report.applied
                files.update(report.changed)
                result = run()
            if fixed:
                print(f"jsops: fixed {fixed} finding{'s' if fixed != 1 else ''} in {len(files)} file{'s' if len(files) != 1 else ''}", file=sys.stderr)
    except LoadError as exc:
        return _err(str(exc))
    except OSError as exc:
        return _err(f"cannot write: {exc}")
    fmt = args.format or ("github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text")
    sys.stdout.write(_render(result, fmt, rules))
    threshold = Severity(args.fail_on or (cfg.fail_on.value if cfg.fail_on else "error")).rank
    return 1 if any(f.severity.rank >= threshold for f in result.findings) else 0


def _template_findings(result: Any, estate: Any, env: str | None) -> Any:
    """Findings on rendered templates: fixes become advice (``--fix`` edits files, and a rendered
    line is not template text), and a finding whose rendered line came from the multi-line output
    of an expression says so (it points at the expression's template line)."""
    if not estate.rendered:
        return result
    from dataclasses import replace

    from .findings import FixSuggestion

    rough: dict[str, set[int]] = {}
    for file, rendered in estate.rendered.items():
        rough[file] = {line for line, exact in rendered.lines if not exact}
    out = []
    for f in result.findings:
        if f.file in estate.rendered:
            if f.fix is not None and f.fix.edits:
                f = replace(f, fix=FixSuggestion(f.fix.applicability, f"{f.fix.description} (in the template: jsops does not edit templates)"))
            if f.line in rough.get(f.file, ()):
                f = replace(f, message=f"{f.message} (this template line renders to several lines, the finding is in one of them: `jsops render --env {env} {f.file}` shows them)")
        out.append(f)
    result.findings = out
    return result


def _render(result: Any, fmt: str, rules: Any) -> str:
    if fmt == "json":
        from .report.json import render_json

        return render_json(result, VERSION)
    if fmt == "sarif":
        from .docs import rule_infos
        from .report.sarif import render_sarif

        return render_sarif(result, VERSION, rule_infos(rules))
    if fmt == "junit":
        from .report.junit import render_junit

        return render_junit(result)
    if fmt == "github":
        from .report.github import render_github

        return render_github(result)
    from .report.text import read_lines, render_text

    return render_text(result, color=_color(), source=read_lines)


def _rule_docs(args: argparse.Namespace) -> int:
    from .docs import find_rule, render_rule, render_rules_json, render_rules_markdown, render_rules_table, rule_infos
    from .engine import discover_rules

    infos = rule_infos(discover_rules())
    if args.command == "rule":
        info = find_rule(infos, args.rule)
        if info is None:
            import difflib

            close = difflib.get_close_matches(args.rule, [i.name for i in infos] + [i.code for i in infos], n=1)
            hint = f"; did you mean {close[0]!r}?" if close else "; `jsops rules` lists them"
            return _err(f"unknown rule {args.rule!r}{hint}")
        sys.stdout.write(render_rule(info, color=_color()))
        return 0
    render = {"table": render_rules_table, "json": render_rules_json, "markdown": render_rules_markdown}[args.format]
    sys.stdout.write(render(infos))
    return 0


COMMAND_GROUP = "jsops.commands"


def _plugin_commands() -> dict[str, object]:
    """Subcommands registered by other packages (reconciler, profiler) under ``jsops.commands``."""
    from importlib.metadata import entry_points

    return {ep.name: ep for ep in entry_points(group=COMMAND_GROUP)}


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and not argv[0].startswith("-") and argv[0] not in BUILTIN:
        plugins = _plugin_commands()
        if argv[0] in plugins:
            command = plugins[argv[0]].load()  # type: ignore[attr-defined]
            try:
                return int(command(argv[1:]))
            except KeyboardInterrupt:
                return 130
    parser = _build_parser()
    if not argv or argv[0] in ("-h", "--help"):
        names = ", ".join([*BUILTIN, *sorted(_plugin_commands())])
        parser.epilog = f"commands: {names}"
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        if args.command == "lint":
            if args.unsafe_fixes and not (args.fix or args.diff):
                parser.error("--unsafe-fixes needs --fix or --diff")
            return _lint(args)
        if args.command in ("rule", "rules"):
            return _rule_docs(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 1
    parser.error(f"unknown command {args.command!r}")
    return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
