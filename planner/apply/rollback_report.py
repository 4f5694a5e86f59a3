"""`planner rollback --format json`: the one JSON document a rollback prints, its model and
its schema (`schemas/rollback.schema.json`, in `planner schema`'s registry).

Keys: `name`, `deployment_id`; `revision_id` (the revision rolled back to, the one the
hold names), `from_revision_id` (the active revision before; null when the run finished
an earlier rollback), `new_revision_id` (the revision the redeploy made) and its last
`status`; `outcome` (`succeeded`, `failed`, `submitted`: sent and not waited for, or
`not started`), `interrupted`, `error`; `changes[]` (`path`, `before`, `after`: the
revision-level values, active -> target); `held` (`revision_id`, `since`, `by`, or
null); `finished_earlier` (nothing was sent: the deployment was already held there and
the run waited for that rollback); `forward` (`--to` named a revision newer than the
one the active revision repeats: the rollback goes forward); `recovered[]` (the names of
interrupted rollbacks this run found done and recorded); `seconds`; `exit_code`. Secret
values never appear: a revision carries none.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from planner.apply.results import Outcome
from planner.apply.rollback import RollbackOutcome
from planner.plan.rollback import RevisionChange
from planner.state.records import Hold


class RollbackReport(BaseModel):
    """What `planner rollback --format json` prints (see the module for each key)."""

    model_config = ConfigDict(extra="forbid")

    name: str
    deployment_id: str | None
    revision_id: str | None
    from_revision_id: str | None
    new_revision_id: str | None
    status: str
    outcome: Outcome
    interrupted: bool
    error: str | None
    changes: list[RevisionChange] = Field(default_factory=list)
    held: Hold | None
    finished_earlier: bool
    forward: bool = False
    recovered: list[str] = Field(default_factory=list)
    seconds: float
    exit_code: int


def report_of(outcome: RollbackOutcome, exit_code: int) -> RollbackReport:
    """OUTCOME as its JSON document."""
    plan, done = outcome.plan, outcome.deployment
    hold = outcome.hold
    return RollbackReport(
        name=outcome.name,
        deployment_id=done.deployment_id,
        revision_id=plan.target.id if plan else hold.revision_id if hold else None,
        from_revision_id=plan.active.id if plan and plan.active else None,
        new_revision_id=done.revision_id,
        status=done.status,
        outcome=done.outcome,
        interrupted=outcome.result.interrupted,
        error=done.error,
        changes=list(plan.changes) if plan else [],
        held=hold,
        finished_earlier=plan is None,
        forward=plan is not None and plan.forward,
        recovered=[recovered.name for recovered in outcome.recovered],
        seconds=round(outcome.result.seconds, 3),
        exit_code=exit_code,
    )


def rollback_json_schema() -> dict[str, Any]:
    """The JSON Schema of `planner rollback --format json` (`schemas/rollback.schema.json`)."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "rollback.schema.json",
        "title": "planner rollback result",
        "description": "What `planner rollback --format json` prints: one JSON document "
        '(an error prints `{"error": {...}}` instead, as every command\'s).',
        **RollbackReport.model_json_schema(mode="serialization"),
    }
