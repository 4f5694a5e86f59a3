"""What `planner rollback NAME [--to REVISION_ID]` will do, as data: the revision it
redeploys and what that changes.

`plan_rollback` reads the deployment and its revision list (two requests, at once);
`choose_target` and `revision_changes` are pure.

- The target is `--to`'s revision (its id, or a prefix of exactly one of the
  deployment's revision ids), which must be one of the deployment's, must have
  reached DEPLOYED (only such a revision can be redeployed) and must not be what runs
  now (`forward`: it is newer than the active revision's original, below); else a
  default rollback never goes forward: with V the active revision's revision-level values
  (`source`, `source_revision_config`), its original is the oldest revision carrying V
  (a redeploy, like a rollback's, copies an older revision: the active one repeats it),
  and the target is the last revision created before that original that reached
  DEPLOYED and differs from V (redeploying one that does not would change nothing).
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
    forward: bool = False  # TARGET is newer than the revision the active one repeats


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
        forward=is_forward(revisions, active, target),
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
    original = original_of(revisions, active)
    if active is None or original is None:
        raise _error(recorded, "has no active revision to roll back from")
    now = revision_fields(active)
    ordered = list(revisions)
    for revision in ordered[ordered.index(original) + 1 :]:
        if str(revision.status) == DEPLOYED and revision_fields(revision) != now:
            return revision
    repeats = f" redeploys {original.id}" if original.id != active.id else ""
    raise _error(
        recorded,
        f"has no earlier DEPLOYED revision to roll back to (active revision {active.id}{repeats})",
    )


def original_of(revisions: Sequence[Revision], active: Revision | None) -> Revision | None:
    """The revision ACTIVE repeats (REVISIONS newest first): the oldest one, ACTIVE or
    older, carrying its revision-level values (ACTIVE itself when none older does)."""
    if active is None or active not in revisions:
        return None
    now = revision_fields(active)
    ordered = list(revisions)
    older = ordered[ordered.index(active) :]
    return [r for r in older if r.id == active.id or revision_fields(r) == now][-1]


def is_forward(revisions: Sequence[Revision], active: Revision | None, target: Revision) -> bool:
    """Whether TARGET is newer than the revision ACTIVE repeats (a rollback going forward)."""
    original = original_of(revisions, active)
    ordered = list(revisions)
    return original is not None and ordered.index(target) < ordered.index(original)


def _named_target(
    recorded: RecordedDeployment,
    revisions: Sequence[Revision],
    active: Revision | None,
    to: str,
) -> Revision:
    target = _named(recorded, revisions, to)
    to = target.id
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


def _named(recorded: RecordedDeployment, revisions: Sequence[Revision], to: str) -> Revision:
    """The revision TO names: its id, or a prefix of exactly one id (the 8 characters the
    tables print); an unknown id or an ambiguous prefix is an error."""
    exact = _find(revisions, to)
    if exact is not None:
        return exact
    found = [r for r in revisions if to and r.id.startswith(to)]
    if len(found) == 1:
        return found[0]
    if not found:
        raise _error(recorded, f"has no revision {to}")
    listed = ", ".join(r.id for r in found)
    raise _error(recorded, f"has {len(found)} revisions starting with {to}: {listed}")


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
