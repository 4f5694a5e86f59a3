"""The status page as HTML: empty states, times in UTC, values as CSS classes."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone

from planner.reconcile.page import render_page, tone, when
from planner.reconcile.status import StatusBoard
from tests.reconcile.board import STARTED, cycle, row

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


def test_values_print_control_and_bidi_characters_escaped() -> None:
    """A leader, deployment or cycle message carrying bidi or control characters shows
    them escaped, as every other view does, and stays HTML-escaped."""
    board = StatusBoard()
    board.set_leader("host\u202e(pid 1)", True)
    board.record_cycle(cycle("error", message="refused: <b>\u2066admin\x1b[2J"))
    board.set_deployments([row("api", remote_name="api\u202eexe", last_change="x\u200fy")])
    page = render_page(board.snapshot(), now=NOW)
    assert not re.search("[\x00-\x09\x0b-\x1f\u200b-\u200f\u202a-\u202e\u2066-\u2069]", page)
    assert "host\\u202e(pid 1)" in page and "api\\u202eexe" in page and "x\\u200fy" in page
    assert "refused: &lt;b&gt;\\u2066admin\\x1b[2J" in page


def test_after_failed_cycles_without_a_plan_the_page_says_they_failed() -> None:
    """Cycles that failed before any plan: the deployments table says the last cycles
    failed (how many, the latest's message), never that the first has not planned."""
    board = StatusBoard()
    for minute in range(3):
        board.record_cycle(cycle("error", minute=minute, message=f"cannot reach it ({minute})"))
    page = render_page(board.snapshot(), now=NOW)
    assert "the first cycle has not planned" not in page
    assert "No deployment known: the last 3 cycles failed before planning" in page
    assert "cannot reach it (2)" in page.split('<section id="cycles">')[0]


def test_after_failed_cycles_the_last_known_deployments_stay_with_a_note() -> None:
    """Deployments a cycle planned stay listed after later cycles fail, under a note that
    says the last cycles failed and when the list was planned."""
    board = StatusBoard()
    board.record_cycle(cycle("ok", minute=0))
    board.set_deployments([row("api"), row("worker")], planned_at=STARTED)
    board.record_cycle(cycle("error", minute=5, message="the state is locked"))
    board.record_cycle(cycle("error", minute=10, message="the state is locked"))
    deployments = render_page(board.snapshot(), now=NOW).split('<section id="cycles">')[0]
    assert "Deployments (2)" in deployments and "<code>worker</code>" in deployments
    assert "The last 2 cycles failed (the latest: the state is locked)" in deployments
    assert f"as the cycle of {when(STARTED)} saw them" in deployments


def test_a_standby_replica_says_the_leader_plans() -> None:
    """A replica that only stood by lists no deployment and says why."""
    board = StatusBoard()
    board.record_cycle(cycle("standby", message="reconcile-0 leads"))
    page = render_page(board.snapshot(), now=NOW)
    assert "No deployment known: this replica stands by; the leader plans." in page
