"""jsops reconciler: live state, normalisation, diff, plan, apply and export.

The only package that imports ``nats`` (and within it only :mod:`jsops.reconciler.client`). It may import
``linter``; ``linter`` never imports it.
Plans are data (:class:`Plan`); renderers are ``jsops.reconciler.render_text`` and ``jsops.reconciler.render_json``.
"""

from __future__ import annotations

from .client import Target, TargetError, load_context, resolve_context
from .diff import Change, diff_configs, normalise
from .live import LiveConsumer, LiveState, LiveStream
from .plan import Desired, Intent, Plan, PlanItem, PlanOptions, PlanSet, build_plan, desired_from_estate

__all__ = [
    "Change",
    "Desired",
    "Intent",
    "LiveConsumer",
    "LiveState",
    "LiveStream",
    "Plan",
    "PlanItem",
    "PlanOptions",
    "PlanSet",
    "Target",
    "TargetError",
    "build_plan",
    "desired_from_estate",
    "diff_configs",
    "load_context",
    "normalise",
    "resolve_context",
]
