"""The markdown view: marker, alerts, table, collapsible diffs, size budget."""

from __future__ import annotations

from planner.plan.model import Action, Change, FieldChange, Plan, Summary
from planner.render.markdown import BUDGET, MARKER, render_markdown
from planner.render.summary import plan_summary
from tests.plan.builders import SECRET_VALUES


def test_markdown_matches_the_golden_file(plan, golden) -> None:
    """The rich plan renders exactly as tests/render/golden/plan.md."""
    golden("plan.md", render_markdown(plan))


def test_the_comment_has_marker_summary_alerts_table_and_details(plan) -> None:
    """Sticky marker first, then the summary, caution/warning alerts, a table, details."""
    md = render_markdown(plan)
    assert md.startswith(MARKER + "\n**" + plan_summary(plan) + "**")
    assert "> [!CAUTION]" in md and "planner import imported-agent" in md
    assert "> - `legacy-bot` will be **deleted**" in md
    assert "| ↻ | `worker` | new revision | 2 |" in md
    assert md.count("<details>") == md.count("</details>") == 10
    assert "# reason: latest revision" in md and "planner import hand-made" in md
    assert "```diff\n" in md
    assert not [value for value in SECRET_VALUES if value in md]


def test_a_huge_plan_is_cut_to_the_budget_with_a_notice() -> None:
    """Details that do not fit the budget are left out and a notice says so."""
    field = FieldChange(
        path="source_config.custom_url", change_class="in-place", before="a" * 500, after="b"
    )
    changes = [Change(name=f"d{i:04}", action=Action.UPDATE, fields=[field]) for i in range(300)]
    plan = Plan(summary=Summary(update=300), changes=changes)
    md = render_markdown(plan)
    assert len(md) <= BUDGET
    assert "Output truncated" in md
    assert md.count("<details>") == md.count("</details>")
    small = render_markdown(plan, budget=2_000)
    assert len(small) <= 2_000 and "Output truncated" in small


def test_a_table_over_the_budget_is_cut_between_rows() -> None:
    """When even the table does not fit, it ends on a whole row, then a blank line, the notice."""
    changes = [Change(name=f"deployment-{i:04}", action=Action.CREATE) for i in range(200)]
    plan = Plan(summary=Summary(create=200), changes=changes)
    md = render_markdown(plan, budget=2_000)
    table_end, notice = md.split("\n\n> [!NOTE]\n")
    assert len(md) <= 2_000
    assert table_end.splitlines()[-1].endswith(" | create | 0 |")
    assert notice.startswith("> Output truncated")


def test_backticks_in_values_cannot_break_the_fence() -> None:
    """A value holding ``` gets a longer fence around it."""
    field = FieldChange(
        path="source_config.build_command", change_class="new-revision", before=None, after="```"
    )
    plan = Plan(
        summary=Summary(new_revision=1),
        changes=[Change(name="x", action=Action.NEW_REVISION, fields=[field])],
    )
    md = render_markdown(plan)
    assert "````diff\n" in md


def test_an_empty_plan_renders_marker_and_summary() -> None:
    """No changes: the marker and the summary, no table, no details."""
    assert render_markdown(Plan()) == (
        f"{MARKER}\n**No changes. The deployments match the configuration.**\n"
    )


def shown_rows(md: str) -> int:
    return sum(1 for line in md.splitlines() if line.endswith(" | create | 0 |"))


def test_the_notice_counts_exactly_the_deployments_left_out_of_the_table() -> None:
    """A table cut after R rows of N says N - R more deployments are not shown (it said
    every deployment, 2500 for 499)."""
    changes = [Change(name=f"deployment-{i:04}", action=Action.CREATE) for i in range(3000)]
    md = render_markdown(Plan(summary=Summary(create=3000), changes=changes))
    shown = shown_rows(md)
    assert 0 < shown < 3000
    assert f"Output truncated: {3000 - shown} more deployment(s) not shown" in md


def test_the_notice_counts_exactly_the_details_left_out() -> None:
    """With the whole table shown but not every details block, the notice counts the
    deployments whose details are missing, not the drift block."""
    field = FieldChange(
        path="source_config.custom_url", change_class="in-place", before="a" * 500, after="b"
    )
    changes = [Change(name=f"d{i:04}", action=Action.UPDATE, fields=[field]) for i in range(300)]
    md = render_markdown(Plan(summary=Summary(update=300), changes=changes))
    shown = md.count("<details>")
    assert 0 < shown < 300
    assert sum(1 for line in md.splitlines() if line.startswith("| ~ | `d")) == 300
    assert f"the details of {300 - shown} deployment(s) are not shown" in md
