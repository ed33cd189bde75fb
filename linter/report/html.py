"""``jsops report``: one self-contained HTML page about an estate and its measured profile.

    jsops report [PATH ...] --profiles P --html out.html [--env NAME] [--config FILE | --no-config]

The page shows each consumer's ack-time distribution against its effective ack_wait, each stream's
ingest rate against its limits, and the lint findings. It is a jinja2 template with inline CSS and
inline SVG: no scripts, no fonts, images or anything else from the network.

Compute and presentation are apart: :func:`linter.report._html_model.build_report` turns estate,
profiles and findings into :class:`ReportData`; :func:`render_html` turns that into HTML (autoescaped:
names from manifests are user data).

Exit codes: 0 the page was written (findings are content, not failure), 2 bad arguments or a file
that cannot be read or written.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from importlib import resources
from typing import Any

from ._html_model import ReportData, build_report

__all__ = ["ReportData", "build_report", "render_html", "report_from_paths", "main"]

TEMPLATE = "report.html.j2"


def _environment() -> Any:
    import jinja2

    env = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    from . import _html_charts as charts

    env.filters.update(
        duration=charts.fmt_duration,
        bytes=charts.fmt_bytes,
        bytes_rate=charts.fmt_bytes_rate,
        rate=charts.fmt_rate,
        count=charts.fmt_count,
        percent=charts.fmt_percent,
    )
    env.globals.update(consumer_chart=charts.consumer_chart, stream_chart=charts.stream_chart)
    return env


def render_html(data: ReportData) -> str:
    """The report page for ``data`` (deterministic: the same data gives the same bytes)."""
    from ..semantics.units import format_duration

    source = resources.files("linter.report").joinpath("templates", TEMPLATE).read_text(encoding="utf-8")
    env = _environment()
    def config_duration(ns: int | None) -> str:
        """A configured duration exactly (``45s``, ``1h30m``), in days rather than weeks like the
        measured ones (``7d``, not ``1w``)."""
        return format_duration(int(ns), weeks=False) if ns else "unlimited"

    env.filters["config_duration"] = config_duration
    html: str = env.from_string(source).render(r=data)
    return html


def report_from_paths(
    paths: Sequence[str],
    *,
    profiles_path: str | None = None,
    config: Any = None,
    env: str | None = None,
) -> ReportData:
    """Load, lint (with the profiles) and build the report data. Raises ``LoadError`` /
    ``ProfilesError`` for input that cannot be read."""
    from ..api import RuleContext
    from ..config import Config
    from ..engine import lint_estate
    from ..load import load_paths
    from ..model.profiles import load_profiles

    cfg = config if config is not None else Config()
    profiles = load_profiles(profiles_path) if profiles_path else None
    estate = load_paths(list(paths), env=env) if env else load_paths(list(paths))
    result = lint_estate(estate, config=cfg, profiles=profiles)
    ctx = RuleContext(estate, cfg.target, profiles)
    return build_report(
        estate, profiles, result.findings, ctx.effective, sources=tuple(paths), profiles_source=profiles_path,
        title=f"jsops report ({env})" if env else "jsops report",
    )


class _Usage(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise _Usage(message)


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="jsops report", description="Write a self-contained HTML report of an estate with its profiles and findings.",
                formatter_class=argparse.RawDescriptionHelpFormatter, epilog=(
                    "examples:\n"
                    "  jsops report manifests/ --profiles profiles.json --html report.html\n"
                    "  jsops report --env prod --html prod.html      # the config's paths, templates rendered for prod\n\n"
                    "exit codes:\n"
                    "  0  written\n"
                    "  2  could not run (bad arguments, unreadable config, profiles or manifests, cannot write)\n"))
    p.add_argument("paths", nargs="*", metavar="PATH", help="manifest files or directories (default: the config's paths, else .)")
    p.add_argument("--profiles", metavar="FILE", help="profiles JSON written by `jsops profile` (default: the config's profiles)")
    p.add_argument("--html", metavar="OUT", required=True, help="the HTML file to write")
    p.add_argument("--env", metavar="NAME", help="render *.yaml.j2 templates with environments/NAME.yaml")
    p.add_argument("--config", metavar="FILE", help="jsops config (default: found from . upward)")
    p.add_argument("--no-config", action="store_true", help="ignore any jsops config file")
    return p


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _err(message: str) -> int:
    print(f"jsops report: error: {message}", file=sys.stderr)
    return 2


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``jsops report`` (argv after the command name); returns the exit code."""
    from ..config import ConfigError, load_config
    from ..load import LoadError
    from ..model.profiles import ProfilesError

    parser = _parser()
    try:
        args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    except _Usage as exc:
        parser.print_usage(sys.stderr)
        return _err(str(exc))
    try:
        cfg = load_config(None, search=False) if args.no_config else load_config(args.config)
    except ConfigError as exc:
        return _err(str(exc))
    paths = list(args.paths) or [cfg.resolve_path(p) for p in cfg.paths] or ["."]
    profiles = args.profiles or (cfg.resolve_path(cfg.profiles) if cfg.profiles else None)
    try:
        data = report_from_paths(paths, profiles_path=profiles, config=cfg, env=args.env)
    except (LoadError, ProfilesError) as exc:  # LoadError includes an unknown --env
        return _err(str(exc))
    page = render_html(data)
    try:
        with open(args.html, "w", encoding="utf-8") as fh:
            fh.write(page)
    except OSError as exc:
        return _err(f"cannot write {args.html}: {exc.strerror or exc}")
    print(f"jsops report: wrote {args.html} ({_count(len(data.streams), 'stream')}, "
          f"{_count(len(data.consumers), 'consumer')}, {_count(data.total_findings, 'finding')})", file=sys.stderr)
    return 0
