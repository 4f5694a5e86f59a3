"""The apply's progress for people: the `Reporter`s the executor calls (see
`planner.apply.reporter`).

Two reporters:
- `LineReporter` (no TTY, CI): one line each time a deployment's status changes, stamped
  with the full ISO 8601 UTC time, e.g. `2026-11-23T14:05:01Z support-agent: BUILDING (1.2s)`;
- `LiveReporter` (a terminal): a rich live display, one line per deployment with its
  current status and elapsed time, under an overall progress bar.

Both show each retry of a request and each 429 pause (one line per pause, however many
requests it holds) as a line of its own. Both open with what the run does: an apply's
count of changes (`Applying 2 change(s)`), or a `title` another command gives (a
rollback's `Rolling back api to revision <id>`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from rich.console import Console, Group, RenderableType
from rich.text import Text

from planner.api.retry import RetryNotice
from planner.apply.reporter import Reporter
from planner.apply.results import ApplyResult, DeploymentResult, Outcome
from planner.render.safe import visible
from planner.state.document import iso_utc, utc_now

# rich's live display, progress bar and table are imported by `LiveReporter` only (a
# terminal): the lines of CI and logs need none of them.
if TYPE_CHECKING:
    from rich.live import Live
    from rich.progress import Progress


def elapsed(result: DeploymentResult, now: float) -> float:
    """Seconds since the deployment's work started (its final time once it is done)."""
    if result.started is None:
        return 0.0
    if result.outcome is not Outcome.NOT_STARTED and result.seconds:
        return result.seconds
    return max(0.0, now - result.started)


def retry_line(notice: RetryNotice, deployment: str | None) -> str:
    """`api: retrying in 0.4s (attempt 1 failed): PATCH /v2/deployments/<id> failed: 503 ...`"""
    who = f"{deployment}: " if deployment else ""
    reason = visible(notice.reason)  # the server's words
    return f"{who}retrying in {notice.wait:.1f}s (attempt {notice.attempt} failed): {reason}"


def pause_line(seconds: float) -> str:
    return f"rate limited (429): every request paused for {seconds:.1f}s"


class LineReporter:
    """Plain timestamped lines, only when something changes (for logs and CI)."""

    def __init__(
        self,
        console: Console,
        *,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], datetime] = utc_now,
        title: str | None = None,
    ) -> None:
        self.console = console
        self.clock = clock
        self.wall = wall
        self.title = title
        self._last: dict[str, tuple[str, str | None]] = {}
        # a plain file or pipe: no rich rendering per line (a tenth of an apply's CPU at
        # 1,000 deployments); written and flushed like rich does, for whoever follows it
        self._plain = not (console.is_terminal or console.record)
        self._flush_queued = False

    def begin(self, results: Sequence[DeploymentResult]) -> None:
        if self.title is not None:
            self._print(self.title)
            return
        work = sum(1 for r in results if r.changed)
        rollouts = sum(1 for r in results if r.rollout)
        waiting = (
            f", waiting for {rollouts} rollout(s) an earlier apply started" if rollouts else ""
        )
        self._print(f"Applying {work} change(s){waiting}")

    def update(self, result: DeploymentResult) -> None:
        if not result.shown:  # a no-op is bookkeeping, not progress (as in the table)
            return
        seen = (result.status, result.error)
        if self._last.get(result.name) == seen:
            return
        self._last[result.name] = seen
        line = f"{result.name}: {result.status} ({elapsed(result, self.clock()):.1f}s)"
        if result.error:
            line += f": {result.error}"
        self._print(line)

    def end(self, result: ApplyResult) -> None:
        self._flush()

    def retry(self, notice: RetryNotice, deployment: str | None) -> None:
        self._print(retry_line(notice, deployment))

    def pause(self, seconds: float, deployment: str | None) -> None:
        self._print(pause_line(seconds))

    def _print(self, text: str) -> None:
        line = f"{iso_utc(self.wall(), timespec='seconds')} {visible(text)}"
        if not self._plain:
            self.console.print(line, markup=False, highlight=False)
            return
        self.console.file.write(line + "\n")
        self._flush_soon()

    def _flush_soon(self) -> None:
        """Flush once the event loop is done with what it is running now: the lines of
        one step (a poll that moved 100 deployments) go out in one write, at once."""
        if self._flush_queued:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # called outside the apply's loop: no one to flush later
            self._flush()
            return
        self._flush_queued = True
        loop.call_soon(self._flush)

    def _flush(self) -> None:
        self._flush_queued = False
        self.console.file.flush()


_OUTCOME_STYLES = {
    Outcome.SUCCEEDED: "green",
    Outcome.FAILED: "red",
    Outcome.SUBMITTED: "yellow",
    Outcome.NOT_STARTED: "dim",
}


class LiveReporter:
    """A live display on a terminal: one line per deployment, and an overall bar."""

    def __init__(
        self,
        console: Console,
        *,
        clock: Callable[[], float] = time.monotonic,
        title: str | None = None,
    ) -> None:
        from rich.live import Live
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
        )

        self.console = console
        self.clock = clock
        self._rows: list[DeploymentResult] = []
        self._progress: Progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
        )
        self._task = self._progress.add_task(title or "Applying", total=0)
        self._live: Live = Live(
            get_renderable=self._render, console=console, refresh_per_second=8, transient=False
        )

    def begin(self, results: Sequence[DeploymentResult]) -> None:
        self._rows = [r for r in results if r.shown]
        self._progress.update(self._task, total=len(self._rows))
        self._live.start()

    def update(self, result: DeploymentResult) -> None:
        done = sum(1 for r in self._rows if r.outcome is not Outcome.NOT_STARTED)
        self._progress.update(self._task, completed=done)

    def end(self, result: ApplyResult) -> None:
        done = sum(1 for r in self._rows if r.outcome is not Outcome.NOT_STARTED)
        self._progress.update(self._task, completed=done)
        self._live.stop()

    def retry(self, notice: RetryNotice, deployment: str | None) -> None:
        self.console.print(retry_line(notice, deployment), markup=False, highlight=False)

    def pause(self, seconds: float, deployment: str | None) -> None:
        self.console.print(pause_line(seconds), markup=False, highlight=False)

    def _render(self) -> RenderableType:
        from rich.table import Table

        table = Table.grid(padding=(0, 2))
        now = self.clock()
        for row in self._rows:
            style = _OUTCOME_STYLES[row.outcome] if row.started is not None else "dim"
            table.add_row(
                Text(f"{'…' if row.rollout else row.action.symbol} {row.name}"),
                Text(row.status, style=style),
                Text(f"{elapsed(row, now):.1f}s", style="dim"),
            )
        return Group(table, self._progress)


def make_reporter(console: Console, *, live: bool, title: str | None = None) -> Reporter:
    """The live display on a terminal, plain lines elsewhere; TITLE (what the run does)
    in place of an apply's `Applying N change(s)`."""
    if live:
        return LiveReporter(console, title=title)
    return LineReporter(console, title=title)
