"""The plan as GitHub- or GitLab-flavoured markdown, for a pull-request comment (``jsops plan --format
markdown``, ``jsops plan --comment``).

Per target: its summary line, then what needs a reviewer first (the actions refused, with why; the
actions that lose stored messages, with how many), then every action with its changes classified,
then one collapsible ``<details>`` block per action with its fields (from, to, class) and notes.

A comment has a size limit (GitHub: 65,536 characters); a plan that does not fit loses its least
important parts first (the details of plain changes, then those of refusals and data loss, then
rows of the change tables, then refusal and data-loss rows) and says at the top what was left out.

It reads the plan as the text plan does (:mod:`jsops.reconciler.render_text`): each action's kind,
label, changes and consequence, and :func:`~jsops.reconciler.render_refusal.reason_of`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from jsops.linter import SERVER_DEFAULTS

from .forge import COMMENT_LIMITS
from .plan import Plan, PlanItem, PlanSet
from .render_refusal import reason_of
from .render_text import Explicit, format_value, summary_line
from .vocabulary import ActionKind, ChangeClass

__all__ = ["GITHUB_LIMIT", "MARKER", "marker_line", "render_markdown"]

GITHUB_LIMIT = COMMENT_LIMITS["github"]  # the default: the smallest forge's comment
MARKER = "jsops-plan"  # the hidden mark a sticky comment is found by

_NOTE_ROOM = 700  # characters kept free for the truncation note and the "... and N more" lines
_WORDS = {
    "details": "the details of {n} action{s}",
    "rows": "{n} row{s} of the change tables",
    "refused": "{n} refused action{s} (rows)",
    "loss": "{n} data-loss action{s} (rows)",
}


def marker_line(name: str = MARKER) -> str:
    """The hidden HTML comment a sticky comment starts with."""
    return f"<!-- {name.replace('--', '-')} -->"


def render_markdown(
    plans: PlanSet,
    *,
    limit: int = GITHUB_LIMIT,
    marker: str | None = MARKER,
    explicit: Explicit | None = None,
    title: str = "jsops plan",
) -> str:
    """``plans`` as markdown of at most ``limit`` characters, starting with ``marker``'s hidden line
    (None: none)."""
    head = ([marker_line(marker)] if marker is not None else []) + [f"## {_escape(title)}", ""]
    if len(plans.plans) > 1 and plans.changed:
        head += [f"**{_escape(summary_line(plans).replace('Plan:', f'Total on {len(plans.plans)} targets:', 1))}**", ""]
    doc = _Doc(head, [_target(p, explicit) for p in plans.plans])
    return doc.fit(limit)


# --- the document: fixed lines and sections of droppable items -------------------------------------


@dataclass
class _Section:
    """A table (``header`` then one row per item) or a run of details blocks; ``rank``: the higher,
    the sooner its items are left out of a comment that is too long."""

    header: list[str]
    items: list[str]
    rank: int
    what: str  # a key of _WORDS
    kept: int = -1  # items shown (-1: all)

    def lines(self) -> list[str]:
        shown = self.items if self.kept < 0 else self.items[: self.kept]
        left = len(self.items) - len(shown)
        if not shown and not self.header:
            return [f"*{left} more left out (see the note at the top)*", ""] if left else []
        out = [*self.header, *shown]
        if left:
            out.append(
                f"| | *... and {left} more, left out (see the note at the top)* | | |"
                if self.header
                else f"*... and {left} more left out*"
            )
        return [*out, ""]


@dataclass
class _Target:
    name: str
    head: list[str]
    sections: list[_Section] = field(default_factory=list)


@dataclass
class _Doc:
    head: list[str]
    targets: list[_Target]

    def text(self, note: str = "") -> str:
        lines = list(self.head)
        if note:
            lines += [note, ""]
        for t in self.targets:
            lines += t.head
            for s in t.sections:
                lines += s.lines()
        return "\n".join(lines).rstrip("\n") + "\n"

    def fit(self, limit: int) -> str:
        text = self.text()
        if len(text) <= limit:
            return text
        # leave out items, least important first (highest rank; later targets and items first)
        order = [
            s
            for _, _, s in sorted(
                ((s.rank, ti, s) for ti, t in enumerate(self.targets) for s in t.sections),
                key=lambda x: (x[0], x[1]),
                reverse=True,
            )
        ]
        full, room = len(text), _NOTE_ROOM
        for _ in range(8):
            size = full
            for s in order:
                s.kept = len(s.items)
                while size + room > limit and s.kept > 0:
                    s.kept -= 1
                    size -= len(s.items[s.kept]) + 1
            text = self.text(self._note(limit))
            if len(text) <= limit:
                return text
            room += len(text) - limit  # the "... and N more" lines took more than the room kept for them
        cut = "\n\n*... cut at the comment's size limit.*\n"  # the fixed lines alone do not fit
        return text[: limit - len(cut)].rsplit("\n", 1)[0] + cut

    def _note(self, limit: int) -> str:
        counts: dict[str, int] = {}
        where: dict[str, list[str]] = {}
        for t in self.targets:
            for s in t.sections:
                left = len(s.items) - (s.kept if s.kept >= 0 else len(s.items))
                if left:
                    counts[s.what] = counts.get(s.what, 0) + left
                    where.setdefault(s.what, [])
                    if t.name not in where[s.what]:
                        where[s.what].append(t.name)
        parts = []
        for what, n in sorted(counts.items(), key=lambda kv: list(_WORDS).index(kv[0])):
            on = where[what]
            targets = (
                f" on {', '.join(on[:3])}{f' and {len(on) - 3} more targets' if len(on) > 3 else ''}"
                if len(self.targets) > 1
                else ""
            )
            parts.append(_WORDS[what].format(n=n, s="s" if n != 1 else "") + targets)
        return (
            f"> **Truncated** to fit the forge's comment limit ({limit:,} characters): left out {'; '.join(parts) or 'the end of the plan'}. "
            "`jsops plan` (text or json) shows the whole plan."
        )


# --- one target -----------------------------------------------------------------------------------


def _where(plan: Plan) -> str:
    names = list(plan.contexts or (plan.context,))
    return _code(plan.target) + (f" (context {', '.join(_code(n) for n in names)})" if names != ["default"] else "")


def _target(plan: Plan, explicit: Explicit | None) -> _Target:
    name = plan.target or plan.context
    if not plan.actions:
        return _Target(
            name, [f"### {_where(plan)}", "", f"No changes: {_code(plan.target)} matches the manifests.", ""]
        )
    refused = [a for a in plan.actions if a.action == ActionKind.BLOCKED]
    losing = [a for a in plan.actions if a.action != ActionKind.BLOCKED and _loses(a)]
    rest = [a for a in plan.actions if a not in refused and a not in losing]
    t = _Target(name, [f"### {_where(plan)}", "", _escape(summary_line(plan)), ""])
    if refused:
        t.sections.append(
            _Section(
                [
                    f"#### :no_entry: Refused ({len(refused)}): nothing is sent for these",
                    "",
                    "| | Object | Would | Why |",
                    "|---|---|---|---|",
                ],
                [
                    _row(_sym(a), _code(a.label), _escape(str(a.wanted or "")), _escape(reason_of(a) or ""))
                    for a in refused
                ],
                rank=2,
                what="refused",
            )
        )
    if losing:
        lost = sum(a.data_loss or 0 for a in losing)
        t.sections.append(
            _Section(
                [
                    f"#### :warning: Data loss ({len(losing)}): up to {lost:,} stored message{'s' if lost != 1 else ''} removed",
                    "",
                    "| | Object | Action | Stored messages removed |",
                    "|---|---|---|---|",
                ],
                [_row(_sym(a), _code(a.label), _escape(_doing(a)), _lost(a)) for a in losing],
                rank=1,
                what="loss",
            )
        )
    ordered = refused + losing + rest
    t.sections.append(
        _Section(
            [f"#### Changes ({len(ordered)})", "", "| | Object | Action | Changes (class) |", "|---|---|---|---|"],
            [_row(_sym(a), _code(a.label), _escape(_doing(a)), _classes(a)) for a in ordered],
            rank=3,
            what="rows",
        )
    )
    first = [b for b in (_details(a, explicit) for a in refused + losing) if b]
    if first:
        t.sections.append(_Section([], first, rank=4, what="details"))
    plain = [b for b in (_details(a, explicit) for a in rest) if b]
    if plain:
        t.sections.append(_Section([], plain, rank=5, what="details"))
    return t


def _loses(a: PlanItem) -> bool:
    return bool(a.data_loss) or any(c.cls == ChangeClass.DATA_LOSS for c in a.changes)


def _sym(a: PlanItem) -> str:
    return _code(ActionKind(a.action).symbol)


def _doing(a: PlanItem) -> str:
    """What the action does, in words: ``blocked update``, ``migrate from OLD``, ``adopt``."""
    if a.action == ActionKind.BLOCKED:
        return f"blocked {a.wanted}" if a.wanted else "blocked"
    if a.action == ActionKind.MIGRATE and a.migration is not None:
        if a.migration.rollback:
            return f"migrate back from {a.migration.source}"
        return "migrate in place" if a.migration.source == a.name else f"migrate from {a.migration.source}"
    return str(a.action)


def _lost(a: PlanItem) -> str:
    if a.data_loss:
        return f"up to {a.data_loss:,}"
    return "unmeasured (" + ", ".join(_code(c.path) for c in a.changes if c.cls == ChangeClass.DATA_LOSS) + ")"


def _classes(a: PlanItem) -> str:
    """The action's changes counted per class, most severe first: ``2 recreate, 1 in-place``."""
    if not a.changes:
        return {ActionKind.CREATE: "new object", ActionKind.DELETE: "removed"}.get(ActionKind(a.action), "")
    count: dict[ChangeClass, int] = {}
    for c in a.changes:
        count[c.cls] = count.get(c.cls, 0) + 1
    ranked = sorted(
        count.items(), key=lambda kv: (-kv[0].rank, kv[0] != ChangeClass.DATA_LOSS, list(ChangeClass).index(kv[0]))
    )
    return ", ".join(f"{n} {cls.value}" for cls, n in ranked)


def _details(a: PlanItem, explicit: Explicit | None) -> str:
    """One collapsible block: the action's field changes (or a create's fields) and its notes."""
    rows: list[str] = []
    notes: list[str] = []
    if a.action == ActionKind.CREATE and a.config is not None:
        rows = [_row(_code(k), "", _code(v), "") for k, v in _created(a, explicit)]
    for c in a.changes:
        rows.append(
            _row(
                _code(c.path),
                _code(format_value(c.path, c.old, a.kind, c.unit)),
                _code(format_value(c.path, c.new, a.kind, c.unit)),
                c.cls.value,
            )
        )
        if c.cls != ChangeClass.IN_PLACE or c.consequence != "applied in place":
            notes.append(f"- {_code(c.path)}: {_escape(c.consequence)}")
    if a.consequence:
        notes += [f"- {_escape(part)}" for part in a.consequence.split("\n") if part.strip()]
    if not rows and not notes:
        return ""
    n = len(a.changes)
    what = f", {n} change{'s' if n != 1 else ''}" if n else ""
    body = [
        f"<details><summary><code>{_html(ActionKind(a.action).symbol)} {_html(a.label)}</code>: {_html(_doing(a))}{what}</summary>",
        "",
    ]
    if rows:
        body += ["| Field | From | To | Class |", "|---|---|---|---|", *rows, ""]
    if notes:
        body += [*notes, ""]
    body += ["</details>", ""]  # a blank line closes the HTML block
    return "\n".join(body)


def _created(a: PlanItem, explicit: Explicit | None) -> list[tuple[str, str]]:
    """A create's fields the manifest sets (without ``explicit``: those not at the server's default)."""
    wanted = explicit.get((a.kind, a.stream, a.name)) if explicit is not None else None
    defaults = SERVER_DEFAULTS.get(a.kind, {})
    out = []
    for k, v in a.request().items():
        if k in ("name", "durable_name"):
            continue
        if k == "metadata" and isinstance(v, dict):
            v = {mk: mv for mk, mv in v.items() if not mk.startswith("io.jsops.")}
            if not v:
                continue
        elif (k not in wanted) if wanted is not None else (k in defaults and defaults[k] == v):
            continue
        out.append((k, format_value(k, v, a.kind)))
    return out


# --- markdown text ----------------------------------------------------------------------------------

_SPECIAL = re.compile(r"([\\`*_\[\]<>|~#&])")


def _escape(text: str) -> str:
    """Plain text safe in a markdown paragraph or table cell (no emphasis, links, HTML or cell breaks)."""
    return _SPECIAL.sub(r"\\\1", text).replace("\n", "<br>")


def _code(text: str) -> str:
    """``text`` as inline code, safe in a table cell (a fence longer than any backtick run in it)."""
    text = text.replace("\n", " ")
    runs = [len(m) for m in re.findall(r"`+", text)]
    fence = "`" * (max(runs, default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text.replace('|', chr(92) + '|')}{pad}{fence}"


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _row(*cells: str) -> str:
    return "| " + " | ".join(cells) + " |"
