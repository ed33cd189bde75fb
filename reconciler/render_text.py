"""The plan as text, in the manner of ``terraform plan``: ``+`` create, ``~`` update, ``-/+``
recreate, ``-`` delete, ``!`` blocked; unchanged fields are not shown; a summary line ends it."""

from __future__ import annotations

import json
from typing import Any

from linter.buckets import BUCKET_FIELDS, bucket_kind_of

from .plan import Action, Plan, PlanSet

__all__ = ["render_text", "render_plans", "format_value", "summary_line"]

_SYMBOL = {"create": "+", "update": "~", "adopt": "~", "recreate": "-/+", "delete": "-", "blocked": "!"}
_DURATIONS = {
    "max_age", "duplicate_window", "ack_wait", "idle_heartbeat", "inactive_threshold", "max_expires",
    "subject_delete_marker_ttl", "priority_timeout", "ttl", "limit_marker_ttl",
}
_UNITS = (("d", 86400), ("h", 3600), ("m", 60), ("s", 1))


def _duration(ns: int) -> str:
    if ns <= 0 or ns % 1_000_000_000:
        return f"{ns / 1e9:g}s" if ns > 0 else "0"
    secs = ns // 1_000_000_000
    parts = []
    for unit, size in _UNITS:
        if secs >= size:
            parts.append(f"{secs // size}{unit}")
            secs %= size
    return "".join(parts)


def format_value(path: str, value: Any) -> str:
    if value is None:
        return "(absent)"
    text = json.dumps(value, sort_keys=True, separators=(", ", ": "))
    if path in _DURATIONS and isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return f"{text} ({_duration(value)})"
    if path == "backoff" and isinstance(value, list):
        return "[" + ", ".join(_duration(v) if isinstance(v, int) else json.dumps(v) for v in value) + "]"
    return text


def summary_line(plan: Plan | PlanSet) -> str:
    s = plan.summary()
    parts = [f"{s['create']} to create", f"{s['update']} to update", f"{s['recreate']} to recreate", f"{s['delete']} to delete"]
    if s["adopt"]:
        parts.append(f"{s['adopt']} to adopt")
    parts.append(f"{s['blocked']} blocked")
    return "Plan: " + ", ".join(parts) + "."


def _bucket(a: Action) -> tuple[str, str] | None:
    """``(kind, bucket)`` when the action's stream is a bucket's stream (its name and subjects)."""
    if a.kind != "Stream":
        return None
    subjects = (a.config or {}).get("subjects")
    if a.config is None:  # deletes: the changes carry no config; the name is all there is
        subjects = [f"$KV.{a.name[3:]}.>"] if a.name.startswith("KV_") else [f"$O.{a.name[4:]}.C.>", f"$O.{a.name[4:]}.M.>"]
    return bucket_kind_of(a.name, subjects)


def _field(path: str, bucket: tuple[str, str] | None) -> str:
    """A stream field as the bucket names it (``max_msgs_per_subject`` -> ``history``); a field
    the client sets itself keeps its stream name, prefixed ``stream.``."""
    if bucket is None:
        return path
    named = BUCKET_FIELDS[bucket[0]].get(path)
    return named if named is not None else f"stream.{path}"


def _action(a: Action) -> list[str]:
    sym = _SYMBOL[a.action]
    bucket = _bucket(a)
    head = f"{sym} {a.label}" if bucket is None else f"{sym} {bucket[0]} {bucket[1]} (stream {a.name})"
    if a.action == "blocked":
        head += f"  (blocked {a.wanted}: {a.reason})"
    elif a.action == "adopt":
        head += "  (adopt)"
    lines = [head]
    if a.action == "create" and a.config:
        for k, v in a.config.items():
            if k in ("name", "durable_name") or (bucket is not None and (k not in BUCKET_FIELDS[bucket[0]] or v in (-1, "none") or (k == "allow_direct" and v is True))):
                continue  # a bucket shows the fields it sets; the stream the client builds is in the JSON plan
            lines.append(f"    + {_field(k, bucket)}: {format_value(k, v)}")
    for c in a.changes:
        f = _field(c.path, bucket)
        lines.append(f"    ~ {f}: {format_value(c.path, c.old)} -> {format_value(c.path, c.new)}  [{c.cls}]")
        if c.cls != "in-place" or c.consequence not in ("applied in place",):
            lines.append(f"        {c.consequence}")
    if a.consequence:
        lines.append(f"    # {a.consequence}")
    return lines


def _where(plan: Plan) -> str:
    names = list(plan.contexts or (plan.context,))
    return plan.target + (f" (context {', '.join(names)})" if names != ["default"] else "")


def render_text(plan: Plan) -> str:
    if not plan.actions:
        return f"No changes. {_where(plan)} matches the manifests.\n"
    out = [f"jsops will perform these actions on {_where(plan)}:", ""]
    for a in plan.actions:
        out.extend("  " + line for line in _action(a))
        out.append("")
    out.append(summary_line(plan))
    return "\n".join(out) + "\n"


def render_plans(plans: PlanSet) -> str:
    """Every target's plan in turn; with several targets, a closing line sums them up."""
    parts = [render_text(p) for p in plans.plans]
    if not plans.changed:
        return "".join(parts)
    if len(plans.plans) > 1:
        parts.append(summary_line(plans).replace("Plan:", f"Total on {len(plans.plans)} targets:", 1) + "\n")
    return "\n".join(parts)
