"""``jsops report``: write the HTML page of :mod:`jsops.linter.report.html` for an estate and its profiles.

    jsops report [PATH ...] --profiles P --html out.html [--env NAME] [--config FILE | --no-config]

Exit codes: 0 the page was written (findings are content, not failure), 2 bad arguments or a file
that cannot be read or written.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from ..exitcodes import ExitCode, exit_codes_help
from ..report.html import render_html, report_from_paths
from .kit import Exit, Parser, add_config, add_env, add_paths, config_from_args, run

__all__ = ["main"]


_EPILOG = """\
examples:
  jsops report manifests/ --profiles profiles.json --html report.html
  jsops report --env prod --html prod.html      # the config's paths, templates rendered for prod

""" + exit_codes_help("report")


def _parser() -> Parser:
    p = Parser(
        prog="jsops report",
        description="Write a self-contained HTML report of an estate with its profiles and findings.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=_EPILOG,
    )
    add_paths(p)
    p.add_argument(
        "--profiles", metavar="FILE", help="profiles JSON written by `jsops profile` (default: the config's profiles)"
    )
    p.add_argument("--html", metavar="OUT", required=True, help="the HTML file to write")
    add_env(p)
    add_config(p, "jsops config (default: found from . upward)")
    return p


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _report(argv: list[str]) -> int:
    from ..load import LoadError
    from ..model.profiles import ProfilesError

    args = _parser().parse_args(argv)
    cfg = config_from_args(args)
    paths = list(args.paths) or [cfg.resolve_path(p) for p in cfg.paths] or ["."]
    profiles = args.profiles or (cfg.resolve_path(cfg.profiles) if cfg.profiles else None)
    try:
        data = report_from_paths(paths, profiles_path=profiles, config=cfg, env=args.env)
    except (
        LoadError,
        ProfilesError,
    ) as exc:  # not LinterErrors yet (loader and model are redone apart); LoadError includes an unknown --env
        raise Exit(f"jsops report: error: {exc}", ExitCode.NOT_RUN) from None
    page = render_html(data)
    try:
        with open(args.html, "w", encoding="utf-8") as fh:
            fh.write(page)
    except OSError as exc:
        raise Exit(f"jsops report: error: cannot write {args.html}: {exc.strerror or exc}", ExitCode.NOT_RUN) from None
    print(
        f"jsops report: wrote {args.html} ({_count(len(data.streams), 'stream')}, "
        f"{_count(len(data.consumers), 'consumer')}, {_count(data.total_findings, 'finding')})",
        file=sys.stderr,
    )
    return ExitCode.OK


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``jsops report`` (argv after the command name); returns the exit code."""
    return run(_report, argv, prog="jsops report")
