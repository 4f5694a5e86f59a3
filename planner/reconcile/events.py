"""The events of `planner reconcile --format json`: one JSON object per line.

The apply events (`planner.apply.events`: `start`, `status`, `operation`, `retry`,
`pause`, `interrupt`, `summary`, `error`) of every heal, plus the reconcile's own:
`leader` (this replica became the leader, stands by, or gave the leadership up), `cycle`
(one cycle ended: its result and what it found and did) and `stopped` (the last line of a
run a signal ended, or of `--once`). The same invariants as the apply events: `type`,
`time` (ISO 8601 UTC with `Z`), `deployment` (null: about none) and `status` on every
line. `schemas/reconcile-events.schema.json` is generated from these models.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, TypeAdapter

from planner.apply.events import AnyApplyEvent, ErrorBody, Event, SignalName, stream_json_schema

CycleResult = Literal["ok", "drift", "healed", "refused", "error", "standby"]
Mode = Literal["heal", "detect"]


class LeaderEvent(Event):
    """This replica's part in the election changed."""

    type: Literal["leader"] = "leader"
    status: Literal["leader", "standby", "resigned"]
    holder: str | None = Field(description="who leads (user@host (pid N)), when known")
    message: str


class CycleEvent(Event):
    """One cycle ended (in `heal` mode after its apply's `summary`)."""

    type: Literal["cycle"] = "cycle"
    status: CycleResult = Field(
        description="ok: nothing to change; drift: changes found, not applied (detect, or "
        "deletions held back without --prune); healed: changes applied; refused: more "
        "than --max-changes deployments to change, nothing applied; error: the cycle "
        "failed (a plan with errors, a failed deployment, the state locked...); standby: "
        "another replica leads"
    )
    cycle: int = Field(description="the cycle's number in this run, from 1")
    mode: Mode
    seconds: float
    drifted: list[str] = Field(description="deployments whose server values moved since recorded")
    pending: list[str] = Field(description="deployments the plan would change")
    changed: list[str] = Field(description="deployments this cycle changed")
    held: list[str] = Field(description="deletions held back (no --prune)")
    held_deployments: list[str] = Field(
        description="deployments a rollback holds (`planner rollback`): reported, never "
        "healed until `planner release`",
    )
    message: str = Field(description="the human line")
    error: ErrorBody | None = Field(description="why the cycle failed")
    next_seconds: float | None = Field(description="until the next cycle (null: the last)")


class StoppedEvent(Event):
    """The run ended: a signal stopped it, or `--once` ran its cycle (the last line)."""

    type: Literal["stopped"] = "stopped"
    status: Literal["stopped"] = "stopped"
    signal: SignalName | None
    cycles: int
    exit_code: int


ReconcileEvent = Annotated[
    AnyApplyEvent | LeaderEvent | CycleEvent | StoppedEvent, Field(discriminator="type")
]
RECONCILE_EVENT: TypeAdapter[ReconcileEvent] = TypeAdapter(ReconcileEvent)


def reconcile_events_json_schema() -> dict[str, Any]:
    """The JSON Schema of one line of the stream (`schemas/reconcile-events.schema.json`)."""
    return stream_json_schema(
        RECONCILE_EVENT,
        schema_id="reconcile-events.schema.json",
        title="planner reconcile event",
        description=(
            "One line of `planner reconcile --format json`: NDJSON, one event per line; "
            "the apply events of each heal plus `leader`, `cycle` and `stopped`."
        ),
    )
