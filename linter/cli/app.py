"""The ``jsops`` command line: ``lint``, ``rule``, ``rules``, and plugin subcommands."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from .._version import __version__, install_hint, version_line
from ..exitcodes import ExitCode, exit_codes_help
from ..report import REPORTERS
from .kit import Parser, add_config, add_env, add_format, add_no_cache, add_paths, add_show_all, run

if TYPE_CHECKING:
    from ..plugins import EntryPoint

__all__ = ["main", "top_help", "SUMMARIES", "VERSION"]

VERSION = __version__
BUILTIN = ("lint", "rule", "rules", "policy", "completion", "help")
_RAW = argparse.RawDescriptionHelpFormatter
# Every command with its one-line summary, in workflow order (plugins found by entry point but not
# named here are listed after them). Kept here so that `jsops --help` imports no plugin.
SUMMARIES = {
    "lint": "check manifests before they reach a server",
    "render": "print manifests with *.yaml.j2 templates rendered for one environment",
    "plan": "show what apply would change on the targets",
    "apply": "make the targets match the manifests",
    "export": "write a server's streams and consumers as manifests",
    "audit": "check what runs on a server: rules, live health, drift, upgrade readiness",
    "discover": "read a live server's release, cluster and limits into the config's target",
    "controller": "keep the targets matching the manifests (GitOps loop)",
    "failover": "switch a stream over to its standby mirror in another cluster, losing nothing acknowledged",
    "failback": "make the old side of a failover the active side again, losing nothing acknowledged",
    "collect": "record JetStream ack samples, advisories and state snapshots",
    "profile": "turn collected telemetry into the profiles operational rules read (needs the spark extra)",
    "report": "write an HTML report of lint findings and profiles",
    "rule": "print a rule's documentation",
    "rules": "list the rules",
    "policy": "test the config's policies against fixtures (jsops policy test)",
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

""" + exit_codes_help("lint")
RULE_EPILOG = """\
examples:
  jsops rule JS102
  jsops rule stream-max-age-invalid

""" + exit_codes_help("rule")
RULES_EPILOG = """\
examples:
  jsops rules
  jsops rules --format markdown > docs/rules.md

""" + exit_codes_help("rules")
POLICY_EPILOG = """\
examples:
  jsops policy test                     # policy-tests/ next to the config
  jsops policy test --config .jsops.yaml tests/policies/
""" + exit_codes_help("policy")
COMPLETION_EPILOG = """\
examples:
  source <(jsops completion bash)
  jsops completion zsh > "${fpath[1]}/_jsops"
  jsops completion fish > ~/.config/fish/completions/jsops.fish

""" + exit_codes_help("completion")
HELP_EPILOG = "examples:\n  jsops help plan\n\n" + exit_codes_help("help")


def _command(sub: argparse._SubParsersAction[Parser], name: str, description: str, epilog: str) -> Parser:
    """A jsops command: its summary (:data:`SUMMARIES`), a description, and an epilog (examples and exit
    codes) shown as written."""
    return sub.add_parser(
        name, help=SUMMARIES[name], description=description, epilog=epilog, formatter_class=_RAW, error_prog="jsops"
    )


def _add_lint(sub: argparse._SubParsersAction[Parser]) -> None:
    lint = _command(sub, "lint", "Check manifests before they reach a server.", LINT_EPILOG)
    add_paths(lint, "files or directories (default: the config's paths, else .)")
    add_format(lint, REPORTERS, None, "output format (default: github when GITHUB_ACTIONS=true, else text)")
    lint.add_argument(
        "--fail-on",
        choices=("error", "warning", "info"),
        default=None,
        help="lowest severity that makes the exit code 1 (default: the config's fail-on, else error)",
    )
    add_show_all(lint)
    add_config(lint, "jsops config (.jsops.yaml or a TOML file with [tool.jsops]); default: found from . upward")
    lint.add_argument(
        "--profiles", metavar="FILE", help="profiles JSON written by `jsops profile` (default: the config's profiles)"
    )
    lint.add_argument("--fix", action="store_true", help="apply safe fixes to the files, then report what is left")
    lint.add_argument("--unsafe-fixes", action="store_true", help="with --fix or --diff, also apply unsafe fixes")
    lint.add_argument(
        "--diff", action="store_true", help="print the fixes as a unified diff instead of writing them (exit 1 if any)"
    )
    lint.add_argument(
        "--estate",
        metavar="DIR",
        action="append",
        help="lint PATHs within the whole estate under DIR (repeatable; 'auto': the config's paths, "
        "else the top directory under . holding all PATHs) and report only on PATHs",
    )
    add_env(
        lint,
        "render *.yaml.j2 templates with environments/NAME.yaml (the nearest environments/ directory at or above each template) "
        "and lint the result; '*': every environment defined, one report",
    )
    lint.add_argument(
        "--exclude",
        metavar="GLOB",
        action="append",
        default=[],
        help="leave files and directories matching GLOB out of the walk (repeatable; as .gitignore; added to the config's exclude)",
    )
    lint.add_argument(
        "--stream",
        metavar="STREAM",
        default=None,
        help="the stream of bare consumer configs (as in `nats consumer add STREAM --config FILE`) that the config's consumer-streams does not map",
    )
    lint.add_argument(
        "--nack-version",
        metavar="VERSION",
        default=None,
        help="the NACK release whose CRDs NACK files are checked against (a tag like v0.21.1, or a minor like 0.21; "
        "default: the config's nack-version, else the newest jsops knows)",
    )
    add_no_cache(lint)


class _VersionAction(argparse.Action):
    """``--version``: the version line is made when asked for (it may read git), not with every parser."""

    def __init__(
        self,
        option_strings: Sequence[str],
        dest: str = argparse.SUPPRESS,
        default: str = argparse.SUPPRESS,
        help: str | None = None,
    ) -> None:
        super().__init__(
            option_strings, dest=dest, default=default, nargs=0, help=help or "show program's version number and exit"
        )

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: object,
        option_string: str | None = None,
    ) -> None:
        print(version_line())
        parser.exit()


def _build_parser() -> Parser:
    parser = Parser(prog="jsops", description="Declarative linter and GitOps reconciler for NATS JetStream.")
    parser.add_argument("--version", action=_VersionAction)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    _add_lint(sub)
    rule = _command(sub, "rule", "Print a rule's documentation.", RULE_EPILOG)
    rule.add_argument("rule", metavar="CODE|NAME")
    add_config(rule, "jsops config whose policies are rules too; default: found from . upward")
    rules = _command(sub, "rules", "List the rules.", RULES_EPILOG)
    add_format(rules, ("table", "json", "markdown"), "table")
    add_config(rules, "jsops config whose policies are listed too; default: found from . upward")
    policy = _command(sub, "policy", "Work with the config's policies.", POLICY_EPILOG)
    policy.add_argument(
        "action",
        choices=("test",),
        help="test: run the fixture cases and compare the codes they give with those they expect",
    )
    policy.add_argument(
        "fixtures",
        nargs="*",
        metavar="PATH",
        help="fixture files or directories (default: policy-tests/ next to the config)",
    )
    add_config(policy, "jsops config whose policies are tested (default: found from . upward)")
    comp = _command(sub, "completion", "Print a shell completion script for jsops.", COMPLETION_EPILOG)
    comp.add_argument("shell", choices=("bash", "zsh", "fish"))
    hlp = _command(sub, "help", "Show a command's help.", HELP_EPILOG)
    hlp.add_argument("topic", nargs="?", metavar="COMMAND")
    parser.set_defaults(_subparsers=sub.choices)
    return parser


COMMAND_GROUP = "jsops.commands"


def _plugin_commands() -> dict[str, EntryPoint]:
    """Subcommands registered by other packages (reconciler, profiler) under ``jsops.commands``."""
    from ..plugins import entry_points

    return {ep.name: ep for ep in entry_points(COMMAND_GROUP)}


def _commands() -> list[str]:
    """Every command: the built-in ones and the plugins installed, in workflow order."""
    plugins = set(_plugin_commands())
    known = [c for c in SUMMARIES if c in BUILTIN or c in plugins]
    return known + sorted(plugins - set(known))


def top_help() -> str:
    names = _commands()
    width = max(len(n) for n in names) + 2
    lines = [
        "usage: jsops [--version] [--help] COMMAND [ARGS]",
        "",
        "Declarative linter and GitOps reconciler for NATS JetStream.",
        "",
        "commands:",
    ]
    lines += [f"  {n:<{width}}{SUMMARIES.get(n, '(plugin)')}" for n in names]
    lines += [
        "",
        "`jsops help COMMAND` or `jsops COMMAND --help` shows a command's options, examples and exit codes.",
        "Argument errors print the usage and exit 2 in every command.",
    ]
    return "\n".join(lines) + "\n"


def _unknown_command(name: str) -> int:
    import difflib

    names = _commands()
    close = difflib.get_close_matches(name, names, n=1, cutoff=0.5)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    sys.stderr.write("usage: jsops [--version] [--help] COMMAND [ARGS]\n")
    sys.stderr.write(f"jsops: error: unknown command {name!r}{hint}\ncommands: {', '.join(names)}\n")
    return ExitCode.USAGE


# Optional dependencies a command needs, and how a user gets them.
_EXTRAS = {"pyspark": f"the spark extra: {install_hint('spark')} (and a Java 17+ runtime for Spark)"}


def _missing_dependency(command: str, exc: ImportError) -> int:
    name = (getattr(exc, "name", None) or "").split(".")[0]
    how = _EXTRAS.get(name, f"the Python package {name!r}" if name else "a package that is not installed")
    print(f"jsops {command}: needs {how}", file=sys.stderr)
    return ExitCode.NOT_RUN


def _plugin(name: str, argv: list[str]) -> int:
    """Run the plugin command ``name`` (its entry point takes argv and returns the exit code)."""
    try:
        command = _plugin_commands()[name].load()
    except ImportError as exc:  # an optional dependency is missing: say how to get it
        return _missing_dependency(name, exc)
    try:
        return int(command(argv))
    except KeyboardInterrupt:
        return ExitCode.INTERRUPTED
    except SystemExit as exc:  # a plugin with its own argparse: --help is 0, argument errors 2
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)


def _builtin(argv: list[str]) -> int:
    """A built-in command (run by :func:`jsops.linter.cli.kit.run`)."""
    parser = _build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra:  # reported by the command's own parser, with its usage
        sub = getattr(args, "_subparsers", {}).get(args.command) or parser
        sub.error(f"unrecognized arguments: {' '.join(extra)}")
    if args.command is None:
        sys.stderr.write(top_help())
        return ExitCode.USAGE
    if args.command == "lint":
        if args.unsafe_fixes and not (args.fix or args.diff):
            parser.error("--unsafe-fixes needs --fix or --diff")
        from .lint import lint_command

        return lint_command(args, VERSION)
    if args.command in ("rule", "rules"):
        from .lint import rule_docs_command

        return rule_docs_command(args)
    if args.command == "policy":
        from .policy import policy_test_command

        return policy_test_command(args)
    if args.command == "completion":
        from .completion import completion_script

        sys.stdout.write(completion_script(args.shell, _commands(), _command_options, SUMMARIES))
        return ExitCode.OK
    sys.stdout.write(top_help())  # help
    return ExitCode.OK


def main(argv: Sequence[str] | None = None) -> int:
    """The ``jsops`` console script: returns the exit code (:mod:`jsops.linter.exitcodes`)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in ("-h", "--help"):
        sys.stdout.write(top_help())
        return ExitCode.OK
    if argv and argv[0] == "help":
        if len(argv) == 1:
            sys.stdout.write(top_help())
            return ExitCode.OK
        if argv[1] == "help":
            argv = ["help", "--help"]
        elif not argv[1].startswith("-"):
            return main([argv[1], "--help"])
    if argv and not argv[0].startswith("-") and argv[0] not in BUILTIN:
        if argv[0] in _plugin_commands():
            return _plugin(argv[0], argv[1:])
        return _unknown_command(argv[0])
    if not argv:
        sys.stderr.write(top_help())
        return ExitCode.USAGE
    return run(_builtin, argv)


def _command_options(name: str) -> list[str]:
    """The option strings of a command, read from its --help (plugins are not imported otherwise)."""
    import contextlib
    import io
    import re

    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            main([name, "--help"])
    except BaseException:  # a plugin that cannot load still gets command completion
        return []
    return sorted(set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", out.getvalue())))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
