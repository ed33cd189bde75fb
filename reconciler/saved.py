"""Saved plans: what binds one to its manifests, and the per-action re-check apply makes.

A plan written by ``jsops plan --out`` carries a binding (see :func:`jsops.reconciler.plan.seal`): the
PATHs and environment it was made from, a digest of those manifests (each file's path, in
:func:`~jsops.reconciler.plan.source_path` form, and bytes), and a digest over the whole saved plan
(actions, targets and live fingerprints included). ``apply --plan`` recomputes them and refuses a
plan that differs. The digests catch edits and misplaced plans, not a forger; :func:`recheck`
is what keeps even a forged plan to objects jsops owns and to the flags given to apply.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from jsops.linter import Kind

from .configs import Config, config_json, config_name
from .live import MANAGED_BY, OWNER, LiveState, owned
from .plan import Intent, Plan, PlanItem, PlanOptions, source_path
from .vocabulary import ActionKind

__all__ = ["manifest_digest", "recheck", "rederive", "rederived"]


def manifest_digest(files: Iterable[str], rendered: dict[str, Any] | None = None, root: str | None = None) -> str:
    """SHA-256 over each manifest's recorded path and bytes (and a template's rendered text)."""
    h = hashlib.sha256()
    for path, f in sorted((source_path(f, root), f) for f in set(files)):
        with open(f, "rb") as fh:
            data = fh.read()
        h.update(f"{path}\0{len(data)}\0".encode())
        h.update(data)
        text = getattr((rendered or {}).get(f), "text", None)
        if isinstance(text, str):
            h.update(f"\0rendered\0{len(text)}\0".encode())
            h.update(text.encode())
    return "sha256:" + h.hexdigest()


def recheck(a: Intent, live: LiveState, opt: PlanOptions) -> str | None:
    """Why ``a`` is not an action jsops may take on ``live`` with ``opt`` (``None`` when it is).

    Independent of how the plan was made: writes name the object they act on and carry jsops's
    ownership; objects that exist are changed, recreated or deleted only when jsops owns them
    (or the action is a takeover: authorize judged the adopt grant of one planning made, and
    ``--adopt`` must name one read from a file); deletes stay inside the prune scope (PATHs and contexts).
    A blocked item is not rechecked (nothing is sent for it): pass the intents that run."""
    if a.action == ActionKind.BLOCKED:
        return None
    target = f"{a.stream}/{a.name}" if a.kind == Kind.CONSUMER else a.name
    if a.action != ActionKind.DELETE:
        problem = _config_problem(a)
        if problem is not None:
            return problem
    cur = live.streams.get(a.name) if a.kind == Kind.STREAM else live.consumers.get((a.stream or "", a.name))
    cfg = cur.config if cur is not None else None
    if a.action == ActionKind.DELETE:
        return _delete_problem(cfg, opt)
    if ActionKind(a.action).writes and not ActionKind(a.action).creates and cfg is None:
        return "it does not exist on the target"
    if cfg is not None and not owned(cfg) and a.adopting is None and not opt.adopts(a.kind, a.name, a.stream):
        return f"it exists and is not managed by jsops (pass --adopt {target} to take it over)"
    return None


def _config_problem(a: Intent) -> str | None:
    """Why the config a write sends is not one jsops may send for ``a`` (None: it is)."""
    name = config_name(a.config) if a.config is not None else None
    if name != a.name:
        return f"its config names {name!r}, not {a.name!r}"
    if a.config is None or a.config.metadata.get(MANAGED_BY) != OWNER:
        return "its config does not carry jsops ownership metadata"
    return None


def _delete_problem(cfg: Config | None, opt: PlanOptions) -> str | None:
    """Why jsops may not delete the object whose live config is ``cfg`` (None: it may)."""
    if cfg is None:
        return None  # already gone: nothing is sent that could do harm
    if not owned(cfg):
        return "it is not managed by jsops (jsops deletes only objects it owns)"
    if not opt.prunable(cfg):
        return "it was not recorded from the PATHs and contexts given to apply (outside the prune scope)"
    return None


def _canon(value: object) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def _steps(a: Intent) -> dict[str, Any] | None:
    """A migration's steps without the counts it was planned with (publishers keep publishing)."""
    return None if a.migration is None else a.migration.steps()


def _mismatch(a: Intent, f: Intent) -> str | None:
    """How saved intent ``a`` differs from ``f``, the one derived again (None: it does not)."""
    said, derived = a.action, f.action
    if said != derived:
        return f"the file says {said}; the manifests and the live state give {derived}"
    if a.config is not None and (
        f.config is None or _canon(config_json(a.config, a.extra)) != _canon(config_json(f.config, f.extra))
    ):
        return "its config is not the one the manifests give"
    if _canon(sorted((c.path, _canon(c.new)) for c in a.changes)) != _canon(
        sorted((c.path, _canon(c.new)) for c in f.changes)
    ):
        return "its changes are not those between the manifests and the live state"
    if _canon(_steps(a)) != _canon(_steps(f)) or (a.reset_seq, a.resume_seq) != (f.reset_seq, f.resume_seq):
        return "its steps are not those the manifests and the live state give"
    return None


def rederive(saved: Plan, fresh: Plan) -> list[str]:
    """Why actions of ``saved`` are refused against ``fresh``, the plan made again from the bound
    manifests and the live state with apply's flags and estate rules (nothing is applied then):
    one the fresh plan does not have, or has otherwise. :func:`rederived` is the plan sent."""
    return _rederive(saved, fresh)[1]


def rederived(saved: Plan, fresh: Plan) -> Plan:
    """``saved`` with each action replaced by the one ``fresh`` has for the same object. An action
    blocked in the saved plan stays blocked (nothing is sent for it that was not shown); one the
    fresh plan blocks is blocked: what is sent comes from the manifests and the live state, never
    from the file alone."""
    return replace(saved, actions=_rederive(saved, fresh)[0])


def _rederive(saved: Plan, fresh: Plan) -> tuple[list[PlanItem], list[str]]:
    by_key: dict[tuple[str, str | None, str], PlanItem] = {}
    for act in fresh.actions:
        by_key.setdefault((act.kind, act.stream, act.name), act)
    refused: list[str] = []
    out: list[PlanItem] = []
    for a in saved.actions:
        if a.action == ActionKind.BLOCKED:
            out.append(a)
            continue
        f = by_key.get((a.kind, a.stream, a.name))
        why = "the manifests and the live state ask for no such action" if f is None else _mismatch(a.intent, f.intent)
        if why is not None:
            refused.append(f"{a.label} ({a.action}): {why}")
        elif f is not None:
            out.append(f)
    return out, refused
