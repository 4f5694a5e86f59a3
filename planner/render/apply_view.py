"""What `apply` and `destroy` show, in their two output formats.

`TextView` (`--format text`): the plan, then progress (a live display on a terminal,
timestamped lines elsewhere), then the result table and summary, all on stdout.
`JsonView` (`--format json`): stdout carries only NDJSON events
(`planner.render.apply_events`); the plan and the stop message, for people, go to stderr.
Errors are the CLI boundary's (`planner.cli.main.report_error`).
"""

from __future__ import annotations

import signal
import sys
from typing import TYPE_CHECKING, Protocol

from planner.apply.reporter import NullReporter, Reporter
from planner.apply.results import ApplyResult
from planner.plan.model import Plan
from planner.render.apply_text import render_apply_result
from planner.render.console import make_console
from planner.render.progress import make_reporter
from planner.render.text import write_text
from planner.state.document import iso_utc, utc_now

# The JSON events (their models) are imported by the JSON view only: text needs none.
if TYPE_CHECKING:
    from planner.apply.events import Operation, SignalName


class ApplyView(Protocol):
    def show_plan(self, plan: Plan) -> None: ...

    def reporter(self, plan: Plan) -> Reporter: ...

    def stopping(self, signum: int) -> None:
        """A first signal: the run stops sending and winds down."""

    def finished(self, result: ApplyResult, exit_code: int) -> None: ...

    def cut_short(self, exit_code: int) -> None:
        """A signal stopped the run at once (before it executed, or a second one)."""


def signal_name(signum: int) -> SignalName:
    return "SIGTERM" if signum == signal.SIGTERM else "SIGINT"


def stopping_message(signum: int) -> str:
    if signum == signal.SIGTERM:
        return (
            "Terminated (SIGTERM): finishing the requests in flight, then stopping "
            "(a second signal: now)."
        )
    return "Interrupted: finishing the requests in flight, then stopping (Ctrl-C again: now)."


class TextView:
    def __init__(self) -> None:
        self.console = make_console()

    def show_plan(self, plan: Plan) -> None:
        write_text(sys.stdout, plan, color=sys.stdout.isatty(), applying=True)
        sys.stdout.flush()

    def reporter(self, plan: Plan) -> Reporter:
        if not plan.has_changes and not plan.rollouts:
            return NullReporter()
        return make_reporter(self.console, live=self.console.is_terminal)

    def stopping(self, signum: int) -> None:
        """The stop message, stamped like the progress lines when they are lines."""
        message = stopping_message(signum)
        if not self.console.is_terminal:
            message = f"{iso_utc(utc_now(), timespec='seconds')} {message}"
        self.console.print(message, markup=False)

    def finished(self, result: ApplyResult, exit_code: int) -> None:
        sys.stdout.write("\n" + render_apply_result(result, color=sys.stdout.isatty()))
        sys.stdout.flush()

    def cut_short(self, exit_code: int) -> None:
        pass  # the error boundary says "Interrupted."


class JsonView:
    def __init__(self, operation: Operation) -> None:
        from planner.render.apply_events import EventStream

        self.operation: Operation = operation
        self.events = EventStream(sys.stdout, operation)

    def show_plan(self, plan: Plan) -> None:
        write_text(sys.stderr, plan, color=False, applying=True)
        sys.stderr.flush()

    def reporter(self, plan: Plan) -> Reporter:
        return self.events

    def stopping(self, signum: int) -> None:
        message = stopping_message(signum)
        self.events.interrupt(signal_name(signum), message)
        make_console(stderr=True).print(message, markup=False)

    def finished(self, result: ApplyResult, exit_code: int) -> None:
        self.events.summary(result, exit_code)

    def cut_short(self, exit_code: int) -> None:
        """The summary of what the executor got to (nothing, when it had not started)."""
        done = self.events.result or ApplyResult(
            mode="destroy" if self.operation == "destroy" else "normal"
        )
        done.interrupted = True
        self.events.summary(done, exit_code)


def make_view(output_format: str, operation: Operation) -> ApplyView:
    return JsonView(operation) if output_format == "json" else TextView()
