"""What apply writes into the state for a deployment it created, changed or left alone."""

from __future__ import annotations

from planner.api.models import Deployment
from planner.config.desired import DesiredDeployment
from planner.plan.refresh import revision_fields
from planner.secrets import secret_digest
from planner.state.records import RecordedDeployment


def desired_digests(desired: DesiredDeployment, key: bytes) -> dict[str, str]:
    """Keyed digests of the desired secrets (the only form a secret is recorded in)."""
    return {n: secret_digest(key, n, v) for n, v in sorted(desired.secret_values().items())}


def recorded_from(
    desired: DesiredDeployment, deployment: Deployment, key: bytes
) -> RecordedDeployment:
    """The record after a create or PATCH: the config's values, the server's ids."""
    return RecordedDeployment(
        name=desired.name,
        id=deployment.id,
        managed=desired.managed(),
        secret_digests=desired_digests(desired, key),
        protect=desired.lifecycle.protect,
        **revision_fields(deployment),
    )


def rerecorded(
    desired: DesiredDeployment, previous: RecordedDeployment, key: bytes
) -> RecordedDeployment:
    """The record of a deployment the plan leaves alone: the config's current values
    (so released fields and accepted drift stop showing), the ids as they were."""
    return previous.model_copy(
        update={
            "managed": desired.managed(),
            "secret_digests": desired_digests(desired, key),
            "protect": desired.lifecycle.protect,
        }
    )


def with_revision(
    recorded: RecordedDeployment, revision_id: str, *, deployed: bool
) -> RecordedDeployment:
    """The record once a revision finished: it is the latest, and active when DEPLOYED."""
    update: dict[str, str] = {"latest_revision_id": revision_id}
    if deployed:
        update["active_revision_id"] = revision_id
    return recorded.model_copy(update=update)
