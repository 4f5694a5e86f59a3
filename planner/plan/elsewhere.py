"""Managed elsewhere: deployments another state of the same config records (another
environment's, or any state of the same PostgreSQL schema). They are never "not
managed" here, never adopted by `import --all` or `import NAME ID`, and never created
twice: a config that declares one gets an error naming its owner. Pure: the owners come in as data
(`StateBackend.managed_elsewhere`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from planner.api.models import Deployment
from planner.errors import StateError
from planner.plan.model import PlanProblem


def not_managed_elsewhere(
    deployments: Iterable[Deployment], owners: Mapping[str, str]
) -> list[Deployment]:
    """DEPLOYMENTS less those another state records (OWNERS: id -> that state)."""
    return [d for d in deployments if d.id not in owners]


def owned_elsewhere_problem(
    name: str, existing_id: str, owner: str, remote_name: str | None = None
) -> PlanProblem:
    """NAME would create a deployment (REMOTE_NAME, default NAME) another state already
    manages."""
    remote = remote_name or name
    return PlanProblem(
        name=name,
        message=f"{remote} already exists (id {existing_id}) and is managed by the state {owner}",
        hint="one deployment has one owner: declare it in one environment only, or give "
        'each environment its own remote name (name = "...-${env}")',
    )


def check_not_owned_elsewhere(name: str, deployment_id: str, owners: Mapping[str, str]) -> None:
    """StateError when DEPLOYMENT_ID, to be imported as NAME, is recorded by another
    state (OWNERS: id -> that state): one deployment has one owner."""
    owner = owners.get(deployment_id)
    if owner is None:
        return
    raise StateError(
        f"deployment {deployment_id} ({name}) is managed by the state {owner}: "
        "it cannot be imported here too",
        hint="one deployment has one owner: manage it from that state, or "
        "`planner state rm` it there first (with that state's --env or --state)",
    )
