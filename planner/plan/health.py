"""Revision health: is a managed deployment running the revision it was last given?

A deployment whose latest revision is its active one is converged. One whose latest
revision differs is either still rolling out (a non-final status: shown, never
re-submitted) or stuck (the latest revision ended, `*_FAILED` or otherwise, without
becoming active: the plan submits the desired revision again). Pure values: the refresh
reads them (`planner.plan.refresh.read_health`), `make_plan` decides.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from planner.api.fields import read_only_keys
from planner.api.models import Deployment, is_final_revision_status
from planner.config.desired import DesiredDeployment
from planner.plan.model import Action, Change, Rollout
from planner.plan.paths import is_ignored

READ_ONLY_REVISION_KEYS = read_only_keys("source_revision_config")


@dataclass(frozen=True)
class RevisionHealth:
    """The latest revision of a deployment that is not its active one."""

    deployment_id: str
    revision_id: str
    status: str  # a RevisionStatus value
    active_revision_id: str | None = None

    @property
    def is_in_progress(self) -> bool:
        return not is_final_revision_status(self.status)

    def reason(self) -> str:
        """Why the plan submits the revision again (names the revision and its status)."""
        active = self.active_revision_id or "none"
        return (
            f"latest revision {self.revision_id} is {self.status} (active revision: "
            f"{active}): the desired revision is submitted again"
        )


def is_converged(deployment: Deployment) -> bool:
    """Latest and active revision agree (the list says so: no revision read needed)."""
    return deployment.latest_revision_id in (None, deployment.active_revision_id)


def rollout_of(name: str, health: RevisionHealth) -> Rollout:
    return Rollout(
        name=name,
        deployment_id=health.deployment_id,
        revision_id=health.revision_id,
        status=health.status,
        active_revision_id=health.active_revision_id,
    )


def resubmitted(
    change: Change, desired: DesiredDeployment, observed: Deployment, health: RevisionHealth
) -> Change:
    """CHANGE as a new revision: its one PATCH also carries the whole desired
    `source_revision_config`, which makes the control plane submit it again even when
    nothing in it changed (a deployment's fields changed too go in the same PATCH)."""
    body = copy.deepcopy(change.request_body)
    body["source_revision_config"] = {
        **revision_config(desired, observed),
        **body.get("source_revision_config", {}),
    }
    update = {"action": Action.NEW_REVISION, "request_body": body, "reason": health.reason()}
    return change.model_copy(update=update)


def revision_config(desired: DesiredDeployment, observed: Deployment) -> dict[str, Any]:
    """The revision config to send again: the config's over the deployment's own, where
    a path under `ignore_changes` keeps the deployment's value (never overwritten)."""
    seen = observed.source_revision_config.model_dump(mode="json", exclude_none=True)
    config = {k: v for k, v in seen.items() if k not in READ_ONLY_REVISION_KEYS}
    ignore = desired.lifecycle.ignore_changes
    wanted = desired.managed().get("source_revision_config") or {}
    for key, value in wanted.items():
        if not is_ignored(f"source_revision_config.{key}", ignore):
            config[key] = copy.deepcopy(value)
    return config
