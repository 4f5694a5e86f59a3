"""The events of `planner apply --format json` (and `destroy`): one JSON object per line.

A small closed set, each a model here (`schemas/apply-events.schema.json` is generated
from them): `start`, `status` (a deployment's status changed), `operation` (a
deployment's part ended), `retry` (a request is sent again), `pause` (a 429 held every
request), `interrupt` (a first SIGINT/SIGTERM), `error` and `summary`.

Invariants: every event has `type`, `time` (ISO 8601 UTC with `Z`, milliseconds),
`deployment` (null when it is about none) and `status` (a deployment's status, or the
run's: `started`, `retrying`, `paused`, `stopping`, `failed`, and the summary's outcome);
a run's last line is its `summary`, or an `error` when it failed as a whole; both carry
the process's `exit_code`.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from planner.apply.results import Outcome, RunOutcome
from planner.plan.model import Action, Recovered

ISO_UTC = r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$"
Operation = Literal["apply", "destroy"]
SignalName = Literal["SIGINT", "SIGTERM"]


class Event(BaseModel):
    """What every event has."""

    model_config = ConfigDict(extra="forbid", json_schema_serialization_defaults_required=True)

    time: Annotated[str, Field(pattern=ISO_UTC, description="ISO 8601, UTC, with `Z`")]
    deployment: str | None = Field(default=None, description="the deployment it is about")


class StartEvent(Event):
    """The plan is being executed (nothing was sent before this line)."""

    type: Literal["start"] = "start"
    status: Literal["started"] = "started"
    operation: Operation
    changes: int = Field(description="deployments something will be sent for")
    rollouts: int = Field(
        description="revisions an earlier apply submitted, still rolling out: waited for, "
        "nothing sent (their events have action `no_op`)"
    )


class StatusEvent(Event):
    """A deployment's status changed (e.g. `creating`, `BUILDING`, `DEPLOYING`)."""

    type: Literal["status"] = "status"
    deployment: str
    action: Action
    status: str
    seconds: float = Field(description="since its work started")


class OperationEvent(Event):
    """A deployment's part of the run ended (the last event about it)."""

    type: Literal["operation"] = "operation"
    deployment: str
    action: Action
    outcome: Outcome
    status: str = Field(description="the last status seen (`DEPLOYED`, `deleted`, ...)")
    deployment_id: str | None
    revision_id: str | None
    seconds: float
    error: str | None = Field(description="why it failed (names nothing secret)")
    moved_from: str | None = Field(
        default=None,
        description="the address the state recorded it under before this run: a move "
        "(nothing is sent for the move itself; alone, the status is `moved`)",
    )


class RetryEvent(Event):
    """A request failed with a retryable error (502/503/504, no response) and is sent
    again after `wait_seconds` (429s are `pause` events)."""

    type: Literal["retry"] = "retry"
    status: Literal["retrying"] = "retrying"
    status_code: int | None = Field(description="the HTTP status; null: no response came")
    wait_seconds: float
    attempt: int = Field(description="the attempt that failed, from 1")
    reason: str


class PauseEvent(Event):
    """The control plane answered 429: every request waits `wait_seconds` (one event per
    pause, however many requests it holds)."""

    type: Literal["pause"] = "pause"
    status: Literal["paused"] = "paused"
    status_code: Literal[429] = 429
    wait_seconds: float


class InterruptEvent(Event):
    """A first SIGINT or SIGTERM: nothing new is sent; in-flight work finishes and is
    recorded (a second signal stops at once)."""

    type: Literal["interrupt"] = "interrupt"
    status: Literal["stopping"] = "stopping"
    signal: SignalName
    message: str


class ErrorBody(BaseModel):
    """The error as every `--format json` command reports it (see `planner.errors`)."""

    model_config = ConfigDict(extra="forbid", json_schema_serialization_defaults_required=True)

    code: str = Field(description="stable, e.g. `stale_plan`, `state-locked`, `plan-invalid`")
    message: str
    details: list[str]
    hint: str | None


class ErrorEvent(Event):
    """The run failed as a whole (e.g. a stale plan, a locked state): the last line."""

    type: Literal["error"] = "error"
    status: Literal["failed"] = "failed"
    error: ErrorBody
    exit_code: int


class Counts(BaseModel):
    """What the run did, by action (as the human summary line says)."""

    model_config = ConfigDict(extra="forbid")

    created: int
    updated: int
    new_revision: int
    deleted: int
    replaced: int
    failed: int
    not_started: int
    rollouts: int = Field(description="rollouts of an earlier apply waited for")
    moved: int = Field(description="records re-keyed to a new address (nothing sent for them)")


class SummaryEvent(Event):
    """The last line of a run that executed (or was stopped while executing)."""

    type: Literal["summary"] = "summary"
    status: RunOutcome = Field(description="= outcome")
    operation: Operation
    outcome: RunOutcome
    exit_code: int = Field(description="0 done, 1 a deployment failed, 130 SIGINT, 143 SIGTERM")
    seconds: float
    counts: Counts
    message: str = Field(description="the human summary line")
    recovered: list[Recovered] = Field(
        default_factory=list,
        description="what an interrupted apply did and this run adopted (as in the plan)",
    )


# Every event of a run, in the schema's order (`planner.reconcile.events` adds its own).
AnyApplyEvent = (
    StartEvent
    | StatusEvent
    | OperationEvent
    | RetryEvent
    | PauseEvent
    | InterruptEvent
    | ErrorEvent
    | SummaryEvent
)
ApplyEvent = Annotated[AnyApplyEvent, Field(discriminator="type")]
APPLY_EVENT: TypeAdapter[ApplyEvent] = TypeAdapter(ApplyEvent)


def stream_json_schema(
    adapter: TypeAdapter[Any], *, schema_id: str, title: str, description: str
) -> dict[str, Any]:
    """The JSON Schema document of one line of an NDJSON event stream."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": schema_id,
        "title": title,
        "description": description,
        **adapter.json_schema(mode="serialization"),
    }


def apply_events_json_schema() -> dict[str, Any]:
    """The JSON Schema of one line of the stream (`schemas/apply-events.schema.json`)."""
    return stream_json_schema(
        APPLY_EVENT,
        schema_id="apply-events.schema.json",
        title="planner apply event",
        description=(
            "One line of `planner apply --format json` (and `destroy`): NDJSON, one event "
            "per line, the last a `summary` or an `error`."
        ),
    )
