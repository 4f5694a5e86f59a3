"""The status page as HTML: empty states, times in UTC, values as CSS classes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

from planner.reconcile.page import render_page, tone, when
from planner.reconcile.status import StatusBoard

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)


def test_an_empty_board_says_what_is_not_there_yet() -> None:
    """Before the first cycle: no leader, no deployment, no cycle, no plan, not ready."""
    page = render_page(StatusBoard().snapshot(), now=NOW)
    assert '<p id="leader">Leader: no leader yet</p>' in page
    assert "No deployment yet: the first cycle has not planned." in page
    assert "No cycle yet." in page and "<p>No plan yet.</p>" in page
    assert "This replica is not ready: starting." in page


def test_times_are_shown_in_utc() -> None:
    """An aware time is converted to UTC, a naive one taken as UTC; none is a dash."""
    east = datetime(2026, 11, 25, 14, 0, tzinfo=timezone(timedelta(hours=2)))
    assert when(east) == '<time datetime="2026-11-25T12:00:00Z">2026-11-25 12:00:00 UTC</time>'
    assert when(datetime(2026, 11, 25, 12, 0)) == when(NOW)
    assert when(None) == "—"


def test_each_value_gets_a_tone() -> None:
    """Healthy and in-sync values are good, failures bad, a standby muted, the rest (drift,
    a revision rolling out, a refusal) a warning; the value never reaches the class."""
    assert [tone(v) for v in ("ok", "DEPLOYED", "in sync", "healed")] == ["good"] * 4
    assert [tone(v) for v in ("BUILD_FAILED", "error", "missing", "INTERRUPTED")] == ["bad"] * 4
    assert [tone(v) for v in ("standby", "UNKNOWN")] == ["muted"] * 2
    assert [tone(v) for v in ("drifted", "DEPLOYING", "refused", '" onclick="x')] == ["warn"] * 4
