"""docs/server-rules.md's tables are the code's: which field changes nats-server refuses as an update
(jsops.linter.semantics.updates) and when each config field appeared (jsops.linter.semantics.releases). The
blocks between ``<!-- generated -->`` markers are rendered here; ``JSOPS_UPDATE_GOLDEN=1`` rewrites
them."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from jsops.linter.semantics.releases import (
    CONSUMER_FIELDS,
    CONSUMER_FIELDS_REMOVED,
    ENUM_VALUES,
    STREAM_FIELDS,
    STREAM_FIELDS_REMOVED,
    format_version,
)
from jsops.linter.semantics.updates import classify_consumer_change, classify_stream_change

DOC = Path(__file__).resolve().parents[1] / "docs" / "server-rules.md"
BLOCK = re.compile(r"(<!-- generated: (\w+) -->\n)(.*?)(<!-- end generated -->)", re.S)


def _probe(classify: Any, field: str, old: Any, new: Any) -> str | None:
    try:
        return str(classify(field, old, new).cls)
    except (TypeError, AttributeError):
        return None


def _updates() -> str:
    rows = ["| object | field | a change is | what it costs |", "|---|---|---|---|"]
    for kind, fields, classify in (
        ("Stream", STREAM_FIELDS, classify_stream_change),
        ("Consumer", CONSUMER_FIELDS, classify_consumer_change),
    ):
        for field in fields:
            for old, new in (("a", "b"), (False, True)):
                cls = _probe(classify, field, old, new)
                if cls in ("one-way", "recreate", "forbidden"):
                    how = "set (was unset or false)" if old is False else "changed"
                    rows.append(f"| {kind} | `{field}` {how} | {cls} | {classify(field, old, new).consequence} |")
                    break
    return "\n".join(rows) + "\n"


def _fields(fields: dict[str, Any]) -> str:
    by_release: dict[Any, list[str]] = {}
    for field, release in fields.items():
        by_release.setdefault(release, []).append(f"`{field}`")
    rows = ["| first release | fields |", "|---|---|"]
    rows += [f"| {format_version(r)} | {', '.join(sorted(fs))} |" for r, fs in sorted(by_release.items())]
    return "\n".join(rows) + "\n"


def _enums() -> str:
    rows = ["| object | field | value | first release |", "|---|---|---|---|"]
    rows += [f"| {k} | `{f}` | `{v}` | {format_version(r)} |" for (k, f, v), r in sorted(ENUM_VALUES.items())]
    return "\n".join(rows) + "\n"


def _removed() -> str:
    rows = ["| object | field | first release | first release that refuses it |", "|---|---|---|---|"]
    for kind, since, removed in (
        ("Stream", STREAM_FIELDS, STREAM_FIELDS_REMOVED),
        ("Consumer", CONSUMER_FIELDS, CONSUMER_FIELDS_REMOVED),
    ):
        rows += [f"| {kind} | `{f}` | {format_version(since[f])} | {format_version(r)} |" for f, r in removed.items()]
    return "\n".join(rows) + "\n"


GENERATED = {
    "updates": _updates,
    "stream_fields": lambda: _fields(STREAM_FIELDS),
    "consumer_fields": lambda: _fields(CONSUMER_FIELDS),
    "enum_values": _enums,
    "removed_fields": _removed,
}


def test_generated_tables_are_up_to_date() -> None:
    text = DOC.read_text()
    names = [m.group(2) for m in BLOCK.finditer(text)]
    assert sorted(names) == sorted(GENERATED), names
    fresh = BLOCK.sub(lambda m: m.group(1) + GENERATED[m.group(2)]() + m.group(4), text)
    if os.environ.get("JSOPS_UPDATE_GOLDEN") == "1":
        DOC.write_text(fresh)
    assert fresh == text, "docs/server-rules.md is out of date; rerun with JSOPS_UPDATE_GOLDEN=1 and review the diff"
    assert (
        "| Stream | `storage` changed | recreate |" in text
        and "| Stream | `sealed` set (was unset or false) | one-way |" in text
    )
