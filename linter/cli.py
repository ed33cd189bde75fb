"""The ``jsops`` command line: ``lint``, ``rule``, ``rules``, and plugin subcommands."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

__all__ = ["main"]

VERSION = "0.1.0"
BUILTIN = ("lint", "rule", "rules", "completion", "help")
FORMATS = ("text", "json", "sarif", "junit", "github")
# Every command with its one-line summary, in workflow order (plugins found by entry point but not
# named here are listed after them). Kept here so that `jsops --help` imports no plugin.
SUMMARIES = {
    "lint": "check manifests before they reach a server",
    "render": "print manifests with *.yaml.j2 templates rendered for one environment",
    "plan": "show what apply would change on the targets",
    "apply": "make the targets match the manifests",
    "export": "write a server's streams and consumers as manifests",
    "discover": "read a live server's release, cluster and limits into the config's target",
    "controller": "keep the targets matching the manifests (GitOps loop)",
    "collect": "record JetStream ack samples, advisories and state snapshots",
    "profile": "turn collected telemetry into the profiles operational rules read (needs the spark extra)",
    "report": "write an HTML report of lint findings and profiles",
    "rule": "print a rule's documentation",
    "rules": "list the rules",
    "completion": "print a shell completion script (bash, zsh, fish)",
    "help": "show a command's help (jsops help COMMAND)",
}
LINT_EPILOG = """\
examples:
  jsops lint                          # the config's paths, else .
  jsops lint manifests/ --format sarif > jsops.sarif
  jsops lint --fix manifests/orders.yaml
  jsops lint --env prod manifests/    # render *.yaml.j2 for environments/prod.yaml first
  jsops lint --profiles profiles.json # operational rules from `jsops profile`

exit codes:
  0  no finding at or above --fail-on
  1  findings at or above --fail-on (with --diff: fixes to show)
  2  could not run (bad arguments, unreadable config or profiles, bad manifest path)
"""
RULE_EPILOG = """\
examples:
  jsops rule JS102
  jsops rule stream-max-age-invalid

exit codes:
  0  shown
  2  unknown rule or bad arguments
"""
RULES_EPILOG = """\
examples:
  jsops rules
  jsops rules --format markdown > docs/rules.md

exit codes:
  0  listed
  2  bad arguments
"""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # exit 2 with a one-line message, like argparse, but no usage spam
        self.print_usage(sys.stderr)
        self.exit(2, f"jsops: error: {message}\n")


def _build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="jsops", description="Declarative linter and GitOps reconciler for NATS JetStream.")
    parser.add_argument("--version", action="version", version=f"jsops {VERSION}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    raw = argparse.RawDescriptionHelpFormatter
    lint = sub.add_parser("lint", help=SUMMARIES["lint"], description="Check manifests before they reach a server.",
                          epilog=LINT_EPILOG, formatter_class=raw)
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
    rule = sub.add_parser("rule", help=SUMMARIES["rule"], description="Print a rule's documentation.",
                          epilog=RULE_EPILOG, formatter_class=raw)
    rule.add_argument("rule", metavar="CODE|NAME")
    rules = sub.add_parser("rules", help=SUMMARIES["rules"], description="List the rules.", epilog=RULES_EPILOG, formatter_class=raw)
    rules.add_argument("--format", choices=("table", "json", "markdown"), default="table")
    comp = sub.add_parser("completion", help=SUMMARIES["completion"], formatter_class=raw,
                          description="Print a shell completion script for jsops.",
                          epilog="examples:\n  source <(jsops completion bash)\n  jsops completion zsh > \"${fpath[1]}/_jsops\"\n"
                                 "  jsops completion fish > ~/.config/fish/completions/jsops.fish\n\n"
                                 "exit codes:\n  0  printed\n  2  unknown shell or bad arguments\n")
    comp.add_argument("shell", choices=("bash", "zsh", "fish"))
    hlp = sub.add_parser("help", help=SUMMARIES["help"], description="Show a command's help.",
                         epilog="examples:\n  jsops help plan\n\nexit codes:\n  0  shown\n  2  unknown command\n", formatter_class=raw)
    hlp.add_argument("topic", nargs="?", metavar="COMMAND")
    parser.set_defaults(_subparsers=sub.choices)
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
    from .load import LoadError, discover, load_paths

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
            fixed, files = 0, set[str]()
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
    if not result.files and not result.findings:
        print(f"jsops: warning: no manifests (*.yaml, *.yml, *.json, *.j2) in {', '.join(given)}", file=sys.stderr)
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


def _commands() -> list[str]:
    """Every command: the built-in ones and the plugins installed, in workflow order."""
    plugins = set(_plugin_commands())
    known = [c for c in SUMMARIES if c in BUILTIN or c in plugins]
    return known + sorted(plugins - set(known))


def top_help() -> str:
    names = _commands()
    width = max(len(n) for n in names) + 2
    lines = ["usage: jsops [--version] [--help] COMMAND [ARGS]", "",
             "Declarative linter and GitOps reconciler for NATS JetStream.", "", "commands:"]
    lines += [f"  {n:<{width}}{SUMMARIES.get(n, '(plugin)')}" for n in names]
    lines += ["", "`jsops help COMMAND` or `jsops COMMAND --help` shows a command's options, examples and exit codes.",
              "Argument errors print the usage and exit 2 in every command."]
    return "\n".join(lines) + "\n"


def _unknown_command(name: str) -> int:
    import difflib

    names = _commands()
    close = difflib.get_close_matches(name, names, n=1, cutoff=0.5)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    sys.stderr.write("usage: jsops [--version] [--help] COMMAND [ARGS]\n")
    sys.stderr.write(f"jsops: error: unknown command {name!r}{hint}\ncommands: {', '.join(names)}\n")
    return 2


# Optional dependencies a command needs, and how a user gets them.
_EXTRAS = {"pyspark": "the spark extra: pip install 'jsops[spark]' (and a Java 17+ runtime for Spark)"}


def _missing_dependency(command: str, exc: ImportError) -> int:
    name = (getattr(exc, "name", None) or "").split(".")[0]
    how = _EXTRAS.get(name, f"the Python package {name!r}" if name else "a package that is not installed")
    print(f"jsops {command}: needs {how}", file=sys.stderr)
    return 2


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in ("-h", "--help"):
        sys.stdout.write(top_help())
        return 0
    if argv and argv[0] == "help":
        if len(argv) == 1:
            sys.stdout.write(top_help())
            return 0
        if argv[1] == "help":
            argv = ["help", "--help"]
        elif not argv[1].startswith("-"):
            return main([argv[1], "--help"])
    if argv and not argv[0].startswith("-") and argv[0] not in BUILTIN:
        plugins = _plugin_commands()
        if argv[0] in plugins:
            try:
                command = plugins[argv[0]].load()  # type: ignore[attr-defined]
            except ImportError as exc:  # an optional dependency is missing: say how to get it
                return _missing_dependency(argv[0], exc)
            try:
                return int(command(argv[1:]))
            except KeyboardInterrupt:
                return 130
            except SystemExit as exc:  # a plugin's argparse: --help is 0, argument errors 2
                return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
        return _unknown_command(argv[0])
    if not argv:
        sys.stderr.write(top_help())
        return 2
    parser = _build_parser()
    try:
        args, extra = parser.parse_known_args(argv)
        if extra:  # reported by the command's own parser, with its usage
            sub = getattr(args, "_subparsers", {}).get(args.command) or parser
            sub.error(f"unrecognized arguments: {' '.join(extra)}")
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    if args.command is None:
        sys.stderr.write(top_help())
        return 2
    try:
        if args.command == "lint":
            if args.unsafe_fixes and not (args.fix or args.diff):
                parser.error("--unsafe-fixes needs --fix or --diff")
            return _lint(args)
        if args.command in ("rule", "rules"):
            return _rule_docs(args)
        if args.command == "completion":
            from .completion import completion_script

            sys.stdout.write(completion_script(args.shell, _commands(), _command_options))
            return 0
        if args.command == "help":
            sys.stdout.write(top_help())
            return 0
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 1
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 2
    parser.error(f"unknown command {args.command!r}")
    return 2


def _command_options(name: str) -> list[str]:
    """The option strings of a command, read from its --help (plugins are not imported otherwise)."""
    import contextlib
    import io
    import re

    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            main([name, "--help"])
    except BaseException:  # noqa: BLE001 - a plugin that cannot load still gets command completion
        return []
    return sorted(set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", out.getvalue())))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
