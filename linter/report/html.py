"""One self-contained HTML page about an estate and its measured profile (``jsops report``, whose
command line is :mod:`jsops.linter.cli.report`).

The page shows each consumer's ack-time distribution against its effective ack_wait, each stream's
ingest rate against its limits, and the lint findings. It is a jinja2 template with inline CSS and
inline SVG: no scripts, no fonts, images or anything else from the network.

Compute and presentation are apart: :func:`jsops.linter.report._html_model.build_report` turns estate,
profiles and findings into :class:`ReportData`; :func:`render_html` turns that into HTML (autoescaped:
names from manifests are user data).
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib import resources
from typing import TYPE_CHECKING, Any

from ._html_model import ReportData, build_report

if TYPE_CHECKING:
    from ..config import Config

__all__ = ["ReportData", "build_report", "render_html", "report_from_paths"]

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

    source = resources.files("jsops.linter.report").joinpath("templates", TEMPLATE).read_text(encoding="utf-8")
    env = _environment()

    def config_duration(ns: int | None) -> str:
        """A configured duration exactly (``45s``, ``1h30m``), in days rather than weeks like the
        measured ones (``7d``, not ``1w``)."""
        if not ns:
            return "unlimited"
        text = format_duration(int(ns))
        return f"{int(text[:-1]) * 7}d" if text.endswith("w") else text

    env.filters["config_duration"] = config_duration
    page: str = env.from_string(source).render(r=data)
    return page


def report_from_paths(
    paths: Sequence[str],
    *,
    profiles_path: str | None = None,
    config: Config | None = None,
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
        estate,
        profiles,
        result.findings,
        ctx.effective,
        sources=tuple(paths),
        profiles_source=profiles_path,
        title=f"jsops report ({env})" if env else "jsops report",
    )
