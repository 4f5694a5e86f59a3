"""What `planner rollback NAME [--to REVISION_ID]` will do, as data: the revision it
redeploys and what that changes.

`plan_rollback` reads the deployment and its revision list (two requests, at once);
`choose_target` and `revision_changes` are pure.

- The target is `--to`'s revision, which must be one of the deployment's, must have
  reached DEPLOYED (only such a revision can be redeployed) and must not be what runs
  now; else the last revision before the active one that reached DEPLOYED and differs
  from it in what a revision carries (`source`, `source_revision_config`: redeploying
  one that does not would change nothing).
- What changes are those revision-level values, active revision -> target.
- A deployment already held at a revision, rolled back again without `--to` (or with
  that revision), is not planned here (`finishes_earlier_rollback`): `planner rollback`
  then finishes that rollback (`planner.apply.rollback.finish_rollback`) instead of
  going one further back.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict

from planner.api.client import ControlPlaneClient
from planner.api.models import Revision
from planner.command_lines import suggested_command
from planner.errors import PlanError
from planner.plan.status import DEPLOYED, revision_fields
from planner.state.document import iso_utc
from planner.state.records import Hold, RecordedDeployment


class RevisionChange(BaseModel):
    """One revision-level value: what the active revision runs, what the target has."""

    model_config = ConfigDict(frozen=True)

    path: str
    before: Any = None
    after: Any = None


class RevisionSummary(BaseModel):
    """A revision as a rollback shows it."""

    model_config = ConfigDict(frozen=True)

    id: str
    status: str
    created_at: str

    @classmethod
    def of(cls, revision: Revision) -> RevisionSummary:
        return cls(
            id=revision.id, status=str(revision.status), created_at=iso_utc(revision.created_at)
        )


class RollbackPlan(BaseModel):
    """One rollback: redeploy TARGET of NAME's deployment, which runs ACTIVE now.

    `latest_revision_id` is the deployment's latest revision before the redeploy (what
    the journal and the client's retry compare with); `fields` are the target's
    revision-level values (what the record keeps as applied); `held` is the hold the
    deployment has now (a rollback replaces it)."""

    model_config = ConfigDict(frozen=True)

    name: str
    deployment_id: str
    active: RevisionSummary | None
    target: RevisionSummary
    latest_revision_id: str | None
    changes: list[RevisionChange]
    fields: dict[str, Any]
    held: Hold | None = None


def finishes_earlier_rollback(recorded: RecordedDeployment, to: str | None) -> bool:
    """A rollback of RECORDED to TO finishes the one that holds it (nothing is planned:
    it waits for that rollback's revision) rather than going one revision further back:
    RECORDED is held, and TO is not given or is the revision it is held at. So running
    a rollback again, after a kill or a `--no-wait`, never rolls back twice."""
    return recorded.held is not None and to in (None, recorded.held.revision_id)


async def plan_rollback(
    client: ControlPlaneClient, recorded: RecordedDeployment, to: str | None
) -> RollbackPlan:
    """The rollback of RECORDED's deployment (to revision TO, else the default target)."""
    deployment, revisions = await asyncio.gather(
        client.get_deployment(recorded.id), client.list_revisions(recorded.id)
    )
    active = _find(revisions, deployment.active_revision_id)
    target = choose_target(recorded, revisions, active, to)
    return RollbackPlan(
        name=recorded.name,
        deployment_id=recorded.id,
        active=None if active is None else RevisionSummary.of(active),
        target=RevisionSummary.of(target),
        latest_revision_id=deployment.latest_revision_id,
        changes=revision_changes(active, target),
        fields=revision_fields(target),
        held=recorded.held,
    )


def choose_target(
    recorded: RecordedDeployment,
    revisions: Sequence[Revision],
    active: Revision | None,
    to: str | None,
) -> Revision:
    """The revision to redeploy (REVISIONS newest first), or a PlanError naming the
    deployment and, with TO, the revision."""
    if to is not None:
        return _named_target(recorded, revisions, active, to)
    if active is None:
        raise _error(recorded, "has no active revision to roll back from")
    older = list(revisions)[list(revisions).index(active) + 1 :]
    now = revision_fields(active)
    for revision in older:
        if str(revision.status) == DEPLOYED and revision_fields(revision) != now:
            return revision
    raise _error(
        recorded,
        f"has no earlier DEPLOYED revision to roll back to (active revision {active.id})",
    )


def _named_target(
    recorded: RecordedDeployment,
    revisions: Sequence[Revision],
    active: Revision | None,
    to: str,
) -> Revision:
    target = _find(revisions, to)
    if target is None:
        raise _error(recorded, f"has no revision {to}")
    if active is not None and target.id == active.id:
        raise _error(recorded, f"already runs revision {to} (its active revision)")
    if str(target.status) != DEPLOYED:
        raise _error(
            recorded,
            f"cannot be rolled back to revision {to}: it is {target.status}, and only a "
            "revision that reached DEPLOYED can be redeployed",
        )
    if active is not None and revision_fields(target) == revision_fields(active):
        raise _error(
            recorded,
            f"already runs what revision {to} carries (its active revision {active.id} has "
            "the same source and revision config)",
        )
    return target


def revision_changes(active: Revision | None, target: Revision) -> list[RevisionChange]:
    """The revision-level values that differ, active -> target (sorted by path)."""
    before = revision_fields(active) if active is not None else {}
    after = revision_fields(target)
    return [
        RevisionChange(path=path, before=before.get(path), after=after.get(path))
        for path in sorted(set(before) | set(after))
        if before.get(path) != after.get(path)
    ]


def _find(revisions: Sequence[Revision], revision_id: str | None) -> Revision | None:
    return next((r for r in revisions if r.id == revision_id), None)


def _error(recorded: RecordedDeployment, problem: str) -> PlanError:
    """`NAME (deployment ID) PROBLEM`, with the command that lists its revisions."""

    def hint(args: Sequence[str]) -> str:
        command = suggested_command("history", recorded.name, command_args=args)
        return f"`{command}` lists its revisions"

    return PlanError(
        f"{recorded.name} (deployment {recorded.id}) {problem}", hint=hint(()), hint_for=hint
    )
