"""Rule documentation from the registry: ``jsops rule CODE|NAME``, ``jsops rules``, ``docs/rules.md``.

A rule's docstring is its documentation (ruff's sections: What it does, Why is this bad?, Example,
Use instead, Fix). Metadata (code, name, severity, groups, options) is added from the class, so it
cannot drift. Load codes (JS0xx, raised by the loader and the suppression checks) are listed too.

A consumer rule's example writes only what the rule is about: a consumer of stream ``ORDERS`` that
does not declare ``ORDERS`` runs, and is shown, after :data:`EXAMPLE_STREAM` (:func:`rule_doc`), so
every example the docs show is complete and can be copied as it is.
"""

from __future__ import annotations

import inspect
import json as _json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TypedDict

from .api import Rule, rule_groups
from .findings import LOAD_CODES, Kind
from .load import Estate, load_text

__all__ = [
    "RuleInfo",
    "RuleInfoJson",
    "RuleOptionJson",
    "EXAMPLE_STREAM",
    "rule_doc",
    "rule_infos",
    "find_rule",
    "render_rule",
    "render_rules_table",
    "render_rules_json",
    "render_rules_markdown",
]


class RuleOptionJson(TypedDict):
    """A rule option in ``jsops rule --format json``."""

    name: str
    type: str
    default: str
    description: str


class RuleInfoJson(TypedDict):
    """One rule in ``jsops rule --format json``."""

    code: str
    name: str
    severity: str
    summary: str
    groups: list[str]
    kinds: list[str]
    estate_wide: bool
    options: list[RuleOptionJson]


@dataclass(frozen=True)
class RuleInfo:
    code: str
    name: str
    severity: str
    summary: str
    doc: str  # markdown body (without the summary line); empty for load codes
    groups: tuple[str, ...] = ()
    options: tuple[tuple[str, str, str, str], ...] = field(default=())  # (name, type, default, description)
    estate_wide: bool = False
    kinds: tuple[str, ...] = ()
    url: str | None = None  # a policy's docs (the config's ``docs:``)

    def as_dict(self) -> RuleInfoJson:
        return {
            "code": self.code,
            "name": self.name,
            "severity": self.severity,
            "summary": self.summary,
            "groups": list(self.groups),
            "kinds": list(self.kinds),
            "estate_wide": self.estate_wide,
            "options": [{"name": n, "type": t, "default": d, "description": desc} for n, t, d, desc in self.options],
        }


# The stream of the consumer rules' examples: an example whose consumer reads stream ORDERS and that
# declares no stream ORDERS is this document, then the example.
EXAMPLE_STREAM = """\
apiVersion: jsops/v1
kind: Stream
metadata: {name: ORDERS}
spec: {subjects: ["orders.>"]}
"""
_EXAMPLE_STREAM_NAME = "ORDERS"
_YAML_EXAMPLE = re.compile(r"^```yaml\n(.*?)^```", re.S | re.M)


def _reads_example_stream(example: str) -> bool:
    """Whether a consumer of ``example`` (a YAML manifest) reads stream ORDERS, which it does not declare."""
    estate = Estate()
    load_text(example.encode(), "example.yaml", estate)
    streams = {r.name for r in estate.resources if r.kind == Kind.STREAM}
    return _EXAMPLE_STREAM_NAME not in streams and any(
        r.kind == Kind.CONSUMER and r.stream == _EXAMPLE_STREAM_NAME for r in estate.resources
    )


def _complete(match: re.Match[str]) -> str:
    example = match.group(1)
    if _reads_example_stream(example):
        example = f"{EXAMPLE_STREAM}---\n{example}"
    return f"```yaml\n{example}```"


def rule_doc(rule: type[Rule]) -> str:
    """A rule's docstring, dedented, with each ```yaml example complete: one whose consumer reads the
    undeclared stream ORDERS starts with :data:`EXAMPLE_STREAM`. What ``jsops rule``, docs/rules.md,
    SARIF and the tests of the examples read."""
    return _YAML_EXAMPLE.sub(_complete, inspect.cleandoc(rule.__doc__ or ""))


def _options(rule: type[Rule]) -> tuple[tuple[str, str, str, str], ...]:
    out = []
    for name, f in rule.Options.model_fields.items():
        ann = f.annotation
        typ = getattr(ann, "__name__", None) or str(ann).replace("typing.", "")
        default = "required" if f.is_required() else repr(f.get_default(call_default_factory=True))
        out.append((name, typ, default, f.description or ""))
    return tuple(out)


def rule_infos(rules: Sequence[type[Rule]], *, load_codes: bool = True) -> list[RuleInfo]:
    out = []
    if load_codes:
        for lc in LOAD_CODES.values():
            out.append(RuleInfo(lc.code, lc.name, lc.severity.value, lc.summary.replace("`", ""), lc.doc, ("load",)))
    for r in rules:
        summary, _, body = rule_doc(r).partition("\n")
        out.append(
            RuleInfo(
                r.code,
                r.name,
                r.severity.value,
                summary.strip(),
                body.strip(),
                tuple(sorted(rule_groups(r) - {"all"})),
                _options(r),
                r.estate_wide,
                tuple(sorted(r.kinds)),
                getattr(r, "docs_url", None),
            )
        )
    return sorted(out, key=lambda i: i.code)


def find_rule(infos: Sequence[RuleInfo], token: str) -> RuleInfo | None:
    t = token.strip()
    for i in infos:
        if i.code.upper() == t.upper() or i.name == t:
            return i
    return None


def _meta_lines(info: RuleInfo) -> list[str]:
    lines = [f"Severity: {info.severity}"]
    if info.groups:
        lines.append("Groups: " + ", ".join(info.groups))
    if info.kinds:
        lines.append("Applies to: " + ", ".join(info.kinds) + (" (estate-wide)" if info.estate_wide else ""))
    return lines


def _options_md(info: RuleInfo) -> list[str]:
    if not info.options:
        return []
    rows = ["## Options", "", "| Option | Type | Default | Description |", "|---|---|---|---|"]
    rows += [f"| `{n}` | `{t}` | `{d}` | {desc} |" for n, t, d, desc in info.options]
    return rows + [""]


def render_rule(info: RuleInfo, *, color: bool = False) -> str:
    """A rule's documentation for the terminal: title, metadata, then the docstring."""

    def bold(text: str) -> str:
        return f"\x1b[1m{text}\x1b[0m" if color else text

    out = [bold(f"{info.code} {info.name}"), "", info.summary, "", *_meta_lines(info), ""]
    if not info.doc:
        out += [
            "Raised by the loader or the suppression checks; it cannot be switched off per object,",
            "only ignored in config or suppressed with a comment.",
            "",
        ]
    in_code = False
    for line in info.doc.splitlines():
        if line.startswith("```"):
            in_code = not in_code
            continue
        out.append("    " + line if in_code else bold(line[3:]) if line.startswith("## ") else line)
    if info.doc:
        out.append("")
    opts = _options_md(info)
    if opts:
        out += (
            [bold("Options"), ""]
            + [f"  {n} ({t}, default {d}): {desc}".rstrip(": ") for n, t, d, desc in info.options]
            + [""]
        )
    return "\n".join(out)


def render_rules_table(infos: Sequence[RuleInfo]) -> str:
    w_name = max((len(i.name) for i in infos), default=4)
    lines = [f"{'CODE':<6} {'NAME':<{w_name}} {'SEVERITY':<8} SUMMARY"]
    lines += [f"{i.code:<6} {i.name:<{w_name}} {i.severity:<8} {i.summary}" for i in infos]
    return "\n".join(lines) + "\n"


def render_rules_json(infos: Sequence[RuleInfo]) -> str:
    return _json.dumps([i.as_dict() for i in infos], indent=2, ensure_ascii=False) + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def render_rules_markdown(infos: Sequence[RuleInfo]) -> str:
    """``docs/rules.md``: an index table, then one section per rule (docstring + options)."""
    out = [
        "# jsops rules",
        "",
        "<!-- Generated from the rule registry by `jsops rules --format markdown > docs/rules.md`; do not edit. -->",
        "",
        "Suppress a finding with `# jsops: disable=CODE reason` on or above its line, `# jsops: disable-file=CODE reason`,",
        'or the `jsops.io/disable: "CODE"` annotation; select, ignore and configure rules in `.jsops.yaml` or `[tool.jsops]`.',
        "",
        "| Code | Name | Severity | Summary |",
        "|---|---|---|---|",
    ]
    out += [
        f"| [{i.code}](#{i.code.lower()}-{i.name}) | `{i.name}` | {i.severity} | {_cell(i.summary)} |" for i in infos
    ]
    out.append("")
    for i in infos:
        out += [f"## {i.code} {i.name}", "", i.summary, "", *[f"- {m}" for m in _meta_lines(i)], ""]
        if i.doc:
            # Rule docstrings use level-2 headings; nest them under the rule's own heading.
            out += [("#" + line if line.startswith("## ") else line) for line in i.doc.splitlines()]
            out.append("")
        out += [("#" + line if line.startswith("## ") else line) for line in _options_md(i)]
    return "\n".join(out).rstrip() + "\n"
