"""Held deployments in every view: the Held section of the text and markdown plans, the
JSON `held[]`, the summary line, and the status and history views."""

from __future__ import annotations

import json

from planner.plan.model import Plan
from planner.plan.status import HistoryEntry, StatusRow
from planner.render.html import markdown_to_html
from planner.render.json import render_json
from planner.render.lines import HELD_TITLE
from planner.render.markdown import render_markdown
from planner.render.status_view import held_note, history_lines, status_lines
from planner.render.summary import plan_summary
from planner.render.text import render_text
from tests.plan.builders import HELD_REVISION, HOLD, held_plan


def test_held_plan_matches_the_golden_files(golden) -> None:
    """A plan with held deployments renders exactly as tests/render/golden/held.*."""
    plan = held_plan(("--env", "prod"))
    golden("held.txt", render_text(plan))
    golden("held.md", render_markdown(plan))
    golden("held.json", render_json(plan))


def test_the_text_lists_each_hold_with_its_release_command_and_would_be_changes() -> None:
    """The Held section names the revision, since, by, the release command, and the config's
    would-be changes as diff lines; the held deployments have no change block."""
    text = render_text(held_plan(("--env", "prod")))
    section = text[text.index(HELD_TITLE) : text.index("~ worker will be updated")]
    assert f"support-agent: held, rolled back to revision {HELD_REVISION} since {HOLD.since}" in (
        section
    )
    assert "`planner release --env prod support-agent` lifts the hold" in section
    assert '~ source_revision_config.repo_ref: "main" → "v2"  (new-revision)' in section
    assert "batch: held, rolled back to revision" in section and "would change nothing" in section
    assert "support-agent will" not in text and "batch will" not in text


def test_a_held_deployment_the_config_dropped_would_be_deleted() -> None:
    """Text and markdown say a held deployment no longer in the config would be deleted
    once released, never that the config would change nothing of it."""
    plan = held_plan()
    held = [h.model_copy(update={"removed": h.address == "batch"}) for h in plan.held]
    dropped = plan.model_copy(update={"held": held})
    for rendered in (render_text(dropped), render_markdown(dropped)):
        assert "batch" in rendered and "it would be deleted once released" in rendered
        assert "would change nothing" not in rendered


def test_the_summary_counts_held_deployments_apart() -> None:
    """The summary line counts what is planned, then the held deployments; with nothing
    else to do it never says the deployments match the configuration."""
    plan = held_plan()
    assert plan_summary(plan) == (
        "Plan: 0 to create, 1 to update in place, 0 new revisions, 0 to delete. "
        "2 deployments held by a rollback: not planned until released."
    )
    only_held = plan.model_copy(update={"changes": []})
    assert plan_summary(only_held) == (
        "No changes to apply. 2 deployments held by a rollback: not planned until released."
    )
    assert "held" not in plan_summary(Plan())


def test_markdown_alerts_the_holds_and_rows_them_in_the_table() -> None:
    """Markdown: an IMPORTANT alert lists each hold; the table has a `held (not planned)` row
    per held deployment counting its would-be changes; a details block shows them."""
    markdown = render_markdown(held_plan())
    assert "> [!IMPORTANT]" in markdown and f"> **{HELD_TITLE}**" in markdown
    assert "| | `support-agent` | held (not planned) | 2 |" in markdown
    assert "<summary>support-agent is held: the config would change 2 fields once released" in (
        markdown
    )
    assert '+ source_revision_config.repo_ref: "v2"' in markdown
    html = markdown_to_html(markdown)
    assert 'class="alert important"' in html


def test_the_json_held_entries_have_the_documented_keys() -> None:
    """JSON `held[]`: address, revision, since, by, changes (a change's field shape)."""
    document = json.loads(render_json(held_plan()))
    entry = {e["address"]: e for e in document["held"]}["support-agent"]
    assert {"address", "revision", "since", "by", "changes"} <= set(entry)
    assert entry["revision"] == HELD_REVISION
    fields = {f["path"]: f for f in entry["changes"]}
    assert fields["source_revision_config.repo_ref"]["class"] == "new-revision"
    assert set(fields["source_revision_config.repo_ref"]) == set(
        document["changes"][0]["fields"][0]
    )
    assert document["summary"]["held"] == 2


def test_status_shows_a_held_column_only_when_something_is_held() -> None:
    """A HELD column (the revision rolled back to, since, by) and a closing line on how to
    lift a hold appear only when a row is held; the active revision is the redeploy's."""
    plain = StatusRow(name="bot", id="i2", active_revision_id="r1", latest_revision_id="r1")
    assert "HELD" not in status_lines([plain])[0] and held_note() not in status_lines([plain])
    pinned = StatusRow(
        name="api",
        id="i1",
        active_revision_id="r9",
        active_status="DEPLOYED",
        latest_revision_id="r9",
        held=HOLD,
    )
    lines = status_lines([pinned, plain])
    assert lines[0].endswith("HELD") and lines[-1] == held_note()
    assert lines[1].endswith(f"rolled back to {HELD_REVISION} since {HOLD.since} by {HOLD.by}")
    assert "r9 (DEPLOYED)" in lines[1] and lines[2].endswith("-")


def test_history_says_the_hold_and_marks_the_held_revision() -> None:
    """History opens with the hold and the release command; the held revision is marked."""
    entries = [
        HistoryEntry(id="r2", created_at="t2", status="DEPLOY_FAILED", changed=["x"]),
        HistoryEntry(
            id="r1", created_at="t1", status="DEPLOYED", active=True, held=True, changed=[]
        ),
    ]
    lines = history_lines("api", entries, HOLD)
    assert lines[0].startswith(f"api is held (rolled back to {HOLD.revision_id} since {HOLD.since}")
    assert "`planner release api`" in lines[0]
    assert "DEPLOYED (active, held)" in lines[-1]
    assert history_lines("api", entries)[0] == "Revisions of api, newest first:"
