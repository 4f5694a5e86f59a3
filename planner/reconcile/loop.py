"""The reconcile loop: elect, run a cycle, publish, notify, wait; until stopped.

- Every cycle first makes sure this replica leads (`planner.reconcile.leader`); a standby
  checks again every heartbeat (a third of the lease, at most the interval), so it takes
  over within the lease of a leader that died.
- The leader opens the workspace afresh (the config file is read again: an edit is rolled
  out by the next cycle, no restart) and runs one `Cycle`.
- A failed cycle is retried sooner, backing off: 1 s, 2 s, 4 s... capped at the interval.
- Notifications: drift when a set of deployments to change is first found, healed on
  every heal, failed when a cycle fails unlike the one before (`failure_key`).
- `stop` (the first SIGTERM or SIGINT) ends the loop: a heal in progress winds down as an
  apply's first Ctrl-C does, the leadership is given up.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from planner.apply.results import Outcome as ApplyOutcome
from planner.errors import PlannerError
from planner.reconcile.cycle import Cycle, OpenWorkspace, Outcome, Settings
from planner.reconcile.leader import Leadership, ReplicaRefusedError
from planner.reconcile.notify import Notifier, NotifyKind, notification_text
from planner.reconcile.status import CycleRecord, DeploymentRow, StatusBoard
from planner.reconcile.view import ReconcileView
from planner.render.markdown import render_markdown
from planner.state.document import iso_utc, utc_now
from planner.state.lease import heartbeat_for

EXIT_OK, EXIT_ERROR, EXIT_CHANGES = 0, 1, 2
BACKOFF_START_SECONDS = 1.0


def retry_delay(failures: int, interval: float) -> float:
    """Seconds until the next cycle after FAILURES failed cycles in a row (0: the interval)."""
    if failures == 0:
        return interval
    return min(interval, BACKOFF_START_SECONDS * 2.0 ** (failures - 1))


def failure_key(outcome: Outcome) -> tuple[str, ...]:
    """What makes a failed cycle the same failure as the one before: the deployments that
    failed to converge and how (their last status; not the message, which names the
    revision, new on every retry), else the
    kind of error and its message (a plan's errors, an unreachable server...)."""
    if outcome.applied is not None and outcome.applied.failed:
        return ("converge", *sorted(f"{r.name}: {r.status}" for r in outcome.applied.failed))
    code = outcome.error.code if outcome.error is not None else "error"
    return (code, outcome.message)


def once_exit_code(result: str) -> int:
    """`--once`, like `plan --detailed-exitcode`: 0 in sync (nothing left, or all healed),
    2 changes left (found by detect, refused, or deletions held back), 1 an error."""
    if result in ("ok", "healed"):
        return EXIT_OK
    if result in ("drift", "refused"):
        return EXIT_CHANGES
    return EXIT_ERROR


@dataclass
class Reconciler:
    """The loop of one replica."""

    settings: Settings
    open_workspace: OpenWorkspace
    leadership: Leadership
    board: StatusBoard
    view: ReconcileView
    stop: asyncio.Event
    notifier: Notifier | None = None
    where: str = "the workspace"
    clock: Callable[[], float] = time.monotonic
    cycles: int = 0
    delay: float = 0.0  # until the next cycle
    _failures: int = 0
    _notified_drift: frozenset[str] = frozenset()
    _notified_failure: tuple[str, ...] | None = None
    _last_changes: dict[str, tuple[str, datetime]] = field(default_factory=dict)

    async def run(self) -> int:
        """Cycles until `stop`; with `once`, one cycle and its exit code."""
        try:
            while not self.stop.is_set():
                outcome = await self.one_cycle()
                if self.settings.once:
                    return once_exit_code(outcome.result)
                if self.stop.is_set():
                    break
                await self.wait(self.delay)
        finally:
            await self.resign()
        return EXIT_OK

    async def one_cycle(self) -> Outcome:
        self.cycles += 1
        started_at, started = utc_now(), self.clock()
        outcome = await self.elect()
        if outcome is None:
            outcome = await self.converge()
        seconds = self.clock() - started
        self.delay = self.next_delay(outcome)
        last = self.settings.once or self.stop.is_set()
        next_seconds = None if last else self.delay
        self.view.cycle(self.cycles, self.settings.mode, seconds, outcome, next_seconds)
        self.publish(started_at, seconds, outcome)
        await self.notify(outcome)
        return outcome

    async def elect(self) -> Outcome | None:
        """None when this replica leads; else the standby's outcome."""
        was_leader = self.leadership.is_leader and self.cycles > 1
        try:
            leads = await asyncio.to_thread(self.leadership.try_lead, self.settings.lock_lease)
        except ReplicaRefusedError:
            raise
        except PlannerError as error:
            return Outcome("error", f"the leader election failed: {error.message}", error=error)
        holder = self.leadership.holder
        self.board.set_leader(holder, leads)
        if leads and not was_leader:
            self.view.leader("leader", holder, f"leading the reconcile of {self.where}")
        elif not leads and (was_leader or self.cycles == 1):
            self.view.leader("standby", holder, f"standing by: {holder or 'another replica'} leads")
        if leads:
            return None
        if self.settings.once:
            return Outcome("error", f"another replica leads ({holder}): nothing done",
                           error=PlannerError("another replica leads the reconcile"))  # fmt: skip
        return Outcome("standby", f"{holder or 'another replica'} leads")

    async def converge(self) -> Outcome:
        cycle = Cycle(self.settings, self.leadership, self.view, self.stop)
        try:
            async with self.open_workspace() as ws:
                return await cycle.run(ws)
        except PlannerError as error:
            return Outcome("error", error.message, error=error)

    def next_delay(self, outcome: Outcome) -> float:
        if outcome.result == "standby":
            return min(self.settings.interval, heartbeat_for(self.settings.lock_lease))
        failures = self._failures + 1 if outcome.result == "error" else 0
        return retry_delay(failures, self.settings.interval)

    async def wait(self, seconds: float) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.stop.wait(), timeout=seconds)

    def publish(self, started_at: datetime, seconds: float, outcome: Outcome) -> None:
        """The cycle on the status board (and the failure count for the back-off)."""
        self._failures = self._failures + 1 if outcome.result == "error" else 0
        if outcome.applied is not None:
            for result in outcome.applied.results:
                if result.changed and result.outcome is not ApplyOutcome.NOT_STARTED:
                    self._last_changes[result.name] = (result.action.value, started_at)
        record = CycleRecord(
            started_at=started_at,
            duration_s=seconds,
            mode=self.settings.mode,
            result=outcome.result,
            drifted=len(outcome.drifted),
            pending=len(outcome.left),
            changed=len(outcome.changed),
            message=outcome.message,
            held=len(outcome.held) if outcome.plan is not None else None,
        )
        self.board.record_cycle(record)
        if outcome.rows:
            rows = [self.with_last_change(row) for row in outcome.rows]
            self.board.set_deployments(rows, planned_at=started_at)
        if outcome.plan is not None:
            self.board.set_last_plan(render_markdown(outcome.plan))
        self.board.set_ready(True)

    def with_last_change(self, row: DeploymentRow) -> DeploymentRow:
        change = self._last_changes.get(row.address)
        if change is None:
            return row
        return replace(row, last_change=change[0], last_change_at=change[1])

    async def notify(self, outcome: Outcome) -> None:
        kind, names = self.notification_of(outcome)
        if kind is None or self.notifier is None:
            return
        body: dict[str, Any] = {
            "text": notification_text(kind, names, outcome.message, self.where),
            "event": kind,
            "cycle": self.cycles,
            "mode": self.settings.mode,
            "result": outcome.result,
            "deployments": names,
            "drifted": outcome.drifted,
            "pending": outcome.pending,
            "changed": outcome.changed,
            "failed": outcome.failed,
            "message": outcome.message,
            "where": self.where,
            "time": iso_utc(utc_now(), timespec="seconds"),
        }
        await self.notifier.send(body)

    def notification_of(self, outcome: Outcome) -> tuple[NotifyKind | None, list[str]]:
        """Which notification OUTCOME sends (None: none), about which deployments."""
        if outcome.result != "error":
            self._notified_failure = None
        if outcome.result == "error":
            key = failure_key(outcome)
            if key == self._notified_failure:
                return None, []
            self._notified_failure = key
            return "failed", outcome.failed or outcome.pending
        if outcome.result == "healed" or (outcome.result == "drift" and outcome.changed):
            self._notified_drift = frozenset(outcome.held_back)  # said with the heal
            return "healed", outcome.changed
        if outcome.result in ("drift", "refused"):
            found = frozenset(outcome.pending + outcome.held_back + outcome.held_drifted)
            if found == self._notified_drift:
                return None, []
            self._notified_drift = found
            return "drift", sorted(found)
        if outcome.result == "ok":
            self._notified_drift = frozenset()
        return None, []

    async def resign(self) -> None:
        """Give the leadership up (a standby takes over at once)."""
        was_leader = self.leadership.is_leader
        await asyncio.to_thread(self.leadership.close)
        if was_leader:
            self.board.set_leader(None, False)
            self.view.leader("resigned", None, "gave the leadership up")
