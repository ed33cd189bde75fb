"""The ``jsops`` command line."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

__all__ = ["main"]

VERSION = "0.1.0"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # exit 2 with a one-line message, like argparse, but no usage spam
        self.print_usage(sys.stderr)
        self.exit(2, f"jsops: error: {message}\n")


def _build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="jsops", description="Declarative linter and GitOps reconciler for NATS JetStream.")
    parser.add_argument("--version", action="version", version=f"jsops {VERSION}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    lint = sub.add_parser("lint", help="check manifests before they reach a server")
    lint.add_argument("paths", nargs="*", metavar="PATH", help="files or directories (default: .)")
    lint.add_argument("--format", choices=("text", "json"), default="text")
    lint.add_argument("--fail-on", choices=("error", "warning", "info"), default="error",
                      help="lowest severity that makes the exit code 1 (default: error)")
    return parser


def _lint(args: argparse.Namespace) -> int:
    from .engine import lint_paths
    from .findings import Severity
    from .loader import LoadError

    try:
        result = lint_paths(args.paths or ["."])
    except LoadError as exc:
        print(f"jsops: error: {exc}", file=sys.stderr)
        return 2
    if args.format == "json":
        from .report.json import render_json

        sys.stdout.write(render_json(result, VERSION))
    else:
        from .report.text import render_text

        sys.stdout.write(render_text(result))
    threshold = Severity(args.fail_on).rank
    return 1 if any(f.severity.rank >= threshold for f in result.findings) else 0


COMMAND_GROUP = "jsops.commands"


def _plugin_commands() -> dict[str, object]:
    """Subcommands registered by other packages (reconciler, profiler) under ``jsops.commands``."""
    from importlib.metadata import entry_points

    return {ep.name: ep for ep in entry_points(group=COMMAND_GROUP)}


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and not argv[0].startswith("-") and argv[0] != "lint":
        plugins = _plugin_commands()
        if argv[0] in plugins:
            command = plugins[argv[0]].load()  # type: ignore[attr-defined]
            try:
                return int(command(argv[1:]))
            except KeyboardInterrupt:
                return 130
    parser = _build_parser()
    if not argv or argv[0] in ("-h", "--help"):
        names = ", ".join(["lint", *sorted(_plugin_commands())])
        parser.epilog = f"commands: {names}"
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        if args.command == "lint":
            return _lint(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 1
    parser.error(f"unknown command {args.command!r}")
    return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
