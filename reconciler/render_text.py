"""The plan as text, in the manner of ``terraform plan``: ``+`` create, ``~`` update, ``-/+``
recreate, ``-`` delete, ``!`` blocked; unchanged fields are not shown; a summary line ends it.

Creates list the fields the manifest sets; the rest (values the server fills in) are summed up in
one line, and listed, marked ``(default)``, with ``verbose``. Durations and sizes read as people
write them (``30s``, ``64MiB``). ``color`` paints the symbols as terraform does; ``compact`` gives
one line per object for large estates.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from jsops.linter import (
    BUCKET_FIELDS,
    SERVER_DEFAULTS,
    EffectiveStream,
    Kind,
    bucket_kind_of,
    format_duration,
    format_size,
)
from jsops.linter.semantics import catalog
from jsops.linter.semantics.catalog import Unit

from .drift import Attribution
from .plan import Plan, PlanItem, PlanSet
from .render_refusal import reason_of
from .stale import LiveChange
from .vocabulary import ActionKind, ChangeClass, Outcome

__all__ = ["render_text", "render_plans", "format_value", "summary_line", "outcome_lines", "stale_lines", "Explicit"]

# (kind, stream or None, name) -> the config fields the manifest sets
Explicit = Mapping[tuple[str, "str | None", str], frozenset[str]]

_COLOR = {"+": "32", "~": "33", "-": "31", "-/+": "31", "!": "1;31", "=>": "36", "||": "33", "|>": "33", "<<": "33"}
# A value is read by its field's unit in the catalog (by leaf name: the same in every record)
_UNITS = catalog.leaf_units()

_OWN_PREFIX = "io.jsops."


def format_value(path: str, value: Any, kind: str = "", unit: Unit | None = None) -> str:
    """``value`` of the field at ``path`` as people write it, read by ``unit`` (default: the unit of the
    path's leaf name in the catalog)."""
    if value is None:
        return "(absent)"
    leaf = path.rsplit(".", 1)[-1]
    if unit is None:
        unit = _UNITS.get(leaf)
    is_int = isinstance(value, int) and not isinstance(value, bool)
    if unit is Unit.DURATION and is_int:
        text = format_duration(value)
        return f"{text} ({value} ns: a bare number is nanoseconds)" if 0 < value < 1_000_000 else text
    if unit is Unit.SIZE and is_int:
        return "-1 (unlimited)" if value < 0 else format_size(value)
    if leaf == "num_replicas" and value == 0 and kind == Kind.CONSUMER:
        return "0 (inherits the stream's)"
    if unit is Unit.DURATIONS and isinstance(value, list):
        return "[" + ", ".join(format_duration(v) if isinstance(v, int) else json.dumps(v) for v in value) + "]"
    return json.dumps(value, sort_keys=True, separators=(", ", ": "))


def summary_line(plan: Plan | PlanSet) -> str:
    s = plan.summary()
    parts = [
        f"{s['create']} to create",
        f"{s['update']} to update",
        f"{s['recreate']} to recreate",
        f"{s['delete']} to delete",
    ]
    if s["adopt"]:
        parts.append(f"{s['adopt']} to adopt")
    if s.get("migrate"):
        parts.append(f"{s['migrate']} to migrate")
    for kind in ("pause", "resume", "reset"):  # the server-API actions, when there are some
        if s.get(kind):
            parts.append(f"{s[kind]} to {kind}")
    parts.append(f"{s['blocked']} blocked")
    lost = s.get("data_loss", 0)
    tail = f"; up to {lost} stored message{'s' if lost != 1 else ''} lost (data loss)" if lost else ""
    return "Plan: " + ", ".join(parts) + tail + "."


def _paint(sym: str, color: bool) -> str:
    return f"\x1b[{_COLOR[sym]}m{sym}\x1b[0m" if color else sym


def _shown_metadata(value: Any, verbose: bool) -> Any:
    if verbose or not isinstance(value, dict):
        return value
    return {k: v for k, v in value.items() if not k.startswith(_OWN_PREFIX)}


def _create_fields(a: PlanItem, explicit: Explicit | None, verbose: bool, color: bool) -> list[str]:
    config = a.request() if a.config is not None else {}
    wanted = explicit.get((a.kind, a.stream, a.name)) if explicit is not None else None
    defaults = SERVER_DEFAULTS.get(a.kind, {})
    plus = _paint("+", color)
    shown, hidden = [], []
    for k, v in config.items():
        if k in ("name", "durable_name"):
            continue
        if k == "metadata":
            v = _shown_metadata(v, verbose)
            if v:
                shown.append(f"    {plus} {k}: {format_value(k, v, a.kind)}")
            continue
        is_default = (k not in wanted) if wanted is not None else (k in defaults and defaults[k] == v)
        line = f"    {plus} {k}: {format_value(k, v, a.kind)}"
        if is_default:
            hidden.append(line + "  (default)")
        else:
            shown.append(line)
    if verbose:
        return shown + hidden
    if hidden:
        shown.append(f"    {plus} {len(hidden)} server default{'s' if len(hidden) != 1 else ''} (--verbose lists them)")
    return shown


def _bucket(a: PlanItem) -> tuple[str, str] | None:
    """``(kind, bucket)`` when the action's stream is a bucket's stream (its name and subjects)."""
    if a.kind != Kind.STREAM:
        return None
    if isinstance(a.config, EffectiveStream):
        subjects = list(a.config.subjects)
    else:  # deletes: the changes carry no config; the name is all there is
        subjects = (
            [f"$KV.{a.name[3:]}.>"] if a.name.startswith("KV_") else [f"$O.{a.name[4:]}.C.>", f"$O.{a.name[4:]}.M.>"]
        )
    return bucket_kind_of(a.name, subjects)


def _field(path: str, bucket: tuple[str, str] | None) -> str:
    """A stream field as the bucket names it (``max_msgs_per_subject`` -> ``history``); a field
    the client sets itself keeps its stream name, prefixed ``stream.``."""
    if bucket is None:
        return path
    named = BUCKET_FIELDS[bucket[0]].get(path)
    return named if named is not None else f"stream.{path}"


def _author(a: PlanItem, path: str, context: str, drift: Attribution | None) -> str:
    """``  changed by ...`` for a drifted field whose author the audit record names (else "")."""
    who = drift.of(context, a.kind, a.stream, a.name, path) if drift else None
    return f"  {who.describe(drift.read_at)}" if who is not None and drift is not None else ""


def _head_note(a: PlanItem) -> str:
    """What an item's head line says after its name: why it is blocked, an adopt, a migration's kind."""
    if a.action == "blocked":
        return f"  (blocked {a.wanted}: {reason_of(a)})"
    if a.action == "adopt":
        return "  (adopt)"
    if a.action == ActionKind.MIGRATE and a.migration is not None and a.migration.rollback:
        return f"  (roll back the migration from {a.migration.source})"
    if a.action == ActionKind.MIGRATE and a.migration is not None:
        return f"  (migrate from {a.migration.source})" if a.migration.source != a.name else "  (migrate in place)"
    return ""


def _bucket_fields(a: PlanItem, bucket: tuple[str, str], color: bool, verbose: bool) -> list[str]:
    """A bucket's create lines: the fields it sets (the stream the client builds is in the JSON plan)."""
    plus = _paint("+", color)
    lines = []
    for k, v in a.request().items():
        if (
            k in ("name", "durable_name")
            or k not in BUCKET_FIELDS[bucket[0]]
            or v in (-1, "none")
            or (k == "allow_direct" and v is True)
        ):
            continue
        if k == "metadata":  # jsops's own stamps are hidden as for a stream (--verbose shows them)
            v = _shown_metadata(v, verbose)
            if not v:
                continue
        lines.append(f"    {plus} {_field(k, bucket)}: {format_value(k, v, a.kind)}")
    return lines


def _action(
    a: PlanItem,
    *,
    explicit: Explicit | None = None,
    verbose: bool = False,
    color: bool = False,
    drift: Attribution | None = None,
    context: str = "",
) -> list[str]:
    sym = ActionKind(a.action).symbol
    bucket = _bucket(a)
    head = (
        f"{_paint(sym, color)} {a.label}"
        if bucket is None
        else f"{_paint(sym, color)} {bucket[0]} {bucket[1]} (stream {a.name})"
    )
    lines = [head + _head_note(a)]
    if a.action == "create" and a.config:
        lines.extend(
            _create_fields(a, explicit, verbose, color) if bucket is None else _bucket_fields(a, bucket, color, verbose)
        )
    tilde = _paint("~", color)
    for c in a.changes:
        lines.append(
            f"    {tilde} {_field(c.path, bucket)}: {format_value(c.path, c.old, a.kind, c.unit)} -> {format_value(c.path, c.new, a.kind, c.unit)}  [{c.cls}]"
            + _author(a, c.path, context, drift)
        )
        if c.cls != ChangeClass.IN_PLACE or c.consequence not in ("applied in place",):
            lines.append(f"        {c.consequence}")
    if a.consequence:
        lines.extend(f"    # {part}" for part in a.consequence.split("\n"))
    return lines


def _where(plan: Plan) -> str:
    names = list(plan.contexts or (plan.context,))
    return plan.target + (f" (context {', '.join(names)})" if names != ["default"] else "")


def _held(plan: Plan, drift: Attribution | None) -> list[str]:
    """The fields the plan left as they are live (owned elsewhere, quarantined), one line each."""
    if not drift:
        return []
    lines = []
    for k, h in drift.held_in(plan.context):
        label = f"{k.kind} {k.stream}/{k.name}" if k.kind == Kind.CONSUMER else f"{k.kind} {k.name}"
        lines.append(
            f"  = {label} {k.field}: {format_value(k.field, h.live, k.kind)} kept, {h.reason}; the manifest says {format_value(k.field, h.manifest, k.kind)}"
        )
    return lines


def render_text(
    plan: Plan,
    *,
    explicit: Explicit | None = None,
    verbose: bool = False,
    color: bool = False,
    compact: bool = False,
    drift: Attribution | None = None,
) -> str:
    """One target's plan; ``drift`` names who changed its drifted fields and the fields left as
    they are live (jsops.reconciler.drift)."""
    held = _held(plan, drift)
    if not plan.actions:
        return f"No changes. {_where(plan)} matches the manifests.\n" + "".join(f"{line}\n" for line in held)
    out = [f"jsops will perform these actions on {_where(plan)}:", ""]
    for a in plan.actions:
        if compact:
            lines = _action(a, color=color)
            extra = f"  ({len(a.changes)} change{'s' if len(a.changes) != 1 else ''})" if a.changes else ""
            out.append("  " + lines[0] + extra)
            continue
        out.extend(
            "  " + line
            for line in _action(a, explicit=explicit, verbose=verbose, color=color, drift=drift, context=plan.context)
        )
        out.append("")
    if compact:
        out.append("")
    if held:
        out += [*held, ""]
    out.append(summary_line(plan))
    return "\n".join(out) + "\n"


def render_plans(
    plans: PlanSet,
    *,
    explicit: Explicit | None = None,
    verbose: bool = False,
    color: bool = False,
    compact: bool = False,
    drift: Attribution | None = None,
) -> str:
    """Every target's plan in turn; with several targets, a closing line sums them up."""
    parts = [
        render_text(p, explicit=explicit, verbose=verbose, color=color, compact=compact, drift=drift)
        for p in plans.plans
    ]
    if not plans.changed:
        return "".join(parts)
    if len(plans.plans) > 1:
        parts.append(summary_line(plans).replace("Plan:", f"Total on {len(plans.plans)} targets:", 1) + "\n")
    return "\n".join(parts)


_LISTED = 10  # actions an interruption left undone that the summary names one by one


def outcome_lines(results: Sequence[Any], interrupted: str | None = None) -> list[str]:
    """The closing lines of ``jsops apply`` for its :class:`~jsops.reconciler.apply.ActionResult` list:
    what an interruption (``interrupted``: the signal's name) left undone, the counts, and what
    to do next."""
    count = {s.value: sum(1 for r in results if r.status == s) for s in Outcome}
    out: list[str] = []
    left = [r for r in results if r.interrupted]
    if interrupted:
        out += [
            "",
            f"Interrupted ({interrupted}): stopped after the requests in flight; {len(left)} action{'s' if len(left) != 1 else ''} not attempted.",
        ]
        for r in left[:_LISTED]:
            out.append(f"  not attempted {ActionKind(r.action.wanted or r.action.action).symbol} {r.action.label}")
        if len(left) > _LISTED:
            out.append(f"  ... and {len(left) - _LISTED} more")
    unknown = f", {count['unknown']} unknown" if count["unknown"] else ""
    out += [
        "",
        f"Apply: {count['done']} done, {count['failed']} failed, {count['skipped']} not attempted, {count['blocked']} blocked{unknown}.",
    ]
    if interrupted:
        out.append("Run apply again to finish: it plans again from the live state, so what was done is not done twice.")
    elif any(r.status != "done" for r in results):
        if count["unknown"]:
            out.append(
                "The server did not answer for some actions and they could not be read back; run plan to see the live state."
            )
        out.append(
            "The target has not converged; fix the failures (or pass the flags named above) and run apply again."
        )
    return out


_STALE = {
    "created": "created since the plan was made",
    "deleted": "deleted since the plan was made",
    "changed": "its config changed since the plan was made",
    "messages": "it holds messages now (it held none when the plan was made)",
}


def stale_lines(changes: Sequence[LiveChange]) -> list[str]:
    """What changed on a target since a saved plan was made, one line per object (and per field the plan read)."""
    if not changes:
        return ["  (the objects the plan acts on are as they were: another object of the target changed)"]
    out: list[str] = []
    for c in changes:
        out.append(f"  {c.label}: {_STALE[c.what]}")
        out += [
            f"    {path}: {format_value(path, then, c.kind)} when planned, now {format_value(path, now, c.kind)}"
            for path, then, now in c.fields
        ]
    return out
