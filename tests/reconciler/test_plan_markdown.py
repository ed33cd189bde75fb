"""Golden markdown plans (``jsops plan --format markdown``, the pull-request comment): refusals, data
loss, migrations, no changes, several targets, and a plan cut to the forge's comment limit (pure:
live states built by hand, plans made by build_plan).

Regenerate on purpose: ``UPDATE_GOLDEN=1 pytest tests/reconciler/test_plan_markdown.py``, then review
the diff.
"""

from __future__ import annotations

import re

from jsops.reconciler.live import LiveState
from jsops.reconciler.plan import Plan, PlanOptions, PlanSet, build_plan
from jsops.reconciler.render_markdown import GITHUB_LIMIT, MARKER, marker_line, render_markdown

from .records import desired_of, live_stream
from .test_dataloss_golden import _desired as loss_desired
from .test_dataloss_golden import _opt as loss_opt
from .test_dataloss_golden import _state as loss_state
from .test_migrate_golden import _desired as migrate_desired
from .test_migrate_golden import _state as migrate_state
from .test_plan_unit import _golden

TARGET = "nats://127.0.0.1:4222"


def _loss_plans(**kw: object) -> PlanSet:
    return PlanSet([build_plan(loss_desired(), loss_state(), loss_opt(**kw), target=TARGET)])


def _headings(text: str) -> list[str]:
    return re.findall(r"^#### (.*)$", text, re.M)


def _rows(text: str, heading: str) -> list[str]:
    """The object cells of the table under the heading that starts with ``heading``."""
    part = text.split(f"#### {heading}", 1)[1].split("\n\n", 2)[1]
    return [line.split(" | ")[1] for line in part.splitlines()[2:] if line.startswith("| ")]


def test_golden_refusals_come_first_with_why() -> None:
    text = render_markdown(_loss_plans())
    _golden("plan_md_refusal.md", text)
    assert text.startswith(marker_line(MARKER) + "\n## jsops plan\n")
    assert [h.split(" (")[0] for h in _headings(text)] == [":no_entry: Refused", "Changes"]
    assert _rows(text, ":no_entry: Refused") == ["`Stream LIMITED`", "`Stream THEIRS`", "`Consumer EVENTS/old`"]
    assert "needs --allow-data-loss" in text and "pass --adopt THEIRS to take it over" in text
    # the change table lists the refused first, then the rest, each with its classes counted
    assert _rows(text, "Changes")[:3] == _rows(text, ":no_entry: Refused")
    assert "| `!` | `Stream LIMITED` | blocked update | 3 data-loss |" in text
    assert text.count("<details>") == text.count("</details>") == 5


def test_golden_data_loss_counts_what_is_removed() -> None:
    text = render_markdown(_loss_plans(allow_data_loss=True))
    _golden("plan_md_dataloss.md", text)
    assert [h.split(" (")[0] for h in _headings(text)] == [":no_entry: Refused", ":warning: Data loss", "Changes"]
    assert ":warning: Data loss (2): up to 109 stored messages removed" in text
    assert _rows(text, ":warning: Data loss") == ["`Stream LIMITED`", "`Consumer EVENTS/old`"]
    assert "| `~` | `Stream LIMITED` | update | up to 100 |" in text
    assert "up to 109 stored messages lost (data loss)" in text  # the summary line, as the text plan says it


def test_golden_migrations_and_their_refusals() -> None:
    plan = build_plan(
        migrate_desired(), migrate_state(), PlanOptions(migrate=True, server_version="2.15.1"), target=TARGET
    )
    text = render_markdown(PlanSet([plan]))
    _golden("plan_md_migrate.md", text)
    assert _rows(text, ":no_entry: Refused") == ["`Stream FULL`", "`Stream INTDROP`", "`Stream READ`", "`Stream TOWQ`"]
    assert "| `=>` | `Stream INT` | migrate in place | 1 recreate |" in text
    assert "(10101)" in text  # the err_code the server would answer, in the reason
    assert "INT\\_JSOPS\\_MIGRATING" in text  # the migration's steps, in its details


def test_golden_no_changes_and_several_targets() -> None:
    live = LiveState(read_at=10_000.0)
    live.streams["ORDERS"] = live_stream(
        {"name": "ORDERS", "subjects": ["orders.>"], "metadata": {"io.jsops.managed-by": "jsops"}}
    )
    same = build_plan(
        [desired_of("Stream", "ORDERS", None, {"name": "ORDERS", "subjects": ["orders.>"]}, "m/s.yaml")],
        live,
        PlanOptions(),
        target=TARGET,
    )
    assert not same.actions
    text = render_markdown(PlanSet([same]))
    _golden("plan_md_nochanges.md", text)
    assert f"No changes: `{TARGET}` matches the manifests." in text and "####" not in text
    west = build_plan(
        [desired_of("Stream", "NEW", None, {"name": "NEW", "subjects": ["new.>"]}, "m/s.yaml")],
        LiveState(),
        PlanOptions(),
        target="nats://west:4222",
    )
    several = PlanSet([same, Plan(west.target, west.fingerprint, west.actions, context="west", contexts=("west",))])
    text = render_markdown(several)
    _golden("plan_md_targets.md", text)
    assert "**Total on 2 targets: 1 to create," in text
    assert "### `nats://west:4222` (context `west`)" in text


def _big() -> PlanSet:
    """The refusals and data loss of the data-loss plan, and 400 new streams after them."""
    desired = loss_desired() + [
        desired_of(
            "Stream",
            f"S{i:03d}",
            None,
            {"name": f"S{i:03d}", "subjects": [f"s{i}.{j}.>" for j in range(4)], "max_age": 3_600_000_000_000},
            "m/s.yaml",
        )
        for i in range(400)
    ]
    return PlanSet([build_plan(desired, loss_state(), loss_opt(allow_data_loss=True), target=TARGET)])


def test_golden_truncated_keeps_refusals_and_loss_and_says_what_was_left_out() -> None:
    plans = _big()
    whole = render_markdown(plans, limit=10**9)
    assert len(whole) > GITHUB_LIMIT  # too long for one comment
    cut = render_markdown(plans, limit=6000)
    _golden("plan_md_truncated.md", cut)
    assert len(cut) <= 6000
    m = re.search(r"left out the details of (\d+) actions; (\d+) rows of the change tables\.", cut)
    assert m, cut[:800]
    shown_details = cut.count("<details>")
    assert shown_details + int(m.group(1)) == whole.count("<details>")
    shown_rows = len(_rows(cut, "Changes")) - 1  # the last row says how many more
    assert shown_rows + int(m.group(2)) == len(_rows(whole, "Changes"))
    assert f"... and {m.group(2)} more, left out" in cut
    # what a reviewer must see stays: every refused and data-loss row
    assert _rows(cut, ":no_entry: Refused") == _rows(whole, ":no_entry: Refused")
    assert _rows(cut, ":warning: Data loss") == _rows(whole, ":warning: Data loss")


def test_default_limit_is_githubs_and_is_kept() -> None:
    plans = _big()
    text = render_markdown(plans)
    assert GITHUB_LIMIT - 2000 < len(text) <= GITHUB_LIMIT  # filled up to the limit, not beyond
    assert "> **Truncated** to fit the forge's comment limit (65,536 characters)" in text
    assert text.count("<details>") == text.count("</details>")
    assert render_markdown(plans, limit=1_000_000) == render_markdown(plans, limit=10**9)  # GitLab's limit holds it all


def test_names_cannot_break_the_markdown() -> None:
    live = LiveState(read_at=10_000.0)
    odd = "A|B*`C`<x>"
    plan = build_plan(
        [desired_of("Stream", odd, None, {"name": odd, "subjects": ["odd.>"]}, "m/s.yaml")],
        live,
        PlanOptions(),
        target=TARGET,
    )
    text = render_markdown(PlanSet([plan]))
    row = next(line for line in text.splitlines() if line.startswith("| `+`"))
    assert row.count(" | ") == 3  # still four cells: the pipe in the name is escaped
    assert "``Stream A\\|B*`C`<x>``" in row
    assert "<code>+ Stream A|B*`C`&lt;x&gt;</code>" in text
