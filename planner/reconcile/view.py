"""What `planner reconcile` shows, in its two output formats.

`TextView` (`--format text`): one timestamped line per cycle and per change of leader on
stdout, a heal's progress as the apply's timestamped lines; warnings (a notification that
did not arrive) on stderr. `JsonView` (`--format json`): stdout carries only NDJSON events
(`planner.reconcile.events`, the apply's events among them); warnings go to stderr.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from datetime import datetime
from typing import Literal, Protocol

from planner.apply.reporter import NullReporter, Reporter
from planner.apply.results import ApplyResult
from planner.plan.model import Plan
from planner.reconcile.cycle import Outcome
from planner.reconcile.events import CycleEvent, LeaderEvent, Mode, StoppedEvent
from planner.render.apply_events import EventStream, error_event, event_time, write_event
from planner.render.apply_view import signal_name, stopping_message
from planner.render.console import make_console
from planner.render.progress import make_reporter
from planner.render.safe import visible
from planner.state.document import iso_utc, utc_now

LeaderStatus = Literal["leader", "standby", "resigned"]


class ReconcileView(Protocol):
    def leader(self, status: LeaderStatus, holder: str | None, message: str) -> None: ...

    def reporter(self, plan: Plan) -> Reporter: ...

    def applied(self, result: ApplyResult) -> None: ...

    def cycle(self, number: int, mode: Mode, seconds: float, outcome: Outcome,
              next_seconds: float | None) -> None: ...  # fmt: skip

    def stopping(self, signum: int) -> None: ...

    def stopped(self, signum: int | None, cycles: int, exit_code: int) -> None: ...

    def warning(self, text: str) -> None: ...


def cycle_line(number: int, mode: Mode, seconds: float, outcome: Outcome) -> str:
    """`cycle 3 (heal): healed: 2 healed (api, worker) [0.41 s]`."""
    names = outcome.changed or outcome.pending
    listed = f" ({', '.join(names[:10])}{', ...' if len(names) > 10 else ''})" if names else ""
    return visible(f"cycle {number} ({mode}): {outcome.result}: {outcome.message}{listed} ") + (
        f"[{seconds:.2f} s]"
    )


class TextView:
    def __init__(self, now: Callable[[], datetime] = utc_now) -> None:
        self.console = make_console()
        self.errors = make_console(stderr=True)
        self.now = now

    def _line(self, text: str) -> None:
        self.console.print(f"{iso_utc(self.now(), timespec='seconds')} {text}", markup=False)

    def leader(self, status: LeaderStatus, holder: str | None, message: str) -> None:
        self._line(message)

    def reporter(self, plan: Plan) -> Reporter:
        if not plan.has_changes:
            return NullReporter()
        return make_reporter(self.console, live=False)

    def applied(self, result: ApplyResult) -> None:
        pass  # the progress lines said it; the cycle line sums it up

    def cycle(
        self, number: int, mode: Mode, seconds: float, outcome: Outcome, next_seconds: float | None
    ) -> None:
        self._line(cycle_line(number, mode, seconds, outcome))
        if outcome.error is not None:
            for detail in outcome.error.details:
                self._line(f"  {visible(detail)}")

    def stopping(self, signum: int) -> None:
        self._line(stopping_message(signum))

    def stopped(self, signum: int | None, cycles: int, exit_code: int) -> None:
        if signum is not None:
            self._line(f"stopped after {cycles} cycle(s) ({signal_name(signum)})")

    def warning(self, text: str) -> None:
        self.errors.print(f"Warning: {text}", markup=False)


class JsonView:
    def __init__(self) -> None:
        self.out = sys.stdout
        self.errors = make_console(stderr=True)
        self.events = EventStream(self.out, "apply")

    def leader(self, status: LeaderStatus, holder: str | None, message: str) -> None:
        write_event(
            self.out, LeaderEvent(time=event_time(), status=status, holder=holder, message=message)
        )

    def reporter(self, plan: Plan) -> Reporter:
        self.events = EventStream(self.out, "apply")
        return self.events

    def applied(self, result: ApplyResult) -> None:
        self.events.summary(result, 1 if result.failed else 0)

    def cycle(
        self, number: int, mode: Mode, seconds: float, outcome: Outcome, next_seconds: float | None
    ) -> None:
        error = None if outcome.error is None else error_event(outcome.error).error
        event = CycleEvent(
            time=event_time(),
            status=outcome.result,
            cycle=number,
            mode=mode,
            seconds=round(seconds, 3),
            drifted=outcome.drifted,
            pending=outcome.pending,
            changed=outcome.changed,
            held=outcome.held_back,
            held_deployments=outcome.held,
            message=outcome.message,
            error=error,
            next_seconds=None if next_seconds is None else round(next_seconds, 3),
        )
        write_event(self.out, event)

    def stopping(self, signum: int) -> None:
        message = stopping_message(signum)
        self.events.interrupt(signal_name(signum), message)
        self.errors.print(message, markup=False)

    def stopped(self, signum: int | None, cycles: int, exit_code: int) -> None:
        name = None if signum is None else signal_name(signum)
        event = StoppedEvent(time=event_time(), signal=name, cycles=cycles, exit_code=exit_code)
        write_event(self.out, event)

    def warning(self, text: str) -> None:
        self.errors.print(f"Warning: {text}", markup=False)


def make_view(output_format: str) -> ReconcileView:
    return JsonView() if output_format == "json" else TextView()
