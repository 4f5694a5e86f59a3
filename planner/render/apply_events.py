"""`planner apply --format json`: the run as NDJSON on stdout, one event per line.

`EventStream` is the JSON mode's `Reporter` (start, status, operation, retry, pause) and
writes the events the executor does not make (interrupt, summary, error). The events
are the models of `planner.apply.events`; each line is flushed as it is written, so a
reader (a CI step, `jq`) sees it at once. Nothing else goes to that stream.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TextIO

from planner.api.retry import RetryNotice
from planner.apply.events import (
    Counts,
    ErrorBody,
    ErrorEvent,
    Event,
    InterruptEvent,
    Operation,
    OperationEvent,
    PauseEvent,
    RetryEvent,
    SignalName,
    StartEvent,
    StatusEvent,
    SummaryEvent,
)
from planner.apply.results import ApplyResult, DeploymentResult, Outcome
from planner.errors import PlannerError
from planner.plan.model import Action
from planner.render.errors import error_document
from planner.render.progress import elapsed
from planner.render.summary import apply_summary
from planner.state.document import iso_utc, utc_now


def write_event(out: TextIO, event: Event) -> None:
    """EVENT as one line of JSON, flushed."""
    out.write(event.model_dump_json() + "\n")
    out.flush()


def event_time(now: Callable[[], datetime] = utc_now) -> str:
    return iso_utc(now(), timespec="milliseconds")


def error_event(error: PlannerError) -> ErrorEvent:
    """The `error` line: the same object as every `--format json` error (`planner.errors`)."""
    body = ErrorBody.model_validate(error_document(error)["error"])
    return ErrorEvent(time=event_time(), error=body, exit_code=error.exit_code)


def is_final(result: DeploymentResult) -> bool:
    """Whether RESULT is the deployment's end (its `operation` event), not a step on the way."""
    return result.outcome is not Outcome.NOT_STARTED or result.status == Outcome.NOT_STARTED.value


def counts(result: ApplyResult) -> Counts:
    return Counts(
        created=result.count(Action.CREATE),
        updated=result.count(Action.UPDATE),
        new_revision=result.count(Action.NEW_REVISION),
        deleted=result.deleted,
        replaced=result.count(Action.REPLACE),
        failed=len(result.failed),
        not_started=result.not_started,
        rollouts=len(result.rollouts),
        moved=result.moved,
    )


class EventStream:
    """The events of one run, written to OUT as they happen."""

    def __init__(
        self,
        out: TextIO,
        operation: Operation,
        *,
        now: Callable[[], datetime] = utc_now,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.out = out
        self.operation: Operation = operation
        self.now = now
        self.clock = clock
        self.result: ApplyResult | None = None  # what the executor ended with
        self._last: dict[str, tuple[str, Outcome, str | None]] = {}

    def begin(self, results: Sequence[DeploymentResult]) -> None:
        changes = sum(1 for r in results if r.changed)
        rollouts = sum(1 for r in results if r.rollout)
        start = StartEvent(
            time=self._time(), operation=self.operation, changes=changes, rollouts=rollouts
        )
        self._emit(start)

    def update(self, result: DeploymentResult) -> None:
        if not (result.shown or result.moved_from):
            return  # a no-op is bookkeeping, not progress (a rollout's wait and a move are)
        seen = (result.status, result.outcome, result.error)
        if self._last.get(result.name) == seen:
            return
        self._last[result.name] = seen
        self._emit(self._operation(result) if is_final(result) else self._status(result))

    def end(self, result: ApplyResult) -> None:
        self.result = result

    def retry(self, notice: RetryNotice, deployment: str | None) -> None:
        self._emit(
            RetryEvent(
                time=self._time(),
                deployment=deployment,
                status_code=notice.status,
                wait_seconds=round(notice.wait, 3),
                attempt=notice.attempt,
                reason=notice.reason,
            )
        )

    def pause(self, seconds: float, deployment: str | None) -> None:
        self._emit(PauseEvent(time=self._time(), deployment=deployment, wait_seconds=seconds))

    def interrupt(self, signal_name: SignalName, message: str) -> None:
        self._emit(InterruptEvent(time=self._time(), signal=signal_name, message=message))

    def summary(self, result: ApplyResult, exit_code: int) -> None:
        self._emit(
            SummaryEvent(
                time=self._time(),
                operation=self.operation,
                status=result.outcome,
                outcome=result.outcome,
                exit_code=exit_code,
                seconds=round(result.seconds, 3),
                counts=counts(result),
                message=apply_summary(result),
                recovered=result.recovered,
            )
        )

    def _status(self, result: DeploymentResult) -> StatusEvent:
        return StatusEvent(
            time=self._time(),
            deployment=result.name,
            action=result.action,
            status=result.status,
            seconds=round(elapsed(result, self.clock()), 3),
        )

    def _operation(self, result: DeploymentResult) -> OperationEvent:
        return OperationEvent(
            time=self._time(),
            deployment=result.name,
            action=result.action,
            outcome=result.outcome,
            status=result.status,
            deployment_id=result.deployment_id,
            revision_id=result.revision_id,
            seconds=round(result.seconds, 3),
            error=result.error,
            moved_from=result.moved_from,
        )

    def _time(self) -> str:
        return event_time(self.now)

    def _emit(self, event: Event) -> None:
        write_event(self.out, event)
