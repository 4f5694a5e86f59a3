"""The status and history views: aligned columns, `same` for a converged revision."""

from __future__ import annotations

from planner.plan.status import HistoryEntry, StatusRow
from planner.render.status_view import history_lines, rows_json, status_lines


def test_status_lines_align_and_say_same_for_a_converged_revision() -> None:
    """Header first; one line per row; `same` when latest is active; gone says so."""
    rows = [
        StatusRow(
            name="api",
            id="i1",
            active_revision_id="r1",
            active_status="DEPLOYED",
            latest_revision_id="r1",
            latest_status="DEPLOYED",
            updated_at="2026-01-01T00:00:00Z",
            url="https://x",
        ),
        StatusRow(
            name="bot",
            id="i2",
            active_revision_id=None,
            latest_revision_id="r2",
            latest_status="DEPLOY_FAILED",
            drift=True,
        ),
        StatusRow(name="old", id="i3", gone=True, drift=True),
    ]
    lines = status_lines(rows)
    assert lines[0].startswith("NAME  ID  ACTIVE REVISION")
    assert "r1 (DEPLOYED)" in lines[1] and "same" in lines[1] and lines[1].endswith("no")
    assert "r2 (DEPLOY_FAILED)" in lines[2] and lines[2].endswith("yes")
    assert lines[3].endswith("yes (deleted outside)")
    assert rows_json(rows)[1]["latest_status"] == "DEPLOY_FAILED"


def test_history_lines_mark_the_active_and_the_first_revision() -> None:
    """Newest first; the active status marked; the oldest says it is the first."""
    entries = [
        HistoryEntry(id="r2", created_at="t2", status="BUILDING", changed=[]),
        HistoryEntry(id="r1", created_at="t1", status="DEPLOYED", active=True, changed=[]),
    ]
    lines = history_lines("api", entries)
    assert lines[0] == "Revisions of api, newest first:"
    assert "(no revision field" in lines[2] and "DEPLOYED (active)" in lines[3]
    assert lines[3].endswith("(first revision)")
