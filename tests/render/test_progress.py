"""Progress output: plain timestamped lines without a TTY, a live display on one."""

from __future__ import annotations

import asyncio
import io
from datetime import UTC, datetime, timedelta, timezone

from planner.api.retry import RetryNotice
from planner.apply.results import ApplyResult, DeploymentResult, Outcome
from planner.errors import ApiError
from planner.plan.model import Action
from planner.render.console import make_console
from planner.render.progress import LineReporter, LiveReporter, make_reporter

WALL = datetime(2026, 1, 1, 3, 4, 5, 678000, tzinfo=UTC)


def test_line_reporter_prints_a_timestamped_line_per_status_change() -> None:
    """One line per change of status (repeats say nothing), stamped with the full ISO 8601
    UTC time (seconds, `Z`) and the elapsed seconds."""
    out = io.StringIO()
    now = [100.0]
    reporter = LineReporter(make_console(out), clock=lambda: now[0], wall=lambda: WALL)
    row = DeploymentResult("alpha", Action.CREATE, started=100.0)
    reporter.begin([row, DeploymentResult("same", Action.NO_OP)])
    row.status = "QUEUED"
    reporter.update(row)
    reporter.update(row)
    now[0] = 101.5
    row.status = "BUILD_FAILED"
    row.outcome, row.error, row.seconds = Outcome.FAILED, "revision r1 ended BUILD_FAILED", 1.5
    reporter.update(row)
    assert out.getvalue().splitlines() == [
        "2026-01-01T03:04:05Z Applying 1 change(s)",
        "2026-01-01T03:04:05Z alpha: QUEUED (0.0s)",
        "2026-01-01T03:04:05Z alpha: BUILD_FAILED (1.5s): revision r1 ended BUILD_FAILED",
    ]


def test_line_reporter_says_nothing_about_deployments_without_changes() -> None:
    """A no-op deployment finishing ("no changes") prints no progress line."""
    out = io.StringIO()
    reporter = LineReporter(make_console(out), wall=lambda: WALL)
    same = DeploymentResult("same", Action.NO_OP)
    reporter.begin([same])
    same.status, same.outcome = "no changes", Outcome.SUCCEEDED
    reporter.update(same)
    assert out.getvalue().splitlines() == ["2026-01-01T03:04:05Z Applying 0 change(s)"]


def test_a_rollout_waited_for_is_progress_in_both_reporters() -> None:
    """A rollout of an earlier apply, waited for, is announced, gets its status lines and
    a row of the live display (marked `…`), though nothing is sent for it."""
    out = io.StringIO()
    reporter = LineReporter(make_console(out), clock=lambda: 3.0, wall=lambda: WALL)
    row = DeploymentResult("web", Action.NO_OP, status="DEPLOYING", started=2.0, rollout=True)
    reporter.begin([row])
    reporter.update(row)
    assert out.getvalue().splitlines() == [
        "2026-01-01T03:04:05Z Applying 0 change(s), waiting for 1 rollout(s) an earlier apply "
        "started",
        "2026-01-01T03:04:05Z web: DEPLOYING (1.0s)",
    ]
    live = io.StringIO()
    display = LiveReporter(make_console(live, force_terminal=True), clock=lambda: 3.0)
    display.begin([row])
    display.end(ApplyResult(results=[row]))
    assert "… web" in live.getvalue() and "0/1" in live.getvalue()


def test_live_reporter_shows_each_deployment_and_the_overall_bar() -> None:
    """The live display has a line per changed deployment with its status, and a bar."""
    out = io.StringIO()
    console = make_console(out, force_terminal=True)
    reporter = LiveReporter(console, clock=lambda: 10.0)
    rows = [
        DeploymentResult("alpha", Action.CREATE, status="BUILDING", started=8.0),
        DeploymentResult("beta", Action.NEW_REVISION, status="DEPLOYED", started=9.0),
    ]
    rows[1].outcome, rows[1].seconds = Outcome.SUCCEEDED, 0.7
    reporter.begin(rows)
    reporter.update(rows[1])
    reporter.end(ApplyResult(results=rows))
    text = out.getvalue()
    assert "alpha" in text and "BUILDING" in text and "2.0s" in text
    assert "beta" in text and "DEPLOYED" in text and "0.7s" in text
    assert "1/2" in text


def test_a_title_opens_the_progress_in_place_of_the_count_of_changes() -> None:
    """A reporter given a title (a rollback's) opens with it, not with `Applying N
    change(s)`: as the first plain line, and as the live display's bar."""
    out = io.StringIO()
    title = "Rolling back api to revision r1"
    row = DeploymentResult("api", Action.NEW_REVISION, status="redeploying", started=1.0)
    reporter = LineReporter(make_console(out), clock=lambda: 1.0, wall=lambda: WALL, title=title)
    reporter.begin([row])
    reporter.update(row)
    assert out.getvalue().splitlines() == [
        f"2026-01-01T03:04:05Z {title}",
        "2026-01-01T03:04:05Z api: redeploying (0.0s)",
    ]
    assert isinstance(make_reporter(make_console(out), live=False, title=title), LineReporter)
    live_out = io.StringIO()
    live = make_reporter(make_console(live_out, force_terminal=True), live=True, title=title)
    live.begin([row])
    live.end(ApplyResult(results=[row]))
    assert title in live_out.getvalue() and "Applying" not in live_out.getvalue()


def test_make_reporter_picks_live_only_for_a_terminal() -> None:
    """A terminal gets the live display, anything else the plain lines."""
    console = make_console(io.StringIO())
    assert isinstance(make_reporter(console, live=False), LineReporter)
    assert isinstance(make_reporter(console, live=True), LiveReporter)


def test_line_reporter_stamps_in_utc_whatever_the_local_zone() -> None:
    """A wall clock in another zone is printed in UTC with `Z`."""
    out = io.StringIO()
    paris = timezone(timedelta(hours=1))
    reporter = LineReporter(
        make_console(out), wall=lambda: datetime(2026, 11, 23, 15, 5, 1, tzinfo=paris)
    )
    reporter.begin([])
    assert out.getvalue() == "2026-11-23T14:05:01Z Applying 0 change(s)\n"


def test_retries_and_pauses_are_lines_of_their_own() -> None:
    """A retry names the deployment, the wait, the failed attempt and the request's
    error; a 429 pause is one line with its wait; both on the plain and the live display."""
    notice = RetryNotice(503, 0.42, 1, "PATCH /v2/deployments/d1 failed: 503 busy", ApiError("x"))
    out = io.StringIO()
    lines = LineReporter(make_console(out), wall=lambda: WALL)
    lines.retry(notice, "api")
    lines.retry(notice, None)
    lines.pause(2.0, "api")
    assert out.getvalue().splitlines() == [
        "2026-01-01T03:04:05Z api: retrying in 0.4s (attempt 1 failed): "
        "PATCH /v2/deployments/d1 failed: 503 busy",
        "2026-01-01T03:04:05Z retrying in 0.4s (attempt 1 failed): "
        "PATCH /v2/deployments/d1 failed: 503 busy",
        "2026-01-01T03:04:05Z rate limited (429): every request paused for 2.0s",
    ]
    live_out = io.StringIO()
    live = LiveReporter(make_console(live_out, force_terminal=True))
    live.retry(notice, "api")
    live.pause(2.0, None)
    assert "api: retrying in 0.4s" in live_out.getvalue()
    assert "paused for 2.0s" in live_out.getvalue()


def test_line_reporter_on_a_terminal_prints_the_same_lines_through_rich() -> None:
    """Lines on a terminal (a live display was not wanted) read as they do in a log."""
    out = io.StringIO()
    reporter = LineReporter(make_console(out, force_terminal=True), wall=lambda: WALL)
    reporter.begin([DeploymentResult("alpha", Action.CREATE, started=1.0)])
    assert "2026-01-01T03:04:05Z Applying 1 change(s)" in out.getvalue()


class _Flushes(io.StringIO):
    """A plain file that tells what it held at each flush."""

    def __init__(self) -> None:
        super().__init__()
        self.flushed: list[int] = []

    def flush(self) -> None:
        self.flushed.append(len(self.getvalue().splitlines()))


def test_line_reporter_flushes_the_lines_of_one_loop_step_in_one_go() -> None:
    """In the apply's event loop, the lines one step prints are flushed together once
    the step is done (not once a line); the end flushes whatever is left."""
    out = _Flushes()
    reporter = LineReporter(make_console(out), wall=lambda: WALL)
    rows = [DeploymentResult(f"d{i}", Action.CREATE, started=0.0) for i in range(3)]

    async def step() -> list[int]:
        reporter.begin(rows)
        for row in rows:
            row.status = "BUILDING"
            reporter.update(row)
        flushed_during = list(out.flushed)
        await asyncio.sleep(0)
        return flushed_during

    assert asyncio.run(step()) == []
    assert out.flushed == [4]
    reporter.retry(RetryNotice(503, 0.5, 1, "503", ApiError("x")), "d0")  # no loop: at once
    assert out.flushed == [4, 5]
    reporter.end(ApplyResult(results=rows))
    assert out.flushed == [4, 5, 5]


def test_server_words_in_progress_lines_are_escaped() -> None:
    """A failure or retry reason from the server carrying bidi or control characters prints
    them escaped, in the lines and in the live display's retry lines alike."""
    out = io.StringIO()
    reporter = LineReporter(make_console(out), clock=lambda: 1.0, wall=lambda: WALL)
    row = DeploymentResult("alpha", Action.CREATE, started=1.0, status="BUILD_FAILED")
    row.outcome, row.error = Outcome.FAILED, "bad \u202eexe\x1b[2J"
    reporter.begin([row])
    reporter.update(row)
    notice = RetryNotice(503, 0.5, 1, "503 \u2066busy", ApiError("x"))
    reporter.retry(notice, "alpha")
    live = io.StringIO()
    LiveReporter(make_console(live), clock=lambda: 1.0).retry(notice, "alpha")
    text = out.getvalue() + live.getvalue()
    assert "\u202e" not in text and "\u2066" not in text and "\x1b" not in text
    assert "bad \\u202eexe\\x1b[2J" in out.getvalue() and "503 \\u2066busy" in live.getvalue()
