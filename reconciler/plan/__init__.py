"""Plans as data: what apply would do to a target, each action with its classified changes.

:func:`build_plan` is pure: it takes the desired objects (effective configs from the manifests)
and a :class:`~jsops.reconciler.live.LiveState`, and returns a :class:`Plan`. Renderers live in
``jsops.reconciler.render_text`` and ``jsops.reconciler.render_json``.

- :mod:`.model`: :class:`Intent` (what to do), :class:`Choice` (an intent with the alternatives a grant
  decides), :class:`PlanItem` (an intent and its verdict: :mod:`jsops.reconciler.verdict`), :class:`PlanOptions`;
- :mod:`.planset`: :class:`Draft` (planning's choices), :class:`Plan` (items in apply order), :class:`PlanSet`
  and the seal of a saved plan;
- :mod:`.decide`: :func:`decide`, the one written precedence of verdicts;
- :mod:`.codec`: the plan's JSON, read through the project's record validator;
- :mod:`.desired`: :class:`Desired` and :func:`desired_from_estate`, :func:`stamp`, :func:`resume_config`;
- :mod:`.scope`: recorded manifest paths and prune scopes;
- :mod:`.ordering`: the one dependency order of streams (the plan's and apply's);
- :mod:`.ownership`: owned, foreign and unmanaged objects, jsops's bookkeeping, NACK's protections;
- :mod:`.losses`: data loss (tightened limits, interest streams) and interrupted consumer recreates;
- :mod:`.apis`: consumer changes made through the pause and reset APIs instead of a recreate;
- :mod:`.build`: :func:`plan_changes` (what would change; no grant consulted) and :func:`build_plan` (judged by the flags);
- :mod:`.authorize`: :func:`authorize`, the one permission decision (grants: flags or annotations);
- :mod:`.predict`: the server's refusals predicted against the live estate, and what they block.
"""

from __future__ import annotations

from ..permissions import ALLOW_DATA_LOSS, ALLOW_PRUNE, annotation_true, prune_marks
from ..verdict import RUN, Blocked, Dropped, Run, Verdict
from .authorize import Pick, authorize
from .build import build_plan, plan_changes
from .codec import PLAN_VERSION
from .decide import PRECEDENCE, decide, refusals
from .desired import Desired, desired_from_estate, resume_config, stamp
from .losses import config_digest
from .model import ACTIONS, Choice, Intent, PlanError, PlanItem, PlanOptions
from .ordering import deps, levels, stream_order
from .planset import Draft, Plan, PlanSet, seal, seal_intact
from .predict import (
    AccountUsage,
    Prediction,
    ServerStorage,
    account_usage,
    predict,
    predicted_refusals,
    server_storage,
)
from .scope import in_scope, prune_scope, repo_identity, repo_root, source_path

__all__ = [
    "ACTIONS",
    "ALLOW_DATA_LOSS",
    "ALLOW_PRUNE",
    "AccountUsage",
    "Blocked",
    "Choice",
    "PRECEDENCE",
    "Draft",
    "Dropped",
    "Intent",
    "Pick",
    "PlanItem",
    "RUN",
    "Run",
    "Verdict",
    "decide",
    "predicted_refusals",
    "refusals",
    "PLAN_VERSION",
    "Desired",
    "Plan",
    "PlanError",
    "PlanOptions",
    "PlanSet",
    "Prediction",
    "account_usage",
    "ServerStorage",
    "server_storage",
    "annotation_true",
    "authorize",
    "build_plan",
    "config_digest",
    "deps",
    "desired_from_estate",
    "in_scope",
    "levels",
    "plan_changes",
    "predict",
    "prune_marks",
    "prune_scope",
    "repo_identity",
    "repo_root",
    "resume_config",
    "seal",
    "seal_intact",
    "source_path",
    "stamp",
    "stream_order",
]
