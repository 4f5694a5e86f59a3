"""Held deployments: what a plan makes of a record a rollback holds (`RecordedDeployment.held`).

Pure. A held deployment is never planned: no change, no request, no policy input; the
plan lists it (`Plan.held`) with the field changes the config would make once released
(those drifted outside the planner marked so). Its drift is still the plan's drift: a
hold stops the planner acting on the config, not seeing what changed outside it. What
would change it anyway is an error of the plan naming `planner release NAME`: its table
left the config (it would be deleted), `--destroy`, `--replace NAME`, or a new address
naming it (a move).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from planner.api.models import Deployment
from planner.command_lines import suggested_command
from planner.config.desired import DesiredDeployment
from planner.plan.changes import build_create
from planner.plan.model import FieldChange, HeldDeployment, PlanProblem, PlanWarning
from planner.plan.update import build_update
from planner.state.records import Hold, RecordedDeployment


def held_moves(
    moves: Mapping[str, str], recorded: Mapping[str, RecordedDeployment]
) -> tuple[dict[str, str], dict[str, str]]:
    """MOVES (new address -> recorded one) split in two: the moves of deployments no
    rollback holds, and those of held ones (never made: an error of the plan)."""
    kept: dict[str, str] = {}
    held: dict[str, str] = {}
    for new, old in moves.items():
        (held if recorded[old].held is not None else kept)[new] = old
    return kept, held


def held_entry(
    recorded: RecordedDeployment,
    hold: Hold,
    desired: DesiredDeployment | None,
    observed: Deployment | None,
    key: bytes,
    command_args: Sequence[str] = (),
    drifted: Collection[str] = (),
) -> HeldDeployment:
    """The plan's entry of RECORDED, held by HOLD, with what DESIRED would change of it
    (the DRIFTED paths marked drifted)."""
    return HeldDeployment(
        address=recorded.name,
        revision=hold.revision_id,
        since=hold.since,
        by=hold.by,
        changes=would_change(recorded, desired, observed, key, drifted),
        release_command=release_command(recorded.name, command_args),
        removed=desired is None,
    )


def release_command(name: str, command_args: Sequence[str]) -> str:
    """`planner release NAME`, with the options given (a URL's password left out)."""
    return suggested_command("release", name, command_args=command_args)


def would_change(
    recorded: RecordedDeployment,
    desired: DesiredDeployment | None,
    observed: Deployment | None,
    key: bytes,
    drifted: Collection[str] = (),
) -> list[FieldChange]:
    """The field changes DESIRED would make of the live deployment (all of a create when
    it is gone; none when the config no longer declares it; DRIFTED paths marked)."""
    if desired is None:
        return []
    if observed is None:
        return list(build_create(desired, key, []).fields)
    update = build_update(desired, recorded, observed, key=key, drifted=drifted)
    return list(update.change.fields)


def hold_problem(
    name: str, hold: Hold, what: str, command_args: Sequence[str], *, instead: str = ""
) -> PlanProblem:
    """NAME is held and the plan would WHAT it: the way out is `planner release NAME`
    (INSTEAD: the other way, said before it)."""
    release = release_command(name, command_args)
    return PlanProblem(
        name=name,
        message=f"{name} is held (rolled back to revision {hold.revision_id} by {hold.by} "
        f"since {hold.since}) and would be {what}",
        hint=f"{instead}{'or ' if instead else ''}run `{release}` first (the next plan then "
        "plans the config again)",
    )


def gone_warning(name: str, hold: Hold, command_args: Sequence[str]) -> PlanWarning:
    """A held deployment deleted outside the planner: nothing is planned for it."""
    release = release_command(name, command_args)
    return PlanWarning(
        name=name,
        message=f"{name} is held (rolled back to revision {hold.revision_id}) but no longer "
        f"exists remotely (deleted outside the planner): `{release}`, then the next plan "
        "creates it again",
    )
