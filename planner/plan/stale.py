"""Whether a saved plan still holds: what moved since `planner plan --out`.

Apply refuses a stale plan (`check_plan_fresh`): a deployment it plans was rolled back
and is held since (or one it lists as held was released: `hold_moves`, whether or not
the write that set the hold moved the serial), the state moved (serial or lineage), it
targets another endpoint, a deployment changed, appeared or disappeared since (or took
the new remote name a replace creates under), or the config of a planned deployment
changed since (apply records what the config says, so it must still be what was
planned; `config_digests` holds a sha256 of each one's non-secret managed values and
lifecycle), or a secret value differs from the planned one (checked by keyed digest
against each change's `secret_digests`: apply records those digests, so they must be
the values sent, or seen on the server).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING

from planner.config.desired import DesiredDeployment
from planner.errors import PlanStaleError
from planner.plan.body import moved_secrets
from planner.plan.model import Action, Plan
from planner.plan.refresh import Observed
from planner.secrets import secret_digest
from planner.state.document import StateDocument, iso_utc
from planner.state.endpoints import target_text

if TYPE_CHECKING:  # a saved plan's: an apply that plans itself never loads the module
    from planner.plan.saved import SavedPlan, SeenDeployment

STALE_HINT = "run `planner plan --out FILE` again, review it, and apply the new plan"


def check_plan_fresh(
    saved: SavedPlan,
    doc: StateDocument,
    observed: Observed,
    desired: Mapping[str, DesiredDeployment] | None = None,
    digest_key: bytes | None = None,
    variables: Mapping[str, str] | None = None,
) -> None:
    """Raise PlanStaleError listing everything that moved since the plan was made (with
    DIGEST_KEY, the state's: the secret values too, by keyed digest, and the VARIABLES
    given now against the digests of those given at plan time)."""
    moved = hold_moves(saved, doc) + state_moves(saved, doc)
    if variables is not None and digest_key is not None:
        moved += variable_moves(saved, variables, digest_key)
    moved += deployment_moves(saved, observed)
    if desired is not None:
        moved += config_moves(saved, desired)
    if desired is not None and digest_key is not None:
        moved += secret_moves(saved.plan, desired, digest_key)
    refuse_stale(moved)


def variable_digests(values: Mapping[str, str], key: bytes) -> dict[str, str]:
    """Keyed digests of the variables given from outside the file (`--var`, `--var-file`,
    PLANNER_VAR_NAME): what a saved plan records of them (a value may be a secret)."""
    return {name: secret_digest(key, f"var.{name}", v) for name, v in sorted(values.items())}


def variable_moves(saved: SavedPlan, given: Mapping[str, str], key: bytes) -> list[str]:
    """Each variable given now with another value than at plan time, or given at one time
    only (named, never its value)."""
    now = variable_digests(given, key)
    moves = []
    for name in sorted(set(now) | set(saved.variables)):
        planned, current = saved.variables.get(name), now.get(name)
        if planned == current:
            continue
        if current is None:
            how = "was given at plan time, not now"
        elif planned is None:
            how = "is given now, not at plan time"
        else:
            how = "has another value than at plan time"
        moves.append(
            f"the variable {name} {how} (apply with the same --var, --var-file and "
            "PLANNER_VAR_NAME as the plan)"
        )
    return moves


def refuse_stale(moved: list[str]) -> None:
    """Raise PlanStaleError when anything MOVED: the first move is the headline, the
    details list the others, once each."""
    if moved:
        first, *others = moved
        raise PlanStaleError(f"the plan is stale: {first}", details=others, hint=STALE_HINT)


def hold_moves(saved: SavedPlan, doc: StateDocument) -> list[str]:
    """Each deployment the plan plans that a rollback holds now, and each it lists as held
    that is released now (`planner rollback`, `planner release` since the plan)."""
    moves = []
    listed = {held.address for held in saved.plan.held}
    for change in saved.plan.changes:
        recorded = doc.deployments.get(change.moved_from or change.name)
        hold = recorded.held if recorded is not None else None
        if hold is not None and change.name not in listed:
            moves.append(
                f"deployment {change.name} was rolled back since the plan (to revision "
                f"{hold.revision_id} by {hold.by} since {hold.since}, and held): the plan must "
                "not touch it"
            )
    for name in sorted(listed):
        recorded = doc.deployments.get(name)
        if recorded is not None and recorded.held is None:
            moves.append(f"deployment {name} was released since the plan (it listed it as held)")
    return moves


def state_moves(saved: SavedPlan, doc: StateDocument) -> list[str]:
    moves = []
    if (saved.endpoint.rstrip("/"), saved.tenant_id) != (doc.endpoint.rstrip("/"), doc.tenant_id):
        moves.append(
            f"the plan was made for {target_text(saved.endpoint, saved.tenant_id)}, "
            f"the state is for {target_text(doc.endpoint, doc.tenant_id)}"
        )
    if doc.lineage != saved.lineage:
        moves.append(
            f"the state was replaced (lineage {saved.lineage} when planned, now {doc.lineage})"
        )
    elif doc.serial != saved.serial:
        moves.append(f"the state moved from serial {saved.serial} to {doc.serial}")
    return moves


def config_moves(saved: SavedPlan, desired: Mapping[str, DesiredDeployment]) -> list[str]:
    from planner.plan.saved import config_digest

    moves = []
    for name, digest in sorted(saved.config_digests.items()):
        if name not in desired:
            moves.append(f"deployment {name} is no longer in the config")
        elif config_digest(desired[name]) != digest:
            moves.append(f"the config of deployment {name} changed since the plan")
    return moves


def secret_moves(
    plan: Plan, desired: Mapping[str, DesiredDeployment], digest_key: bytes
) -> list[str]:
    """Each secret whose value now differs from the one planned (what a change sends, or
    records as on the server), named; its value never appears."""
    moves = []
    for change in plan.changes:
        if change.secret_digests and change.name in desired:
            values = desired[change.name].secret_values()
            moves += [
                f"the secret {name} of {change.name} changed since the plan"
                for name in moved_secrets(change, values, digest_key)
            ]
    return moves


def deployment_moves(saved: SavedPlan, observed: Observed) -> list[str]:
    moves = []
    for change in saved.plan.changes:
        name, seen = change.name, saved.seen.get(change.name)
        live = observed.by_name.get(change.moved_from or name)  # a move's: its old address
        if seen is None:
            appeared = observed.unmanaged_existing.get(name) or (
                live.id if live is not None else None
            )
            if appeared is not None and change.deployment_id is None:
                moves.append(f"deployment {name} appeared since the plan (id {appeared})")
            continue
        if live is None:
            moves.append(f"deployment {name} ({seen.id}) was deleted since the plan")
            continue
        moves += _compare(name, seen, live.id, live.updated_at, live.latest_revision_id)
        holder = observed.unmanaged_existing.get(name)  # of the name a replace creates
        if holder is not None and change.action is Action.REPLACE:
            moves.append(f"deployment {holder} holds {name}'s new remote name since the plan")
    return moves


def _compare(
    name: str, seen: SeenDeployment, id_: str, updated_at: datetime, revision: str | None
) -> list[str]:
    if seen.id != id_:
        return [f"deployment {name} is now {id_} (the plan saw {seen.id})"]
    moves = []
    if seen.updated_at != updated_at:
        moves.append(
            f"deployment {name} changed since the plan "
            f"(updated_at {_iso(seen.updated_at)} -> {_iso(updated_at)})"
        )
    if seen.latest_revision_id != revision:
        moves.append(
            f"deployment {name} has a new revision since the plan "
            f"({seen.latest_revision_id or '-'} -> {revision or '-'})"
        )
    return moves


def _iso(moment: datetime | None) -> str:
    return iso_utc(moment) if moment is not None else "-"
